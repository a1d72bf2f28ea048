//! Source lines from the image's DWARF: the `lines` command, and the
//! `file:line` that `calltree --lines` and `profile --lines` print beside
//! function names.

use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use tarmac_lens_core::{report::source_lines, DebugInfo, TraceSource};

use super::{display_name, write_stdout, Common};

/// The image's DWARF; `Ok(None)` when it has none.
pub(super) fn load(common: &Common, image: &Path) -> Result<Option<DebugInfo>, String> {
    let data = std::fs::read(image).map_err(|e| format!("{}: {}", image.display(), e))?;
    DebugInfo::from_elf_bytes(Arc::from(data), common.load_offset.unwrap_or(0))
        .map_err(|e| format!("{}: {}", image.display(), e))
}

fn no_dwarf(image: &Path) -> String {
    format!(
        "{}: no DWARF line information (built without -g, or stripped)",
        image.display()
    )
}

/// For `--lines`: the DWARF, or `None` when not asked for. An image
/// without DWARF is said once, and the names print as without `--lines`.
pub(super) fn beside_names(common: &Common, wanted: bool) -> Result<Option<DebugInfo>, String> {
    if !wanted {
        return Ok(None);
    }
    let Some(image) = &common.image else {
        return Err("--lines needs --image ELF: source lines come from its DWARF".into());
    };
    let info = load(common, image)?;
    if info.is_none() && !common.quiet {
        eprintln!(
            "tarmac-lens: warning: {}; no file:line beside the names",
            no_dwarf(image)
        );
    }
    Ok(info)
}

/// `name (file:line)`, the location of `addr`; `name` alone without one.
pub(super) fn with_location(name: String, dwarf: Option<&DebugInfo>, addr: u64) -> String {
    let Some(dwarf) = dwarf else {
        return name;
    };
    let location = match dwarf.location(addr) {
        Ok(Some(l)) => l.to_string(),
        Ok(None) => return name,
        Err(e) => e.to_string(),
    };
    if name.is_empty() {
        format!("({location})")
    } else {
        format!("{name} ({location})")
    }
}

/// Where `file` (as DWARF names it) is under `dir`: the whole name first,
/// then with leading directories cut one by one, as a build directory's
/// layout rarely matches the reader's.
fn find_source(dir: &Path, file: &str) -> Option<String> {
    let parts: Vec<&std::ffi::OsStr> = Path::new(file)
        .components()
        .filter_map(|c| match c {
            Component::Normal(p) => Some(p),
            _ => None,
        })
        .collect();
    (0..parts.len()).find_map(|skip| {
        let path: PathBuf = dir.join(parts[skip..].iter().collect::<PathBuf>());
        std::fs::read(&path)
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    })
}

pub(super) fn cmd_lines(
    common: &Common,
    source_dir: Option<&Path>,
    json: bool,
) -> Result<(), String> {
    let Some(image_path) = &common.image else {
        return Err(
            "lines needs --image ELF: the image's DWARF maps instructions to source lines".into(),
        );
    };
    let symbols = common.image()?;
    // One core's lines: several cores' counts in one column would say
    // nothing about either.
    let source = common.open_engine()?;
    let bar = common.progress(source.len());
    // The DWARF is read while the trace is: neither waits for the other.
    let (info, pcs) = std::thread::scope(|s| {
        let info = s.spawn(|| load(common, image_path));
        let pcs = source_lines::count_pcs(source, common.parse_options(), |done| {
            if let Some(b) = &bar {
                b.set_position(done);
            }
        })
        .map_err(|e| format!("{}: {}", display_name(&common.trace), e));
        let info = info
            .join()
            .unwrap_or_else(|_| Err("reading the DWARF failed".into()));
        (info, pcs)
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    let info = info?.ok_or_else(|| no_dwarf(image_path))?;
    let pcs = pcs?;
    super::warn_unparsed(common, &pcs.unparsed);
    let counts = source_lines::attribute(&pcs, &info, symbols.as_ref())
        .map_err(|e| format!("{}: {}", image_path.display(), e))?;
    let out = if json {
        source_lines::render_json(&counts)
    } else {
        let find = |file: &str| source_dir.and_then(|d| find_source(d, file));
        source_lines::render_text(&counts, &find)
    };
    write_stdout(&out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_found_with_leading_directories_cut() {
        let dir = std::env::temp_dir().join(format!("tarmac-lens-src-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("programs")).unwrap();
        std::fs::write(dir.join("programs/a.c"), "int a;\n").unwrap();
        std::fs::write(dir.join("b.c"), "int b;\n").unwrap();
        assert_eq!(
            find_source(&dir, "./programs/a.c").as_deref(),
            Some("int a;\n")
        );
        assert_eq!(
            find_source(&dir, "/build/x/programs/a.c").as_deref(),
            Some("int a;\n")
        );
        assert_eq!(
            find_source(&dir, "/elsewhere/b.c").as_deref(),
            Some("int b;\n")
        );
        assert_eq!(find_source(&dir, "c.c"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
