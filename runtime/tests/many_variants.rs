//! Regions with as many variants as the plugin accepts (1024: thread counts `[32:1024:32]`,
//! fractions `[0:1:0.001]`): every variant is explored and recorded under its own index (past
//! the 255 a byte could hold), the model trains and picks the cheapest, also under the
//! elimination strategy (which falls back to round-robin past 64 variants) and for forests.

use ompadapt_rt::config::Config;
use ompadapt_rt::explore::Strategy;
use ompadapt_rt::registry::Registry;
use ompadapt_rt::spec::MAX_VARIANTS;
use ompadapt_rt::Ctx;

fn spec(n: usize, extra: &str) -> String {
    let names: Vec<String> = (0..n).map(|i| format!("{}", i as f64 / 1000.0)).collect();
    format!("ompadapt1;model=m{n}{extra};variants={};values={};numeric=1{extra}", names.join(","), names.join(","))
}

/// Explores with a controlled cost (variant `best` is 20 µs cheaper than the others) on one
/// feature vector until the model takes over; returns the variant then chosen.
fn learn(reg: &Registry, text: &str, n: usize, best: usize) -> usize {
    let r = reg.lookup(Some(text), ompadapt_rt::spec::CallArgs { min_train: n as i64, ..ompadapt_rt::spec::CallArgs::NONE });
    assert!(r.broken.is_none(), "{:?}", r.broken);
    assert_eq!(r.nvariants(), n);
    let mut seen = vec![false; n];
    for _ in 0..2 * n {
        let mut c = Ctx::zeroed();
        r.begin(&[5.0], &mut c);
        let v = c.variant as usize;
        seen[v] = true;
        assert_eq!(c.value, v as f64 / 1000.0, "the value of variant {v}");
        let ns = if v == best { 1_000 } else { 21_000 };
        c.t0.backdate((ns as f64 / ompadapt_rt::clock::ns_per_tick()).round() as u64);
        r.end(&c);
        if r.trained().is_some() {
            break;
        }
    }
    assert!(seen.iter().all(|&s| s), "every variant explored");
    assert!(r.trained().is_some(), "trained after every variant was measured once");
    let mut c = Ctx::zeroed();
    r.begin(&[5.0], &mut c);
    r.end(&c);
    c.variant as usize
}

#[test]
fn a_thousand_variants_explore_record_and_train() {
    assert_eq!(MAX_VARIANTS, 1024);
    let reg = Registry::new(Config { persist: false, warmup: false, ..Config::default() });
    for (n, best) in [(101, 37), (1001, 777), (MAX_VARIANTS, 1023)] {
        assert_eq!(learn(&reg, &spec(n, ""), n, best), best, "{n} variants");
    }
    // A forest of depth 1 over one vector: the label is the cheapest variant.
    assert_eq!(learn(&reg, &spec(300, ";model_type=rfc"), 300, 299), 299);
}

#[test]
fn elimination_falls_back_to_round_robin_past_64_variants() {
    let reg = Registry::new(Config { persist: false, warmup: false, ..Config::default() });
    assert_eq!(learn(&reg, &spec(200, ";explore=elimination"), 200, 150), 150);
    let r = reg.find("m200").unwrap();
    assert_eq!(r.params().strategy, Strategy::RoundRobin);
}
