use super::*;
use crate::ctx::Ctx;
use crate::region::RegionBuilder;
use crate::spec;
use std::fs;

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ompadapt-persist-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    d
}

fn prog() -> Program {
    Program::new("prog", "/opt/app/prog")
}

fn builder(min_train: usize) -> RegionBuilder {
    RegionBuilder::new().min_train(min_train).warmup(false).sample(1)
}

fn region_with(b: RegionBuilder, descriptor: &str) -> Region {
    b.build(spec::parse(descriptor).unwrap().descriptor)
}

fn region(min_train: usize) -> Region {
    region_with(builder(min_train), "ompadapt1;model=m/1;loc=a.c:3;features=N;variants=cpu,gpu")
}

/// One execution of `r` on `f` that takes `us[variant]` µs.
fn run_cost(r: &Region, f: f64, us: &[u64]) -> usize {
    let mut c = Ctx::zeroed();
    r.begin(&[f], &mut c);
    let v = c.variant as usize;
    if c.t0.is_timed() {
        c.t0 = c.t0.with_time((crate::clock::now() - crate::region::tests_ticks(us[v] * 1000)).max(1));
    }
    r.end(&c);
    v
}

/// cpu 100 µs, gpu 300 µs.
fn run(r: &Region, f: f64) -> usize {
    run_cost(r, f, &[100, 300])
}

/// Both variants on N = 10 and N = 20: four training samples, two decided vectors.
fn explore_two_vectors(r: &Region) {
    for f in [10.0, 20.0] {
        run(r, f);
        run(r, f);
    }
}

fn names(dir: &Path) -> Vec<String> {
    fs::read_dir(dir).map(|rd| rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect()).unwrap_or_default()
}

#[test]
fn program_folders_keep_programs_with_one_name_apart() {
    let a = Program::new("main", "/src/hecbench/a/main");
    let b = Program::new("main", "/src/hecbench/b/main");
    assert_ne!(a.folder(), b.folder());
    assert!(a.folder().starts_with("main-") && a.folder().len() == "main-".len() + 16, "{}", a.folder());
    assert_eq!(a.folder(), Program::new("main", "/src/hecbench/a/main").folder(), "stable across runs and rebuilds");
    assert_eq!(region_dir(Path::new("/d"), &a, "m/1"), PathBuf::from(format!("/d/{}/m_1", a.folder())));
    assert_eq!(sanitize(".."), "_..");
}

#[test]
fn round_trip_deltas_and_immediate_training() {
    let dir = tmpdir("rt");
    let r = region(4);
    let mut b = attach(&r, &dir, &prog(), 100);
    explore_two_vectors(&r);
    assert!(r.is_trained());
    for _ in 0..3 {
        run(&r, 10.0); // model-chosen
    }
    let p1 = save(&r, &mut b).unwrap().expect("written");
    let text = fs::read_to_string(&p1).unwrap();
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(doc["format"] == "ompadapt-samples" && doc["version"] == 2, "{text}");
    let f1: DataFile = serde_json::from_str(&text).unwrap();
    assert_eq!(f1.samples.len(), 4);
    assert_eq!(f1.program_id, "/opt/app/prog");
    assert_eq!(f1.monitored.iter().map(|m| m.count).sum::<u64>(), 3);
    assert!(f1.model_trained.is_some());
    assert_eq!(save(&r, &mut b).unwrap(), None, "nothing new: nothing written");
    run(&r, 10.0);
    let f2 = read_file(&save(&r, &mut b).unwrap().unwrap()).unwrap();
    assert!(f2.samples.is_empty() && f2.model_trained.is_none());
    assert_eq!(f2.monitored.iter().map(|m| m.count).sum::<u64>(), 1, "only the delta");
    assert!(!names(&b.dir).iter().any(|n| n.starts_with(".tmp")));

    // a second run starts trained, from the first run's samples: it loads the model trained on
    // exactly them and trains nothing
    let r2 = region(4);
    let mut b2 = attach(&r2, &dir, &prog(), 100);
    assert!(r2.is_trained());
    assert_eq!(r2.trained().unwrap().origin, Origin::Stored { origin: "online".into(), current: true });
    assert_eq!(r2.trained().unwrap().train_ns, 0, "nothing trained at start-up");
    assert_eq!(r2.training_samples(), 4);
    assert_eq!(r2.loaded_samples(), 4);
    // loaded data is not saved again, nor the loaded model (it is on disk)
    assert!(!r2.train_at_exit(), "nothing new to train on at exit");
    assert_eq!(save(&r2, &mut b2).unwrap(), None, "nothing to save");
    // a region with other variant names keeps the ones that match
    let r3 = region_with(RegionBuilder::new().warmup(false), "ompadapt1;model=m/1;features=N;variants=gpu,fpga");
    attach(&r3, &dir, &prog(), 100);
    assert_eq!(r3.training_samples(), 2);
    // another program with the same name and region sees none of it
    let r4 = region(4);
    attach(&r4, &dir, &Program::new("prog", "/elsewhere/prog"), 100);
    assert_eq!((r4.training_samples(), r4.is_trained()), (0, false));
    fs::remove_dir_all(&dir).unwrap();
}

