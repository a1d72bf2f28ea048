//! The code's shape, held: no two source files import each other, through
//! any number of files between (a file can be understood from the ones it
//! uses, never needing one that needs it); the core's top-level modules
//! are layered the same way; and a file holds one idea, so it grows past
//! about 1,200 lines only with a reason written here.
use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use proc_macro2::{Spacing, TokenStream, TokenTree};
use syn::visit::Visit;

// ---------------------------------------------------------------------------
// The file graph: which file uses an item defined in which other file.
//
// Every crate root of a package (lib, bins, build script, tests, benches,
// examples) is parsed with `syn`, following `mod` declarations into files,
// and every path the code names (in `use`, types, expressions, patterns and
// macro arguments) is resolved the way rustc resolves it: through `crate`,
// `super`, `self`, child modules, imports and glob imports, to the file that
// defines the item. A re-export (`pub use`) is a door, not a use: a path
// through it leads to the item's own file, and the file holding the door
// depends on nothing for it. Code under `#[cfg(test)]` in a file is left
// out (a file's tests may use anything); a test module in its own file is a
// file like any other, which nothing uses, so it cannot close a circle.
//
// A folder's front file (`mod.rs`, or `a.rs` beside `a/`) and its own
// files may use each other: the front file puts the folder's parts
// together and holds what they share, the way Rust lays a module out.
// Every other use counts: between siblings, across folders, up more than
// one level, down more than one.
// ---------------------------------------------------------------------------

/// Where a path leads.
#[derive(Clone, Copy)]
enum Target {
    /// A module, every segment found.
    Module(usize),
    /// An item defined in this file.
    Item(usize),
    /// A segment not found after this module: a macro-made item, most
    /// often, which still lives in that module's file.
    Inside(usize),
}

struct Import {
    /// The name it brings in; `None` for a glob (`use x::*`).
    name: Option<String>,
    path: Vec<String>,
    private: bool,
}

#[derive(Default)]
struct Module {
    file: usize,
    parent: Option<usize>,
    root: usize,
    children: BTreeMap<String, usize>,
    items: BTreeSet<String>,
    imports: Vec<Import>,
    /// Paths named by the module's code, with their first segment as written.
    paths: Vec<Vec<String>>,
}

/// Files and their uses of each other, for one or more packages.
#[derive(Default)]
struct FileGraph {
    base: PathBuf,
    files: Vec<PathBuf>,
    file_ids: BTreeMap<PathBuf, usize>,
    modules: Vec<Module>,
    /// A parse error or a `mod` without its file: the scan is incomplete.
    problems: Vec<String>,
    /// What a name means in a module, once looked up: glob imports make
    /// the same look-ups again and again (`use super::*` in every child).
    /// `None` while it is being looked up, so an import circle ends.
    known: RefCell<HashMap<(usize, String), Option<Target>>>,
    /// Look-ups that met one still under way: what they found missing may
    /// be found once it is done, so it is not kept.
    unfinished: Cell<usize>,
}

/// What one item tree names: paths, imports and the items it defines.
#[derive(Default)]
struct Names {
    paths: Vec<Vec<String>>,
    imports: Vec<Import>,
    items: Vec<String>,
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && matches!(&a.meta, syn::Meta::List(l) if l.tokens.to_string() == "test")
    })
}

fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// The files a crate root's `mod` declarations name (beside it, as rustc
/// looks for them); none if it cannot be read.
fn file_modules(root: &Path) -> Vec<PathBuf> {
    let dir = root.parent().unwrap();
    let Ok(ast) = std::fs::read_to_string(root).map(|t| syn::parse_file(&t)) else {
        return Vec::new();
    };
    let Ok(ast) = ast else { return Vec::new() };
    let mut out = Vec::new();
    for item in &ast.items {
        if let syn::Item::Mod(m) = item {
            if m.content.is_some() {
                continue;
            }
            match path_attr(&m.attrs) {
                Some(p) => out.push(dir.join(p)),
                None => {
                    out.push(dir.join(format!("{}.rs", m.ident)));
                    out.push(dir.join(m.ident.to_string()).join("mod.rs"));
                }
            }
        }
    }
    out
}

