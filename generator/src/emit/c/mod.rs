//! C: `unsigned long long` arithmetic (wraps, so any split of a loop sums the same), one
//! `static void blockN(void)` per block (its regions are named `blockN@case.c:<line>`), `main`
//! fills `x`, calls the blocks and prints every global.

mod target;

use super::{all_globals, helpers_in, Sources, HASH_MOD};
use crate::ast::*;
use std::fmt::Write;

pub fn expr(e: &Expr, i: &str) -> String {
    match e {
        Expr::I => format!("(u64){i}"),
        Expr::J => "(u64)j".into(),
        Expr::Const(c) => format!("{c}ULL"),
        Expr::Input => format!("x[{i}]"),
        Expr::Add(a, b) => format!("({} + {})", expr(a, i), expr(b, i)),
        Expr::Mul(a, b) => format!("({} * {})", expr(a, i), expr(b, i)),
        Expr::Xor(a, b) => format!("({} ^ {})", expr(a, i), expr(b, i)),
        Expr::Rem(a, m) => format!("({} % {m}ULL)", expr(a, i)),
        Expr::Call(h, a) => format!("hf{h}({})", expr(a, i)),
    }
}

fn schedule(s: Schedule) -> String {
    match s {
        Schedule::Default => String::new(),
        Schedule::Static => " schedule(static)".into(),
        Schedule::StaticChunk(c) => format!(" schedule(static, {c})"),
        Schedule::Dynamic(c) => format!(" schedule(dynamic, {c})"),
        Schedule::Guided => " schedule(guided)".into(),
        Schedule::Auto => " schedule(auto)".into(),
        Schedule::Runtime => " schedule(runtime)".into(),
    }
}

pub fn team(id: usize, t: &Team) -> String {
    let mut s = String::new();
    match t.num_threads {
        Some(NumThreads::Const(n)) => write!(s, " num_threads({n})").unwrap(),
        Some(NumThreads::Var(_)) => write!(s, " num_threads(nt{id})").unwrap(),
        None => {}
    }
    if let Some(th) = t.if_threshold {
        write!(s, " if(if{id} > {th})").unwrap();
    }
    s
}

fn query(q: Query) -> &'static str {
    match q {
        Query::ThreadNum => "(u64)omp_get_thread_num()",
        Query::NumThreads => "(u64)omp_get_num_threads()",
        Query::MaxThreads => "(u64)omp_get_max_threads()",
        Query::Level => "(u64)omp_get_level()",
        Query::InParallel => "(u64)omp_in_parallel()",
    }
}

fn op_clause(op: RedOp) -> &'static str {
    match op {
        RedOp::Add => "+",
        RedOp::Mul => "*",
        RedOp::Max => "max",
        RedOp::Min => "min",
        RedOp::And => "&",
        RedOp::Or => "|",
        RedOp::Xor => "^",
        RedOp::LogAnd => "&&",
        RedOp::LogOr => "||",
    }
}

/// The statement a reduction's loop body runs.
fn update(r: &Reduction, i: &str) -> String {
    let (v, e) = (&r.var, expr(&r.expr, i));
    let binary = |o: &str| match r.update {
        Update::Compound => format!("{v} {o}= {e};"),
        _ => format!("{v} = {v} {o} {e};"),
    };
    match (r.op, r.update) {
        (RedOp::Add, Update::Wrong) => format!("if ({e} > {v}) {v} = {e};"),
        (_, Update::Wrong) => format!("{v} = {v} + {e};"),
        (RedOp::Max, Update::Conditional) => format!("if ({e} > {v}) {v} = {e};"),
        (RedOp::Min, Update::Conditional) => format!("if ({e} < {v}) {v} = {e};"),
        (RedOp::Max, _) => format!("{v} = {v} > {e} ? {v} : {e};"),
        (RedOp::Min, _) => format!("{v} = {v} < {e} ? {v} : {e};"),
        (RedOp::LogAnd, _) => format!("{v} = {v} && ({e} % 3ULL != 0);"),
        (RedOp::LogOr, _) => format!("{v} = {v} || ({e} % 3ULL == 0);"),
        (RedOp::Add, _) => binary("+"),
        (RedOp::Mul, _) => binary("*"),
        (RedOp::And, _) => binary("&"),
        (RedOp::Or, _) => binary("|"),
        (RedOp::Xor, _) => binary("^"),
    }
}

