//! Every `ompadapt` command on stores written in the runtime's data format, with controlled
//! costs (so that the right decisions are known): list, show (text, JSON, SVG and PNG
//! pictures), train, evaluate, export → import on a fresh store (same decisions), clear, and
//! the errors (one line on stderr, non-zero exit). The same on a real program's store, with
//! its runs' decisions compared, is in `tests/tests/cli_store.rs`.

use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

fn ompadapt(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_ompadapt")).arg("--dir").arg(dir).args(args).env_remove("OMPADAPT_DIR").output().expect("runs")
}

#[track_caller]
fn ok(dir: &Path, args: &[&str]) -> String {
    let o = ompadapt(dir, args);
    assert!(o.status.success(), "ompadapt {args:?} failed: {}\n{}", String::from_utf8_lossy(&o.stderr), String::from_utf8_lossy(&o.stdout));
    String::from_utf8(o.stdout).unwrap()
}

#[track_caller]
fn json_of(dir: &Path, args: &[&str]) -> Value {
    let mut a = vec!["--json"];
    a.extend_from_slice(args);
    let out = ok(dir, &a);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}):\n{out}"))
}

/// Fails with exactly one line on stderr, naming `what`.
#[track_caller]
fn fails(dir: &Path, args: &[&str], what: &str) {
    let o = ompadapt(dir, args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "ompadapt {args:?} should fail");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.starts_with("ompadapt: error: ") && err.contains(what), "{args:?}: {err}");
}

/// CPU: 1 µs + 2 ns per element; GPU: 50 µs + 0.2 ns per element (crossover near 27 000).
fn crossover(n: f64) -> [f64; 2] {
    [1000.0 + 2.0 * n, 50_000.0 + 0.2 * n]
}

/// Writes one region's part file the way the runtime does (format version 2).
fn write_region(root: &Path, program: &str, region: &str, features: &[&str], variants: &[&str], rows: &[(Vec<f64>, Vec<f64>)]) {
    let dir = root.join(program).join(region);
    std::fs::create_dir_all(&dir).unwrap();
    let mut samples = Vec::new();
    for (x, ts) in rows {
        for (v, t) in ts.iter().enumerate() {
            // five measurements with a little deterministic jitter around the cost
            let times: Vec<f64> = (0..5).map(|r| t * (1.0 + 0.01 * ((r as f64) - 2.0))).collect();
            samples.push(json!({"features": x, "variant": variants[v], "count": 5, "times_ns": times}));
        }
    }
    let doc = json!({
        "format": "ompadapt-samples", "version": 2, "program": program, "model": region,
        "loc": format!("{region}.c:10"), "features": features, "variants": variants,
        "written_unix_ns": 1, "writer": {"host": "h", "pid": 1, "rank": null, "size": null, "run": "r"},
        "samples": samples,
    });
    std::fs::write(dir.join("part-1-h-1-0.json"), serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
}

fn sizes() -> Vec<f64> {
    (6..=21).map(|e| (1u64 << e) as f64).collect()
}

/// A store with two programs: `stencil` (region `by_n`, one feature, crossover) and `spmv`
/// (region `layout`, two features, three variants).
fn store() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let rows: Vec<_> = sizes().into_iter().map(|n| (vec![n], crossover(n).to_vec())).collect();
    write_region(d.path(), "stencil", "by_n", &["n"], &["cpu", "gpu"], &rows);
    let mut rows2 = Vec::new();
    for n in [1e3, 1e4, 1e5, 1e6] {
        for nnz in [2.0, 8.0, 32.0] {
            let work = n * nnz;
            rows2.push((vec![n, nnz], vec![500.0 + 3.0 * work, 40_000.0 + 0.3 * work, 9_000.0 + 1.0 * work + 50.0 * nnz]));
        }
    }
    write_region(d.path(), "spmv", "layout", &["n", "nnz_per_row"], &["cpu", "gpu", "hybrid"], &rows2);
    d
}

