//! Plain OpenMP sources (no adaptation directive) compile with exactly the same diagnostics,
//! text and location, with and without the plugin: the plugin's `#pragma omp` handler re-emits
//! every directive as Clang's own does, and the header it injects says nothing. Checked on the
//! plain sources of the fuzz corpus under several standards and warning sets, and on mutations
//! of them (full of errors).

use ompadapt_tests::fuzz::*;
use ompadapt_tests::*;
use std::time::Duration;

const C_FLAGS: [&[&str]; 5] = [
    &[],
    &["-std=c99", "-pedantic"],
    &["-std=c11", "-Wall", "-Wextra"],
    &["-std=gnu17", "-Weverything", "-Wno-unsafe-buffer-usage"],
    &["-std=c89"],
];
const CXX_FLAGS: [&[&str]; 4] =
    [&[], &["-std=c++11", "-pedantic", "-Wall"], &["-std=c++17", "-Wall", "-Wextra"], &["-std=c++20", "-Weverything", "-Wno-c++98-compat"]];

/// Both compilations' stderr, or None when stock clang itself does not finish.
fn both(path: &std::path::Path, offload: bool, flags: &[&str]) -> Option<(String, String)> {
    let t = Duration::from_secs(60);
    let mode = Mode { full: false, offload, with_plugin: true, auto: false };
    let (v1, with) = compile_with(path, mode, flags, t);
    let (v2, without) = compile_with(path, Mode { with_plugin: false, ..mode }, flags, t);
    if v2 == Verdict::Hang || matches!(v2, Verdict::Crash(_)) {
        return None;
    }
    assert!(!v1.is_failure() || v1 == v2, "{}: {v1:?} with the plugin, {v2:?} without", path.display());
    Some((with, without))
}

fn assert_same(name: &str, flags: &[&str], with: &str, without: &str) {
    assert!(with == without, "{name} {flags:?}: diagnostics differ\n--- with the plugin\n{with}\n--- without\n{without}");
}

#[test]
fn plain_corpus_has_identical_diagnostics() {
    let dir = scratch();
    let mut compared = 0;
    for seed in corpus().iter().filter(|s| is_plain(&s.text)) {
        let ext = if seed.cplusplus { "cpp" } else { "c" };
        let path = dir.path().join(format!("plain.{ext}"));
        std::fs::write(&path, &seed.text).unwrap();
        let flag_sets: &[&[&str]] = if seed.cplusplus { &CXX_FLAGS } else { &C_FLAGS };
        for (k, flags) in flag_sets.iter().enumerate() {
            if let Some((with, without)) = both(&path, k % 2 == 1, flags) {
                assert_same(&seed.name, flags, &with, &without);
                compared += 1;
            }
        }
    }
    assert!(compared >= 10, "only {compared} comparisons");
}

#[test]
fn mutated_plain_sources_have_identical_diagnostics() {
    let cases = std::env::var("OMPADAPT_DIFF_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(120u64);
    let corpus = corpus();
    let dir = scratch();
    let mut compared = 0;
    for i in 0..cases {
        let case = make_case(&corpus, 11, i, true);
        assert!(is_plain(&case.text));
        let ext = if case.cplusplus { "cpp" } else { "c" };
        let path = dir.path().join(format!("case{i}.{ext}"));
        std::fs::write(&path, &case.text).unwrap();
        let flags: &[&str] = if case.cplusplus { CXX_FLAGS[i as usize % CXX_FLAGS.len()] } else { C_FLAGS[i as usize % C_FLAGS.len()] };
        if let Some((with, without)) = both(&path, i % 3 == 0, flags) {
            assert_same(&format!("case {i} ({})", case.name), flags, &with, &without);
            compared += 1;
        }
    }
    println!("differential: {compared} of {cases} mutated plain sources compared, all identical");
}