fn flatten_use(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    private: bool,
    out: &mut Vec<Import>,
) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            flatten_use(&p.tree, prefix, private, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) if n.ident == "self" => out.push(Import {
            name: prefix.last().cloned(),
            path: prefix.clone(),
            private,
        }),
        syn::UseTree::Name(n) => {
            let mut path = prefix.clone();
            path.push(n.ident.to_string());
            out.push(Import {
                name: Some(n.ident.to_string()),
                path,
                private,
            });
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix.clone();
            if r.ident != "self" {
                path.push(r.ident.to_string());
            }
            out.push(Import {
                name: Some(r.rename.to_string()),
                path,
                private,
            });
        }
        syn::UseTree::Glob(_) => out.push(Import {
            name: None,
            path: prefix.clone(),
            private,
        }),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                flatten_use(t, prefix, private, out);
            }
        }
    }
}

fn use_of(u: &syn::ItemUse, out: &mut Vec<Import>) {
    let mut prefix = Vec::new();
    if u.leading_colon.is_some() {
        prefix.push("::".to_string());
    }
    let private = matches!(u.vis, syn::Visibility::Inherited);
    flatten_use(&u.tree, &mut prefix, private, out);
}

/// Paths in a macro's tokens (`format!`, `matches!`, `vec!` and the rest are
/// not parsed by syn): runs of `ident :: ident …`, leaving out fields and
/// methods (`.x`) and macro variables (`$x`, but `$crate` is `crate`).
fn token_paths(tokens: TokenStream, out: &mut Vec<Vec<String>>) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let punct =
        |i: usize, c: char| matches!(tokens.get(i), Some(TokenTree::Punct(p)) if p.as_char() == c);
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Group(g) => {
                token_paths(g.stream(), out);
                i += 1;
            }
            TokenTree::Ident(id) => {
                let after_dot = i > 0 && punct(i - 1, '.');
                let macro_var = i > 0 && punct(i - 1, '$') && *id != "crate";
                let mut path = vec![id.to_string()];
                let mut j = i + 1;
                while let (Some(TokenTree::Punct(a)), true, Some(TokenTree::Ident(next))) =
                    (tokens.get(j), punct(j + 1, ':'), tokens.get(j + 2))
                {
                    if a.as_char() != ':' || a.spacing() != Spacing::Joint {
                        break;
                    }
                    path.push(next.to_string());
                    j += 3;
                }
                if !after_dot && !macro_var {
                    out.push(path);
                }
                i = j;
            }
            _ => i += 1,
        }
    }
}

