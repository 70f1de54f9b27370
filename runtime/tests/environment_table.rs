//! The environment variables have one list, `config::VARIABLES`: every `OMPADAPT_*` name the
//! runtime reads (and `OMPADAPT_RUNTIME`, which generated code reads) is in it, every entry is
//! read somewhere, and docs/environment.md's table shows exactly that list, in its order.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use ompadapt_rt::config::VARIABLES;

/// The heading of docs/environment.md whose table is the list.
const TABLE_HEADING: &str = "## The program's variables";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a source file that reads variables: without its unit tests (which set made-up
/// names) and without the list itself (which names every variable).
fn reading_code(text: &str) -> &str {
    match text.find("#[cfg(test)]\nmod ") {
        Some(at) => &text[..at],
        None => text,
    }
}

fn without_list(code: &str) -> String {
    match code.find("pub const VARIABLES") {
        Some(start) => {
            let end = start + code[start..].find("\n];").expect("the list ends with `];`");
            format!("{}{}", &code[..start], &code[end..])
        }
        None => code.to_owned(),
    }
}

/// Every string literal that is exactly an `OMPADAPT_<NAME>` variable name.
fn names_in(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("\"OMPADAPT_") {
        let after = &rest[at + 1..];
        let len = after.find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')).unwrap_or(after.len());
        if after[len..].starts_with('"') && len > "OMPADAPT_".len() {
            names.insert(after[..len].to_owned());
        }
        rest = after;
    }
    names
}

/// The names the runtime library reads (its sources, tests left out).
fn runtime_names() -> BTreeSet<String> {
    let mut files = Vec::new();
    rust_files(&repo().join("runtime/src"), &mut files);
    let mut names = BTreeSet::new();
    for file in files {
        let text = fs::read_to_string(&file).unwrap();
        names.extend(names_in(&without_list(reading_code(&text))));
    }
    names
}

/// The names the code the plugin generates reads.
fn generated_code_names() -> BTreeSet<String> {
    names_in(&fs::read_to_string(repo().join("plugin/include/ompadapt_lowering.h")).unwrap())
}

#[test]
fn the_list_names_every_variable_the_runtime_reads() {
    let listed: BTreeSet<String> = VARIABLES.iter().map(|v| v.name.to_owned()).collect();
    assert_eq!(listed.len(), VARIABLES.len(), "a variable is listed twice");
    let read: BTreeSet<String> = runtime_names().union(&generated_code_names()).cloned().collect();
    let unlisted: Vec<_> = read.difference(&listed).collect();
    assert!(unlisted.is_empty(), "read but not in config::VARIABLES: {unlisted:?}");
    let unread: Vec<_> = listed.difference(&read).collect();
    assert!(unread.is_empty(), "in config::VARIABLES but read nowhere: {unread:?}");
    assert!(generated_code_names().contains("OMPADAPT_RUNTIME"));
}

/// The rows of the table under `heading`: (name, default, meaning), `\|` unescaped.
fn table_rows(doc: &str, heading: &str) -> Vec<(String, String, String)> {
    let start = doc.find(&format!("\n{heading}\n")).unwrap_or_else(|| panic!("docs/environment.md has no '{heading}'"));
    let section = &doc[start + heading.len() + 2..];
    let section = &section[..section.find("\n#").unwrap_or(section.len())];
    let mut rows = Vec::new();
    for line in section.lines().filter(|l| l.starts_with('|')).skip(2) {
        let line = line.trim().trim_start_matches('|').trim_end_matches('|');
        let mut cells = Vec::new();
        let mut cell = String::new();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek() == Some(&'|') => cell.push(chars.next().unwrap()),
                '|' => cells.push(std::mem::take(&mut cell).trim().to_owned()),
                _ => cell.push(c),
            }
        }
        cells.push(cell.trim().to_owned());
        assert_eq!(cells.len(), 3, "a row of three cells: {line}");
        let name = cells[0].trim_matches('`').to_owned();
        rows.push((name, cells[1].clone(), cells[2].clone()));
    }
    rows
}

/// The table as docs/environment.md should write it, to paste when the list changes.
fn expected_table() -> String {
    let mut text = String::from("| Variable | Default | Meaning |\n|---|---|---|\n");
    for v in VARIABLES {
        text += &format!("| `{}` | {} | {} |\n", v.name, v.default, v.meaning.replace('|', "\\|"));
    }
    text
}

#[test]
fn docs_environment_table_is_the_list() {
    let doc = fs::read_to_string(repo().join("docs/environment.md")).unwrap();
    let rows = table_rows(&doc, TABLE_HEADING);
    let listed: Vec<(String, String, String)> =
        VARIABLES.iter().map(|v| (v.name.to_owned(), v.default.to_owned(), v.meaning.to_owned())).collect();
    if let Some(at) = (0..rows.len().max(listed.len())).find(|&i| rows.get(i) != listed.get(i)) {
        panic!(
            "docs/environment.md's table under '{TABLE_HEADING}' differs from config::VARIABLES at row {}:\n  docs: {:?}\n  list: {:?}\n\
             the table should read:\n\n{}",
            at + 1,
            rows.get(at),
            listed.get(at),
            expected_table()
        );
    }
}

#[test]
fn the_scan_finds_names_only_in_whole_literals() {
    let code = r#"var("OMPADAPT_X"); let p = "OMPADAPT_"; msg("set OMPADAPT_Y to ..."); x("OMPADAPT_Z2")"#;
    let found: Vec<String> = names_in(code).into_iter().collect();
    assert_eq!(found, ["OMPADAPT_X", "OMPADAPT_Z2"]);
    let file = "fn f() { var(\"OMPADAPT_A\"); }\n#[cfg(test)]\nmod tests { var(\"OMPADAPT_B\"); }\n";
    assert_eq!(names_in(reading_code(file)).into_iter().collect::<Vec<_>>(), ["OMPADAPT_A"]);
}
