//! The names of the functions the pass recognises in the generated code (the markers and the
//! runtime's begin and end) are written once, in `ompadapt_abi::markers`: the lowering spells
//! them from there, so the text it writes and the names the pass matches cannot drift apart.

use ompadapt_abi::markers::{MARKERS, RUNTIME_BEGIN, RUNTIME_END};
use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") && !p.ends_with("tests.rs") {
            out.push(p);
        }
    }
}

#[test]
fn lowering_spells_marker_names_from_the_contract() {
    let mut files = Vec::new();
    rust_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
    assert!(files.len() > 10, "{files:?}");
    let names: Vec<&str> = MARKERS.iter().map(|m| m.name).chain([RUNTIME_BEGIN, RUNTIME_END]).collect();
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            // a name in a string, followed by its call's parenthesis
            if names.iter().any(|name| code.contains(&format!("{name}(")) && code.contains('"')) {
                found.push(format!("{}:{}: {}", f.display(), n + 1, line.trim()));
            }
        }
    }
    assert!(found.is_empty(), "generated-code names spelt outside ompadapt_abi::markers:\n{}", found.join("\n"));
}
