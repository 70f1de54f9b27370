//! One region per template instantiation (tests/programs/cxx/instances.cpp): in
//! zero-source-change mode a function template, a member of a class template and a generic
//! lambda instantiated for two types are two regions each, named after their template arguments,
//! with a store entry each; an explicit `model_name` in a template stays one region. The output is
//! the stock build's.

use ompadapt_tests::*;
use std::collections::BTreeSet;
use std::process::Command;

#[test]
fn each_instantiation_is_a_region_of_its_own() {
    let dir = scratch();
    let d = dir.path();
    let src = source("programs/cxx/instances.cpp");
    let build = |out: &str, extra: &[String]| {
        let exe = d.join(out);
        let mut c = Command::new("clang++-19");
        c.current_dir(d).args(["-O2", "-fopenmp", "-Wl,-rpath,/usr/lib/llvm-19/lib"]).args(extra).arg(&src).arg("-o").arg(&exe);
        run(&mut c).expect_ok(&format!("building {out}"));
        exe
    };
    let stock = build("stock", &[]);
    let adaptive = build("adaptive", &[format!("-fplugin={}", plugin().display()), "-fplugin-arg-ompadapt-auto".into()]);
    let expected = run_program(&stock, d, &[]);
    expected.expect_ok("stock");
    let report = d.join("report.json");
    let out = run_program(&adaptive, d, &[("OMPADAPT_REPORT", &format!("json:{}", report.display()))]);
    out.expect_ok("adaptive");
    assert_eq!(out.stdout, expected.stdout);
    let doc: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let names: BTreeSet<String> = doc["regions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let name = r["region"].as_str().unwrap();
            // the function and its template arguments; the place is the source file's
            name.split('@').next().unwrap().to_string()
        })
        .collect();
    let want: BTreeSet<String> = [
        "sum_of<float>",
        "sum_of<double>",
        "Stencil::relax<float,2>",
        "Stencil::relax<double,3>",
        // (the pass names instances from their symbols: default template arguments included)
        "main<std::vector<float, std::allocator<float>>>",
        "main<std::vector<double, std::allocator<double>>>",
        "scale_all",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    assert_eq!(names, want, "{}", out.stderr);
    // a store entry per region: `ompadapt list` shows each instantiation
    let list = run(Command::new(lib_dir().join("ompadapt")).args(["--dir", d.join(".ompadapt").to_str().unwrap(), "list"]));
    list.expect_ok("ompadapt list");
    for name in ["sum_of<float>", "sum_of<double>", "Stencil::relax<double,3>", "scale_all"] {
        assert!(list.stdout.contains(name), "'{name}' has no store entry:\n{}", list.stdout);
    }
}
