//! The Web Worker half of the Tarmac Lens page: Trunk builds it to wasm
//! next to the app (see index.html); it parses the dropped trace off the
//! main thread. Needs the `web` feature, so native builds skip it.

#[cfg(target_arch = "wasm32")]
fn main() {
    tarmac_lens::web::start_worker();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "tarmac-lens-worker runs only inside a browser; use `tarmac-lens` on the command line"
    );
    std::process::exit(2);
}