fn decisions(doc: &Value) -> Vec<(String, String)> {
    doc["vectors"].as_array().unwrap().iter().map(|v| (v["features"].to_string(), v["decision"].as_str().unwrap().to_owned())).collect()
}

#[test]
fn list_names_programs_regions_and_samples() {
    let d = store();
    let doc = json_of(d.path(), &["list"]);
    let regions = doc["regions"].as_array().unwrap();
    assert_eq!(regions.len(), 2);
    let by_n = regions.iter().find(|r| r["region"] == "by_n").unwrap();
    assert_eq!(by_n["program"], "stencil");
    assert_eq!(by_n["samples"], 16 * 2 * 5);
    assert_eq!(by_n["feature_vectors"], 16);
    assert_eq!(by_n["complete_vectors"], 16);
    assert_eq!(by_n["variants"], json!(["cpu", "gpu"]));
    assert!(by_n["model"].is_null());
    let text = ok(d.path(), &["list"]);
    assert!(text.contains("stencil") && text.contains("layout") && text.contains("160"), "{text}");
    // one program only
    let doc = json_of(d.path(), &["list", "spmv"]);
    assert_eq!(doc["regions"].as_array().unwrap().len(), 1);
}

#[test]
fn show_gives_the_model_the_decisions_and_a_picture() {
    let d = store();
    let svg = d.path().join("pics/by_n.svg");
    let png = d.path().join("pics/by_n.png");
    let doc = json_of(d.path(), &["show", "by_n", "--model", "dtree,2", "--svg", svg.to_str().unwrap(), "--png", png.to_str().unwrap()]);
    // the tree splits between 16384 and 32768, where the costs cross
    for (f, dec) in decisions(&doc) {
        let n: f64 = f.trim_matches(|c| c == '[' || c == ']').parse().unwrap();
        let t = crossover(n);
        assert_eq!(dec, if t[0] <= t[1] { "cpu" } else { "gpu" }, "n = {n}");
    }
    assert!(doc["model"]["text"].as_str().unwrap().contains("if n < "), "{doc}");
    let pic = std::fs::read_to_string(&svg).unwrap();
    assert!(pic.starts_with("<svg") && pic.len() > 10_000, "an SVG with content ({} bytes)", pic.len());
    // the decision band: a rectangle in each variant's colour, and the variant names as text
    assert!(pic.contains("\ncpu\n</text>") && pic.contains("\ngpu\n</text>"), "decision band and legend");
    for style in ompadapt_plot::variant_styles(&["cpu".into(), "gpu".into()]) {
        let fill = format!("fill=\"{}\"", ompadapt_plot::hex(style.color).to_uppercase());
        assert!(pic.split("<rect").skip(1).any(|r| r.contains(&fill)), "a stretch of the band in {fill}");
    }
    let png_bytes = std::fs::read(&png).unwrap();
    assert!(png_bytes.starts_with(b"\x89PNG") && png_bytes.len() > 5_000);
    // text form
    let text = ok(d.path(), &["show", "stencil/by_n"]);
    assert!(
        text.contains("region 'by_n' of program 'stencil'") && text.contains("stored model: none") && text.contains("decision"),
        "{text}"
    );
    // two features: a decision map
    let svg2 = d.path().join("layout.svg");
    let doc = json_of(d.path(), &["show", "layout", "--svg", svg2.to_str().unwrap(), "--axis", "nnz_per_row"]);
    assert_eq!(doc["vectors"].as_array().unwrap().len(), 12);
    assert_eq!(doc["picture"]["decisions"], "map");
    let pic = std::fs::read_to_string(&svg2).unwrap();
    // the map's regions of one decision as merged rectangles, not a cell each (14 000 before)
    let rects = pic.matches("<rect").count();
    assert!((3..400).contains(&rects) && pic.len() < 100_000, "a map of {rects} rectangles, {} bytes", pic.len());
}

