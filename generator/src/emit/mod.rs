//! From the program model to source files. The global variables of each block are derived
//! from the block here, once for both languages, so both name and print the same variables.

pub mod c;
pub mod fortran;

use crate::ast::*;

/// A program's files: the main file first, then the second translation unit when it has one.
#[derive(Clone, Debug)]
pub struct Sources {
    pub files: Vec<(String, String)>,
}

pub fn emit(p: &Program) -> Sources {
    match p.lang {
        Lang::C => c::emit(p),
        Lang::Fortran => fortran::emit(p),
    }
}

fn scalar(name: String, init: u64) -> Global {
    Global { name, ty: Ty::U64, len: None, init, threadprivate: false, declare_target: None }
}

fn array(name: String) -> Global {
    Global { name, ty: Ty::U64, len: Some(INPUT_LEN), init: 0, threadprivate: false, declare_target: None }
}

fn team_globals(id: usize, t: &Team, out: &mut Vec<Global>) {
    if let Some(NumThreads::Var(n)) = t.num_threads {
        out.push(scalar(format!("nt{id}"), n as u64));
    }
    if t.if_threshold.is_some() {
        out.push(scalar(format!("if{id}"), INPUT_LEN as u64));
    }
}

/// Initial value of a reduction variable: anything works, the operator decides the identity.
fn reduction_init(op: RedOp, k: usize) -> (Ty, u64) {
    match op {
        RedOp::LogAnd => (Ty::Bool, 1),
        RedOp::LogOr => (Ty::Bool, 0),
        RedOp::Mul => (Ty::U64, 1 + k as u64 % 3),
        _ => (Ty::U64, 3 + 2 * k as u64),
    }
}

fn loop_globals(id: usize, l: &LoopBlock, out: &mut Vec<Global>) {
    team_globals(id, &l.team, out);
    for (k, r) in l.reductions.iter().enumerate() {
        let (ty, init) = reduction_init(r.op, k);
        out.push(Global { ty, ..scalar(r.var.clone(), init) });
    }
    if l.store.is_some() {
        out.push(array(format!("a{id}")));
    }
    if let Some(v) = l.firstprivate {
        out.push(scalar(format!("f{id}"), v));
        out.push(scalar(format!("fs{id}"), 0));
    }
    if l.lastprivate.is_some() {
        out.push(scalar(format!("l{id}"), 0));
    }
    if l.linear.is_some() {
        out.push(scalar(format!("k{id}"), 5));
        out.push(array(format!("ka{id}")));
    }
    let mut plain = |name: String, init| out.push(scalar(name, init));
    l.query.is_some().then(|| plain(format!("q{id}"), 0));
    l.ordered.is_some().then(|| plain(format!("h{id}"), 7));
    l.atomic.is_some().then(|| plain(format!("c{id}"), 2));
    (l.atomic == Some(Atomic::Capture)).then(|| plain(format!("cs{id}"), 0));
    l.critical.is_some().then(|| plain(format!("cr{id}"), 1));
}

fn team_block_globals(id: usize, t: &TeamBlock, out: &mut Vec<Global>) {
    team_globals(id, &t.team, out);
    for (k, item) in t.items.iter().enumerate() {
        match item {
            TeamItem::NowaitPair { .. } => {
                out.push(array(format!("a{id}_{k}")));
                out.push(array(format!("b{id}_{k}")));
            }
            TeamItem::Sections(vs) => (0..vs.len()).for_each(|m| out.push(scalar(format!("t{id}_{k}_{m}"), m as u64))),
            _ => out.push(scalar(format!("t{id}_{k}"), 1 + k as u64)),
        }
    }
}

fn target_globals(id: usize, t: &TargetBlock, openmp52: bool, out: &mut Vec<Global>) {
    out.push(array(format!("o{id}")));
    if t.scratch {
        out.push(array(format!("w{id}")));
    }
    if t.reduction.is_some() {
        out.push(scalar(format!("s{id}"), 4));
    }
    if t.update_inside && t.env != DataEnv::None {
        out.push(scalar(format!("or{id}"), 0));
    }
    if let Some((dt, init, _)) = t.global {
        out.push(Global { declare_target: Some(dt), ..scalar(format!("g{id}"), init) });
    }
    if t.dt_call {
        let dt = if openmp52 { DeclareTarget::Enter } else { DeclareTarget::To };
        out.push(Global { declare_target: Some(dt), ..scalar(format!("dg{id}"), 9) });
    }
}

/// The global variables block `b` owns, in the order they are declared and printed.
pub fn globals(b: &Block, openmp52: bool) -> Vec<Global> {
    let mut out = Vec::new();
    let id = b.id;
    match &b.kind {
        BlockKind::Loop(l) => loop_globals(id, l, &mut out),
        BlockKind::Team(t) => team_block_globals(id, t, &mut out),
        BlockKind::Tasks(t) => {
            out.push(array(format!("a{id}")));
            if t.taskloop.is_some() {
                out.push(array(format!("b{id}")));
            }
        }
        BlockKind::Threadprivate(_) => {
            out.push(Global { threadprivate: true, ..scalar(format!("tp{id}"), 11) });
            out.push(scalar(format!("s{id}"), 0));
        }
        BlockKind::Target(t) => target_globals(id, t, openmp52, &mut out),
    }
    out
}

/// Every global of the program.
pub fn all_globals(p: &Program) -> Vec<Global> {
    p.blocks.iter().flat_map(|b| globals(b, p.openmp52)).collect()
}

/// The helpers a file defines: those of the main file or of the second unit, and used.
pub fn helpers_in(p: &Program, second_unit: bool) -> Vec<(usize, &Helper)> {
    p.helpers.iter().enumerate().filter(|(k, h)| h.second_unit == second_unit && p.uses_helper(*k)).collect()
}

/// The arithmetic every language writes the same way: the hash an array is printed as and the
/// ordered hash step.
pub const HASH_MOD: u64 = 1_000_000_007;