impl<'ast> Visit<'ast> for Names {
    fn visit_path(&mut self, p: &'ast syn::Path) {
        let mut segs: Vec<String> = Vec::new();
        if p.leading_colon.is_some() {
            segs.push("::".into());
        }
        segs.extend(p.segments.iter().map(|s| s.ident.to_string()));
        self.paths.push(segs);
        syn::visit::visit_path(self, p);
    }
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.visit_path(&m.path);
        token_paths(m.tokens.clone(), &mut self.paths);
    }
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        use_of(u, &mut self.imports);
    }
    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if let Some(name) = item_name(item) {
            self.items.push(name);
        }
        if !is_cfg_test(item_attrs(item)) {
            syn::visit::visit_item(self, item);
        }
    }
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::ExternCrate(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::ForeignMod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::TraitAlias(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

fn item_name(item: &syn::Item) -> Option<String> {
    let id = match item {
        syn::Item::Const(i) => &i.ident,
        syn::Item::Enum(i) => &i.ident,
        syn::Item::ExternCrate(i) => i.rename.as_ref().map_or(&i.ident, |r| &r.1),
        syn::Item::Fn(i) => &i.sig.ident,
        syn::Item::Macro(i) => i.ident.as_ref()?,
        syn::Item::Static(i) => &i.ident,
        syn::Item::Struct(i) => &i.ident,
        syn::Item::Trait(i) => &i.ident,
        syn::Item::TraitAlias(i) => &i.ident,
        syn::Item::Type(i) => &i.ident,
        syn::Item::Union(i) => &i.ident,
        _ => return None,
    };
    Some(id.to_string())
}

impl FileGraph {
    fn new(base: &Path) -> FileGraph {
        FileGraph {
            base: base.to_path_buf(),
            ..FileGraph::default()
        }
    }

    /// Every crate root of the package in `dir` (relative to the base).
    fn add_package(&mut self, dir: &str) {
        let pkg = self.base.join(dir);
        let mut roots = Vec::new();
        for root in ["src/lib.rs", "src/main.rs", "build.rs"] {
            roots.push(pkg.join(root));
        }
        for targets in ["src/bin", "tests", "benches", "examples"] {
            let Ok(entries) = std::fs::read_dir(pkg.join(targets)) else {
                continue;
            };
            for entry in entries {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    roots.push(path.join("main.rs"));
                } else if path.extension().is_some_and(|e| e == "rs") {
                    roots.push(path);
                }
            }
        }
        // A file another root declares with `mod` is a module of that root,
        // not a crate of its own (tests/tests.rs and its modules).
        let declared: BTreeSet<PathBuf> = roots.iter().flat_map(|r| file_modules(r)).collect();
        for root in roots.into_iter().filter(|r| r.is_file()) {
            if !declared.contains(&root) {
                self.add_crate(&root);
            }
        }
    }

    fn add_crate(&mut self, root: &Path) {
        let dir = root.parent().unwrap().to_path_buf();
        self.add_file_module(root, None, dir);
    }

    fn file_id(&mut self, path: &Path) -> usize {
        let rel = path.strip_prefix(&self.base).unwrap_or(path).to_path_buf();
        let next = self.files.len();
        *self.file_ids.entry(rel.clone()).or_insert_with(|| {
            self.files.push(rel);
            next
        })
    }

    /// A module in its own file; `dir` is where its children's files are.
    fn add_file_module(
        &mut self,
        path: &Path,
        parent: Option<usize>,
        dir: PathBuf,
    ) -> Option<usize> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) => {
                self.problems.push(format!("{}: {e}", path.display()));
                return None;
            }
        };
        let ast = match syn::parse_file(&text) {
            Ok(a) => a,
            Err(e) => {
                self.problems.push(format!("{}: {e}", path.display()));
                return None;
            }
        };
        let file = self.file_id(path);
        Some(self.add_module(file, parent, &ast.items, dir))
    }

    fn add_module(
        &mut self,
        file: usize,
        parent: Option<usize>,
        items: &[syn::Item],
        dir: PathBuf,
    ) -> usize {
        let id = self.modules.len();
        let root = parent.map_or(id, |p| self.modules[p].root);
        self.modules.push(Module {
            file,
            parent,
            root,
            ..Module::default()
        });
        let mut names = Names::default();
        for item in items {
            match item {
                syn::Item::Mod(m) => {
                    let name = m.ident.to_string();
                    let child = match &m.content {
                        Some(_) if is_cfg_test(&m.attrs) => None,
                        Some((_, inner)) => {
                            Some(self.add_module(file, Some(id), inner, dir.join(&name)))
                        }
                        None => {
                            let (path, child_dir) = match path_attr(&m.attrs) {
                                Some(p) => {
                                    // Outside inline modules a path is from the
                                    // file's own folder, whatever the file.
                                    let top = parent.is_none_or(|q| self.modules[q].file != file);
                                    let p = if top {
                                        self.base.join(&self.files[file]).parent().unwrap().join(p)
                                    } else {
                                        dir.join(p)
                                    };
                                    let d = p.parent().unwrap().to_path_buf();
                                    (p, d)
                                }
                                None => {
                                    let flat = dir.join(format!("{name}.rs"));
                                    if flat.is_file() {
                                        (flat, dir.join(&name))
                                    } else {
                                        (dir.join(&name).join("mod.rs"), dir.join(&name))
                                    }
                                }
                            };
                            self.add_file_module(&path, Some(id), child_dir)
                        }
                    };
                    if let Some(child) = child {
                        self.modules[id].children.insert(name, child);
                    }
                }
                syn::Item::Use(u) => use_of(u, &mut names.imports),
                _ => names.visit_item(item),
            }
        }
        let module = &mut self.modules[id];
        module.items.extend(names.items);
        module.imports = names.imports;
        module.paths = names.paths;
        id
    }

    /// What `name` means inside module `m`.
    fn lookup(&self, m: usize, name: &str) -> Option<Target> {
        let key = (m, name.to_string());
        if let Some(known) = self.known.borrow().get(&key) {
            if known.is_none() {
                self.unfinished.set(self.unfinished.get() + 1);
            }
            return *known;
        }
        self.known.borrow_mut().insert(key.clone(), None);
        let unfinished = self.unfinished.get();
        let found = self.find(m, name);
        if found.is_some() || self.unfinished.get() == unfinished {
            self.known.borrow_mut().insert(key, found);
        } else {
            self.known.borrow_mut().remove(&key);
        }
        found
    }

    fn find(&self, m: usize, name: &str) -> Option<Target> {
        let module = &self.modules[m];
        if let Some(&child) = module.children.get(name) {
            return Some(Target::Module(child));
        }
        if module.items.contains(name) {
            return Some(Target::Item(module.file));
        }
        let named = module
            .imports
            .iter()
            .filter(|i| i.name.as_deref() == Some(name));
        if let Some(t) = named.filter_map(|i| self.resolve(m, &i.path)).next() {
            return Some(t);
        }
        module
            .imports
            .iter()
            .filter(|i| i.name.is_none())
            .filter_map(|i| match self.resolve(m, &i.path) {
                Some(Target::Module(g)) if g != m => self.lookup(g, name),
                _ => None,
            })
            .next()
    }

    /// Where `path`, named in module `from`, leads; `None` outside the crate
    /// (std, other crates) or for a local name.
    fn resolve(&self, from: usize, path: &[String]) -> Option<Target> {
        let (first, rest) = path.split_first()?;
        let mut at = match first.as_str() {
            "crate" => self.modules[from].root,
            "self" => from,
            "super" => self.modules[from].parent?,
            "::" | "Self" => return None,
            name => match self.lookup(from, name)? {
                Target::Module(m) => m,
                other => return Some(other),
            },
        };
        for seg in rest {
            if seg == "super" {
                at = self.modules[at].parent?;
                continue;
            }
            match self.lookup(at, seg) {
                Some(Target::Module(m)) => at = m,
                Some(other) => return Some(other),
                None => return Some(Target::Inside(at)),
            }
        }
        Some(Target::Module(at))
    }

    /// Each file's front file: the file of its module's parent.
    fn front_files(&self) -> BTreeMap<String, String> {
        let name = |f: usize| self.files[f].to_string_lossy().into_owned();
        let mut front = BTreeMap::new();
        for module in &self.modules {
            if let Some(parent) = module.parent.map(|p| self.modules[p].file) {
                if parent != module.file {
                    front.insert(name(module.file), name(parent));
                }
            }
        }
        front
    }

    /// The uses that count (see above): all of them, less those between a
    /// file and its front file.
    fn layered_edges(&self) -> Graph {
        let front = self.front_files();
        let mut edges = self.edges();
        for (from, uses) in edges.iter_mut() {
            uses.retain(|to, _| front.get(from) != Some(to) && front.get(to) != Some(from));
        }
        edges
    }

    /// For each file, the files it uses, each with the first path that
    /// showed it.
    fn edges(&self) -> Graph {
        let name = |f: usize| self.files[f].to_string_lossy().into_owned();
        let mut edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for (id, module) in self.modules.iter().enumerate() {
            let uses = edges.entry(name(module.file)).or_default();
            let private_imports = module.imports.iter().filter(|i| i.private).map(|i| &i.path);
            for path in private_imports.chain(&module.paths) {
                let file = match self.resolve(id, path) {
                    Some(Target::Item(f)) => f,
                    Some(Target::Inside(m)) => self.modules[m].file,
                    _ => continue,
                };
                if file != module.file {
                    uses.entry(name(file)).or_insert_with(|| path.join("::"));
                }
            }
        }
        edges
    }
}