#[test]
fn train_stores_a_model_the_store_then_reports() {
    let d = store();
    let out = ok(d.path(), &["train", "by_n", "--model", "dtree,1"]);
    assert!(out.contains("decision tree (max depth 1)") && out.contains("stored as the region's model"), "{out}");
    let doc = json_of(d.path(), &["list"]);
    let by_n = doc["regions"].as_array().unwrap().iter().find(|r| r["region"] == "by_n").unwrap().clone();
    assert_eq!(by_n["model"], "decision tree (max depth 1)");
    // show decides with the stored parameters, exactly as train decided
    let trained = json_of(d.path(), &["train", "by_n", "--model", "dtree,1", "--dry-run"]);
    let doc = json_of(d.path(), &["show", "by_n"]);
    assert_eq!(doc["model"]["chosen"], "decision tree (max depth 1)");
    assert_eq!(doc["decided_by"], "the stored model, as a run uses it");
    assert_eq!(doc["stored_model"]["labels"], 16);
    assert_eq!(decisions(&doc), decisions(&trained));
    // --dry-run stores nothing
    ok(d.path(), &["train", "by_n", "--model", "rfc,5,2", "--dry-run"]);
    let doc = json_of(d.path(), &["list"]);
    assert_eq!(doc["regions"].as_array().unwrap().iter().find(|r| r["region"] == "by_n").unwrap()["model"], "decision tree (max depth 1)");
}

#[test]
fn evaluate_scores_adaptive_k_against_the_oracle() {
    let d = store();
    let doc = json_of(d.path(), &["evaluate", "by_n", "--model", "dtree,2", "--model", "cost,additive", "--shuffles", "4"]);
    let r = &doc["regions"][0];
    assert_eq!(r["complete_vectors"], 16);
    let scores = r["scores"].as_array().unwrap();
    assert_eq!(scores.len(), 2 * 3, "two models × Adaptive-25/50/75");
    for s in scores {
        let fraction = s["fraction"].as_f64().unwrap();
        let decisions = s["decisions"].as_u64().unwrap();
        // 16 inputs, 4 groups of 4; each rotation tests the groups it did not train on
        assert_eq!(decisions as f64, 4.0 * 4.0 * 16.0 * (1.0 - fraction), "4 shuffles × 4 rotations: {s}");
        assert!(s["within"].as_f64().unwrap() <= 1.0 && s["mean_regret"].as_f64().unwrap() >= 0.0);
    }
    // the additive cost model is the costs' own form: every held-out decision right at 50 %
    let cost50 = scores.iter().find(|s| s["model"].as_str().unwrap().contains("additive") && s["fraction"] == 0.5).unwrap();
    assert!(cost50["within"].as_f64().unwrap() >= 0.95, "{cost50}");
    // static best is worse than that on a crossover
    assert!(r["static_best"]["within"].as_f64().unwrap() < 0.9);
    let text = ok(d.path(), &["evaluate", "--shuffles", "2"]);
    assert!(text.contains("region 'by_n'") && text.contains("region 'layout'") && text.contains("static best"), "{text}");
}

