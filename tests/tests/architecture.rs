//! The shape of the code, checked like behaviour: no function over 80 lines outside tests, and
//! no import cycle between the top-level modules of any crate (a crate's modules form layers,
//! so each can be read, tested and changed with only the ones below it in mind), and no product
//! crate that depends on the benchmarks or the tests.
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
const CRATES: &[&str] = &[
    "abi",
    "plugin",
    "plugin/syntax",
    "pass",
    "runtime",
    "dataperf",
    "ompt",
    "cli",
    "evaluate",
    "plot",
    "harness",
    "benchmarks",
    "tests",
    "generator",
];

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

/// Rust sources of a crate's `src/` and `benches/` and its `build.rs`, without test files.
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
    // benchmarks and build scripts are code someone reads and changes too
    walk(&crate_dir.join("benches"), &mut out);
    out.extend(Some(crate_dir.join("build.rs")).filter(|b| b.is_file()));
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
    /// Paths named, made absolute where the path says how (`crate::`, `super::`, `self::`) and
    /// kept as written otherwise (a child module or an item in scope: resolved against the
    /// crate's modules later).
    refs: BTreeSet<Vec<String>>,
}

impl Walker<'_> {
    fn function(&mut self, name: &str, span: proc_macro2::Span) {
        let lines = span.end().line - span.start().line + 1;
        if lines > MAX_FUNCTION_LINES {
            self.long.push(format!("{}:{} `{}` has {} lines", self.file, span.start().line, name, lines));
        }
    }

    /// The path `segments` names, seen from `self.module`: absolute for `crate::`, `super::`
    /// and `self::`, else relative to the current module (a child module; anything else finds
    /// no module and is dropped when resolved).
    fn target(&self, segments: &[String]) -> Option<Vec<String>> {
        let first = segments.first()?;
        match first.as_str() {
            "crate" => Some(segments[1..].to_vec()),
            "super" => {
                let depth = segments.iter().take_while(|s| *s == "super").count();
                let base = self.module.len().checked_sub(depth)?;
                Some(self.module[..base].iter().chain(&segments[depth..]).cloned().collect())
            }
            "self" => Some(self.module.iter().chain(&segments[1..]).cloned().collect()),
            _ => Some(self.module.iter().chain(segments).cloned().collect()),
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

type Graph = BTreeMap<String, BTreeSet<String>>;

struct CrateShape {
    long: Vec<String>,
    /// Per parent module (`""`: the crate root, `store`, `store::region`...): its child modules
    /// and the children each uses (directly or through what is inside it).
    graphs: BTreeMap<String, Graph>,
}

/// Adds the edge a use of `target` from `module` makes among siblings: below their common
/// parent, the child that holds `module` uses the child that holds `target`.
fn add_edge(graphs: &mut BTreeMap<String, Graph>, module: &[String], target: &[String]) {
    let common = module.iter().zip(target).take_while(|(a, b)| a == b).count();
    if common < module.len() && common < target.len() {
        let parent = module[..common].join("::");
        let g = graphs.entry(parent).or_default();
        g.entry(module[common].clone()).or_default().insert(target[common].clone());
        g.entry(target[common].clone()).or_default();
    }
}

fn crate_shape(dir: &str) -> CrateShape {
    let root = workspace_root();
    let crate_dir = root.join(dir);
    let src = crate_dir.join("src");
    let mut shape = CrateShape { long: Vec::new(), graphs: BTreeMap::new() };
    let mut uses: Vec<(Vec<String>, Vec<String>)> = Vec::new();
    let mut modules: BTreeSet<Vec<String>> = BTreeSet::new();
    for file in sources(&crate_dir) {
        let text = std::fs::read_to_string(&file).unwrap();
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let rel = file.strip_prefix(&root).unwrap().display().to_string();
        // benches, build scripts and binaries are crates of their own: lengths only
        let module = if file.starts_with(&src) { module_path(&src, &file) } else { Vec::new() };
        let mut w = Walker { file: &rel, module: module.clone(), long: Vec::new(), refs: BTreeSet::new() };
        w.visit_file(&ast);
        shape.long.extend(w.long);
        if !module.is_empty() {
            modules.insert(module.clone());
            uses.extend(w.refs.into_iter().map(|t| (module.clone(), t)));
        }
    }
    for (module, target) in uses {
        // the longest prefix of the path that is a module of the crate
        let known = (1..=target.len()).rev().find(|&n| modules.contains(&target[..n]));
        if let Some(n) = known {
            add_edge(&mut shape.graphs, &module, &target[..n]);
        }
    }
    shape
}

/// Strongly connected components with more than one module (Tarjan).
fn cycles(graph: &Graph) -> Vec<Vec<String>> {
    struct State<'g> {
        graph: &'g Graph,
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

fn describe(graph: &Graph, comp: &[String]) -> String {
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
        for (parent, graph) in &shape.graphs {
            for comp in cycles(graph) {
                let at = if parent.is_empty() { String::new() } else { format!(" in {parent}") };
                found.push(format!("{c}{at}: {{{}}} through {}", comp.join(", "), describe(graph, &comp)));
            }
        }
    }
    assert!(found.is_empty(), "import cycles between sibling modules:\n{}", found.join("\n"));
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

/// The crates of the product: what is built, linked or installed. Benchmarks and tests are
/// not, so a product crate that used them would ship or build what only measures it.
const PRODUCT_CRATES: &[&str] =
    &["abi", "plugin", "plugin/syntax", "pass", "runtime", "dataperf", "ompt", "cli", "evaluate", "plot", "harness"];

/// The crate names under `[dependencies]`, `[build-dependencies]` and `[dev-dependencies]`
/// (and their target-specific forms) of a `Cargo.toml`: the keys of those tables, and
/// `[dependencies.NAME]` headers.
fn manifest_dependencies(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut in_deps = false;
    for line in text.lines().map(str::trim) {
        if let Some(header) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            let last = header.rsplit('.').next().unwrap_or(header);
            let table = |t: &str| t.ends_with("dependencies");
            in_deps = table(last);
            // [dependencies.NAME] and [target.'cfg(...)'.dependencies.NAME]
            if let Some((before, name)) = header.rsplit_once('.') {
                if table(before.rsplit('.').next().unwrap_or(before)) {
                    names.insert(name.trim_matches('"').to_string());
                }
            }
        } else if in_deps {
            if let Some((key, _)) = line.split_once('=') {
                let key = key.trim().trim_matches('"');
                if !key.is_empty() && !key.starts_with('#') {
                    names.insert(key.to_string());
                }
            }
        }
    }
    names
}

#[test]
fn no_product_crate_depends_on_the_benchmarks_or_the_tests() {
    let mut found = Vec::new();
    for c in PRODUCT_CRATES.iter().filter(|c| workspace_root().join(c).join("Cargo.toml").is_file()) {
        let text = std::fs::read_to_string(workspace_root().join(c).join("Cargo.toml")).unwrap();
        for bad in ["ompadapt-benchmarks", "ompadapt-tests"] {
            if manifest_dependencies(&text).contains(bad) {
                found.push(format!("{c}/Cargo.toml depends on {bad}"));
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
    // the command above all: `ompadapt bench` runs the harness, not the benchmarks crate
    let cli = std::fs::read_to_string(workspace_root().join("cli/Cargo.toml")).unwrap();
    assert!(manifest_dependencies(&cli).contains("ompadapt-harness"), "the reader found no dependency of cli/Cargo.toml");
}

#[test]
fn the_manifest_reader_sees_every_form_of_dependency() {
    let toml = "[package]\nname = \"x\"\n[dependencies]\na = \"1\"\n# b = 1\n[dev-dependencies]\nc = { path = \"../c\" }\n\
                [target.'cfg(unix)'.dependencies]\nd = \"1\"\n[build-dependencies.e]\nversion = \"1\"\n[[bench]]\nname = \"f\"\n";
    let names: Vec<String> = manifest_dependencies(toml).into_iter().collect();
    assert_eq!(names, ["a", "c", "d", "e"]);
}

/// The C and C++ the product is made of (the plugin's and the pass's shims, the installed
/// headers); test programs and benchmark kernels are inputs, not the product.
const C_DIRS: &[&str] = &["plugin/shim", "plugin/include", "pass/shim", "pass/loader", "runtime/include", "dataperf/include"];

/// `text` with comments, string and character literals blanked (newlines kept).
fn c_code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let blank_until = |out: &mut String, from: usize, to: usize| {
            out.extend(text[from..to].chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
        };
        let end = match (b[i], b.get(i + 1)) {
            (b'/', Some(b'/')) => text[i..].find('\n').map_or(b.len(), |n| i + n),
            (b'/', Some(b'*')) => text[i + 2..].find("*/").map_or(b.len(), |n| i + 2 + n + 2),
            (q @ (b'"' | b'\''), _) => {
                let mut j = i + 1;
                while j < b.len() && b[j] != q {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                (j + 1).min(b.len())
            }
            _ => {
                out.push(b[i] as char);
                i += 1;
                continue;
            }
        };
        blank_until(&mut out, i, end);
        i = end;
    }
    out
}

/// Whether the text before a `{` (since the previous `;`, `{` or `}`) opens a function body.
fn opens_function(header: &str) -> bool {
    let h = header.trim();
    let first = h.split(|c: char| !c.is_alphanumeric() && c != '_').next().unwrap_or("");
    if ["if", "for", "while", "switch", "catch", "do", "else", "namespace", "class", "struct", "enum", "union", "extern", "return"].contains(&first)
        || h.starts_with('#')
        || h.ends_with('=')
        || h.ends_with(']')
    {
        return false;
    }
    // `name(...)`, then qualifiers, a trailing return type or a constructor's initialisers
    let Some(close) = h.rfind(')') else { return false };
    let open = h.find('(').unwrap_or(close);
    let before = h[..open].trim_end();
    let named = before.ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '>' || c == '~');
    let after = h[close + 1..].trim();
    let qualified = after.split_whitespace().all(|w| ["const", "override", "noexcept", "final", "->"].contains(&w) || w.contains("::") || w.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '*' || c == '&'));
    named && !before.is_empty() && (qualified || h[..close].contains(") :") || after.starts_with(':'))
}

/// Functions of `code` (comments and literals blanked) longer than `max` lines: (line, lines).
fn long_c_functions(code: &str, max: usize) -> Vec<(usize, usize)> {
    let b = code.as_bytes();
    let (mut out, mut header_start, mut i) = (Vec::new(), 0, 0);
    while i < b.len() {
        match b[i] {
            b';' | b'}' => header_start = i + 1,
            b'{' if opens_function(&code[header_start..i]) => {
                let mut depth = 0;
                let mut j = i;
                while j < b.len() {
                    depth += (b[j] == b'{') as i32 - (b[j] == b'}') as i32;
                    if depth == 0 {
                        break;
                    }
                    j += 1;
                }
                // from the signature's first line to the closing brace
                let lead = &code[header_start..i];
                let sig_line = code[..header_start + lead.len() - lead.trim_start().len()].matches('\n').count() + 1;
                let lines = code[..j.min(b.len())].matches('\n').count() + 1 - sig_line + 1;
                if lines > max {
                    out.push((sig_line, lines));
                }
                i = j;
                header_start = j + 1;
            }
            b'{' => header_start = i + 1,
            _ => {}
        }
        i += 1;
    }
    out
}

#[test]
fn no_c_or_cpp_function_is_longer_than_80_lines() {
    let root = workspace_root();
    let mut long = Vec::new();
    for d in C_DIRS {
        let Ok(entries) = std::fs::read_dir(root.join(d)) else { continue };
        let mut files: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "cpp" || x == "h" || x == "c")).collect();
        files.sort();
        for f in files {
            let code = c_code_only(&std::fs::read_to_string(&f).unwrap());
            for (line, lines) in long_c_functions(&code, MAX_FUNCTION_LINES) {
                long.push(format!("{}:{line} has {lines} lines", f.strip_prefix(&root).unwrap().display()));
            }
        }
    }
    assert!(long.is_empty(), "{} C/C++ functions over {MAX_FUNCTION_LINES} lines:\n{}", long.len(), long.join("\n"));
}

#[test]
fn the_c_function_scanner_measures_bodies_and_skips_the_rest() {
    let src = "// f() {\nnamespace n {\nstruct S {\n  int g(int a) const {\n    if (a) {\n      return 1;\n    }\n    return \"}\"[0];\n  }\n};\nstatic void h(void)\n{\n  int x[] = {1, 2};\n}\n}\n";
    let code = c_code_only(src);
    assert_eq!(long_c_functions(&code, 0), vec![(4, 6), (11, 4)]);
    assert_eq!(long_c_functions(&code, 5), vec![(4, 6)]);
    let ctor = c_code_only("A::A(int x)\n    : b(x), c(2) {\n  go();\n}\n");
    assert_eq!(long_c_functions(&ctor, 0), vec![(1, 4)]);
}