// ---------------------------------------------------------------------------
// Circles: strongly connected components (Tarjan), each named by a shortest
// circle through its first node and how big the tangle is.
// ---------------------------------------------------------------------------

type Graph = BTreeMap<String, BTreeMap<String, String>>;

fn components(graph: &Graph) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a Graph,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        out: Vec<Vec<String>>,
    }
    fn connect<'a>(s: &mut State<'a>, v: &'a str) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flat_map(|e| e.keys()) {
            if !s.index.contains_key(w.as_str()) {
                connect(s, w);
                let lw = s.low[w.as_str()];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w.as_str()) {
                let iw = s.index[w.as_str()];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            connect(&mut s, v);
        }
    }
    s.out.sort();
    s.out
}

/// A shortest circle from `start` back to it (breadth first).
fn shortest_circle(graph: &Graph, start: &str) -> Option<Vec<String>> {
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(at) = queue.pop_front() {
        for next in graph.get(at).into_iter().flat_map(|e| e.keys()) {
            if next == start {
                let mut back = Vec::new();
                let mut node = at;
                while node != start {
                    back.push(node.to_string());
                    node = came_from[node];
                }
                back.reverse();
                let mut circle = vec![start.to_string()];
                circle.extend(back);
                circle.push(start.to_string());
                return Some(circle);
            }
            if !came_from.contains_key(next.as_str()) && next != start {
                came_from.insert(next, at);
                queue.push_back(next);
            }
        }
    }
    None
}