fn loop_clauses(id: usize, l: &LoopBlock) -> String {
    let mut s = String::from("#pragma omp parallel for");
    if let Some((_, true)) = l.inner {
        s += " collapse(2)";
    }
    s += &schedule(l.schedule);
    s += &team(id, &l.team);
    for r in &l.reductions {
        write!(s, " reduction({}: {})", op_clause(r.op), r.var).unwrap();
    }
    if l.firstprivate.is_some() {
        write!(s, " firstprivate(f{id}) reduction(+: fs{id})").unwrap();
    }
    l.lastprivate.is_some().then(|| write!(s, " lastprivate(l{id})").unwrap());
    l.linear.map(|st| write!(s, " linear(k{id}: {st})").unwrap());
    l.query.is_some().then(|| write!(s, " reduction(+: q{id})").unwrap());
    l.ordered.is_some().then(|| s += " ordered");
    (l.atomic == Some(Atomic::Capture)).then(|| write!(s, " reduction(+: cs{id})").unwrap());
    s
}

fn loop_body(id: usize, l: &LoopBlock, out: &mut String) {
    let ind = "      ";
    for r in &l.reductions {
        writeln!(out, "{ind}{}", update(r, "i")).unwrap();
    }
    let line = |out: &mut String, s: String| writeln!(out, "{ind}{s}").unwrap();
    l.store.as_ref().map(|e| line(out, format!("a{id}[i] = {};", expr(e, "i"))));
    l.firstprivate.map(|_| line(out, format!("fs{id} += f{id} + (u64)i;")));
    l.lastprivate.as_ref().map(|e| line(out, format!("l{id} = {};", expr(e, "i"))));
    l.linear.map(|st| line(out, format!("ka{id}[i] = k{id}; k{id} += {st};")));
    l.query.map(|q| line(out, format!("q{id} += {};", query(q))));
    if let Some(e) = &l.ordered {
        line(out, "#pragma omp ordered".into());
        line(out, format!("h{id} = (h{id} * 31ULL + {}) % {HASH_MOD}ULL;", expr(e, "i")));
    }
    match l.atomic {
        Some(Atomic::Update) => {
            line(out, format!("#pragma omp atomic update\n{ind}c{id} += {};", expr(&Expr::Rem(Box::new(Expr::I), 7), "i")))
        }
        Some(Atomic::Capture) => line(
            out,
            format!("{{ u64 old;\n{ind}#pragma omp atomic capture\n{ind}{{ old = c{id}; c{id} += 1ULL; }}\n{ind}cs{id} += old; }}"),
        ),
        None => {}
    }
    l.critical.as_ref().map(|e| line(out, format!("#pragma omp critical\n{ind}cr{id} += {};", expr(e, "i"))));
}

fn loop_block(id: usize, l: &LoopBlock, out: &mut String) {
    writeln!(out, "{}", loop_clauses(id, l)).unwrap();
    writeln!(out, "  for (int i = 0; i < {}; i++) {{", l.trip).unwrap();
    match l.inner {
        Some((m, _)) => {
            writeln!(out, "    for (int j = 0; j < {m}; j++) {{").unwrap();
            loop_body(id, l, out);
            writeln!(out, "    }}").unwrap();
        }
        None => loop_body(id, l, out),
    }
    writeln!(out, "  }}").unwrap();
}

