//! C offload blocks: kernels with every map type, data environments (`target data`,
//! `enter`/`exit data`), `target update`, declare-target globals (`to`, `link`, `enter`) and a
//! declare-target function. Every value a kernel leaves on the host is defined: a kernel that
//! maps its output `from` or `alloc` without a data environment writes every element.

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

fn construct(id: usize, t: &TargetBlock) -> String {
    let n = INPUT_LEN;
    let mut s = String::from(match t.construct {
        TargetConstruct::Target => "#pragma omp target",
        TargetConstruct::TargetParallelFor => "#pragma omp target parallel for",
        TargetConstruct::TargetTeamsDistributeParallelFor => "#pragma omp target teams distribute parallel for",
    });
    let input = if t.input_tofrom { "tofrom" } else { "to" };
    write!(s, " map({input}: x[0:{n}]) map({}: o{id}[0:{n}])", map(t.out_map)).unwrap();
    t.scratch.then(|| write!(s, " map(alloc: w{id}[0:{n}])").unwrap());
    if t.reduction.is_some() {
        if t.construct != TargetConstruct::Target {
            write!(s, " reduction(+: s{id})").unwrap();
        }
        write!(s, " map(tofrom: s{id})").unwrap();
    }
    if let Some((DeclareTarget::Link, _, _)) = t.global {
        write!(s, " map(tofrom: g{id})").unwrap();
    }
    s
}

fn kernel(id: usize, kk: u32, t: &TargetBlock, out: &mut String) {
    let plain = t.construct == TargetConstruct::Target;
    writeln!(out, "{}", construct(id, t)).unwrap();
    if plain {
        writeln!(out, "  {{").unwrap();
    }
    let e = format!("({} + {kk}ULL)", expr(&t.expr, "i"));
    writeln!(out, "  for (int i = 0; i < {INPUT_LEN}; i++) {{").unwrap();
    let value = if t.scratch {
        writeln!(out, "    w{id}[i] = {e};").unwrap();
        format!("w{id}[i]")
    } else {
        e
    };
    let call = if t.dt_call { format!(" + dtf{id}(x[i])") } else { String::new() };
    let rewrite = matches!(t.out_map, MapType::From | MapType::Alloc) && t.env == DataEnv::None;
    let old = if rewrite { String::new() } else { format!("o{id}[i] + ") };
    writeln!(out, "    o{id}[i] = {old}{value}{call};").unwrap();
    if let Some(r) = &t.reduction {
        writeln!(out, "    s{id} += {};", expr(r, "i")).unwrap();
    }
    writeln!(out, "  }}").unwrap();
    if let (true, Some((_, _, _))) = (plain, t.global) {
        writeln!(out, "  g{id} += {}ULL;", 3 + kk).unwrap();
    }
    if plain {
        writeln!(out, "  }}").unwrap();
    }
}

pub fn target_block(_p: &Program, id: usize, t: &TargetBlock, out: &mut String) {
    let n = INPUT_LEN;
    match t.env {
        DataEnv::None => {}
        DataEnv::Data => writeln!(out, "#pragma omp target data map(tofrom: o{id}[0:{n}])\n  {{").unwrap(),
        DataEnv::EnterExit => writeln!(out, "#pragma omp target enter data map(to: o{id}[0:{n}])").unwrap(),
    }
    for kk in 0..t.kernels {
        kernel(id, kk, t, out);
    }
    if t.update_inside && t.env != DataEnv::None {
        writeln!(out, "#pragma omp target update from(o{id}[0:{n}])\n  or{id} = o{id}[0] + o{id}[{}];", n - 1).unwrap();
    }
    match t.env {
        DataEnv::None => {}
        DataEnv::Data => writeln!(out, "  }}").unwrap(),
        DataEnv::EnterExit => writeln!(out, "#pragma omp target exit data map(from: o{id}[0:{n}])").unwrap(),
    }
    if let Some((DeclareTarget::To | DeclareTarget::Enter, _, true)) = t.global {
        writeln!(out, "#pragma omp target update from(g{id})").unwrap();
    }
}

/// The declare-target functions the kernels call: each reads its block's declare-target global.
pub fn declare_target_functions(p: &Program, out: &mut String) {
    for b in &p.blocks {
        if let BlockKind::Target(t) = &b.kind {
            if t.dt_call {
                let id = b.id;
                writeln!(
                    out,
                    "#pragma omp declare target\nu64 dtf{id}(u64 v) {{ return v * 3ULL + dg{id}; }}\n#pragma omp end declare target"
                )
                .unwrap();
            }
        }
    }
}