/// Each tangle of files that import each other, named: a shortest circle
/// with the path that makes each step, and the tangle's size if larger.
fn circles(graph: &Graph) -> Vec<String> {
    components(graph)
        .iter()
        .map(|comp| {
            let circle = shortest_circle(graph, &comp[0]).unwrap();
            let mut text = circle[0].clone();
            for step in circle.windows(2) {
                let why = &graph[&step[0]][&step[1]];
                text.push_str(&format!(" -> {} (`{why}`)", step[1]));
            }
            if comp.len() > circle.len() - 1 {
                text.push_str(&format!(
                    ", in a tangle of {} files: {}",
                    comp.len(),
                    comp.join(", ")
                ));
            }
            text
        })
        .collect()
}

/// The workspace's files and their uses of each other, scanned once for
/// all the tests here.
struct Workspace {
    base: PathBuf,
    files: Vec<PathBuf>,
    edges: Graph,
    /// Every path written from the core's crate name on, with its file.
    core_paths: Vec<(PathBuf, Vec<String>)>,
}

fn workspace() -> &'static Workspace {
    static WORKSPACE: OnceLock<Workspace> = OnceLock::new();
    WORKSPACE.get_or_init(|| {
        let base = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut graph = FileGraph::new(base);
        graph.add_package(".");
        for entry in std::fs::read_dir(base.join("crates")).unwrap() {
            let dir = entry.unwrap().path();
            if dir.join("Cargo.toml").is_file() {
                graph.add_package(&dir.strip_prefix(base).unwrap().to_string_lossy());
            }
        }
        // A file the scan could not read would hide its uses.
        assert!(graph.problems.is_empty(), "{}", graph.problems.join("\n"));
        let core_paths = graph
            .modules
            .iter()
            .flat_map(|m| {
                let imports = m.imports.iter().map(|i| &i.path);
                imports.chain(&m.paths).map(|path| (m.file, path))
            })
            .filter(|(_, path)| path.first().is_some_and(|s| s == "tarmac_lens_core"))
            .map(|(file, path)| (graph.files[file].clone(), path.clone()))
            .collect();
        Workspace {
            base: base.to_path_buf(),
            edges: graph.layered_edges(),
            files: graph.files,
            core_paths,
        }
    })
}

/// Circles still to break, each named by the file its report starts
/// with, and why it is still there.
const KNOWN_CIRCLES: &[(&str, &str)] = &[];

#[test]
fn no_source_files_import_each_other() {
    let graph = workspace();
    let edges = &graph.edges;
    // The scan sees the code: every package's files, and the uses a reader
    // would name.
    for file in [
        "crates/core/src/browse/mod.rs",
        "crates/js/src/lib.rs",
        "src/web/worker/range.rs",
        "tests/module_graph.rs",
    ] {
        assert!(edges.contains_key(file), "{file} not scanned");
    }
    assert!(graph.files.len() > 300, "{} files", graph.files.len());
    assert!(
        edges["crates/core/src/browse/mod.rs"].contains_key("crates/core/src/index/builder.rs"),
        "the session's use of the index builder not seen: {:?}",
        edges["crates/core/src/browse/mod.rs"]
    );
    let found = circles(edges);
    let (known, found): (Vec<_>, Vec<_>) = found.into_iter().partition(|c| {
        KNOWN_CIRCLES
            .iter()
            .any(|(f, _)| c.starts_with(&format!("{f} ")))
    });
    assert!(
        found.is_empty(),
        "files that import each other:\n{}",
        found.join("\n")
    );
    for (file, why) in KNOWN_CIRCLES {
        assert!(!why.is_empty(), "{file}: no reason");
        assert!(
            known.iter().any(|c| c.starts_with(&format!("{file} "))),
            "{file} is in no circle any more: drop it from KNOWN_CIRCLES"
        );
    }
}

