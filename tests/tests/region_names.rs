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

/// A region in a function of its own, beside functions without one.
const TWO_FUNCTIONS: &str = "#include <stdio.h>\n\
static void kernel(double *a, int n) {\n\
  #pragma omp parallel for\n\
  for (int i = 0; i < n; i++) a[i] = 2.0 * i;\n\
}\n\
static double total(const double *a, int n) {\n\
  double s = 0;\n\
  for (int i = 0; i < n; i++) s += a[i];\n\
  return s;\n\
}\n\
int main(void) {\n\
  static double a[1000];\n\
  kernel(a, 1000);\n\
  printf(\"%g\\n\", total(a, 1000));\n\
  return 0;\n\
}\n";

/// Without -g, zero-source-change mode tracks locations only in functions with an OpenMP
/// construct (the others are generated `nodebug`: their locations would name nothing), unless
/// remarks are asked for (their findings point into called functions); the names are those of
/// a `-g` build.
#[test]
fn locations_only_where_regions_are_and_names_unchanged() {
    let dir = scratch();
    let src = dir.path().join("k.c");
    std::fs::write(&src, TWO_FUNCTIONS).unwrap();
    let subprograms = |extra: &[&str]| -> Vec<String> {
        let ll = dir.path().join("k.ll");
        let mut c = std::process::Command::new(CLANG);
        c.args(["-O2", "-fopenmp", "-Xclang", "-disable-llvm-passes", "-S", "-emit-llvm"])
            .arg(format!("-fplugin={}", plugin().display()))
            .arg("-fplugin-arg-ompadapt-auto")
            .args(extra)
            .arg(&src)
            .arg("-o")
            .arg(&ll);
        run(&mut c).expect_ok("compile to IR");
        let ir = std::fs::read_to_string(&ll).unwrap();
        ["kernel", "total", "main"].iter().filter(|f| ir.contains(&format!("DISubprogram(name: \"{f}\""))).map(|f| f.to_string()).collect()
    };
    assert_eq!(subprograms(&[]), ["kernel"], "no remarks: locations in the region's function alone");
    assert_eq!(subprograms(&["-fplugin-arg-ompadapt-remarks"]), ["kernel", "total", "main"], "with remarks: everywhere");
    assert_eq!(subprograms(&["-Rpass=ompadapt"]), ["kernel", "total", "main"], "with -Rpass: everywhere");
    let region_names = |extra: &[&str]| -> BTreeSet<String> {
        let exe = dir.path().join("k");
        let mut flags = vec!["-O2", "-fplugin-arg-ompadapt-auto", "-fplugin-arg-ompadapt-source-root={root}"];
        flags.extend_from_slice(extra);
        let root = dir.path().display().to_string();
        let flags: Vec<String> = flags.iter().map(|f| f.replace("{root}", &root)).collect();
        let flags: Vec<&str> = flags.iter().map(String::as_str).collect();
        compile(&src, &exe, &flags).expect_ok("compile");
        let report = dir.path().join("report.json");
        run_program(&exe, dir.path(), &[("OMPADAPT_REPORT", &format!("json:{}", report.display())), ("OMPADAPT_PERSIST", "0")])
            .expect_ok("run");
        let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
        doc["regions"].as_array().unwrap().iter().map(|r| r["region"].as_str().unwrap().to_string()).collect()
    };
    let want = BTreeSet::from(["kernel@k.c:3".to_string()]);
    assert_eq!(region_names(&[]), want, "without -g");
    assert_eq!(region_names(&["-g"]), want, "with -g");
}

/// An explicit region's location (its descriptor's `loc=`, what `list` shows) is relative to the
/// source root like the names, without a leading `/` (`src/explicit.c:4`, not
/// `/src/explicit.c:4`); `inspect` places it there.
#[test]
fn explicit_locations_are_relative_to_the_source_root() {
    let dir = scratch();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    let src = dir.path().join("src/explicit.c");
    std::fs::write(
        &src,
        "void scale(double *a, int n) {\n\
         #pragma omp begin adaptation model_name(scale) features(n) variants(serial, threads[0.5:1:0.5])\n\
         #pragma omp parallel for\n\
           for (int i = 0; i < n; i++) a[i] *= 2;\n\
         #pragma omp end adaptation\n\
         }\n",
    )
    .unwrap();
    let obj = dir.path().join("explicit.o");
    let root = format!("-fplugin-arg-ompadapt-source-root={}", dir.path().display());
    compile(&src, &obj, &["-c", "-O2", &root]).expect_ok("compile");
    let bytes = std::fs::read(&obj).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    assert!(
        text.contains("model=scale;loc=src/explicit.c:2;"),
        "descriptor's loc=: {}",
        text.lines().filter(|l| l.contains("loc=")).collect::<Vec<_>>().join("\n")
    );
    let inspect = run(std::process::Command::new(lib_dir().join("ompadapt")).arg("inspect").arg(&obj));
    inspect.expect_ok("inspect");
    assert!(inspect.stdout.contains("scale  at src/explicit.c:2  [directive]"), "{}", inspect.stdout);
}
