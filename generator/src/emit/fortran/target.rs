//! Fortran offload blocks: `!$omp target` with a sequential loop (flang-19 rejects the composite
//! constructs), every map type, data environments, `target update` and declare-target globals.
//! flang-19 cannot link an offload image here, so these programs run the host fallback
//! (`OMP_TARGET_OFFLOAD=DISABLED`), which still exercises the pass's dispatch of the launch.

use super::expr;
use crate::ast::*;
use std::fmt::Write;

fn map(m: MapType) -> &'static str {
    match m {
        MapType::To => "to",
        MapType::From => "from",
        MapType::ToFrom => "tofrom",
        MapType::Alloc => "alloc",
    }
}

fn kernel(id: usize, kk: u32, t: &TargetBlock, out: &mut String) {
    let input = if t.input_tofrom { "tofrom" } else { "to" };
    let mut s = format!("    !$omp target map({input}: x) map({}: o{id})", map(t.out_map));
    t.scratch.then(|| write!(s, " map(alloc: w{id})").unwrap());
    t.reduction.is_some().then(|| write!(s, " map(tofrom: s{id})").unwrap());
    if let Some((DeclareTarget::Link, _, _)) = t.global {
        write!(s, " map(tofrom: g{id})").unwrap();
    }
    writeln!(out, "{s}\n    do i = 1, {INPUT_LEN}").unwrap();
    let e = format!("({} + {kk}_8)", expr(&t.expr, "i"));
    let value = if t.scratch {
        writeln!(out, "      w{id}(i) = {e}").unwrap();
        format!("w{id}(i)")
    } else {
        e
    };
    let rewrite = matches!(t.out_map, MapType::From | MapType::Alloc) && t.env == DataEnv::None;
    let old = if rewrite { String::new() } else { format!("o{id}(i) + ") };
    writeln!(out, "      o{id}(i) = {old}{value}").unwrap();
    if let Some(r) = &t.reduction {
        writeln!(out, "      s{id} = s{id} + {}", expr(r, "i")).unwrap();
    }
    writeln!(out, "    end do").unwrap();
    if t.global.is_some() {
        writeln!(out, "    g{id} = g{id} + {}_8", 3 + kk).unwrap();
    }
    writeln!(out, "    !$omp end target").unwrap();
}

pub fn target_block(id: usize, t: &TargetBlock, out: &mut String) {
    match t.env {
        DataEnv::None => {}
        DataEnv::Data => writeln!(out, "    !$omp target data map(tofrom: o{id})").unwrap(),
        DataEnv::EnterExit => writeln!(out, "    !$omp target enter data map(to: o{id})").unwrap(),
    }
    for kk in 0..t.kernels {
        kernel(id, kk, t, out);
    }
    if t.update_inside && t.env != DataEnv::None {
        writeln!(out, "    !$omp target update from(o{id})\n    or{id} = o{id}(1) + o{id}({INPUT_LEN})").unwrap();
    }
    match t.env {
        DataEnv::None => {}
        DataEnv::Data => writeln!(out, "    !$omp end target data").unwrap(),
        DataEnv::EnterExit => writeln!(out, "    !$omp target exit data map(from: o{id})").unwrap(),
    }
    if let Some((DeclareTarget::To | DeclareTarget::Enter, _, true)) = t.global {
        writeln!(out, "    !$omp target update from(g{id})").unwrap();
    }
}
