use super::*;
use std::fs;
use crate::config::Config;
use crate::ctx::Ctx;
use crate::region::RegionOptions;
use crate::spec;

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ompadapt-persist-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    d
}

fn region(min_train: i64, c: &Config) -> Region {
    let s = spec::parse("ompadapt1;model=m/1;loc=a.c:3;features=N;variants=cpu,gpu").unwrap().spec;
    Region::with_config(s, min_train, -1, -1, c, &RegionOptions::default())
}

fn cfg() -> Config {
    Config { warmup: false, ..Config::default() }
}

fn run(r: &Region, f: f64) {
    let mut c = Ctx::zeroed();
    r.begin(&[f], &mut c);
    r.end(&c);
}

#[test]
fn sanitized_paths() {
    assert_eq!(region_dir(Path::new("/d"), "prog", "m/1"), PathBuf::from("/d/prog/m_1"));
    assert_eq!(region_dir(Path::new("/d"), "..", ""), PathBuf::from("/d/_../_"));
}

#[test]
fn round_trip_deltas_and_immediate_training() {
    let dir = tmpdir("rt");
    let r = region(4, &cfg());
    attach(&r, &dir, "prog", 100);
    for f in [10.0, 20.0] {
        run(&r, f);
        run(&r, f);
    }
    assert!(r.is_trained());
    for _ in 0..3 {
        run(&r, 10.0); // model-chosen
    }
    let p1 = save(&r).unwrap().expect("written");
    let text = fs::read_to_string(&p1).unwrap();
    assert!(text.contains("\"format\": \"ompadapt-samples\"") && text.contains("\"version\": 2"), "{text}");
    let f1: DataFile = serde_json::from_str(&text).unwrap();
    assert_eq!(f1.samples.len(), 4);
    assert_eq!(f1.monitored.iter().map(|m| m.count).sum::<u64>(), 3);
    assert!(f1.model_trained.is_some());
    assert_eq!(save(&r).unwrap(), None, "nothing new: nothing written");
    run(&r, 10.0);
    let f2 = read_file(&save(&r).unwrap().unwrap()).unwrap();
    assert!(f2.samples.is_empty() && f2.model_trained.is_none());
    assert_eq!(f2.monitored.iter().map(|m| m.count).sum::<u64>(), 1, "only the delta");
    assert!(!fs::read_dir(&r.persist.lock().unwrap().as_ref().unwrap().dir).unwrap().any(|e| e
        .unwrap()
        .file_name()
        .to_string_lossy()
        .starts_with(".tmp")));

    // a second run starts trained, from the first run's samples
    let r2 = region(4, &cfg());
    attach(&r2, &dir, "prog", 100);
    assert!(r2.is_trained());
    assert_eq!(r2.trained().unwrap().origin, Origin::Loaded);
    assert_eq!(r2.training_samples(), 4);
    assert_eq!(r2.persist.lock().unwrap().as_ref().unwrap().loaded_samples, 4);
    assert_eq!(save(&r2).unwrap(), None, "loaded data is not saved again");
    // a region with other variant names keeps the ones that match
    let s3 = spec::parse("ompadapt1;model=m/1;features=N;variants=gpu,fpga").unwrap().spec;
    let r3 = Region::with_config(s3, -1, -1, -1, &cfg(), &RegionOptions::default());
    attach(&r3, &dir, "prog", 100);
    assert_eq!(r3.training_samples(), 2);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn compaction_loses_nothing_and_counts_once() {
    let dir = tmpdir("compact");
    for round in 0..5 {
        let r = region(1000, &cfg());
        attach(&r, &dir, "prog", 3);
        for i in 0..(round + 1) {
            run(&r, i as f64);
        }
        save(&r).unwrap();
    }
    let rdir = region_dir(&dir, "prog", "m/1");
    let names: Vec<String> = fs::read_dir(&rdir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(names.contains(&"merged.json".to_string()), "{names:?}");
    assert!(names.iter().filter(|n| is_part(n)).count() < 3, "{names:?}");
    let m = load_dir(&rdir, "m", None);
    assert_eq!(m.sample_count(), 1 + 2 + 3 + 4 + 5);
    // a crash after writing merged.json but before deleting its parts: parts are skipped
    let merged = read_file(&rdir.join("merged.json")).unwrap();
    if let Some(p) = merged.merged_parts.first() {
        fs::write(rdir.join(p), serde_json::to_vec(&DataFile { samples: merged.samples.clone(), ..merged.clone() }).unwrap()).unwrap();
        assert_eq!(load_dir(&rdir, "m", None).sample_count(), 15);
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn corrupt_truncated_and_foreign_files_are_moved_aside() {
    let dir = tmpdir("damage");
    let good = {
        let r = region(1000, &cfg());
        attach(&r, &dir, "prog", 100);
        run(&r, 1.0);
        save(&r).unwrap().unwrap()
    };
    let rdir = good.parent().unwrap().to_path_buf();
    let text = fs::read_to_string(&good).unwrap();
    fs::write(rdir.join("part-trunc-0.json"), &text[..text.len() / 2]).unwrap();
    fs::write(rdir.join("part-garbage-0.json"), "\u{0}\u{1}binary").unwrap();
    fs::write(rdir.join("part-foreign-0.json"), r#"{"format":"ompadapt-samples","version":99,"x":[]}"#).unwrap();
    fs::write(rdir.join("part-invalid-0.json"), text.replace("\"count\": 1", "\"count\": 0")).unwrap();
    let r = region(1000, &cfg());
    attach(&r, &dir, "prog", 100);
    assert_eq!(r.training_samples(), 1, "the good file loads, the others do not");
    let names: Vec<String> = fs::read_dir(&rdir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    for (orig, tag) in [("part-trunc-0.json", "corrupt"), ("part-garbage-0.json", "corrupt"), ("part-foreign-0.json", "foreign"), ("part-invalid-0.json", "corrupt")] {
        assert!(!names.contains(&orig.to_string()), "{orig} still there: {names:?}");
        assert!(names.iter().any(|n| n.starts_with(&format!("{orig}.{tag}-"))), "{orig} not moved aside as {tag}: {names:?}");
    }
    // the region carries on: saving works
    run(&r, 2.0);
    assert!(save(&r).unwrap().is_some());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn other_features_are_stale() {
    let dir = tmpdir("stale");
    let r = region(1000, &cfg());
    attach(&r, &dir, "prog", 100);
    run(&r, 1.0);
    let p = save(&r).unwrap().unwrap();
    let s = spec::parse("ompadapt1;model=m/1;features=N,M;variants=cpu,gpu").unwrap().spec;
    let r2 = Region::with_config(s, -1, -1, -1, &cfg(), &RegionOptions::default());
    attach(&r2, &dir, "prog", 100);
    assert_eq!(r2.training_samples(), 0);
    assert!(!p.exists());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn drift_reset_makes_older_data_obsolete() {
    let dir = tmpdir("reset");
    let r = region(1000, &cfg());
    attach(&r, &dir, "prog", 100);
    run(&r, 1.0);
    save(&r).unwrap();
    r.with_store(|s| s.reset());
    run(&r, 2.0);
    let f = read_file(&save(&r).unwrap().unwrap()).unwrap();
    assert!(f.reset);
    let m = load_dir(&region_dir(&dir, "prog", "m/1"), "m", None);
    assert_eq!(m.sample_count(), 1);
    assert_eq!(m.samples[0].0 .0, vec![2.0]);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn frozen_uses_the_stored_model() {
    let dir = tmpdir("frozen");
    let r = region(2, &cfg());
    attach(&r, &dir, "prog", 100);
    let mut c = Ctx::zeroed();
    for _ in 0..2 {
        r.begin(&[1.0], &mut c);
        let v = c.variant;
        c.t0 = crate::clock::now() - crate::region::tests_ticks(if v == 1 { 1000 } else { 900_000 }) | (c.t0 & crate::region::T0_FLAGS);
        r.end(&c);
    }
    assert_eq!(r.decide(&[1.0]), Some(1));
    save(&r).unwrap();
    let frozen = Config { frozen: true, ..cfg() };
    let r2 = region(2, &frozen);
    // wipe the samples: a frozen run needs only the stored model
    let rdir = region_dir(&dir, "prog", "m/1");
    attach(&r2, &dir, "prog", 100);
    assert_eq!(r2.trained().unwrap().origin, Origin::Frozen);
    assert_eq!(r2.decide(&[1.0]), Some(1));
    assert!(rdir.exists());
    // no stored model: first variant
    let r3 = Region::with_config(
        spec::parse("ompadapt1;model=other;features=N;variants=cpu,gpu").unwrap().spec,
        -1,
        -1,
        -1,
        &frozen,
        &RegionOptions::default(),
    );
    attach(&r3, &dir, "prog", 100);
    assert_eq!(r3.trained().unwrap().origin, Origin::Fixed);
    fs::remove_dir_all(&dir).unwrap();
}

/// Seed 001's coarse-grained mode: each run uses one variant throughout; the region's total
/// time per run is saved; once every variant has a run, the next run starts trained on the
/// totals and uses the fastest.
#[test]
fn coarse_mode_learns_across_runs() {
    let dir = tmpdir("coarse");
    let c = Config { coarse: crate::config::PerRegion::all(true), ..cfg() };
    let cost = [30_000u64, 10_000, 20_000];
    for run in 0..5 {
        let s = spec::parse("ompadapt1;model=big;features=N;variants=a,b,c").unwrap().spec;
        let r = Region::with_config(s, 3, -1, -1, &c, &RegionOptions::default());
        attach(&r, &dir, "prog", 100);
        let mut used = std::collections::BTreeSet::new();
        for _ in 0..5 {
            let mut ctx = Ctx::zeroed();
            r.begin(&[64.0], &mut ctx);
            let v = ctx.variant as usize;
            used.insert(v);
            ctx.t0 = crate::clock::now() - crate::region::tests_ticks(cost[v]) | (ctx.t0 & crate::region::T0_FLAGS);
            r.end(&ctx);
        }
        assert_eq!(used.len(), 1, "one variant for the whole run");
        let v = *used.iter().next().unwrap();
        if run < 3 {
            assert_eq!(v, run, "run {run} explores the next variant");
            assert!(!r.is_trained());
        } else {
            assert_eq!(v, 1, "run {run}: trained on the totals, the fastest");
            assert_eq!(r.trained().unwrap().origin, Origin::Loaded);
        }
        let f = read_file(&save(&r).unwrap().unwrap()).unwrap();
        assert_eq!(f.runs.len(), 1);
        assert_eq!((f.runs[0].executions, f.runs[0].variant.as_str()), (5, ["a", "b", "c"][v]));
        let total = f.runs[0].total_ns as f64;
        assert!((total - 5.0 * cost[v] as f64).abs() < 0.05 * total, "{total}");
    }
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn version_1_files_are_imported_once() {
    let dir = tmpdir("v1");
    let old = dir.join("prog").join("m_1.json");
    fs::create_dir_all(old.parent().unwrap()).unwrap();
    fs::write(
        &old,
        r#"{"format":"ompadapt-samples","version":1,"program":"prog","model":"m/1","loc":"a.c:3","features":["N"],
            "variants":["cpu","gpu"],"samples":[
            {"features":[10.0],"variant":"cpu","count":3,"sum_ns":30,"min_ns":9,"max_ns":11,"recent_ns":[9,10,11]},
            {"features":[10.0],"variant":"gpu","count":1,"sum_ns":90,"min_ns":90,"max_ns":90,"recent_ns":[90]}]}"#,
    )
    .unwrap();
    let r = region(2, &cfg());
    attach(&r, &dir, "prog", 100);
    assert!(r.is_trained(), "the imported samples train the region");
    assert_eq!(r.decide(&[10.0]), Some(0));
    assert!(!old.exists());
    let r2 = region(2, &cfg());
    attach(&r2, &dir, "prog", 100);
    assert_eq!(r2.persist.lock().unwrap().as_ref().unwrap().loaded_samples, 4, "imported once");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_linked_program_or_region_folder_is_neither_loaded_nor_written() {
    for linked in ["prog", "prog/m_1"] {
        let dir = tmpdir(&format!("link-{}", linked.len()));
        let elsewhere = dir.join("elsewhere");
        fs::create_dir_all(&elsewhere).unwrap();
        let link = dir.join("store").join(linked);
        fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
        let r = region(4, &cfg());
        attach(&r, &dir.join("store"), "prog", 100);
        for f in [10.0, 20.0] {
            run(&r, f);
            run(&r, f);
        }
        assert_eq!(save(&r).unwrap(), None, "{linked}: refused, nothing written");
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0, "{linked}: nothing written through the link");
        assert!(r.is_trained(), "{linked}: the region still learns, in memory");
        fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn oversized_links_and_fifos_among_the_parts_are_moved_aside_unread() {
    let dir = tmpdir("oversized");
    let r = region(100, &cfg());
    attach(&r, &dir, "prog", 100);
    run(&r, 1.0);
    save(&r).unwrap().expect("written");
    let rdir = region_dir(&dir, "prog", "m/1");
    // sparse: no disk used, but a reader without a bound would allocate it all
    fs::File::create(rdir.join("part-huge-0.json")).unwrap().set_len(safe_fs::MAX_READ + 1).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", rdir.join("part-link-0.json")).unwrap();
    let fifo = std::ffi::CString::new(rdir.join("part-fifo-0.json").to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    let m = load_dir(&rdir, "m", None);
    assert_eq!(m.sample_count(), 1, "the real part still loads");
    let names: Vec<String> = fs::read_dir(&rdir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    for (planted, tag) in [("part-huge-0.json", "oversized"), ("part-link-0.json", "symlink"), ("part-fifo-0.json", "special")] {
        assert!(!names.iter().any(|n| n == planted), "{planted} is moved aside: {names:?}");
        assert!(names.iter().any(|n| n.starts_with(&format!("{planted}.{tag}-"))), "{planted}: {names:?}");
    }
    assert!(fs::read_to_string("/etc/passwd").is_ok_and(|t| !t.is_empty()), "the link's target is untouched");
    fs::remove_dir_all(&dir).unwrap();
}
