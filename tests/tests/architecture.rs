//! The shape of the code, checked like behaviour: no function over 80 lines outside tests, and
//! no import cycle between the top-level modules of any crate (a crate's modules form layers,
//! so each can be read, tested and changed with only the ones below it in mind).
//!
//! The sources are parsed with `syn`; test code (`#[cfg(test)]` items, `#[test]` functions,
//! `tests.rs` files and `tests/` folders) is left out. A reference counts when it is code: a
//! path or `use` that names `crate::m`, or `super::m` from a top-level module; doc links do not.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use ompadapt_tests::workspace_root;
use syn::spanned::Spanned;
use syn::visit::Visit;

/// The crates whose code others read and link: every `src/` of the workspace.
const CRATES: &[&str] = &["abi", "plugin", "plugin/syntax", "pass", "runtime", "dataperf", "cli", "evaluate", "benchmarks", "tests"];

const MAX_FUNCTION_LINES: usize = 80;

fn is_test_attr(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        let p = a.path();
        if p.is_ident("test") {
            return true;
        }
        if p.is_ident("cfg") {
            let text = meta_text(&a.meta);
            return text.contains("test") && !text.contains("not (test");
        }
        false
    })
}

/// The tokens of a meta item as text.
fn meta_text(m: &syn::Meta) -> String {
    match m {
        syn::Meta::List(l) => l.tokens.to_string(),
        syn::Meta::Path(p) => p.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>().join("::"),
        syn::Meta::NameValue(_) => String::new(),
    }
}

/// Rust sources of a crate's `src/`, without test files.
fn sources(crate_dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() {
                if name != "tests" {
                    walk(&p, out);
                }
            } else if name.ends_with(".rs") && name != "tests.rs" {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&crate_dir.join("src"), &mut out);
    out.sort();
    out
}

/// A file's module path below the crate root: `src/region/declared.rs` -> ["region", "declared"].
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("under src");
    let mut parts: Vec<String> = rel.iter().map(|c| c.to_string_lossy().into_owned()).collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs").to_string();
    if !matches!(stem.as_str(), "lib" | "main" | "mod") {
        parts.push(stem);
    }
    // binaries under src/bin are crates of their own
    if parts.first().map(String::as_str) == Some("bin") {
        return Vec::new();
    }
    parts
}

struct Walker<'a> {
    file: &'a str,
    module: Vec<String>,
    long: Vec<String>,
    refs: BTreeSet<String>,
}

impl Walker<'_> {
    fn function(&mut self, name: &str, span: proc_macro2::Span) {
        let lines = span.end().line - span.start().line + 1;
        if lines > MAX_FUNCTION_LINES {
            self.long.push(format!("{}:{} `{}` has {} lines", self.file, span.start().line, name, lines));
        }
    }

    /// The top-level module a path names, seen from `self.module` (+ `inner` nested modules).
    fn target(&self, segments: &[String]) -> Option<String> {
        let first = segments.first()?;
        match first.as_str() {
            "crate" => segments.get(1).cloned(),
            "super" => {
                let depth = segments.iter().take_while(|s| *s == "super").count();
                if depth >= self.module.len() {
                    segments.get(depth).cloned()
                } else {
                    None // inside the same top-level module
                }
            }
            _ => None,
        }
    }

    fn note(&mut self, segments: Vec<String>) {
        if let Some(t) = self.target(&segments) {
            self.refs.insert(t);
        }
    }
}

fn use_paths(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_paths(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let mut v = prefix.clone();
            v.push(n.ident.to_string());
            out.push(v);
        }
        syn::UseTree::Rename(r) => {
            let mut v = prefix.clone();
            v.push(r.ident.to_string());
            out.push(v);
        }
        syn::UseTree::Glob(_) => out.push(prefix.clone()),
        syn::UseTree::Group(g) => g.items.iter().for_each(|t| use_paths(t, prefix, out)),
    }
}

