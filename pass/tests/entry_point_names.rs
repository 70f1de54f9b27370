//! The OpenMP runtime's names (`__kmpc_*`, `__tgt_*`, `omp_*`) are written once, in
//! `src/entry_points.rs` (the table of entry points and their roles, and `entry_points::name`),
//! the way LLVM keeps them in `OMPKinds.def`: no other source file of the pass spells one in a
//! string literal, so a name cannot be matched in one place and misspelt in another. Likewise
//! ompadapt's own generated-code names (`__ompadapt_*`) come from `ompadapt_abi::markers`.

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
    assert!(found.is_empty(), "OpenMP runtime names outside src/entry_points.rs (use entry_points::name, or ompadapt_abi::markers for __ompadapt_ names):\n{}", found.join("\n"));
}