#[test]
fn export_then_import_on_a_fresh_store_gives_the_same_decisions() {
    let d = store();
    ok(d.path(), &["train", "layout", "--model", "dtree,3"]);
    let archive = d.path().join("learned.json");
    ok(d.path(), &["export", "-o", archive.to_str().unwrap()]);
    let a: Value = serde_json::from_str(&std::fs::read_to_string(&archive).unwrap()).unwrap();
    assert_eq!(a["format"], "ompadapt-archive");
    assert_eq!(a["version"], 1);
    let fresh = tempfile::tempdir().unwrap();
    let other = fresh.path().join("store");
    let doc = json_of(&other, &["import", archive.to_str().unwrap()]);
    assert_eq!(doc["imported"].as_array().unwrap().len(), 2);
    for region in ["by_n", "layout"] {
        let before = json_of(d.path(), &["show", region]);
        let after = json_of(&other, &["show", region]);
        assert_eq!(decisions(&before), decisions(&after), "{region}");
        assert_eq!(before["model"]["text"], after["model"]["text"], "{region}: same model");
        assert_eq!(before["stored_model"], after["stored_model"], "{region}: the trained model travelled");
    }
    // importing again adds nothing (the part's name is its content's hash)
    let doc = json_of(&other, &["import", archive.to_str().unwrap()]);
    assert!(doc["imported"].as_array().unwrap().iter().all(|r| r["file"].is_null()));
    let listed = json_of(&other, &["list"]);
    let by_n = listed["regions"].as_array().unwrap().iter().find(|r| r["region"] == "by_n").unwrap().clone();
    assert_eq!(by_n["samples"], 160, "not doubled");
    // one program only
    let part = d.path().join("one.json");
    ok(d.path(), &["export", "stencil", "-o", part.to_str().unwrap()]);
    let a: Value = serde_json::from_str(&std::fs::read_to_string(&part).unwrap()).unwrap();
    assert_eq!(a["regions"].as_array().unwrap().len(), 1);
}

#[test]
fn clear_removes_regions_programs_or_everything() {
    let d = store();
    let out = ok(d.path(), &["clear", "--region", "by_n"]);
    assert!(out.contains("removed") && out.contains("by_n"), "{out}");
    let doc = json_of(d.path(), &["list"]);
    assert_eq!(doc["regions"].as_array().unwrap().len(), 1);
    assert!(!d.path().join("stencil").exists(), "an emptied program goes too");
    fails(d.path(), &["clear", "--region", "by_n"], "no region 'by_n'");
    let doc = json_of(d.path(), &["clear", "--all"]);
    assert_eq!(doc["removed"].as_array().unwrap().len(), 1);
    assert_eq!(json_of(d.path(), &["list"])["regions"], json!([]));
}