/// Learning across runs whatever the executions per run: a program that executes its region
/// once per process, with 11 variants, chooses the best by run 22 and in every run after (each
/// execution is the variant's first in its process: cold, and labelled from cold data).
#[test]
fn one_execution_per_run_learns_across_runs() {
    let dir = tmpdir("oneshot");
    let variants: Vec<String> = (0..11).map(|i| format!("v{i}")).collect();
    let descriptor = format!("ompadapt1;model=once;loc=o.c:1;features=n;variants={}", variants.join(","));
    let cost: Vec<u64> = (0..11).map(|v| 200 + 37 * ((v * 7 + 3) % 11) as u64).collect();
    let best = (0..11).min_by_key(|&v| cost[v]).unwrap();
    let mut chosen = Vec::new();
    for _run in 1..=30 {
        let r = region_with(RegionBuilder::new().sample(1), &descriptor);
        let mut b = attach(&r, &dir, &prog(), 16);
        chosen.push(run_cost(&r, 64.0, &cost));
        r.train_at_exit(); // as the exit handler does before saving
        save(&r, &mut b).unwrap();
    }
    let first_best = chosen.iter().position(|&v| v == best).unwrap();
    assert!(first_best < 22, "{chosen:?}");
    assert!(chosen[21..].iter().all(|&v| v == best), "runs 22..30: {chosen:?}");
    let mut explored = chosen[..11].to_vec();
    explored.sort();
    assert_eq!(explored, (0..11).collect::<Vec<_>>(), "the first 11 runs measure the 11 variants once each");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn compaction_loses_nothing_and_counts_once() {
    let dir = tmpdir("compact");
    for round in 0..5 {
        let r = region(1000);
        let mut b = attach(&r, &dir, &prog(), 3);
        for i in 0..(round + 1) {
            run(&r, 100.0 + i as f64);
        }
        save(&r, &mut b).unwrap();
    }
    let rdir = region_dir(&dir, &prog(), "m/1");
    let n = names(&rdir);
    assert!(n.contains(&"merged.json".to_string()), "{n:?}");
    assert!(n.iter().filter(|n| is_part(n)).count() < 3, "{n:?}");
    let m = load_dir(&rdir, "m", None);
    assert_eq!(m.sample_count(), 1 + 2 + 3 + 4 + 5);
    fs::remove_dir_all(&dir).unwrap();
}

/// A compaction killed between renaming its merged.json and deleting the parts it contains,
/// then any later compaction: those parts were counted twice, forever. The next compaction
/// lists them again and deletes them; nothing is counted twice, nothing lost.
#[test]
fn leftover_parts_of_an_interrupted_compaction_are_counted_once() {
    let dir = tmpdir("leftover");
    let rdir = region_dir(&dir, &prog(), "m/1");
    let save_one = |f: f64| {
        let r = region(1000);
        let mut b = attach(&r, &dir, &prog(), 1000);
        run(&r, f);
        save(&r, &mut b).unwrap().unwrap()
    };
    let p1 = save_one(1.0);
    let p2 = save_one(2.0);
    let kept = [fs::read(&p1).unwrap(), fs::read(&p2).unwrap()];
    compact(&rdir, "m").unwrap();
    // the crash: the parts it merged are back, as if never deleted
    fs::write(&p1, &kept[0]).unwrap();
    fs::write(&p2, &kept[1]).unwrap();
    assert_eq!(load_dir(&rdir, "m", None).sample_count(), 2, "listed in merged_parts: skipped");
    save_one(3.0);
    assert_eq!(compact(&rdir, "m").unwrap(), 1, "merges the new part");
    let merged = read_file(&rdir.join("merged.json")).unwrap();
    assert_eq!(merged.merged_parts.len(), 3, "the leftovers are listed again: {:?}", merged.merged_parts);
    assert!(!p1.exists() && !p2.exists(), "and deleted");
    save_one(4.0);
    compact(&rdir, "m").unwrap();
    assert_eq!(load_dir(&rdir, "m", None).sample_count(), 4, "each sample once");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn corrupt_truncated_and_foreign_files_are_moved_aside() {
    let dir = tmpdir("damage");
    let good = {
        let r = region(1000);
        let mut b = attach(&r, &dir, &prog(), 100);
        run(&r, 1.0);
        save(&r, &mut b).unwrap().unwrap()
    };
    let rdir = good.parent().unwrap().to_path_buf();
    let text = fs::read_to_string(&good).unwrap();
    fs::write(rdir.join("part-trunc-0.json"), &text[..text.len() / 2]).unwrap();
    fs::write(rdir.join("part-garbage-0.json"), "\u{0}\u{1}binary").unwrap();
    fs::write(rdir.join("part-foreign-0.json"), r#"{"format":"ompadapt-samples","version":99,"x":[]}"#).unwrap();
    fs::write(rdir.join("part-invalid-0.json"), text.replace("\"count\":1", "\"count\":0")).unwrap();
    let r = region(1000);
    let mut b = attach(&r, &dir, &prog(), 100);
    assert_eq!(r.training_samples(), 1, "the good file loads, the others do not");
    let n = names(&rdir);
    for (orig, tag) in [
        ("part-trunc-0.json", "corrupt"),
        ("part-garbage-0.json", "corrupt"),
        ("part-foreign-0.json", "foreign"),
        ("part-invalid-0.json", "corrupt"),
    ] {
        assert!(!n.contains(&orig.to_string()), "{orig} still there: {n:?}");
        assert!(n.iter().any(|x| x.starts_with(&format!("{orig}.{tag}-"))), "{orig} not moved aside as {tag}: {n:?}");
    }
    // the region carries on: saving works
    run(&r, 2.0);
    assert!(save(&r, &mut b).unwrap().is_some());
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn other_features_are_stale() {
    let dir = tmpdir("stale");
    let r = region(1000);
    let mut b = attach(&r, &dir, &prog(), 100);
    run(&r, 1.0);
    let p = save(&r, &mut b).unwrap().unwrap();
    let r2 = region_with(RegionBuilder::new().warmup(false), "ompadapt1;model=m/1;features=N,M;variants=cpu,gpu");
    attach(&r2, &dir, &prog(), 100);
    assert_eq!(r2.training_samples(), 0);
    assert!(!p.exists());
    fs::remove_dir_all(&dir).unwrap();
}

/// After a drift the re-measured pairs supersede their earlier measurements; every other
/// pair, and the earlier measurements' count, stay.
#[test]
fn remeasured_pairs_supersede_per_pair() {
    let dir = tmpdir("supersede");
    let r = region(1000);
    let mut b = attach(&r, &dir, &prog(), 100);
    run(&r, 1.0);
    run(&r, 1.0);
    run(&r, 2.0);
    save(&r, &mut b).unwrap();
    assert_eq!(r.remeasure(&[1.0]), Some(0));
    run_cost(&r, 1.0, &[900, 300]);
    run_cost(&r, 1.0, &[900, 300]);
    let f = read_file(&save(&r, &mut b).unwrap().unwrap()).unwrap();
    assert!(f.samples.iter().all(|s| s.supersedes && s.features == vec![1.0]), "{:?}", f.samples);
    assert!(!f.reset);
    let m = load_dir(&region_dir(&dir, &prog(), "m/1"), "m", None);
    assert_eq!(m.sample_count(), 5, "nothing forgotten");
    let pair = |f: f64, v: &str| m.samples.iter().find(|((k, n), _)| k == &vec![f] && n == v).unwrap().1.clone();
    assert_eq!((pair(1.0, "cpu").count, pair(1.0, "cpu").warm.len(), pair(1.0, "cpu").superseded), (2, 1, 1));
    assert!(pair(1.0, "cpu").warm[0] > 800_000.0, "labels use the new measurement");
    assert_eq!(pair(2.0, "cpu").warm.len(), 1, "the other vector is untouched");
    let r2 = region(2);
    attach(&r2, &dir, &prog(), 100);
    assert_eq!(r2.label(&[1.0]), Some(1), "the next run labels from the new measurements");
    fs::remove_dir_all(&dir).unwrap();
}

/// Old files with `reset: true` (runtimes that forgot everything on a drift) hide nothing.
#[test]
fn an_old_reset_flag_hides_nothing() {
    let dir = tmpdir("reset");
    let r = region(1000);
    let mut b = attach(&r, &dir, &prog(), 100);
    run(&r, 1.0);
    save(&r, &mut b).unwrap();
    run(&r, 2.0);
    let p = save(&r, &mut b).unwrap().unwrap();
    let text = fs::read_to_string(&p).unwrap().replacen("\"format\"", "\"reset\": true,\n  \"format\"", 1);
    fs::write(&p, text).unwrap();
    assert!(read_file(&p).unwrap().reset);
    assert_eq!(load_dir(&region_dir(&dir, &prog(), "m/1"), "m", None).sample_count(), 2);
    fs::remove_dir_all(&dir).unwrap();
}

/// Counts add up saturating: two files that each claim nearly 2^64 measurements.
#[test]
fn counts_saturate_never_wrap() {
    let dir = tmpdir("saturate");
    let r = region(1000);
    let mut b = attach(&r, &dir, &prog(), 100);
    run(&r, 1.0);
    let p = save(&r, &mut b).unwrap().unwrap();
    let mut f = read_file(&p).unwrap();
    f.samples[0].count = u64::MAX - 1;
    f.monitored = vec![MonitoredRecord {
        features: vec![1.0],
        variant: "cpu".into(),
        count: u64::MAX - 1,
        sum_ns: u64::MAX - 1,
        timed: Some(u64::MAX - 1),
    }];
    fs::write(&p, serde_json::to_vec(&f).unwrap()).unwrap();
    fs::write(p.with_file_name("part-copy-0.json"), serde_json::to_vec(&f).unwrap()).unwrap();
    let rdir = region_dir(&dir, &prog(), "m/1");
    let m = load_dir(&rdir, "m", None);
    assert_eq!(m.sample_count(), u64::MAX);
    assert_eq!(m.monitored[0].1.count, u64::MAX);
    compact(&rdir, "m").unwrap();
    assert_eq!(load_dir(&rdir, "m", None).sample_count(), u64::MAX);
    let r2 = region(1000);
    attach(&r2, &dir, &prog(), 100);
    assert_eq!(r2.with_measurements(|s| s.counts(0)[0].count), u32::MAX, "the region's own counter saturates too");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn frozen_uses_the_stored_model() {
    let dir = tmpdir("frozen");
    let r = region(2);
    let mut b = attach(&r, &dir, &prog(), 100);
    for _ in 0..2 {
        run_cost(&r, 1.0, &[900, 1]);
    }
    assert_eq!(r.decide(&[1.0]), Some(1));
    save(&r, &mut b).unwrap();
    let r2 = region_with(builder(2).frozen(true), "ompadapt1;model=m/1;loc=a.c:3;features=N;variants=cpu,gpu");
    attach(&r2, &dir, &prog(), 100);
    assert_eq!(r2.trained().unwrap().origin, Origin::Frozen("online".into()));
    assert_eq!(r2.decide(&[1.0]), Some(1));
    // no stored model: first variant
    let r3 = region_with(RegionBuilder::new().frozen(true), "ompadapt1;model=other;features=N;variants=cpu,gpu");
    attach(&r3, &dir, &prog(), 100);
    assert_eq!(r3.trained().unwrap().origin, Origin::Fixed);
    fs::remove_dir_all(&dir).unwrap();
}

/// Liao et al.'s coarse-grained mode: each run uses one variant throughout; the region's total
/// time per run is saved; once every variant has a run, that run's exit trains on the totals
/// (nothing is trained at start-up) and the next run loads the model and uses the fastest.
#[test]
fn coarse_mode_learns_across_runs() {
    let dir = tmpdir("coarse");
    let cost = [30u64, 10, 20];
    for run in 0..5 {
        let r = region_with(RegionBuilder::new().min_train(3).warmup(false).coarse(true), "ompadapt1;model=big;features=N;variants=a,b,c");
        let mut b = attach(&r, &dir, &prog(), 100);
        let mut used = std::collections::BTreeSet::new();
        for _ in 0..5 {
            used.insert(run_cost(&r, 64.0, &cost));
        }
        assert_eq!(used.len(), 1, "one variant for the whole run");
        let v = *used.iter().next().unwrap();
        if run < 3 {
            assert_eq!(v, run, "run {run} explores the next variant");
            assert!(!r.is_trained());
        } else {
            assert_eq!(v, 1, "run {run}: trained on the totals, the fastest");
            let current = Origin::Stored { origin: "exit".into(), current: true };
            assert_eq!(r.trained().unwrap().origin, current, "run {run}: loaded, not trained at start-up");
        }
        // as the exit handler does before saving: every run that executed has new totals
        assert_eq!(r.train_at_exit(), run >= 2, "run {run}: trains once every variant has a total");
        let f = read_file(&save(&r, &mut b).unwrap().unwrap()).unwrap();
        assert_eq!(f.runs.len(), 1);
        assert_eq!((f.runs[0].executions, f.runs[0].variant.as_str()), (5, ["a", "b", "c"][v]));
        let total = f.runs[0].total_ns as f64;
        assert!((total - 5000.0 * cost[v] as f64).abs() < 0.05 * total, "{total}");
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
            {"features":[10.0],"variant":"cpu","count":3,"sum_ns":30,"min_ns":9,"max_ns":11,"recent_ns":[9000,10000,11000]},
            {"features":[10.0],"variant":"gpu","count":1,"sum_ns":90,"min_ns":90,"max_ns":90,"recent_ns":[90000]}]}"#,
    )
    .unwrap();
    let r = region(2);
    attach(&r, &dir, &prog(), 100);
    assert!(r.training_deferred(), "the imported samples are trained on at exit");
    assert!(r.train_at_exit());
    assert_eq!(r.decide(&[10.0]), Some(0));
    assert!(!old.exists());
    let r2 = region(2);
    attach(&r2, &dir, &prog(), 100);
    assert_eq!(r2.loaded_samples(), 4, "imported once");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_linked_program_or_region_folder_is_neither_loaded_nor_written() {
    for linked in [prog().folder(), format!("{}/m_1", prog().folder())] {
        let dir = tmpdir(&format!("link-{}", linked.len()));
        let elsewhere = dir.join("elsewhere");
        fs::create_dir_all(&elsewhere).unwrap();
        let link = dir.join("store").join(&linked);
        fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &link).unwrap();
        let r = region(4);
        let mut b = attach(&r, &dir.join("store"), &prog(), 100);
        for f in [10.0, 20.0] {
            run(&r, f);
            run(&r, f);
        }
        assert_eq!(save(&r, &mut b).unwrap(), None, "{linked}: refused, nothing written");
        assert_eq!(fs::read_dir(&elsewhere).unwrap().count(), 0, "{linked}: nothing written through the link");
        assert!(r.is_trained(), "{linked}: the region still learns, in memory");
        fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn oversized_links_fifos_and_sockets_among_the_parts_are_moved_aside_unread() {
    let dir = tmpdir("oversized");
    let r = region(100);
    let mut b = attach(&r, &dir, &prog(), 100);
    run(&r, 1.0);
    save(&r, &mut b).unwrap().expect("written");
    let rdir = region_dir(&dir, &prog(), "m/1");
    // sparse: no disk used, but a reader without a bound would allocate it all
    fs::File::create(rdir.join("part-huge-0.json")).unwrap().set_len(safe_fs::MAX_READ + 1).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", rdir.join("part-link-0.json")).unwrap();
    let fifo = std::ffi::CString::new(rdir.join("part-fifo-0.json").to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    let _sock = std::os::unix::net::UnixListener::bind(rdir.join("part-sock-0.json")).unwrap();
    let m = load_dir(&rdir, "m", None);
    assert_eq!(m.sample_count(), 1, "the real part still loads");
    let n = names(&rdir);
    for (planted, tag) in [
        ("part-huge-0.json", "oversized"),
        ("part-link-0.json", "symlink"),
        ("part-fifo-0.json", "special"),
        ("part-sock-0.json", "special"),
    ] {
        assert!(!n.iter().any(|x| x == planted), "{planted} is moved aside: {n:?}");
        assert!(n.iter().any(|x| x.starts_with(&format!("{planted}.{tag}-"))), "{planted}: {n:?}");
    }
    assert!(fs::read_to_string("/etc/passwd").is_ok_and(|t| !t.is_empty()), "the link's target is untouched");
    fs::remove_dir_all(&dir).unwrap();
}

/// The rule of `store::definition` at run time: a variant is its name; measurements of the
/// variants still present are used, those of variants the region no longer has are not, and a
/// model trained on another variant set decides nothing (one line, in the report too).
#[test]
fn a_changed_variant_set_keeps_its_variants_measurements_and_drops_the_old_model() {
    let dir = tmpdir("variants");
    let r = region(4);
    let mut b = attach(&r, &dir, &prog(), 100);
    explore_two_vectors(&r);
    assert!(r.is_trained());
    save(&r, &mut b).unwrap().expect("written");
    let three = "ompadapt1;model=m/1;loc=a.c:5;features=N;variants=cpu,gpu,tl=128";
    // a third variant: the four measurements of cpu and gpu count, the old model does not
    let r2 = region_with(builder(4), three);
    attach(&r2, &dir, &prog(), 100);
    assert_eq!(r2.training_samples(), 4);
    assert!(!r2.is_trained(), "the cpu/gpu model must not decide among three variants");
    let note = r2.saved_data_note().unwrap_or_default().to_owned();
    assert!(
        note.contains("its variants changed since the saved data (was cpu, gpu; now cpu, gpu, tl=128): 4 measurements of the variants still present are used")
            && note.ends_with("the saved model is not"),
        "{note}"
    );
    let rep = crate::report::region_report(&r2);
    assert_eq!(rep.saved_data.as_deref(), Some(note.as_str()));
    // frozen: no stored model of these variants, the first variant, and why
    let r3 = region_with(builder(4).frozen(true), three);
    attach(&r3, &dir, &prog(), 100);
    assert_eq!(r3.trained().unwrap().origin, Origin::Fixed);
    // a variant gone: its measurements are kept on disk but not used
    let r4 = region_with(builder(4), "ompadapt1;model=m/1;features=N;variants=gpu,fpga");
    attach(&r4, &dir, &prog(), 100);
    assert_eq!(r4.training_samples(), 2);
    assert!(r4.saved_data_note().unwrap_or_default().contains("2 of variants it no longer has (cpu) are kept on disk but not used"));
    // the same names in another order are the same variants: the saved model decides
    let r5 = region_with(builder(4), "ompadapt1;model=m/1;features=N;variants=gpu,cpu");
    attach(&r5, &dir, &prog(), 100);
    assert!(r5.is_trained() && r5.saved_data_note().is_none());
    assert_eq!(r5.decide(&[10.0]), Some(1), "cpu, now the second variant");
    fs::remove_dir_all(&dir).unwrap();
}

/// A frozen run refits the stored model with the model it records (`ompadapt train
/// --model dtree,1` stores a depth-1 tree; the region asks for `auto`).
#[test]
fn frozen_refits_the_kind_the_record_names() {
    let dir = tmpdir("frozen-kind");
    let r = region(1000);
    let mut b = attach(&r, &dir, &prog(), 100);
    for f in [10.0, 20.0, 30.0] {
        for _ in 0..2 {
            run_cost(&r, f, if f < 25.0 { &[100, 300] } else { &[300, 100] });
        }
    }
    save(&r, &mut b).unwrap().expect("written");
    let record = ModelRecord {
        kind: "decision tree (max depth 1)".into(),
        trained_unix_ns: unix_ns(),
        labels: [(10.0, "cpu"), (20.0, "cpu"), (30.0, "gpu")]
            .iter()
            .map(|&(f, v)| LabelRecord { features: vec![f], variant: v.into() })
            .collect(),
        text: String::new(),
        variants: vec!["cpu".into(), "gpu".into()],
        origin: OFFLINE.into(),
        parameters: None,
        trained_on: None,
        estimate: None,
        note: None,
        own_variant: None,
    };
    let part =
        DataFile { model_trained: Some(record), written_unix_ns: unix_ns(), ..read_file(&b.dir.join(names(&b.dir)[0].clone())).unwrap() };
    fs::write(b.dir.join("part-offline-0.json"), serde_json::to_vec(&DataFile { samples: vec![], ..part }).unwrap()).unwrap();
    let frozen = region_with(builder(1000).frozen(true), "ompadapt1;model=m/1;loc=a.c:3;features=N;variants=cpu,gpu");
    attach(&frozen, &dir, &prog(), 100);
    let t = frozen.trained().unwrap();
    assert_eq!(t.origin, Origin::Frozen(OFFLINE.into()));
    assert_eq!(t.chosen, ModelChoice::Tree { max_depth: 1 });
    assert_eq!((frozen.decide(&[10.0]), frozen.decide(&[30.0])), (Some(0), Some(1)));
    fs::remove_dir_all(&dir).unwrap();
}

/// What the command reads: the newest file's definition, only its variants' data, files of
/// other features skipped and counted (never moved), the earlier definition named; compaction
/// keeps which variants the model decides among.
#[test]
fn the_newest_definition_is_the_region_and_the_rest_is_set_aside() {
    let dir = tmpdir("view");
    let old = region(4);
    let mut b = attach(&old, &dir, &prog(), 100);
    explore_two_vectors(&old);
    save(&old, &mut b).unwrap().expect("written");
    // rebuilt: a variant more, the directive moved
    let new = region_with(builder(1000), "ompadapt1;model=m/1;loc=a.c:9;features=N;variants=cpu,gpu,tl=64");
    let mut b2 = attach(&new, &dir, &prog(), 100);
    for _ in 0..3 {
        run_cost(&new, 40.0, &[100, 300, 50]);
    }
    save(&new, &mut b2).unwrap().expect("written");
    // a file of other features (another build running beside it)
    let other = region_with(builder(6), "ompadapt1;model=m/1;loc=a.c:9;features=N,M;variants=cpu");
    run_cost(&other, 7.0, &[1]);
    fs::write(
        b.dir.join("part-0-other-0.json"),
        serde_json::to_vec(&DataFile {
            features: vec!["N".into(), "M".into()],
            written_unix_ns: 1,
            samples: vec![SampleRecord {
                features: vec![1.0, 2.0],
                variant: "cpu".into(),
                count: 3,
                times_ns: vec![1.0; 3],
                cold_ns: vec![],
                supersedes: false,
            }],
            ..read_file(&save_path(&b2)).unwrap()
        })
        .unwrap(),
    )
    .unwrap();
    let merged = export_merged(&dir, None, None).remove(0);
    let v = assessment::view(&merged);
    assert_eq!((v.file.loc.as_str(), v.file.variants.len()), ("a.c:9", 3));
    assert_eq!(v.earlier.as_ref().map(|d| d.loc.as_str()), Some("a.c:3"));
    assert_eq!((v.assessment.stale_files, v.assessment.stale_measurements), (1, 3));
    assert!(v.file.samples.iter().all(|s| s.features.len() == 1), "no vector of the other features");
    assert!(names(&b.dir).contains(&"part-0-other-0.json".to_owned()), "the command moves nothing");
    assert_eq!(v.assessment.other_model.as_ref().map(|m| m.variants.len()), Some(2), "the old model is set aside");
    assert!(v.file.model_trained.is_none());
    // compaction (by a run of the new build) merges its definition's files and moves the other
    // features' file aside, as loading does; the model keeps its variants
    compact_in(&Dir::open(&b.dir, false).unwrap(), "m/1", Some(&new.spec.features)).unwrap();
    let m = load_dir(&b.dir, "m", None);
    assert_eq!(m.model.as_ref().map(|m| m.variants.clone()), Some(vec!["cpu".to_owned(), "gpu".to_owned()]));
    assert_eq!(m.header.as_ref().map(|h| h.loc.as_str()), Some("a.c:9"));
    assert!(!names(&b.dir).contains(&"part-0-other-0.json".to_owned()));
    fs::remove_dir_all(&dir).unwrap();
}

/// What a region's team-size variants resolved to and the variants it found unavailable are
/// saved with its data; merging keeps each distinct record once, and the merged file (what
/// compaction writes, what the command reads) has them all.
#[test]
fn team_resolutions_and_unavailable_variants_are_saved_and_merged() {
    let dir = tmpdir("teams");
    let descriptor = "ompadapt1;model=h;loc=h.c:3;features=N;variants=serial,threads=0.5,threads=1";
    let names: Vec<String> = ["serial", "threads=0.5", "threads=1"].map(String::from).to_vec();
    let mut written = Vec::new();
    for team in [2, 2, 8] {
        let r = region_with(builder(100), descriptor);
        let mut b = attach(&r, &dir, &prog(), 100);
        r.teams.set(crate::team::TeamRecord::of(&names, team).unwrap()).unwrap();
        if team == 2 {
            assert!(r.mark_unavailable(1, Some(0), "the same team as 'serial' here (1 thread)"));
        }
        run_cost(&r, 10.0, &[100, 200, 300]);
        written.push(read_file(&save(&r, &mut b).unwrap().expect("written")).unwrap());
    }
    assert_eq!(written[0].teams[0].threads["threads=0.5"], 1);
    assert_eq!(
        written[0].unavailable,
        vec![UnavailableRecord { variant: "threads=0.5".into(), reason: "the same team as 'serial' here (1 thread)".into() }]
    );
    assert!(written[2].unavailable.is_empty());
    let merged = export_merged(&dir, None, None).remove(0);
    assert_eq!(merged.teams.iter().map(|t| t.team).collect::<Vec<_>>(), vec![2, 8], "distinct records, once each");
    assert_eq!(merged.unavailable.len(), 1);
    let f = merged.exported();
    assert_eq!((f.teams.len(), f.unavailable.len()), (2, 1));
    assert!(!crate::team::TeamRecord::same_team(&f.teams, "serial", "threads=0.5"), "4 threads with a team of 8");
    fs::remove_dir_all(&dir).unwrap();
}

/// The newest part of a binding's folder.
fn save_path(b: &Binding) -> PathBuf {
    let mut parts: Vec<String> = names(&b.dir).into_iter().filter(|n| is_part(n)).collect();
    parts.sort();
    b.dir.join(parts.pop().expect("a part"))
}

/// One model everywhere (issue 34): the model a run trains and stores is the one a frozen run,
/// a later run (before it retrains) and `ompadapt show` (absorb + [`install_stored`], as here)
/// decide with: the same decision on every measured vector and on vectors nobody measured.
mod one_model {
    use super::*;
    use crate::model::{CostForm, Family, ModelChoice};
    use proptest::prelude::*;

    const CHOICES: [ModelChoice; 6] = [
        ModelChoice::Tree { max_depth: 3 },
        ModelChoice::Forest { trees: 5, max_depth: 3 },
        ModelChoice::LogisticRegression,
        ModelChoice::Cost(CostForm::new(Family::Linear, 0)),
        ModelChoice::Cost(CostForm::new(Family::LogLinear, 1)),
        ModelChoice::Auto,
    ];
    const DESCRIPTOR: &str = "ompadapt1;model=agree;loc=a.c:3;features=N;variants=a,b,c";

    fn decisions(r: &Region, xs: &[f64]) -> Vec<Option<usize>> {
        xs.iter().map(|&x| r.decide(&[x])).collect()
    }

    /// Trains a region on `costs[vector][variant]` µs at N = `sizes`, saves it; the decisions
    /// on `probe`.
    fn trained_run(dir: &Path, choice: ModelChoice, sizes: &[f64], costs: &[[u64; 3]], probe: &[f64]) -> Vec<Option<usize>> {
        let r = region_with(builder(sizes.len()).model(choice), DESCRIPTOR);
        let mut b = attach(&r, dir, &prog(), 100);
        for _ in 0..40 {
            if r.is_trained() {
                break;
            }
            for (&n, c) in sizes.iter().zip(costs) {
                run_cost(&r, n, c);
            }
        }
        assert!(r.is_trained(), "trains within 40 rounds");
        r.train_at_exit(); // as the exit handler does before saving
        save(&r, &mut b).unwrap();
        decisions(&r, probe)
    }

    fn reader(dir: &Path, b: RegionBuilder, probe: &[f64]) -> (Vec<Option<usize>>, Origin) {
        let r = region_with(b, DESCRIPTOR);
        attach(&r, dir, &prog(), 100);
        (decisions(&r, probe), r.trained().expect("a model decides").origin.clone())
    }

    fn as_show_decides(dir: &Path, probe: &[f64]) -> Vec<Option<usize>> {
        let r = region_with(RegionBuilder::new(), DESCRIPTOR);
        let merged = load_saved(dir, &prog(), "agree", &["N".to_owned()]).view;
        absorb_saved(&r, &merged);
        assert!(install_stored(&r, merged.model.as_ref().expect("a stored model")));
        decisions(&r, probe)
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]
        #[test]
        fn run_frozen_loaded_and_show_agree(
            choice in 0..CHOICES.len(),
            costs in proptest::collection::vec([10u64..400, 10u64..400, 10u64..400], 2..6),
        ) {
            let dir = tmpdir(&format!("agree-{choice}-{}", costs.len()));
            let sizes: Vec<f64> = (0..costs.len()).map(|i| 1000.0 * (1 << (2 * i)) as f64).collect();
            let mut probe = sizes.clone();
            probe.extend(sizes.iter().map(|n| n * 1.7 + 3.0));
            let run = trained_run(&dir, CHOICES[choice], &sizes, &costs, &probe);
            let (frozen, origin) = reader(&dir, builder(2).frozen(true), &probe);
            prop_assert_eq!(&frozen, &run, "frozen run");
            prop_assert!(matches!(origin, Origin::Frozen(_)));
            // a later run that cannot retrain yet (too few vectors) decides with the stored model
            let (loaded, origin) = reader(&dir, builder(100).model(CHOICES[choice]), &probe);
            prop_assert_eq!(&loaded, &run, "later run");
            prop_assert!(matches!(origin, Origin::Stored { .. }), "{:?}", origin);
            prop_assert_eq!(&as_show_decides(&dir, &probe), &run, "ompadapt show");
            fs::remove_dir_all(&dir).unwrap();
        }
    }

    /// A file of an earlier runtime (no parameters) and a linear cost model whose refit on the
    /// measurements fails (the shared store of issue 34): the stored decisions still decide.
    #[test]
    fn a_stored_model_without_parameters_decides_as_its_labels_say() {
        let dir = tmpdir("agree-old");
        let sizes = [1000.0, 10000.0, 100000.0, 1000000.0];
        let costs = [[100, 300, 400], [300, 100, 400], [100, 300, 400], [100, 300, 400]];
        let run = trained_run(&dir, ModelChoice::Tree { max_depth: 3 }, &sizes, &costs, &sizes);
        for name in names(&region_dir(&dir, &prog(), "agree")) {
            let path = region_dir(&dir, &prog(), "agree").join(name);
            let mut f = read_file(&path).unwrap();
            if let Some(m) = f.model_trained.as_mut() {
                m.parameters = None;
                m.kind = ModelChoice::Cost(CostForm::new(Family::Linear, 0)).describe();
            }
            fs::write(&path, serde_json::to_vec(&f).unwrap()).unwrap();
        }
        let (frozen, _) = reader(&dir, builder(2).frozen(true), &sizes);
        assert_eq!(frozen, run);
        assert_eq!(as_show_decides(&dir, &sizes), run);
        fs::remove_dir_all(&dir).unwrap();
    }

    /// Damaged parameters never index out of bounds: said once, the labels refitted.
    #[test]
    fn damaged_parameters_are_refused() {
        let dir = tmpdir("agree-damaged");
        let sizes = [1000.0, 10000.0];
        let run = trained_run(&dir, ModelChoice::Tree { max_depth: 3 }, &sizes, &[[100, 300, 400], [300, 100, 400]], &sizes);
        for name in names(&region_dir(&dir, &prog(), "agree")) {
            let path = region_dir(&dir, &prog(), "agree").join(name);
            let mut f = read_file(&path).unwrap();
            if let Some(m) = f.model_trained.as_mut() {
                let mut t = crate::model::FlatTree::constant(7);
                t.depth = 3;
                m.parameters = Some(crate::model::Compiled::Tree(t));
            }
            fs::write(&path, serde_json::to_vec(&f).unwrap()).unwrap();
        }
        let (frozen, _) = reader(&dir, builder(2).frozen(true), &sizes);
        assert_eq!(frozen, run);
        fs::remove_dir_all(&dir).unwrap();
    }
}

/// A region executed once per process (issue 34 item 9): each "process" is a new region on the
/// store, one execution, a save. Variants that differ train within a bounded number of runs;
/// tied ones settle (a tie is a decision), never exploring run after run. The bound: one pass,
/// then extras within the region's budget over all its runs (`MeasurementTable::doubt_ok`:
/// 2 per variant at the least), not each process's.
mod once_per_process {
    use super::*;

    /// Runs `limit` processes; the run the region started trained in (None: never) and the
    /// variant every run executed.
    fn processes(tag: &str, costs: &dyn Fn(usize) -> [u64; 2], limit: usize) -> (Option<usize>, Vec<usize>) {
        let dir = tmpdir(tag);
        let (mut trained_at, mut ran) = (None, Vec::new());
        for run in 0..limit {
            let r = region_with(RegionBuilder::new().sample(1), "ompadapt1;model=once;loc=a.c:3;features=N;variants=a,b");
            let mut b = attach(&r, &dir, &prog(), 100);
            if r.is_trained() && trained_at.is_none() {
                trained_at = Some(run);
            }
            ran.push(run_cost(&r, 64.0, &costs(run)));
            r.train_at_exit(); // as the exit handler does before saving
            save(&r, &mut b).unwrap();
        }
        fs::remove_dir_all(&dir).unwrap();
        (trained_at, ran)
    }

    /// Trained by run `bound`, then every run the same variant, `want` if given.
    #[track_caller]
    fn settles(what: &str, (at, ran): (Option<usize>, Vec<usize>), bound: usize, want: Option<usize>) {
        let at = at.unwrap_or_else(|| panic!("{what}: never trained in {} runs: {ran:?}", ran.len()));
        assert!(at <= bound, "{what}: trained at run {at}, later than {bound}: {ran:?}");
        let after = &ran[at..];
        assert!(after.iter().all(|&v| v == after[0]), "{what}: alternates once trained: {ran:?}");
        if let Some(w) = want {
            assert_eq!(after[0], w, "{what}: {ran:?}");
        }
    }

    #[test]
    fn separated_variants_train_and_ties_settle_within_bounded_runs() {
        // two variants: one pass (2 runs) + at most 4 extras
        settles("200 µs against 100 µs", processes("once-separated", &|_| [200_000, 100_000], 14), 6, Some(1));
        settles("tied at 100 µs", processes("once-tied", &|_| [100_000, 100_000], 14), 6, None);
        // 3.9 ms against 8.0 ms, every run off by up to ±40 %
        let noisy = |r: usize| {
            let j = [1.0, 1.4, 0.7, 1.2, 0.8, 1.3][r % 6];
            [(3_900_000.0 * j) as u64, (8_000_000.0 / j) as u64]
        };
        settles("3.9 ms against 8.0 ms, noisy", processes("once-noisy", &noisy, 14), 6, Some(0));
    }
}

/// Issue 44 item 2: nothing is trained on the start-up path. A run after a saved, trained run
/// loads the stored parameters ("loaded", no training); data saved after that model (another
/// process's measurements) leaves the stored model deciding and the training to the exit; the
/// model trained there is what the next run loads.
#[test]
fn a_run_after_a_trained_run_loads_and_new_data_trains_at_exit() {
    let dir = tmpdir("startup-load");
    let first = region(4);
    let mut b = attach(&first, &dir, &prog(), 100);
    explore_two_vectors(&first);
    assert_eq!(first.trained().unwrap().origin, Origin::Online);
    assert!(!first.train_at_exit(), "nothing measured since the model trained");
    save(&first, &mut b).unwrap();
    // loaded: the report says so, nothing trained
    let loaded = region(4);
    attach(&loaded, &dir, &prog(), 100);
    let rep = crate::report::region_report(&loaded);
    let model = rep.model.as_ref().expect("a model decides");
    assert!(model.origin.starts_with("loaded: the stored model, trained on exactly the saved data"), "{}", model.origin);
    assert_eq!((model.train_ns, loaded.retrains()), (0, 0));
    assert!(rep.startup.as_deref().is_some_and(|s| s.starts_with("loaded the stored model")), "{:?}", rep.startup);
    assert!(crate::report::render(&loaded).contains("start-up: loaded the stored model"));
    // another process measures a third vector (and trains no model)
    let rdir = region_dir(&dir, &prog(), "m/1");
    let template = read_file(&rdir.join(names(&rdir).into_iter().find(|n| is_part(n)).unwrap())).unwrap();
    let sample = |variant: &str, ns: f64| SampleRecord {
        features: vec![30.0],
        variant: variant.into(),
        count: 1,
        times_ns: vec![ns],
        cold_ns: vec![],
        supersedes: false,
    };
    let other = DataFile {
        samples: vec![sample("cpu", 100_000.0), sample("gpu", 300_000.0)],
        monitored: vec![],
        model_trained: None,
        written_unix_ns: unix_ns(),
        ..template
    };
    fs::write(rdir.join("part-other-0.json"), serde_json::to_vec(&other).unwrap()).unwrap();
    // the next run: the stored model decides, trained before the newest data; no training
    let stale = region(4);
    let mut bs = attach(&stale, &dir, &prog(), 100);
    let t = stale.trained().expect("the stored model decides");
    assert_eq!((t.origin.clone(), t.train_ns, t.labels.len()), (Origin::Stored { origin: "online".into(), current: false }, 0, 2));
    assert!(!stale.training_deferred(), "a model decides meanwhile");
    assert!(crate::report::region_report(&stale).startup.unwrap().contains("until a model trained at exit replaces it"));
    // at exit it trains on all three vectors, and saves that model
    assert!(stale.train_at_exit());
    let t = stale.trained().unwrap();
    assert_eq!((t.origin.clone(), t.labels.len()), (Origin::AtExit, 3));
    let saved = read_file(&save(&stale, &mut bs).unwrap().expect("the model trained at exit")).unwrap();
    let record = saved.model_trained.expect("a model record");
    assert_eq!((record.origin.as_str(), record.trained_on.is_some()), ("exit", true));
    // which the run after loads
    let next = region(4);
    attach(&next, &dir, &prog(), 100);
    assert_eq!(next.trained().unwrap().origin, Origin::Stored { origin: "exit".into(), current: true });
    assert!(!next.train_at_exit());
    fs::remove_dir_all(&dir).unwrap();
}

/// Saved data without a stored model (data collection): start-up trains nothing; the measured
/// table decides the measured vectors (each its measured best) and training waits for the
/// exit, also while executions add measurements of those vectors.
#[test]
fn saved_data_without_a_model_defers_training_to_the_exit() {
    let dir = tmpdir("startup-defer");
    let collect = region_with(builder(4).explore_only(true), "ompadapt1;model=m/1;loc=a.c:3;features=N;variants=cpu,gpu");
    let mut bc = attach(&collect, &dir, &prog(), 100);
    explore_two_vectors(&collect);
    save(&collect, &mut bc).unwrap();
    let r = region(4);
    let mut b = attach(&r, &dir, &prog(), 100);
    assert!(!r.is_trained() && r.training_deferred(), "nothing trained at start-up");
    let rep = crate::report::region_report(&r);
    assert!(rep.startup.as_deref().is_some_and(|s| s.starts_with("no stored model of its variants: the measured table decides")));
    for _ in 0..6 {
        assert_eq!(run(&r, 10.0), 0, "the measured best");
        assert_eq!(run(&r, 20.0), 0);
    }
    assert!(!r.is_trained(), "executions of measured vectors train nothing before the exit");
    assert!(r.train_at_exit());
    assert_eq!(r.trained().unwrap().origin, Origin::AtExit);
    assert!(!r.training_deferred());
    save(&r, &mut b).unwrap();
    let next = region(4);
    attach(&next, &dir, &prog(), 100);
    assert_eq!(next.trained().unwrap().origin, Origin::Stored { origin: "exit".into(), current: true });
    fs::remove_dir_all(&dir).unwrap();
}

/// One feature vector (every feature constant): `auto` takes the measured table, the stored
/// model says why, and the run that loads it reports it.
#[test]
fn constant_features_fall_back_to_the_table() {
    let dir = tmpdir("startup-table");
    let r = region(2);
    let mut b = attach(&r, &dir, &prog(), 100);
    for _ in 0..4 {
        run(&r, 64.0);
    }
    let t = r.trained().expect("trained");
    assert_eq!(t.chosen, ModelChoice::Table);
    assert!(t.note.as_deref().is_some_and(|n| n.starts_with("every feature is constant")), "{:?}", t.note);
    save(&r, &mut b).unwrap();
    let next = region(2);
    attach(&next, &dir, &prog(), 100);
    let rep = crate::report::region_report(&next);
    let model = rep.model.unwrap();
    assert!(model.kind.starts_with("measured table") && model.note.is_some_and(|n| n.contains("constant")), "{}", model.kind);
    assert!(crate::report::render(&next).contains("the measured table decides: every feature is constant"));
    assert_eq!(next.decide(&[64.0]), Some(0), "cpu, measured fastest");
    fs::remove_dir_all(&dir).unwrap();
}

/// Across runs: run 1 labels cpu in a transient (cpu 200 µs, gpu 300 µs) and then runs cpu at
/// its steady 80 µs; run 2 loads that contradiction, re-measures once cpu runs at the steady
/// rate, and labels gpu (steady 40 µs); run 3 finds the pair measured afresh and schedules
/// nothing.
#[test]
fn a_label_contradicted_by_earlier_runs_is_rechecked_once() {
    let dir = tmpdir("recheck");
    let first = region(2);
    let mut b = attach(&first, &dir, &prog(), 100);
    while !first.is_trained() {
        run_cost(&first, 1.0, &[200, 300]);
    }
    assert_eq!(first.label(&[1.0]), Some(0));
    for _ in 0..20 {
        assert_eq!(run_cost(&first, 1.0, &[80, 40]), 0);
    }
    assert!(first.pending_rechecks().is_empty(), "nothing stored to contradict it yet");
    save(&first, &mut b).unwrap();
    let second = region(2);
    let mut b2 = attach(&second, &dir, &prog(), 100);
    assert_eq!(second.pending_rechecks(), vec![(FeatureKey::new(&[1.0]), 0)]);
    let mut n = 0;
    while second.label(&[1.0]) != Some(1) {
        run_cost(&second, 1.0, &[80, 40]);
        n += 1;
        assert!(n < 50, "{:?}", second.recheck_events());
    }
    assert_eq!(second.recheck_events().len(), 1);
    let text = crate::report::render(&second);
    assert!(text.contains("recheck: cpu on") && text.contains("label changed from cpu to gpu"), "{text}");
    save(&second, &mut b2).unwrap();
    let third = region(2);
    attach(&third, &dir, &prog(), 100);
    assert_eq!(third.label(&[1.0]), Some(1), "the fresh measurements decide");
    assert!(third.pending_rechecks().is_empty(), "measured afresh already: not rechecked again");
    fs::remove_dir_all(&dir).unwrap();
}

/// Control runs: run 1 labels cpu (200 µs against gpu's 600 µs, one execution each) and runs it;
/// run 2 is gpu's trial (the program's own variant runs throughout, and run after run it takes
/// 100 µs); run 3 runs gpu. Where gpu's trial shows 600 µs, cpu stays.
#[test]
fn a_label_is_kept_only_where_faster_than_the_own_variant_run_after_run() {
    for (trial_us, kept) in [(100, "gpu"), (600, "cpu")] {
        let dir = tmpdir(&format!("control-{trial_us}"));
        let first = region(2);
        let mut b = attach(&first, &dir, &prog(), 100);
        while !first.is_trained() {
            run_cost(&first, 1.0, &[200, 600]);
        }
        for _ in 0..20 {
            assert_eq!(run_cost(&first, 1.0, &[200, trial_us]), 0);
        }
        assert!(first.control_events().is_empty(), "nothing stored yet");
        save(&first, &mut b).unwrap();
        let second = region(2);
        let mut b2 = attach(&second, &dir, &prog(), 100);
        let c = second.control_events();
        assert_eq!((c.len(), c[0].label, c[0].own, c[0].verdict), (1, 0, 1, crate::control::Verdict::Trial), "{c:?}");
        for _ in 0..20 {
            assert_eq!(run_cost(&second, 1.0, &[200, trial_us]), 1, "the trial runs the own variant throughout");
        }
        assert!(crate::report::render(&second).contains("(its trial)"));
        save(&second, &mut b2).unwrap();
        let third = region(2);
        attach(&third, &dir, &prog(), 100);
        let want = if kept == "gpu" { 1 } else { 0 };
        assert_eq!(run_cost(&third, 1.0, &[200, trial_us]), want, "{:?}", third.control_events());
        assert_eq!(third.label(&[1.0]), Some(0), "the label itself is unchanged");
        fs::remove_dir_all(&dir).unwrap();
    }
}

/// A trial times every execution of the own variant, whatever `OMPADAPT_SAMPLE` says: a vector
/// run 10 times per run has its verdict in the next run, not after 8 more runs of trials.
#[test]
fn a_trial_times_every_execution() {
    let dir = tmpdir("trial-timed");
    let make = || region_with(builder(2).sample(16), "ompadapt1;model=m/1;loc=a.c:3;features=N;variants=cpu,gpu");
    let first = make();
    let mut b = attach(&first, &dir, &prog(), 100);
    while !first.is_trained() {
        run_cost(&first, 1.0, &[200, 600]);
    }
    for _ in 0..200 {
        run_cost(&first, 1.0, &[200, 100]); // 1 in 16 timed: 12 or 13
    }
    save(&first, &mut b).unwrap();
    let second = make();
    let mut b2 = attach(&second, &dir, &prog(), 100);
    assert_eq!(second.control_events()[0].verdict, crate::control::Verdict::Trial);
    for _ in 0..10 {
        assert_eq!(run_cost(&second, 1.0, &[200, 100]), 1);
    }
    save(&second, &mut b2).unwrap();
    let third = make();
    attach(&third, &dir, &prog(), 100);
    let c = third.control_events();
    assert_eq!(c[0].verdict, crate::control::Verdict::Own, "{c:?}");
    assert_eq!(run_cost(&third, 1.0, &[200, 100]), 1);
    fs::remove_dir_all(&dir).unwrap();
}