fn team_item(id: usize, k: usize, item: &TeamItem, out: &mut String) {
    let t = format!("t{id}_{k}");
    let n = INPUT_LEN;
    let w = |out: &mut String, s: String| writeln!(out, "    {s}").unwrap();
    match item {
        TeamItem::NowaitPair { nowait, expr: e } => {
            let nw = if *nowait { " nowait" } else { "" };
            w(out, format!("#pragma omp for{nw}\n    for (int i = 0; i < {n}; i++) a{id}_{k}[i] = {};", expr(e, "i")));
            nowait.then(|| w(out, "#pragma omp barrier".into()));
            w(out, format!("#pragma omp for\n    for (int i = 0; i < {n}; i++) b{id}_{k}[i] = a{id}_{k}[{n} - 1 - i] + (u64)i;"));
        }
        TeamItem::ForReduction(e) => {
            w(out, format!("#pragma omp for reduction(+: {t})\n    for (int i = 0; i < {n}; i++) {t} += {};", expr(e, "i")))
        }
        TeamItem::Single(v) => w(out, format!("#pragma omp single\n    {t} += {v}ULL;")),
        TeamItem::Master(v) => w(out, format!("#pragma omp master\n    {t} += {v}ULL;")),
        TeamItem::Masked(v) => w(out, format!("#pragma omp masked\n    {t} += {v}ULL;")),
        TeamItem::CriticalEvery(v) => w(out, format!("#pragma omp critical\n    {t} += {v}ULL;")),
        TeamItem::AtomicEvery(v) => w(out, format!("#pragma omp atomic\n    {t} += {v}ULL;")),
        TeamItem::ReductionEvery(v) => w(out, format!("{t} += {v}ULL;")),
        TeamItem::Sections(vs) => {
            w(out, "#pragma omp sections\n    {".into());
            for (m, v) in vs.iter().enumerate() {
                w(out, format!("#pragma omp section\n    t{id}_{k}_{m} += {v}ULL;"));
            }
            w(out, "}".into());
        }
        TeamItem::QueryInSingle(q) => w(out, format!("#pragma omp single\n    {t} = {};", query(*q))),
    }
}

fn team_block(id: usize, t: &TeamBlock, out: &mut String) {
    let mut clause = format!("#pragma omp parallel{}", team(id, &t.team));
    for (k, item) in t.items.iter().enumerate() {
        if let TeamItem::ReductionEvery(_) = item {
            write!(clause, " reduction(+: t{id}_{k})").unwrap();
        }
    }
    writeln!(out, "{clause}\n  {{").unwrap();
    for (k, item) in t.items.iter().enumerate() {
        team_item(id, k, item, out);
    }
    writeln!(out, "  }}").unwrap();
}

fn task_block(id: usize, t: &TaskBlock, out: &mut String) {
    writeln!(out, "#pragma omp parallel\n#pragma omp single\n  {{").unwrap();
    writeln!(out, "    for (int k = 0; k < {}; k++) {{\n#pragma omp task firstprivate(k)", t.tasks).unwrap();
    writeln!(out, "      a{id}[k] = {};\n    }}", expr(&t.expr, "k")).unwrap();
    if let Some(g) = t.taskloop {
        let clause = match g {
            TaskloopGrain::Grainsize(n) => format!("grainsize({n})"),
            TaskloopGrain::NumTasks(n) => format!("num_tasks({n})"),
        };
        writeln!(out, "#pragma omp taskloop {clause}\n    for (int i = 0; i < {INPUT_LEN}; i++) b{id}[i] = {} + 1ULL;", expr(&t.expr, "i"))
            .unwrap();
    }
    t.taskwait.then(|| writeln!(out, "#pragma omp taskwait").unwrap());
    writeln!(out, "  }}").unwrap();
}

fn threadprivate_block(id: usize, t: &ThreadprivateBlock, out: &mut String) {
    writeln!(out, "  tp{id} = {}ULL;", t.value).unwrap();
    let copyin = if t.copyin { format!(" copyin(tp{id})") } else { String::new() };
    writeln!(out, "#pragma omp parallel for{copyin}{} reduction(+: s{id})", schedule(t.schedule)).unwrap();
    writeln!(out, "  for (int i = 0; i < {INPUT_LEN}; i++) s{id} += tp{id} + {};", expr(&t.expr, "i")).unwrap();
}