/// The core's top-level modules, each folder taken as one, form layers too.
#[test]
fn the_core_modules_import_each_other_without_a_circle() {
    let src = "crates/core/src/";
    let top = |file: &str| -> Option<String> {
        let rel = file.strip_prefix(src)?;
        let first = rel.split('/').next().unwrap().trim_end_matches(".rs");
        (first != "lib").then(|| first.to_string())
    };
    let mut modules: Graph = BTreeMap::new();
    for (from, uses) in &workspace().edges {
        let Some(a) = top(from) else { continue };
        let entry = modules.entry(a.clone()).or_default();
        for (to, why) in uses {
            if let Some(b) = top(to).filter(|b| *b != a) {
                entry.entry(b).or_insert_with(|| why.clone());
            }
        }
    }
    assert!(modules.len() > 20, "{} modules found", modules.len());
    assert!(
        modules["browse"].contains_key("index"),
        "the scan sees imports: {modules:?}"
    );
    let found = circles(&modules);
    assert!(
        found.is_empty(),
        "core modules that import each other:\n{}",
        found.join("\n")
    );
}

/// The scan is tested on a small crate made to hold one circle, hidden the
/// ways real code hides one (a glob import of a parent, a path inside a
/// macro, a name brought in through a re-export, an inline module), beside
/// uses that are no circle (a re-export façade over the files it
/// re-exports, a file's tests using anything, a local name like a module's).
#[test]
fn the_scan_finds_a_circle_and_only_it() {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/module_graph");
    let mut graph = FileGraph::new(&base);
    graph.add_crate(&base.join("src/lib.rs"));
    assert!(graph.problems.is_empty(), "{}", graph.problems.join("\n"));
    assert_eq!(graph.files.len(), 7, "{:?}", graph.files);
    // A front file and its own file use each other, seen but allowed.
    let all = graph.edges();
    assert!(all["src/shapes/mod.rs"].contains_key("src/shapes/area.rs"));
    assert!(all["src/shapes/area.rs"].contains_key("src/shapes/mod.rs"));
    let edges = graph.layered_edges();
    assert_eq!(
        circles(&edges),
        ["src/shapes/area.rs -> src/units.rs (`Metres::square`) \
          -> src/shapes/sides.rs (`super::super::shapes::sides::SIDES`) \
          -> src/shapes/area.rs (`super::area::CORNERS`)"]
    );
    // Break the circle where the fixture says it is made: none left.
    let mut edges = edges;
    edges
        .get_mut("src/units.rs")
        .unwrap()
        .remove("src/shapes/sides.rs");
    assert_eq!(circles(&edges), Vec::<String>::new());
}

#[test]
fn circles_are_named_and_tangles_sized() {
    let mut graph: Graph = BTreeMap::new();
    let mut edge = |a: &str, b: &str| {
        graph
            .entry(a.into())
            .or_default()
            .insert(b.into(), format!("{b}::X"));
    };
    edge("a", "b");
    edge("b", "c");
    edge("c", "a");
    edge("b", "d");
    edge("d", "b");
    edge("d", "e");
    assert_eq!(
        circles(&graph),
        ["a -> b (`b::X`) -> c (`c::X`) -> a (`a::X`), in a tangle of 4 files: a, b, c, d"]
    );
    graph.get_mut("c").unwrap().clear();
    assert_eq!(circles(&graph), ["b -> d (`d::X`) -> b (`b::X`)"]);
    graph.get_mut("d").unwrap().remove("b");
    assert!(circles(&graph).is_empty());
}

