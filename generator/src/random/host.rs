//! Host blocks. The rules that keep a program race-free and stock deterministic: an array
//! element is written by one iteration only (no store under `collapse`); a thread number, a
//! wrongly updated reduction or an uncopied threadprivate value feeds a result only under a
//! static schedule; a product reduction runs at most 40 iterations of factors 1 or 2.

use super::Gen;
use crate::ast::*;

const OPS: [RedOp; 9] = [RedOp::Add, RedOp::Mul, RedOp::Max, RedOp::Min, RedOp::And, RedOp::Or, RedOp::Xor, RedOp::LogAnd, RedOp::LogOr];

fn reduction(g: &mut Gen, var: String, inner: bool) -> Reduction {
    let op = g.pick(&OPS);
    let mut update = g.pick(&[Update::Assign, Update::Compound, Update::Conditional, Update::Wrong]);
    // forms that do not exist for the operator (or in the language) fall back to `r = r op e`
    let conditional_ok = matches!(op, RedOp::Max | RedOp::Min);
    let compound_ok = g.lang == Lang::C && matches!(op, RedOp::Add | RedOp::Mul | RedOp::And | RedOp::Or | RedOp::Xor);
    // Fortran's min starts its private copies at huge(): adding to one overflows
    let wrong_ok = matches!(op, RedOp::Add | RedOp::Mul | RedOp::Max | RedOp::Or | RedOp::Xor);
    if (update == Update::Conditional && !conditional_ok)
        || (update == Update::Compound && !compound_ok)
        || (update == Update::Wrong && !wrong_ok)
    {
        update = Update::Assign;
    }
    let mut expr = g.expr(inner, true);
    if op == RedOp::Mul {
        // factors 1 or 2 (a sum of them under the wrong update): no overflow in 40 iterations
        expr = Expr::Add(Box::new(Expr::Const(1)), Box::new(Expr::Rem(Box::new(expr), 2)));
    }
    Reduction { var, op, update, expr }
}

fn without_j(e: &Expr) -> Expr {
    let b = |x: &Expr| Box::new(without_j(x));
    match e {
        Expr::J => Expr::I,
        Expr::Add(x, y) => Expr::Add(b(x), b(y)),
        Expr::Mul(x, y) => Expr::Mul(b(x), b(y)),
        Expr::Xor(x, y) => Expr::Xor(b(x), b(y)),
        Expr::Rem(x, m) => Expr::Rem(b(x), *m),
        Expr::Call(h, x) => Expr::Call(*h, b(x)),
        other => other.clone(),
    }
}

pub fn loop_block(g: &mut Gen, id: usize) -> LoopBlock {
    let mut inner = g.chance(0.3).then(|| (g.range(2, 6), g.chance(0.6)));
    let reductions_n = g.below(3) as usize;
    let mut l = LoopBlock {
        trip: g.range(5, INPUT_LEN),
        inner: None,
        schedule: Schedule::Default,
        team: g.team(),
        reductions: Vec::new(),
        store: None,
        firstprivate: g.chance(0.2).then(|| g.range(1, 30) as u64),
        lastprivate: None,
        linear: None,
        query: g.chance(0.2).then(|| g.pick(&[Query::ThreadNum, Query::NumThreads, Query::MaxThreads, Query::Level, Query::InParallel])),
        ordered: None,
        atomic: g.chance(0.2).then(|| g.pick(&[Atomic::Update, Atomic::Capture])),
        critical: None,
    };
    l.reductions = (0..reductions_n).map(|k| reduction(g, format!("r{id}_{k}"), inner.is_some())).collect();
    if l.reductions.iter().any(|r| r.op == RedOp::Mul) {
        l.trip = l.trip.min(40);
        inner = None;
        // the expressions were drawn for a nest: `j` is no loop's index any more
        l.reductions.iter_mut().for_each(|r| r.expr = without_j(&r.expr));
    }
    l.inner = inner;
    let nest = inner.is_some();
    let collapsed = matches!(inner, Some((_, true)));
    l.store = (!collapsed && g.chance(0.5)).then(|| g.expr(nest, true));
    l.lastprivate = g.chance(0.2).then(|| g.expr(nest, true));
    l.linear = (g.lang == Lang::C && !nest && g.chance(0.15)).then(|| g.range(1, 4) as u64);
    l.ordered = (!nest && g.chance(0.15)).then(|| g.expr(false, true));
    l.critical = g.chance(0.15).then(|| g.expr(nest, true));
    // clang/libomp copy a linear or lastprivate variable out racily under a dynamic schedule
    // (seen: stock printed the initial value in some runs)
    let needs_static = l.reductions.iter().any(|r| r.update == Update::Wrong)
        || l.query == Some(Query::ThreadNum)
        || l.linear.is_some()
        || l.lastprivate.is_some();
    l.schedule = g.schedule(needs_static);
    l
}

fn team_item(g: &mut Gen) -> TeamItem {
    let v = g.range(1, 9) as u64;
    match g.below(11) {
        0 => TeamItem::NowaitPair { nowait: g.chance(0.7), expr: g.expr(false, true) },
        1 => TeamItem::ForReduction(g.expr(false, true)),
        2 => TeamItem::Single(v),
        3 => TeamItem::Master(v),
        4 => TeamItem::Masked(v),
        5 => TeamItem::CriticalEvery(v),
        6 => TeamItem::AtomicEvery(v),
        7 => TeamItem::ReductionEvery(v),
        8 => TeamItem::Sections((0..g.range(1, 3)).map(|k| v + k as u64).collect()),
        // not the thread number: which thread runs a `single` differs from run to run
        _ => TeamItem::QueryInSingle(g.pick(&[Query::NumThreads, Query::MaxThreads, Query::Level, Query::InParallel])),
    }
}

pub fn team_block(g: &mut Gen) -> TeamBlock {
    let team = g.team();
    let items = (0..g.range(1, 4)).map(|_| team_item(g)).collect();
    TeamBlock { team, items }
}

pub fn task_block(g: &mut Gen) -> TaskBlock {
    let taskloop = (g.lang == Lang::C && g.chance(0.5)).then(|| {
        if g.chance(0.5) {
            TaskloopGrain::Grainsize(g.range(1, 16))
        } else {
            TaskloopGrain::NumTasks(g.range(1, 8))
        }
    });
    TaskBlock { tasks: g.range(1, INPUT_LEN), expr: g.expr(false, true), taskloop, taskwait: g.chance(0.7) }
}

pub fn threadprivate_block(g: &mut Gen) -> ThreadprivateBlock {
    let copyin = g.chance(0.6);
    ThreadprivateBlock { value: g.range(1, 99) as u64, copyin, expr: g.expr(false, true), schedule: g.schedule(!copyin) }
}
