//! Embeds the web page `tarmac-lens serve` serves, when TARMAC_LENS_PAGE
//! names it at build time: a `trunk build` dist directory or the single
//! file `scripts/single_file.mjs` makes (scripts/build-serve.sh does both
//! steps). Cargo cannot run Trunk itself, so without it the page list is
//! empty and `serve` asks for `--page DIR`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-env-changed=TARMAC_LENS_PAGE");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let mut files = Vec::new();
    if let Some(page) = std::env::var_os("TARMAC_LENS_PAGE").filter(|p| !p.is_empty()) {
        let page = PathBuf::from(page);
        let page = page.canonicalize().unwrap_or_else(|e| {
            panic!("TARMAC_LENS_PAGE={}: {e}", page.display());
        });
        println!("cargo:rerun-if-changed={}", page.display());
        if page.is_dir() {
            collect(&page, &page, &mut files);
        } else {
            files.push(("index.html".to_string(), page.clone()));
        }
        if !files.iter().any(|(name, _)| name == "index.html") {
            panic!(
                "TARMAC_LENS_PAGE={}: no index.html (a `trunk build` dist directory or one HTML file)",
                page.display()
            );
        }
    }
    files.sort();
    let mut code = String::from("&[\n");
    for (name, path) in &files {
        let _ = writeln!(
            code,
            "    ({name:?}, include_bytes!({:?})),",
            path.display().to_string()
        );
    }
    code.push(']');
    std::fs::write(out.join("page_files.rs"), code).expect("OUT_DIR is writable");
}

/// Every file under `dir`, named by its path below `root` with `/`.
fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, PathBuf)>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .path();
        if path.is_dir() {
            collect(root, &path, files);
        } else if let Ok(rel) = path.strip_prefix(root) {
            let name = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            println!("cargo:rerun-if-changed={}", path.display());
            files.push((name, path));
        }
    }
}
