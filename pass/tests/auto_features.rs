//! features(auto) through the pass library: static features of kernels known by construction,
//! the same at -O0 and -O2 (clang's IR before optimisation), the descriptor the runtime gets,
//! idempotence and the verifier.

mod common;

use std::collections::BTreeMap;

use common::{have_clang, host_ir, input, ir_text, parse, scratch, verify, Opt};
use inkwell::context::Context;
use ompadapt_abi::descriptor::AutoFeatures;
use ompadapt_pass::transform_module;

/// The constants the pass stored into each region's feature array: model -> name -> value.
fn stored_features(ir: &str, outcome: &[(String, Vec<String>)]) -> BTreeMap<String, BTreeMap<String, f64>> {
    // Per function, in order: `%slot = getelementptr double, ptr %x, i64 <i>` then
    // `store double <v>, ptr %slot`.
    let mut out = BTreeMap::new();
    let mut regions = outcome.iter();
    let mut current: Option<(String, Vec<String>)> = None;
    let mut slots: BTreeMap<String, usize> = BTreeMap::new();
    for line in ir.lines().map(str::trim) {
        if line.starts_with("define ") {
            slots.clear();
        }
        if let Some((lhs, rhs)) = line.split_once(" = getelementptr double, ptr ") {
            if lhs.starts_with("%ompadapt.auto.slot") {
                let idx: usize = rhs.rsplit("i64 ").next().unwrap().parse().unwrap();
                if idx == 0 {
                    current = regions.next().cloned();
                }
                slots.insert(lhs.to_string(), idx);
            }
        }
        if let Some(rest) = line.strip_prefix("store double ") {
            let (value, ptr) = rest.split_once(", ptr ").unwrap();
            let ptr = ptr.split(',').next().unwrap();
            if let (Some(idx), Some((model, names)), Ok(v)) = (slots.get(ptr), &current, value.parse::<f64>()) {
                out.entry(model.clone()).or_insert_with(BTreeMap::new).insert(names[*idx].clone(), v);
            }
        }
    }
    out
}

#[test]
fn static_features_of_known_kernels() {
    if !have_clang("static_features_of_known_kernels") {
        return;
    }
    let dir = scratch("static_features_of_known_kernels");
    let mut per_opt = Vec::new();
    for opt in [Opt::O0, Opt::O2] {
        let ll = host_ir(&input("auto_kernels.c"), opt, &["-fno-discard-value-names"], &dir);
        let context = Context::create();
        let module = parse(&context, &ll);
        let outcome = transform_module(&module);
        verify(&module, "auto_kernels.c");
        assert_eq!(outcome.auto_features.len(), 2);
        let ir = ir_text(&module);
        // Each descriptor the runtime gets: the frontend's text as it was, then the names.
        for (model, names) in &outcome.auto_features {
            let frontend = format!("ompadapt1;model={model};loc=k.c:1;features=;variants=cpu,gpu;values=0,1;numeric=0;model_type=auto");
            let want = AutoFeatures { names: names.clone() }.append_to(&frontend);
            assert!(!names.is_empty() && ir.contains(&format!("c\"{want}\\00\"")), "{opt:?} {model}: {want}\n{ir}");
        }
        let f = stored_features(&ir, &outcome.auto_features);
        let saxpy = &f["saxpy"];
        assert_eq!(saxpy["flops"], 2.0, "{opt:?}: {saxpy:?}");
        assert_eq!(saxpy["calls"], 0.0, "{opt:?}: {saxpy:?}");
        assert_eq!(saxpy["loop_depth"], 1.0, "{opt:?}: {saxpy:?}");
        // x[i], y[i] loaded, y[i] stored, plus the captured x, y and a read through the
        // outlined function's reference parameters.
        assert!(saxpy["memory_accesses"] >= 3.0, "{opt:?}: {saxpy:?}");
        assert!(saxpy["comparisons"] >= 2.0, "{opt:?}: the precondition and the loop test: {saxpy:?}");
        let norms = &f["norms"];
        // fmul, fadd in the inner loop, sqrt; weight(): fmul, fneg.
        assert_eq!(norms["flops"], 5.0, "{opt:?}: {norms:?}");
        assert_eq!(norms["calls"], 1.0, "{opt:?}: weight() is a call, sqrt is a flop: {norms:?}");
        assert_eq!(norms["loop_depth"], 2.0, "{opt:?}: {norms:?}");
        assert!(norms["comparisons"] > saxpy["comparisons"], "{opt:?}: {norms:?} vs {saxpy:?}");
        per_opt.push(f);
        // Idempotent.
        let once = ir_text(&module);
        assert!(!transform_module(&module).changed);
        assert_eq!(once, ir_text(&module));
    }
    // Local stack slots are not counted, so -O0 and -O2 IR give the same counts.
    assert_eq!(per_opt[0], per_opt[1]);
}