impl<'ast> Visit<'ast> for Walker<'_> {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if is_test_attr(&f.attrs) {
            return;
        }
        self.function(&f.sig.ident.to_string(), f.span());
        syn::visit::visit_item_fn(self, f);
    }
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if is_test_attr(&f.attrs) {
            return;
        }
        self.function(&f.sig.ident.to_string(), f.span());
        syn::visit::visit_impl_item_fn(self, f);
    }
    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if f.default.is_some() {
            self.function(&f.sig.ident.to_string(), f.span());
        }
        syn::visit::visit_trait_item_fn(self, f);
    }
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if is_test_attr(&m.attrs) {
            return;
        }
        if m.content.is_some() {
            self.module.push(m.ident.to_string());
            syn::visit::visit_item_mod(self, m);
            self.module.pop();
        }
    }
    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if !is_test_attr(&i.attrs) {
            syn::visit::visit_item_impl(self, i);
        }
    }
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if is_test_attr(&u.attrs) {
            return;
        }
        let mut paths = Vec::new();
        use_paths(&u.tree, &mut Vec::new(), &mut paths);
        for p in paths {
            self.note(p);
        }
    }
    fn visit_path(&mut self, p: &'ast syn::Path) {
        self.note(p.segments.iter().map(|s| s.ident.to_string()).collect());
        syn::visit::visit_path(self, p);
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // format!("{}", crate::x::y) and the like: paths inside macro arguments
        if let Ok(args) = m.parse_body_with(syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated) {
            for a in args {
                self.visit_expr(&a);
            }
        }
        syn::visit::visit_macro(self, m);
    }
}

struct CrateShape {
    long: Vec<String>,
    /// top-level module -> top-level modules it uses
    graph: BTreeMap<String, BTreeSet<String>>,
}

fn crate_shape(dir: &str) -> CrateShape {
    let root = workspace_root();
    let crate_dir = root.join(dir);
    let src = crate_dir.join("src");
    let mut shape = CrateShape { long: Vec::new(), graph: BTreeMap::new() };
    for file in sources(&crate_dir) {
        let text = std::fs::read_to_string(&file).unwrap();
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let rel = file.strip_prefix(&root).unwrap().display().to_string();
        let module = module_path(&src, &file);
        let mut w = Walker { file: &rel, module: module.clone(), long: Vec::new(), refs: BTreeSet::new() };
        w.visit_file(&ast);
        shape.long.extend(w.long);
        if let Some(top) = module.first() {
            let out = shape.graph.entry(top.clone()).or_default();
            out.extend(w.refs.into_iter().filter(|t| t != top));
        }
    }
    let modules: BTreeSet<String> = shape.graph.keys().cloned().collect();
    for out in shape.graph.values_mut() {
        out.retain(|t| modules.contains(t));
    }
    shape
}

/// Strongly connected components with more than one module (Tarjan).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        next: usize,
        found: Vec<Vec<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        for w in s.graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low[w];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.on_stack.contains(w) {
                let iw = s.index[w];
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
                s.found.push(comp);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.found
}

fn describe(graph: &BTreeMap<String, BTreeSet<String>>, comp: &[String]) -> String {
    let inside: BTreeSet<&String> = comp.iter().collect();
    let mut edges = Vec::new();
    for m in comp {
        for t in &graph[m] {
            if inside.contains(t) {
                edges.push(format!("{m} -> {t}"));
            }
        }
    }
    edges.join(", ")
}

fn present(dir: &str) -> bool {
    workspace_root().join(dir).join("src").is_dir()
}

#[test]
fn no_function_is_longer_than_80_lines() {
    let mut long = Vec::new();
    for c in CRATES.iter().filter(|c| present(c)) {
        long.extend(crate_shape(c).long);
    }
    assert!(long.is_empty(), "{} functions over {MAX_FUNCTION_LINES} lines outside tests:\n{}", long.len(), long.join("\n"));
}

#[test]
fn no_crate_has_an_import_cycle_between_its_modules() {
    let mut found = Vec::new();
    for c in CRATES.iter().filter(|c| present(c)) {
        let shape = crate_shape(c);
        for comp in cycles(&shape.graph) {
            found.push(format!("{c}: {{{}}} through {}", comp.join(", "), describe(&shape.graph, &comp)));
        }
    }
    assert!(found.is_empty(), "import cycles between top-level modules:\n{}", found.join("\n"));
}

#[test]
fn the_cycle_finder_finds_cycles() {
    let g: BTreeMap<String, BTreeSet<String>> = [("a", vec!["b"]), ("b", vec!["c"]), ("c", vec!["a"]), ("d", vec!["a"])]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
        .collect();
    assert_eq!(cycles(&g), vec![vec!["a".to_string(), "b".into(), "c".into()]]);
    let dag: BTreeMap<String, BTreeSet<String>> =
        [("a", vec!["b"]), ("b", vec![])].into_iter().map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect())).collect();
    assert!(cycles(&dag).is_empty());
}