// ---------------------------------------------------------------------------
// One idea per file.
// ---------------------------------------------------------------------------

/// A file longer than this is more than one idea, unless it is listed below
/// with the reason it is one.
const LONG: usize = 1_200;

/// Files allowed past `LONG` lines, each with why it is still one idea.
const LONG_FILES: &[(&str, &str)] = &[(
    "tests/browser_model.rs",
    "the browser model's scenarios, one test each over one harness; \
     still to be split by subject into modules of tests/tests.rs",
)];

#[test]
fn no_source_file_holds_more_than_one_idea() {
    let graph = workspace();
    let mut long = Vec::new();
    let mut lengths = BTreeMap::new();
    for file in &graph.files {
        let text = std::fs::read_to_string(graph.base.join(file)).unwrap();
        let lines = text.lines().count();
        let name = file.to_string_lossy().into_owned();
        lengths.insert(name.clone(), lines);
        if lines > LONG && !LONG_FILES.iter().any(|(f, _)| *f == name) {
            long.push(format!("{name} ({lines} lines)"));
        }
    }
    assert!(
        long.is_empty(),
        "files over {LONG} lines with no reason in LONG_FILES (split them by idea, or say why they are one):\n{}",
        long.join("\n")
    );
    for (file, why) in LONG_FILES {
        assert!(!why.is_empty(), "{file}: no reason");
        let lines = lengths.get(*file).copied();
        assert!(
            lines.is_some_and(|n| n > LONG),
            "{file} is listed as long ({lines:?} lines): drop it from LONG_FILES"
        );
    }
}

/// The worker roles (each a file or folder of `src/web/worker/`) share the
/// runtime and the range port, never each other: a role can be changed
/// without reading another.
#[test]
fn no_worker_role_imports_another() {
    let roles = ["session", "range", "report", "diff", "warmup"];
    let worker = "src/web/worker/";
    let role_of = |file: &str| -> Option<String> {
        let first = file
            .strip_prefix(worker)?
            .split('/')
            .next()?
            .trim_end_matches(".rs");
        roles.contains(&first).then(|| first.to_string())
    };
    let edges = &workspace().edges;
    let mut found_roles = BTreeSet::new();
    let mut crossings = Vec::new();
    for (from, uses) in edges {
        let Some(a) = role_of(from) else { continue };
        found_roles.insert(a.clone());
        for (to, why) in uses {
            if role_of(to).is_some_and(|b| b != a) {
                crossings.push(format!("{from} uses {to} (`{why}`)"));
            }
        }
    }
    assert_eq!(
        found_roles.len(),
        roles.len(),
        "roles found: {found_roles:?}"
    );
    assert!(crossings.is_empty(), "{}", crossings.join("\n"));
}

/// The core's namespaces: modules its front door (`crates/core/src/lib.rs`)
/// makes public, because their names would clash at the top.
const CORE_NAMESPACES: &[&str] = &["compressed", "coverage", "dataflow", "diff", "report"];

#[test]
fn the_core_is_used_through_its_front_door() {
    let ws = workspace();
    let lib = std::fs::read_to_string(ws.base.join("crates/core/src/lib.rs")).unwrap();
    let public: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod ")?.strip_suffix(';'))
        .collect();
    assert_eq!(public, CORE_NAMESPACES, "the core's public modules");
    // A path through two modules (`tarmac_lens_core::a::b::Item`) reaches
    // behind the door, except among the reports, each a module of its own.
    let deep: BTreeSet<String> = ws
        .core_paths
        .iter()
        .filter(|(file, _)| !file.starts_with(ws.base.join("crates/core/src")))
        .filter(|(_, path)| {
            let module = |i: usize| {
                path.get(i)
                    .is_some_and(|s| s.starts_with(|c: char| c.is_ascii_lowercase()))
                    && path.len() > i + 1
            };
            module(1) && module(2) && path[1] != "report"
        })
        .map(|(file, path)| {
            let file = file.strip_prefix(&ws.base).unwrap().display();
            format!("{file}: {}", path.join("::"))
        })
        .collect();
    assert!(
        deep.is_empty(),
        "paths behind the core's front door:\n{}",
        deep.iter().cloned().collect::<Vec<_>>().join("\n")
    );
}
