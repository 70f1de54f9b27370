//! Automatic features (`features(auto)`): the pass replaces `__ompadapt_auto_features` with
//! values computed at the region's marker. tests/programs/auto/auto_features.c calls the marker
//! the way the frontend's lowering does and prints, for each region and problem size, what the
//! pass computed (AUTO) next to the true trip counts and map sizes (TRUE); a build without the
//! plugin must print the same results (SUM).

use std::collections::BTreeMap;

use ompadapt_abi::RegionDescriptor;
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
        c.args([opt, "-Wl,-rpath,/usr/lib/llvm-19/lib"]).arg(&src).arg("-o").arg(&exe).arg("-Rpass-missed=ompadapt");
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
        assert_eq!(auto.len(), 4 * 13, "{opt}: one AUTO line per region and size:\n{}", adaptive.stdout);
        for ((model, got), (tmodel, want)) in auto.iter().zip(&truth) {
            assert_eq!(model, tmodel);
            let k: usize = got["k"].parse().unwrap();
            let spec = &got["spec"];
            // The frontend's descriptor as it was, followed by the names of exactly the K
            // features stored, which the runtime reads as its features.
            let frontend =
                format!("ompadapt1;model={model};loc=auto_features.c:1;features=;variants=cpu,gpu;values=0,1;numeric=0;model_type=auto;");
            assert!(spec.starts_with(&format!("{frontend}auto_features=")), "{opt} {model}: {spec}");
            let names = RegionDescriptor::parse(spec).unwrap().descriptor.features;
            assert_eq!(names.len(), k, "{opt} {model}: {spec}");
            for (name, value) in want {
                let key = name.replace(',', "%2C");
                assert_eq!(got.get(&key), Some(value), "{opt} {model}: {name} (AUTO {got:?})");
            }
            // Static features of every region, in the contract's order, after the dynamic ones.
            let tail: Vec<&str> = names[names.len().saturating_sub(6)..].iter().map(String::as_str).collect();
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
                assert!(!names.iter().any(|n| n.contains("trip_count")), "{opt} {model}: {names:?}");
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

/// Random loops the tests above were not written for: bounds built from arguments, locals,
/// globals, fields of a local struct and of a struct behind a pointer, constants, with random
/// steps (some a variable), directions and constructs, the global sometimes written between the
/// marker and the launch. The true trip count is what the loop executes (a reduction); a
/// computed one must always equal it, and must be there whenever nothing writes the memory its
/// bound reads between the marker and the loop. Seeded (`OMPADAPT_AUTO_SEED` to change it).
#[test]
fn random_loops_get_their_true_trip_counts() {
    use rand::seq::IndexedRandom;
    use rand::{Rng, SeedableRng};
    let seed: u64 = std::env::var("OMPADAPT_AUTO_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(20261123);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let atoms = ["a0", "a1", "l0", "g0", "s.f0", "p->f1", "7", "-3", "0"];
    let expr = |rng: &mut rand_chacha::ChaCha8Rng| -> String {
        let x = *atoms.choose(rng).unwrap();
        let y = *atoms.choose(rng).unwrap();
        match rng.random_range(0..6) {
            0 => format!("({x} + {y})"),
            1 => format!("({x} - {y})"),
            2 => format!("({x} / 3)"),
            3 => format!("({x} * 2)"),
            _ => x.to_string(),
        }
    };
    let constructs = [
        "omp target teams distribute parallel for reduction(+: cnt) map(to: p[0:1])",
        "omp target teams distribute reduction(+: cnt) map(to: p[0:1])",
        "omp target parallel for reduction(+: cnt) map(to: p[0:1])",
        "omp parallel for reduction(+: cnt)",
        "omp parallel for schedule(dynamic, 3) reduction(+: cnt)",
    ];
    let mut src = String::from(
        "#include <stdio.h>\n#include <string.h>\n\
         struct P { int f0, f1; };\nint g0;\n\
         static void show(const char *m, const char *spec, const double *f, int k) {\n\
           printf(\"AUTO model=%s k=%d\", m, k);\n\
           const char *q = strstr(spec, \";auto_features=\"); q = q ? q + 15 : \"\";\n\
           for (int i = 0; i < k; ++i) { char n[128]; int c = 0;\n\
             while (*q && *q != ',' && *q != ';' && c < 127) n[c++] = *q++;\n\
             n[c] = 0; if (*q == ',') ++q; printf(\" %s=%.0f\", n, f[i]); }\n\
           printf(\"\\n\"); }\n",
    );
    let kernels = 24;
    let mut expect_present = Vec::new();
    for k in 0..kernels {
        let (mut lb, mut ub) = (expr(&mut rng), expr(&mut rng));
        // Constant bounds may give clang a loop it does not emit at all.
        while !(lb.chars().any(|c| c.is_ascii_alphabetic()) || ub.chars().any(|c| c.is_ascii_alphabetic())) {
            (lb, ub) = (expr(&mut rng), expr(&mut rng));
        }
        let up = rng.random_bool(0.7);
        let step = *["1", "2", "3", "st"].choose(&mut rng).unwrap();
        let cmp = if up { *["<", "<="].choose(&mut rng).unwrap() } else { *[">", ">="].choose(&mut rng).unwrap() };
        let inc = if up { format!("i += {step}") } else { format!("i -= {step}") };
        let writes = rng.random_bool(0.3);
        let construct = constructs.choose(&mut rng).unwrap();
        // A store to the global may also write what a pointer points to.
        let reads_memory = [&lb, &ub].iter().any(|e| e.contains("g0") || e.contains("p->"));
        expect_present.push(!(writes && reads_memory));
        src.push_str(&format!(
            "void k{k}(int a0, int a1, int st, struct P *p) {{\n\
               struct P s = *p; int l0 = a0 * 2 - a1;\n\
               const char *spec_ = \"ompadapt1;model=k{k};loc=r.c:1;features=;variants=cpu,gpu;values=0,1;numeric=0;model_type=auto\";\n\
               double f_[16]; int k_ = __ompadapt_auto_features(f_, 16, &spec_, \"k{k}\", \"i\");\n\
               {write}\n\
               long cnt = 0;\n\
             #pragma {construct}\n\
               for (int i = {lb}; i {cmp} {ub}; {inc}) cnt += 1;\n\
               show(\"k{k}\", spec_, f_, k_);\n\
               printf(\"TRUE model=k{k} trip_count(i)=%ld\\n\", cnt);\n\
             }}\n",
            write = if writes { "g0 = g0 + 5;" } else { "" },
        ));
    }
    src.push_str("int main(void) {\n  int sets[][6] = {{10, 3, 1, 40, 2, 9}, {-4, 17, 2, 0, 31, 5}, {100, -20, 3, 7, 7, 150}};\n");
    src.push_str("  for (int t = 0; t < 3; ++t) { int *v = sets[t]; struct P q = {v[4], v[5]};\n");
    for k in 0..kernels {
        src.push_str(&format!("    g0 = v[3]; k{k}(v[0], v[1], v[2], &q);\n"));
    }
    src.push_str("  }\n  return 0;\n}\n");
    let dir = scratch();
    let file = dir.path().join("random_loops.c");
    std::fs::write(&file, &src).unwrap();
    for opt in ["-O0", "-O2"] {
        let exe = dir.path().join(format!("random{opt}"));
        let mut c = std::process::Command::new(CLANG);
        c.arg("-fopenmp").arg(HOST_OFFLOAD).arg(format!("-fplugin={}", ompadapt_tests::plugin().display()));
        c.args([opt, "-Wl,-rpath,/usr/lib/llvm-19/lib"]).arg(&file).arg("-o").arg(&exe);
        run(&mut c).expect_ok("compiling the random loops");
        let out = run_program(&exe, dir.path(), &[]);
        out.expect_ok("running the random loops");
        let auto = lines(&out.stdout, "AUTO");
        let truth = lines(&out.stdout, "TRUE");
        assert_eq!(auto.len(), 3 * kernels);
        for (i, ((model, got), (_, want))) in auto.iter().zip(&truth).enumerate() {
            let k = i % kernels;
            match got.get("trip_count(i)") {
                Some(v) => {
                    assert_eq!(v, &want["trip_count(i)"], "{opt} seed {seed} {model}: wrong trip count; source in {}", file.display())
                }
                None => assert!(!expect_present[k], "{opt} seed {seed} {model}: no trip count where one was expected:\n{src}"),
            }
        }
    }
}