#[test]
fn errors_are_one_line_with_a_non_zero_exit() {
    let d = store();
    fails(&d.path().join("missing"), &["list"], "is not a store directory");
    fails(d.path(), &["show", "nosuch"], "no region 'nosuch'");
    fails(d.path(), &["show", "by_m"], "did you mean 'by_n'?");
    fails(d.path(), &["train", "by_n", "--model", "svm"], "unknown model 'svm'");
    fails(d.path(), &["show", "by_n", "--axis", "zz"], "has features (n)");
    fails(d.path(), &["evaluate", "--train", "30"], "multiples of 25%");
    // a usage error is clap's: exit status 2, with the usage
    let o = ompadapt(d.path(), &["clear"]);
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("<WHAT|--region <REGION>|--all>"));
    // archives: not JSON, another format, another version
    let bad = d.path().join("bad.json");
    std::fs::write(&bad, "{not json").unwrap();
    fails(d.path(), &["import", bad.to_str().unwrap()], "not an ompadapt archive");
    std::fs::write(&bad, r#"{"format": "ompadapt-export", "version": 1, "regions": []}"#).unwrap();
    fails(d.path(), &["import", bad.to_str().unwrap()], "not an ompadapt archive");
    std::fs::write(&bad, r#"{"format": "ompadapt-archive", "version": 9, "regions": []}"#).unwrap();
    fails(d.path(), &["import", bad.to_str().unwrap()], "archive version 9");
    let evil = r#"{"format": "ompadapt-archive", "version": 1, "regions": [{"program_dir": "..", "region_dir": "x", "data": {}}]}"#;
    std::fs::write(&bad, evil).unwrap();
    fails(d.path(), &["import", bad.to_str().unwrap()], "");
    fails(d.path(), &["import", d.path().join("none.json").to_str().unwrap()], "cannot read");
    // ambiguity between programs
    let rows: Vec<_> = sizes().into_iter().map(|n| (vec![n], crossover(n).to_vec())).collect();
    write_region(d.path(), "other", "by_n", &["n"], &["cpu", "gpu"], &rows);
    fails(d.path(), &["show", "by_n"], "PROGRAM/by_n");
    ok(d.path(), &["show", "other/by_n"]);
    // a bad usage is clap's (exit 2)
    let o = ompadapt(d.path(), &["frobnicate"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn a_fifo_among_the_data_files_blocks_nothing_and_stays() {
    let d = store();
    let fifo = d.path().join("stencil/by_n/part-fifo.json");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let mut child = Command::new(env!("CARGO_BIN_EXE_ompadapt"))
        .arg("--dir")
        .arg(d.path())
        .args(["--json", "list"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("ompadapt list blocked on a FIFO");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().filter(|l| l.contains("part-fifo.json")).count(), 1, "one line: {err}");
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["regions"].as_array().unwrap().len(), 2, "the region's data are still read");
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "left where it was");
}

/// Generated region names carry the source path (`kernel@./kernels.h:12`): named alone or
/// after their program, `show` finds them (the `/` in the path is not a program separator).
#[test]
fn generated_names_with_a_path_are_found() {
    let d = tempfile::tempdir().unwrap();
    let rows: Vec<_> = sizes().into_iter().map(|n| (vec![n], crossover(n).to_vec())).collect();
    write_region(d.path(), "gen", "k_._kern.h_12", &["n"], &["cpu", "gpu"], &rows);
    let file = d.path().join("gen/k_._kern.h_12/part-1-h-1-0.json");
    let text = std::fs::read_to_string(&file).unwrap().replace("\"model\": \"k_._kern.h_12\"", "\"model\": \"k@./kern.h:12\"");
    std::fs::write(&file, text).unwrap();
    for name in ["k@./kern.h:12", "gen/k@./kern.h:12"] {
        let doc = json_of(d.path(), &["show", name]);
        assert_eq!(decisions(&doc).len(), sizes().len(), "{name}: {doc}");
    }
}

/// The store of issue 34 (`../shared/repro/linear-refit-store`): a run stored a linear cost model
/// whose refit on the measurements fails (a non-positive time), in a file of a runtime that kept
/// no parameters. `show` refits it as a run does and never fails; its training set says cpu,
/// gpu, cpu, cpu, a benefit of 8.6 % over the program's own variant `gpu` inside the region's
/// noise, so a run (and `show`) runs `gpu` everywhere and says why (issue 44, `region::own`);
/// a model `train` stores is the one `show` then decides with.
#[test]
fn the_shared_store_shows_and_trains_with_the_stored_model() {
    let d = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/linear-refit-store/app-5ced643595697aef/saxpy");
    let dst = d.path().join("app-5ced643595697aef/saxpy");
    std::fs::create_dir_all(&dst).unwrap();
    for e in std::fs::read_dir(&src).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dst.join(e.file_name())).unwrap();
    }
    let text = ok(d.path(), &["show", "saxpy"]);
    assert!(text.contains("stored model: cost model (linear)") && !text.contains("failed"), "{text}");
    let doc = json_of(d.path(), &["show", "saxpy"]);
    let want: Vec<&str> = vec!["gpu", "gpu", "gpu", "gpu"];
    assert_eq!(decisions(&doc).iter().map(|(_, v)| v.as_str()).collect::<Vec<_>>(), want);
    let by = doc["decided_by"].as_str().unwrap();
    assert!(by.contains("refitted") && by.contains("'gpu', the program's own variant") && by.contains("inside the noise"), "{doc}");
    assert!(text.contains("exceptions") && text.contains("n=1000 -> cpu"), "the refitted model keeps its exceptions: {text}");
    // a failing fit is an error and stores nothing
    fails(d.path(), &["train", "saxpy", "--model", "cost,linear"], "training cost model (linear) failed");
    let trained = json_of(d.path(), &["train", "saxpy", "--model", "dtree"]);
    let doc = json_of(d.path(), &["show", "saxpy"]);
    assert!(doc["decided_by"].as_str().unwrap().starts_with("the stored model, as a run uses it"), "{doc}");
    assert_eq!(decisions(&doc), decisions(&trained));
}

/// `list` on a store whose only file is corrupt says so and fails (not "no saved regions"); a
/// region of 11 variants keeps the table narrow (every variant is in `show` and `--json`).
#[test]
fn list_says_what_it_could_not_read_and_stays_narrow() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("prog").join("reg");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("part-1-h-1-0.json"), br#"{"format":"ompadapt-samples","version":2,"program":"p","model":"reg","loc":"a.c:1","features":["n"],"variants":["a","b"],"written_unix_ns":1,"writer":{"host":"h","pid":1,"rank":null,"size":null,"run":"r"},"samples":[{"features":[1.0],"variant":"a","count":"x","times_ns":[]}]}"#).unwrap();
    let o = ompadapt(d.path(), &["list"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("line 1 column") && err.contains("no readable region") && err.contains("prog/reg"), "{err}");
    let variants: Vec<String> = [
        "serial",
        "threads[0.25]",
        "threads[0.5]",
        "threads[0.75]",
        "threads[1]",
        "num_threads[2]",
        "num_threads[4]",
        "num_threads[8]",
        "num_threads[16]",
        "cpu",
        "gpu",
    ]
    .map(String::from)
    .to_vec();
    let v: Vec<&str> = variants.iter().map(String::as_str).collect();
    let rows: Vec<_> = [1e3, 1e4].iter().map(|&n| (vec![n], (0..11).map(|i| 1000.0 + i as f64 * n).collect())).collect();
    write_region(d.path(), "wide", "many", &["n"], &v, &rows);
    let out = ok(d.path(), &["list", "wide"]);
    assert!(out.lines().all(|l| l.chars().count() <= 120), "{out}");
    assert!(out.contains("11 (serial … gpu)"), "{out}");
    assert_eq!(json_of(d.path(), &["list", "wide"])["regions"][0]["variants"].as_array().unwrap().len(), 11);
}

/// A host region's part file as a run writes it: `serial` and `threads=1` measured on eight
/// sizes, `threads=0.5` never (serial's team there), and what the run's team-size variants
/// resolved to (`teams`); `unavailable` as given.
fn write_team_region(root: &Path, part: &str, team: u32, half: u32, unavailable: Value) {
    let dir = root.join("prog").join("host");
    std::fs::create_dir_all(&dir).unwrap();
    let mut samples = Vec::new();
    for n in sizes() {
        samples.push(json!({"features": [n], "variant": "serial", "count": 1, "times_ns": [1000.0 + 2.0 * n]}));
        samples.push(json!({"features": [n], "variant": "threads=1", "count": 1, "times_ns": [30_000.0 + 1.0 * n]}));
    }
    let doc = json!({
        "format": "ompadapt-samples", "version": 2, "program": "prog", "model": "host", "loc": "h.c:3",
        "features": ["n"], "variants": ["serial", "threads=0.5", "threads=1"],
        "written_unix_ns": 1, "writer": {"host": "h", "pid": 1, "rank": null, "size": null, "run": part},
        "samples": samples,
        "teams": [{"team": team, "threads": {"serial": 1, "threads=0.5": half, "threads=1": team}}],
        "unavailable": unavailable,
    });
    std::fs::write(dir.join(format!("part-{part}-0.json")), serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
}

/// The team-size variants a run resolved to the same team count as one measurement: with runs
/// of a team of 2 only, `threads=0.5` has serial's times and every vector is complete
/// (`list`, `show`, `evaluate`); once a run of a team of 8 is recorded (4 threads there) it
/// counts as unmeasured, and `evaluate` scores nothing, says why (the resolutions, a run's
/// reason for an unavailable variant) and fails.
#[test]
fn a_measurement_counts_for_the_variants_of_its_team() {
    let d = tempfile::tempdir().unwrap();
    let why = "the same team as 'serial' here (1 thread)";
    write_team_region(d.path(), "1-h-1", 2, 1, json!([{"variant": "threads=0.5", "reason": why}]));
    let listed = json_of(d.path(), &["list"]);
    assert_eq!(listed["regions"][0]["complete_vectors"], 16, "{listed}");
    assert_eq!(listed["regions"][0]["same_team"], json!([["serial", "threads=0.5"]]));
    let shown = json_of(d.path(), &["show", "host"]);
    for v in shown["vectors"].as_array().unwrap() {
        assert_eq!(v["times_ns"]["threads=0.5"], v["times_ns"]["serial"], "{v}");
    }
    let text = ok(d.path(), &["show", "host"]);
    assert!(text.contains("one team: serial, threads=0.5 ran 1 thread with a team of 2 in every recorded run"), "{text}");
    let doc = json_of(d.path(), &["evaluate", "host", "--shuffles", "1", "--model", "dtree,2"]);
    assert_eq!(doc["regions"][0]["complete_vectors"], 16);
    assert!(doc["regions"][0]["scores"].as_array().unwrap().iter().all(|s| s["decisions"].as_u64() > Some(0)), "{doc}");

    write_team_region(d.path(), "2-h-2", 8, 4, json!([]));
    let listed = json_of(d.path(), &["list"]);
    assert_eq!(listed["regions"][0]["complete_vectors"], 0, "{listed}");
    assert_eq!(listed["regions"][0]["same_team"], json!([]));
    let o = ompadapt(d.path(), &["evaluate", "host", "--shuffles", "1"]);
    let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    assert!(!o.status.success(), "{out}");
    assert!(out.contains("0 feature vectors with every variant measured"), "{out}");
    assert!(
        out.contains("not evaluated: no feature vector has every variant measured: 'threads=0.5' measured on 0 of 16 vectors (its runs resolved it to 1 thread with a team of 2, 4 threads with a team of 8: the same team as 'serial' in some runs only"),
        "{out}"
    );
    assert!(out.contains(&format!("unavailable in a run: {why}")), "{out}");
    assert!(err.starts_with("ompadapt: error: nothing was evaluated") && err.trim_end().lines().count() == 1, "{err}");
}

/// `version` prints what `--version` does; every option says what it is (`export -o`,
/// `evaluate --seed`); `--dir` is offered by the commands that read a store and not by
/// `trace`; the top-level help names `ompadapt-dataperf`.
#[test]
fn version_and_help_say_what_the_command_line_does() {
    let d = store();
    let version = ok(d.path(), &["version"]);
    assert_eq!(version, ok(d.path(), &["--version"]));
    assert_eq!(version.trim_end(), format!("ompadapt {}", env!("CARGO_PKG_VERSION")));
    assert_eq!(json_of(d.path(), &["version"])["version"], env!("CARGO_PKG_VERSION"));
    let help = ok(d.path(), &["--help"]);
    assert!(help.contains("ompadapt-dataperf -- ./app args") && help.contains("version "), "{help}");
    // an option's help follows its name on its line (clap's short help)
    let option_line = |command: &str, option: &str| {
        let h = ok(d.path(), &[command, "--help"]);
        h.lines().find(|l| l.trim_start().starts_with(option)).map(|l| l.trim().to_owned()).unwrap_or_else(|| panic!("{option} in {h}"))
    };
    let o = option_line("export", "-o, --output <FILE>");
    assert!(o.contains("instead of stdout"), "{o}");
    let seed = option_line("evaluate", "--seed <SEED>");
    assert!(seed.contains("Seed of the shuffles"), "{seed}");
    let dir = option_line("list", "--dir <DIR>");
    assert!(dir.contains("The store"), "{dir}");
    let trace = ok(d.path(), &["trace", "--help"]);
    assert!(!trace.contains("--dir") && trace.contains("--json"), "{trace}");
    // after `trace` --dir is refused as bad usage (exit 2); before it, the top level's
    let o = Command::new(env!("CARGO_BIN_EXE_ompadapt")).args(["trace", "--dir", "x", "t.json"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("`trace` reads no store"), "{}", String::from_utf8_lossy(&o.stderr));
}
