//! Delta debugging on the program model: drop blocks, then clauses, items and expressions of
//! the blocks left, regenerating the sources each time, while the difference persists (the
//! same build, team and mode still differs from stock). Greedy: the first simpler program that
//! still differs is taken, and the candidates are recomputed from it.

use crate::ast::*;
use crate::check::{build_all, run_mode, stock_output, Difference, Mode};
use std::path::Path;
use std::time::{Duration, Instant};

fn without<T: Clone>(v: &[T], k: usize) -> Vec<T> {
    v.iter().enumerate().filter(|(i, _)| *i != k).map(|(_, x)| x.clone()).collect()
}

fn loop_candidates(l: &LoopBlock) -> Vec<LoopBlock> {
    let mut out = Vec::new();
    let mut push = |f: &dyn Fn(&mut LoopBlock)| {
        let mut c = l.clone();
        f(&mut c);
        if &c != l {
            out.push(c);
        }
    };
    for k in 0..l.reductions.len() {
        push(&|c| c.reductions = without(&l.reductions, k));
    }
    push(&|c| c.store = None);
    push(&|c| c.firstprivate = None);
    push(&|c| c.lastprivate = None);
    push(&|c| c.linear = None);
    push(&|c| c.query = None);
    push(&|c| c.ordered = None);
    push(&|c| c.atomic = None);
    push(&|c| c.critical = None);
    push(&|c| c.team = Team::default());
    push(&|c| c.schedule = Schedule::Default);
    push(&|c| c.trip = (l.trip / 2).max(2));
    let mut exprs = Vec::new();
    exprs_of(&Block { id: 0, kind: BlockKind::Loop(l.clone()) }, &mut |e| exprs.push(e.clone()));
    if !exprs.iter().any(Expr::uses_j) {
        push(&|c| c.inner = None);
    }
    for k in 0..l.reductions.len() {
        if l.reductions[k].op != RedOp::Mul {
            push(&|c| c.reductions[k].expr = Expr::I);
        }
    }
    out
}

fn team_candidates(t: &TeamBlock) -> Vec<TeamBlock> {
    let mut out: Vec<TeamBlock> =
        (0..t.items.len()).filter(|_| t.items.len() > 1).map(|k| TeamBlock { items: without(&t.items, k), ..t.clone() }).collect();
    if t.team != Team::default() {
        out.push(TeamBlock { team: Team::default(), ..t.clone() });
    }
    out
}

fn target_candidates(t: &TargetBlock) -> Vec<TargetBlock> {
    let mut out = Vec::new();
    let mut push = |f: &dyn Fn(&mut TargetBlock)| {
        let mut c = t.clone();
        f(&mut c);
        if &c != t {
            out.push(c);
        }
    };
    push(&|c| c.kernels = 1);
    push(&|c| c.scratch = false);
    push(&|c| c.reduction = None);
    push(&|c| c.global = None);
    push(&|c| c.dt_call = false);
    push(&|c| c.env = DataEnv::None);
    push(&|c| c.update_inside = false);
    push(&|c| c.input_tofrom = false);
    push(&|c| c.construct = TargetConstruct::Target);
    push(&|c| c.out_map = MapType::ToFrom);
    push(&|c| c.expr = Expr::Input);
    out
}

fn kind_candidates(kind: &BlockKind) -> Vec<BlockKind> {
    match kind {
        BlockKind::Loop(l) => loop_candidates(l).into_iter().map(BlockKind::Loop).collect(),
        BlockKind::Team(t) => team_candidates(t).into_iter().map(BlockKind::Team).collect(),
        BlockKind::Tasks(t) => {
            let simpler = [
                TaskBlock { taskloop: None, ..t.clone() },
                TaskBlock { taskwait: false, ..t.clone() },
                TaskBlock { tasks: 1, ..t.clone() },
            ];
            simpler.into_iter().filter(|c| c != t).map(BlockKind::Tasks).collect()
        }
        BlockKind::Threadprivate(t) => {
            let simpler = ThreadprivateBlock { schedule: Schedule::Default, ..t.clone() };
            (simpler != *t).then_some(BlockKind::Threadprivate(simpler)).into_iter().collect()
        }
        BlockKind::Target(t) => target_candidates(t).into_iter().map(BlockKind::Target).collect(),
    }
}

fn strip_calls(e: &Expr) -> Expr {
    let b = |x: &Expr| Box::new(strip_calls(x));
    match e {
        Expr::Call(_, a) => strip_calls(a),
        Expr::Add(x, y) => Expr::Add(b(x), b(y)),
        Expr::Mul(x, y) => Expr::Mul(b(x), b(y)),
        Expr::Xor(x, y) => Expr::Xor(b(x), b(y)),
        Expr::Rem(x, m) => Expr::Rem(b(x), *m),
        other => other.clone(),
    }
}

/// The helper calls of every block replaced by their argument (for the loop block's reductions,
/// the only expressions the reducer can reach in place).
fn without_calls(p: &Program) -> Program {
    let mut q = p.clone();
    for b in &mut q.blocks {
        if let BlockKind::Loop(l) = &mut b.kind {
            l.reductions.iter_mut().for_each(|r| r.expr = strip_calls(&r.expr));
            for e in [&mut l.store, &mut l.lastprivate, &mut l.ordered, &mut l.critical].into_iter().flatten() {
                *e = strip_calls(e);
            }
        }
    }
    q
}

/// Every program one step simpler than `p`.
pub fn candidates(p: &Program) -> Vec<Program> {
    let mut out = Vec::new();
    if p.blocks.len() > 1 {
        out.extend((0..p.blocks.len()).map(|k| Program { blocks: without(&p.blocks, k), ..p.clone() }));
    }
    if p.helpers.iter().any(|h| h.second_unit) {
        out.push(Program { helpers: p.helpers.iter().map(|h| Helper { second_unit: false, ..h.clone() }).collect(), ..p.clone() });
    }
    let stripped = without_calls(p);
    if stripped != *p {
        out.push(stripped);
    }
    for (k, b) in p.blocks.iter().enumerate() {
        for kind in kind_candidates(&b.kind) {
            let mut q = p.clone();
            q.blocks[k].kind = kind;
            out.push(q);
        }
    }
    out
}

/// Whether `p`, built and run in `dir`, still shows difference `d`.
pub fn still_differs(p: &Program, dir: &Path, d: &Difference) -> bool {
    let _ = std::fs::remove_dir_all(dir);
    let (_, built) = build_all(p, dir, &[d.build]);
    if !built.iter().all(|b| b.outcome.ok()) {
        return false;
    }
    let Ok(expected) = stock_output(p, &built[0].exe, dir, d.team) else { return false };
    let exe = &built[1].exe;
    let (first, regions, _) = run_mode(p, exe, dir, d.team, &Mode::Discover, &Vec::new(), &expected);
    if d.mode == Mode::Discover {
        return first.is_some();
    }
    run_mode(p, exe, dir, d.team, &d.mode, &regions, &expected).0.is_some()
}

/// The smallest program found within `budget` that still shows `d`, and the tests it took.
pub fn reduce(p: &Program, dir: &Path, d: &Difference, budget: Duration) -> (Program, usize) {
    let start = Instant::now();
    let mut best = p.clone();
    let mut tests = 0;
    'outer: while start.elapsed() < budget {
        for c in candidates(&best) {
            if start.elapsed() >= budget {
                break 'outer;
            }
            tests += 1;
            if still_differs(&c, dir, d) {
                best = c;
                continue 'outer;
            }
        }
        break;
    }
    (best, tests)
}
