//! `tarmac-lens`: the native command-line shell around the core library.
//! In the wasm32 build the same binary starts the web app instead.

#[cfg(not(target_arch = "wasm32"))]
mod cli;

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    std::process::exit(cli::run());
}

#[cfg(target_arch = "wasm32")]
fn main() {
    tarmac_lens::web::start_app();
}
