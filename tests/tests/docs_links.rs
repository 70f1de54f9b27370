//! Every relative link in README.md and docs/*.md leads somewhere: `](path)` names an existing
//! file or folder, and `](path#anchor)` / `](#anchor)` a heading of that Markdown file (anchors
//! as GitHub makes them). Links inside code blocks and code spans are not links.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// The documentation pages: README.md and docs/*.md.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![repo().join("README.md")];
    let mut docs: Vec<PathBuf> = fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// The lines of a Markdown text outside fenced code blocks.
fn outside_fences(text: &str) -> Vec<&str> {
    let mut in_fence = false;
    let mut lines = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
        } else if !in_fence {
            lines.push(line);
        }
    }
    lines
}

/// The lines of a Markdown text outside fenced code blocks, with their code spans removed.
fn prose_lines(text: &str) -> Vec<String> {
    outside_fences(text).into_iter().map(without_code_spans).collect()
}

fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    for (i, piece) in line.split('`').enumerate() {
        if i % 2 == 0 {
            out.push_str(piece);
        }
    }
    out
}

/// The link targets of a page: what stands between `](` and `)`.
fn links(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in prose_lines(text) {
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            found.push(after[..end].trim().to_owned());
            rest = &after[end..];
        }
    }
    found
}

/// A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as `-`.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// Every anchor of a Markdown text (repeated headings get `-1`, `-2`, ...).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    for heading in outside_fences(text).into_iter().filter(|l| l.starts_with('#')) {
        let base = anchor(heading.trim_start_matches('#'));
        let mut name = base.clone();
        let mut n = 0;
        while seen.contains(&name) {
            n += 1;
            name = format!("{base}-{n}");
        }
        seen.insert(name);
    }
    seen
}

fn is_external(target: &str) -> bool {
    target.contains("://") || target.starts_with("mailto:")
}

/// What is wrong with one link of `page`, if anything.
fn check(page: &Path, target: &str) -> Option<String> {
    let (path, fragment) = match target.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (target, None),
    };
    let file = normalise(&if path.is_empty() { page.to_path_buf() } else { page.parent().unwrap().join(path) });
    let in_repo = file.strip_prefix(repo()).map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
    if !file.exists() {
        return Some(format!("{target}: no file {in_repo}"));
    }
    let fragment = fragment?;
    if file.extension().is_none_or(|e| e != "md") {
        return Some(format!("{target}: an anchor into a file that is not Markdown"));
    }
    let text = fs::read_to_string(&file).unwrap();
    (!anchors(&text).contains(fragment)).then(|| format!("{target}: no heading with anchor '#{fragment}' in {in_repo}"))
}

/// `a/b/../c` as `a/c` (without touching the file system).
fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[test]
fn every_relative_link_resolves() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = fs::read_to_string(&page).unwrap();
        for target in links(&text).into_iter().filter(|t| !is_external(t)) {
            checked += 1;
            if let Some(why) = check(&page, &target) {
                broken.push(format!("{}: {why}", page.strip_prefix(repo()).unwrap().display()));
            }
        }
    }
    assert!(checked > 20, "only {checked} links found: is the scan broken?");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn anchors_are_made_as_github_makes_them() {
    assert_eq!(anchor(" The `ompadapt` command"), "the-ompadapt-command");
    assert_eq!(anchor(" Automatic features (`features(auto)`)"), "automatic-features-featuresauto");
    assert_eq!(anchor(" A region's definition"), "a-regions-definition");
    assert_eq!(anchor(" Portable team sizes: `threads`"), "portable-team-sizes-threads");
    let text = "# A\n## B\n```\n# not a heading\n```\n## B\n";
    assert_eq!(anchors(text).into_iter().collect::<Vec<_>>(), ["a", "b", "b-1"]);
    assert_eq!(links("see [x](a.md#b), `[y](no.md)` and\n```\n[z](no.md)\n```\n"), ["a.md#b"]);
}
