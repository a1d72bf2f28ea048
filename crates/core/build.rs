//! Compiles Perfetto's trace messages (`proto/`, trimmed copies of its
//! published `.proto` files) into Rust types for the Perfetto export, in
//! pure Rust: `protox` parses them, `prost-build` writes the types, so no
//! `protoc` binary is needed.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = "proto";
    let files = ["proto/protos/perfetto/trace/trace.proto"];
    println!("cargo:rerun-if-changed={root}");
    let descriptors = protox::compile(files, [root])?;
    prost_build::Config::new().compile_fds(descriptors)?;
    Ok(())
}