pub fn block(p: &Program, b: &Block, out: &mut String) {
    writeln!(out, "static void {}(void) {{", b.name()).unwrap();
    match &b.kind {
        BlockKind::Loop(l) => loop_block(b.id, l, out),
        BlockKind::Team(t) => team_block(b.id, t, out),
        BlockKind::Tasks(t) => task_block(b.id, t, out),
        BlockKind::Threadprivate(t) => threadprivate_block(b.id, t, out),
        BlockKind::Target(t) => target::target_block(p, b.id, t, out),
    }
    writeln!(out, "}}\n").unwrap();
}

fn declarations(p: &Program, out: &mut String) {
    for g in all_globals(p) {
        let ty = if g.ty == Ty::Bool { "int" } else { "u64" };
        match g.len {
            Some(n) => writeln!(out, "{ty} {}[{n}];", g.name).unwrap(),
            None => writeln!(out, "{ty} {} = {};", g.name, g.init).unwrap(),
        }
        if g.threadprivate {
            writeln!(out, "#pragma omp threadprivate({})", g.name).unwrap();
        }
        let clause = match g.declare_target {
            Some(DeclareTarget::To) => "to",
            Some(DeclareTarget::Link) => "link",
            Some(DeclareTarget::Enter) => "enter",
            None => continue,
        };
        writeln!(out, "#pragma omp declare target {clause}({})", g.name).unwrap();
    }
}

fn helper(k: usize, h: &Helper) -> String {
    format!("u64 hf{k}(u64 v) {{ return (v * {}ULL + {}ULL) % 1009ULL; }}\n", h.mul, h.add)
}

fn print_globals(p: &Program, out: &mut String) {
    for g in all_globals(p) {
        match (g.len, g.ty) {
            (Some(n), _) => writeln!(
                out,
                "  {{ u64 c = 0; for (int k = 0; k < {n}; k++) c = (c * 31ULL + {}[k]) % {HASH_MOD}ULL; printf(\"{} %llu\\n\", c); }}",
                g.name, g.name
            )
            .unwrap(),
            (None, Ty::Bool) => writeln!(out, "  printf(\"{} %d\\n\", {});", g.name, g.name).unwrap(),
            (None, Ty::U64) => writeln!(out, "  printf(\"{} %llu\\n\", {});", g.name, g.name).unwrap(),
        }
    }
}

pub fn emit(p: &Program) -> Sources {
    let mut out = format!("/* ompadapt-generate: seed {} case {} (C) */\n", p.seed, p.case);
    out += "#include <stdio.h>\n#include <omp.h>\ntypedef unsigned long long u64;\n";
    writeln!(out, "u64 x[{INPUT_LEN}];").unwrap();
    declarations(p, &mut out);
    for (k, _) in helpers_in(p, true) {
        writeln!(out, "u64 hf{k}(u64 v);").unwrap();
    }
    for (k, h) in helpers_in(p, false) {
        out += &format!("static {}", helper(k, h));
    }
    target::declare_target_functions(p, &mut out);
    out += "\n";
    for b in &p.blocks {
        block(p, b, &mut out);
    }
    writeln!(out, "int main(void) {{\n  for (int k = 0; k < {INPUT_LEN}; k++) x[k] = (u64)((k * 7 + 3) % 101);").unwrap();
    for b in &p.blocks {
        writeln!(out, "  {}();", b.name()).unwrap();
    }
    print_globals(p, &mut out);
    out += "  return 0;\n}\n";
    let mut files = vec![("case.c".to_string(), out)];
    if p.has_second_unit() {
        let mut unit = String::from("/* the second translation unit: the analysis cannot see these */\ntypedef unsigned long long u64;\n");
        helpers_in(p, true).into_iter().for_each(|(k, h)| unit += &helper(k, h));
        files.push(("unit2.c".to_string(), unit));
    }
    Sources { files }
}
