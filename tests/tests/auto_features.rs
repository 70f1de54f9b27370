//! Automatic features (`features(auto)`): the pass replaces `__ompadapt_auto_features` with
//! values computed at the region's marker. tests/programs/auto/auto_features.c calls the marker
//! the way the frontend's lowering does and prints, for each region and problem size, what the
//! pass computed (AUTO) next to the true trip counts and map sizes (TRUE); a build without the
//! plugin must print the same results (SUM).

use std::collections::BTreeMap;

use ompadapt_tests::*;

struct Build {
    stdout: String,
    compile_stderr: String,
}

fn build_and_run(opt: &str, plugin: bool, dir: &std::path::Path) -> Build {
    let src = source("programs/auto/auto_features.c");
    let exe = dir.join(format!("auto_{}_{}", opt.trim_start_matches('-'), if plugin { "plugin" } else { "stock" }));
    let out = if plugin {
        let mut c = std::process::Command::new(CLANG);
        c.arg("-fopenmp").arg(HOST_OFFLOAD).arg(format!("-fplugin={}", ompadapt_tests::plugin().display()));
        c.args([opt, "-Wl,-rpath,/usr/lib/llvm-19/lib"]).arg(&src).arg("-o").arg(&exe).env("OMPADAPT_REMARKS", "1");
        run(&mut c)
    } else {
        run(std::process::Command::new(CLANG)
            .arg("-fopenmp")
            .arg(HOST_OFFLOAD)
            .args([opt, "-Wl,-rpath,/usr/lib/llvm-19/lib"])
            .arg(&src)
            .arg("-o")
            .arg(&exe))
    };
    out.expect_ok("compiling auto_features.c");
    let r = run_program(&exe, dir, &[]);
    r.expect_ok("running auto_features");
    Build { stdout: r.stdout, compile_stderr: out.stderr }
}

/// `KEY model=m a=1 b=2` lines as (model, fields), in order.
fn lines(stdout: &str, key: &str) -> Vec<(String, BTreeMap<String, String>)> {
    records(stdout, key).into_iter().map(|mut r| (r.remove("model").unwrap_or_default(), r)).collect()
}

#[test]
fn automatic_features_equal_the_true_trip_counts_and_map_sizes() {
    let dir = scratch();
    for opt in ["-O0", "-O2"] {
        let adaptive = build_and_run(opt, true, dir.path());
        let stock = build_and_run(opt, false, dir.path());
        // Results unchanged.
        let sums = |s: &str| s.lines().filter(|l| l.starts_with("SUM ")).map(String::from).collect::<Vec<_>>();
        assert_eq!(sums(&adaptive.stdout), sums(&stock.stdout), "{opt}: results differ from the stock build");
        assert_eq!(sums(&adaptive.stdout).len(), 4);

        let auto = lines(&adaptive.stdout, "AUTO");
        let truth = lines(&adaptive.stdout, "TRUE");
        assert_eq!(auto.len(), truth.len());
        assert_eq!(auto.len(), 4 * 10, "{opt}: one AUTO line per region and size:\n{}", adaptive.stdout);
        for ((model, got), (tmodel, want)) in auto.iter().zip(&truth) {
            assert_eq!(model, tmodel);
            let k: usize = got["k"].parse().unwrap();
            let spec = &got["spec"];
            // The descriptor names exactly the K features stored.
            let names = spec.split(';').find_map(|f| f.strip_prefix("features=")).unwrap();
            assert_eq!(names.split(',').filter(|n| !n.is_empty()).count(), k, "{opt} {model}: {spec}");
            for (name, value) in want {
                let key = name.replace(',', "%2C");
                assert_eq!(got.get(&key), Some(value), "{opt} {model}: {name} (AUTO {got:?})");
            }
            // Static features of every region, in the contract's order, after the dynamic ones.
            let tail: Vec<&str> = names.split(',').rev().take(6).collect::<Vec<_>>().into_iter().rev().collect();
            assert_eq!(tail, ["ops", "flops", "comparisons", "memory_accesses", "loop_depth", "calls"], "{opt} {model}");
            for s in ["ops", "memory_accesses", "comparisons"] {
                assert!(got[s].parse::<f64>().unwrap() > 0.0, "{opt} {model}: {s} = {}", got[s]);
            }
            assert!(got["flops"].parse::<f64>().unwrap() >= 1.0, "{opt} {model}: every kernel does floating-point work");
            let depth = got["loop_depth"].parse::<f64>().unwrap();
            let want_depth = if model == "nested" { 2.0 } else { 1.0 };
            assert_eq!(depth, want_depth, "{opt} {model}: loop depth");
            // No slice: no trip count at all.
            if model == "written_after" || model == "opaque" {
                assert!(!names.contains("trip_count"), "{opt} {model}: {names}");
            }
        }
        // Remarks say why.
        let e = &adaptive.compile_stderr;
        assert!(
            e.contains("region 'written_after': no trip_count(i) feature, its bound cannot be computed at the region's start: global 'G_N' may be written between the marker and the launch"),
            "{opt}: {e}"
        );
        assert!(e.contains("region 'opaque': no trip_count(i) feature, its bound cannot be computed at the region's start: it is computed by a call of 'opaque_bound'"), "{opt}: {e}");
    }
}
