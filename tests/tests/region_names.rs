//! Region names of zero-source-change mode do not depend on where the checkout is: with
//! `-fplugin-arg-ompadapt-source-root=<dir>` (what the CMake package passes: the project's source
//! directory) or the compile line's `-ffile-prefix-map`, a file compiled by its absolute path is
//! named relative to the root, so a moved or re-cloned project keeps what it learned.

use ompadapt_tests::*;
use std::collections::BTreeSet;

const PROGRAM: &str = "#include <stdio.h>\n\
int main(void) {\n\
  double s = 0;\n\
  #pragma omp parallel for reduction(+: s)\n\
  for (int i = 0; i < 1000; i++) s += i;\n\
  printf(\"%g\\n\", s);\n\
  return 0;\n\
}\n";

/// The regions a build of `<checkout>/src/k.c` (by its absolute path, from another directory)
/// reports, with `flags` (`{root}`: the checkout).
fn names(checkout: &std::path::Path, flags: &[&str]) -> BTreeSet<String> {
    std::fs::create_dir_all(checkout.join("src")).unwrap();
    std::fs::write(checkout.join("src/k.c"), PROGRAM).unwrap();
    let exe = checkout.join("k");
    let root = checkout.display().to_string();
    let mut extra = vec!["-O2".to_string(), "-fplugin-arg-ompadapt-auto".to_string()];
    extra.extend(flags.iter().map(|f| f.replace("{root}", &root)));
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    compile(&checkout.join("src/k.c"), &exe, &extra).expect_ok("compile");
    let report = checkout.join("report.json");
    let out = run_program(&exe, checkout, &[("OMPADAPT_REPORT", &format!("json:{}", report.display())), ("OMPADAPT_PERSIST", "0")]);
    out.expect_ok("run");
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    doc["regions"].as_array().unwrap().iter().map(|r| r["region"].as_str().unwrap().to_string()).collect()
}

#[test]
fn names_are_relative_to_the_source_root_wherever_the_checkout_is() {
    let dir = scratch();
    let (a, b) = (dir.path().join("one/proj"), dir.path().join("elsewhere/proj-copy"));
    let want = BTreeSet::from(["main@src/k.c:4".to_string()]);
    for flags in [&["-fplugin-arg-ompadapt-source-root={root}"][..], &["-ffile-prefix-map={root}/="][..]] {
        assert_eq!(names(&a, flags), want, "{flags:?}");
        assert_eq!(names(&b, flags), want, "{flags:?} in another checkout");
    }
    // without either, the name carries the path the compiler was given
    let absolute = names(&a, &[]);
    assert_eq!(absolute, BTreeSet::from([format!("main@{}/src/k.c:4", a.display())]));
}
