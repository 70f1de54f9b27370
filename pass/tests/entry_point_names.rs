//! The OpenMP runtime's names (`__kmpc_*`, `__tgt_*`, `omp_*`) are written once, in
//! `src/entry_points.rs` (the table of entry points and their roles, and `entry_points::name`),
//! the way LLVM keeps them in `OMPKinds.def`: no other source file of the pass spells one in a
//! string literal, so a name cannot be matched in one place and misspelt in another. Likewise
//! ompadapt's own generated-code names (`__ompadapt_*`) come from `ompadapt_abi::markers`.
//!
//! The entry points the runtime and the data-movement tool look up at run time are spelt once,
//! in `ompadapt_abi::openmp`: those of the pass's families are in its table, through those
//! constants, never through a literal of their own.

use std::path::Path;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn runtime_names_appear_only_in_the_table() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 10, "{files:?}");
    let mut found = Vec::new();
    for f in files.iter().filter(|f| !f.ends_with("entry_points.rs")) {
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if ["\"__kmpc_", "\"__tgt_", "\"omp_", "\"__ompadapt_"].iter().any(|p| code.contains(p)) {
                found.push(format!("{}:{}: {}", f.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "OpenMP runtime names outside src/entry_points.rs (use entry_points::name, or ompadapt_abi::markers for __ompadapt_ names):\n{}",
        found.join("\n")
    );
}

#[test]
fn names_the_runtime_looks_up_are_in_the_table_spelt_by_abi() {
    use ompadapt_abi::openmp;
    use ompadapt_pass::entry_points::{in_family, lookup};
    let file = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/entry_points.rs")).unwrap();
    // the table and its constants; the unit tests after them may look names up by literal
    let table = file.split("#[cfg(test)]").next().unwrap();
    assert!(table.contains("pub const ENTRY_POINTS"), "{table}");
    let mut checked = 0;
    for n in openmp::ALL.map(openmp::as_str).into_iter().filter(|n| in_family(n)) {
        // found exactly or by its family (`__tgt_*`)
        assert!(lookup(n).is_some(), "{n}: looked up by the runtime, unknown to the pass");
        assert!(!table.contains(&format!("\"{n}\"")), "{n}: spelt by a literal in src/entry_points.rs; use ompadapt_abi::openmp");
        checked += 1;
    }
    // the ompt_ names are not the pass's (a program never calls them)
    assert!(checked >= 15, "{checked}");
}
