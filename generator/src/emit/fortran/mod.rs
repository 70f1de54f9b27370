//! Fortran (free form, flang-new-19): `integer(8)` arithmetic on small values (no overflow),
//! the globals in a module, one internal subroutine per block (flang names a region after its
//! procedure), helpers in a module or, for the second unit, external functions in another file.

mod target;

use super::{all_globals, helpers_in, Sources, HASH_MOD};
use crate::ast::*;
use std::fmt::Write;

pub fn expr(e: &Expr, i: &str) -> String {
    match e {
        Expr::I => i.to_string(),
        Expr::J => "j".into(),
        Expr::Const(c) => format!("{c}_8"),
        Expr::Input => format!("x({i})"),
        Expr::Add(a, b) => format!("({} + {})", expr(a, i), expr(b, i)),
        Expr::Mul(a, b) => format!("({} * {})", expr(a, i), expr(b, i)),
        Expr::Xor(a, b) => format!("ieor({}, {})", expr(a, i), expr(b, i)),
        Expr::Rem(a, m) => format!("mod({}, {m}_8)", expr(a, i)),
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

fn team(id: usize, t: &Team) -> String {
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
        Query::ThreadNum => "int(omp_get_thread_num(), 8)",
        Query::NumThreads => "int(omp_get_num_threads(), 8)",
        Query::MaxThreads => "int(omp_get_max_threads(), 8)",
        Query::Level => "int(omp_get_level(), 8)",
        Query::InParallel => "merge(1_8, 0_8, omp_in_parallel())",
    }
}

fn op_clause(op: RedOp) -> &'static str {
    match op {
        RedOp::Add => "+",
        RedOp::Mul => "*",
        RedOp::Max => "max",
        RedOp::Min => "min",
        RedOp::And => "iand",
        RedOp::Or => "ior",
        RedOp::Xor => "ieor",
        RedOp::LogAnd => ".and.",
        RedOp::LogOr => ".or.",
    }
}

fn update(r: &Reduction, i: &str) -> String {
    let (v, e) = (&r.var, expr(&r.expr, i));
    match (r.op, r.update) {
        (RedOp::Add, Update::Wrong) => format!("if ({e} > {v}) {v} = {e}"),
        (_, Update::Wrong) => format!("{v} = {v} + {e}"),
        (RedOp::Max, Update::Conditional) => format!("if ({e} > {v}) {v} = {e}"),
        (RedOp::Min, Update::Conditional) => format!("if ({e} < {v}) {v} = {e}"),
        (RedOp::Max, _) => format!("{v} = max({v}, {e})"),
        (RedOp::Min, _) => format!("{v} = min({v}, {e})"),
        (RedOp::LogAnd, _) => format!("{v} = {v} .and. (mod({e}, 3_8) /= 0)"),
        (RedOp::LogOr, _) => format!("{v} = {v} .or. (mod({e}, 3_8) == 0)"),
        (RedOp::Add, _) => format!("{v} = {v} + {e}"),
        (RedOp::Mul, _) => format!("{v} = {v} * {e}"),
        (RedOp::And, _) => format!("{v} = iand({v}, {e})"),
        (RedOp::Or, _) => format!("{v} = ior({v}, {e})"),
        (RedOp::Xor, _) => format!("{v} = ieor({v}, {e})"),
    }
}

fn loop_clauses(id: usize, l: &LoopBlock) -> String {
    let mut s = String::from("    !$omp parallel do");
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
    l.query.is_some().then(|| write!(s, " reduction(+: q{id})").unwrap());
    l.ordered.is_some().then(|| s += " ordered");
    (l.atomic == Some(Atomic::Capture)).then(|| write!(s, " reduction(+: cs{id}) private(old)").unwrap());
    s
}

fn loop_body(id: usize, l: &LoopBlock, out: &mut String) {
    let line = |out: &mut String, s: String| writeln!(out, "      {s}").unwrap();
    for r in &l.reductions {
        line(out, update(r, "i"));
    }
    l.store.as_ref().map(|e| line(out, format!("a{id}(i) = {}", expr(e, "i"))));
    l.firstprivate.map(|_| line(out, format!("fs{id} = fs{id} + f{id} + i")));
    l.lastprivate.as_ref().map(|e| line(out, format!("l{id} = {}", expr(e, "i"))));
    l.query.map(|q| line(out, format!("q{id} = q{id} + {}", query(q))));
    if let Some(e) = &l.ordered {
        line(out, format!("!$omp ordered\n      h{id} = mod(h{id} * 31_8 + {}, {HASH_MOD}_8)\n      !$omp end ordered", expr(e, "i")));
    }
    match l.atomic {
        Some(Atomic::Update) => line(out, format!("!$omp atomic update\n      c{id} = c{id} + mod(i, 7_8)")),
        Some(Atomic::Capture) => line(
            out,
            format!(
                "!$omp atomic capture\n      old = c{id}\n      c{id} = c{id} + 1_8\n      !$omp end atomic\n      cs{id} = cs{id} + old"
            ),
        ),
        None => {}
    }
    l.critical.as_ref().map(|e| line(out, format!("!$omp critical\n      cr{id} = cr{id} + {}\n      !$omp end critical", expr(e, "i"))));
}

fn loop_block(id: usize, l: &LoopBlock, out: &mut String) {
    writeln!(out, "{}", loop_clauses(id, l)).unwrap();
    writeln!(out, "    do i = 1, {}", l.trip).unwrap();
    match l.inner {
        Some((m, _)) => {
            writeln!(out, "    do j = 1, {m}").unwrap();
            loop_body(id, l, out);
            writeln!(out, "    end do").unwrap();
        }
        None => loop_body(id, l, out),
    }
    writeln!(out, "    end do\n    !$omp end parallel do").unwrap();
}

fn team_item(id: usize, k: usize, item: &TeamItem, out: &mut String) {
    let t = format!("t{id}_{k}");
    let n = INPUT_LEN;
    let w = |out: &mut String, s: String| writeln!(out, "    {s}").unwrap();
    match item {
        TeamItem::NowaitPair { nowait, expr: e } => {
            let end = if *nowait { "!$omp end do nowait\n    !$omp barrier" } else { "!$omp end do" };
            w(out, format!("!$omp do\n    do i = 1, {n}\n      a{id}_{k}(i) = {}\n    end do\n    {end}", expr(e, "i")));
            w(out, format!("!$omp do\n    do i = 1, {n}\n      b{id}_{k}(i) = a{id}_{k}({} - i) + i\n    end do\n    !$omp end do", n + 1));
        }
        TeamItem::ForReduction(e) => w(
            out,
            format!("!$omp do reduction(+: {t})\n    do i = 1, {n}\n      {t} = {t} + {}\n    end do\n    !$omp end do", expr(e, "i")),
        ),
        TeamItem::Single(v) => w(out, format!("!$omp single\n    {t} = {t} + {v}_8\n    !$omp end single")),
        TeamItem::Master(v) => w(out, format!("!$omp master\n    {t} = {t} + {v}_8\n    !$omp end master")),
        TeamItem::Masked(v) => w(out, format!("!$omp masked\n    {t} = {t} + {v}_8\n    !$omp end masked")),
        TeamItem::CriticalEvery(v) => w(out, format!("!$omp critical\n    {t} = {t} + {v}_8\n    !$omp end critical")),
        TeamItem::AtomicEvery(v) => w(out, format!("!$omp atomic update\n    {t} = {t} + {v}_8")),
        TeamItem::ReductionEvery(v) => w(out, format!("{t} = {t} + {v}_8")),
        TeamItem::Sections(vs) => {
            w(out, "!$omp sections".into());
            for (m, v) in vs.iter().enumerate() {
                w(out, format!("!$omp section\n    t{id}_{k}_{m} = t{id}_{k}_{m} + {v}_8"));
            }
            w(out, "!$omp end sections".into());
        }
        TeamItem::QueryInSingle(q) => w(out, format!("!$omp single\n    {t} = {}\n    !$omp end single", query(*q))),
    }
}

fn team_block(id: usize, t: &TeamBlock, out: &mut String) {
    let mut clause = format!("    !$omp parallel{}", team(id, &t.team));
    for (k, item) in t.items.iter().enumerate() {
        if let TeamItem::ReductionEvery(_) = item {
            write!(clause, " reduction(+: t{id}_{k})").unwrap();
        }
    }
    writeln!(out, "{clause}").unwrap();
    for (k, item) in t.items.iter().enumerate() {
        team_item(id, k, item, out);
    }
    writeln!(out, "    !$omp end parallel").unwrap();
}

fn task_block(id: usize, t: &TaskBlock, out: &mut String) {
    writeln!(out, "    !$omp parallel\n    !$omp single\n    do k = 1, {}", t.tasks).unwrap();
    writeln!(out, "      !$omp task firstprivate(k)\n      a{id}(k) = {}\n      !$omp end task\n    end do", expr(&t.expr, "k")).unwrap();
    t.taskwait.then(|| writeln!(out, "    !$omp taskwait").unwrap());
    writeln!(out, "    !$omp end single\n    !$omp end parallel").unwrap();
}

fn threadprivate_block(id: usize, t: &ThreadprivateBlock, out: &mut String) {
    writeln!(out, "    tp{id} = {}_8", t.value).unwrap();
    let copyin = if t.copyin { format!(" copyin(tp{id})") } else { String::new() };
    writeln!(out, "    !$omp parallel do{copyin}{} reduction(+: s{id})", schedule(t.schedule)).unwrap();
    writeln!(out, "    do i = 1, {INPUT_LEN}\n      s{id} = s{id} + tp{id} + {}\n    end do", expr(&t.expr, "i")).unwrap();
    writeln!(out, "    !$omp end parallel do").unwrap();
}

fn block(b: &Block, out: &mut String) {
    writeln!(out, "  subroutine {}()\n    integer(8) :: i, j, k, old", b.name()).unwrap();
    match &b.kind {
        BlockKind::Loop(l) => loop_block(b.id, l, out),
        BlockKind::Team(t) => team_block(b.id, t, out),
        BlockKind::Tasks(t) => task_block(b.id, t, out),
        BlockKind::Threadprivate(t) => threadprivate_block(b.id, t, out),
        BlockKind::Target(t) => target::target_block(b.id, t, out),
    }
    writeln!(out, "  end subroutine {}\n", b.name()).unwrap();
}

fn globals_module(p: &Program, out: &mut String) {
    writeln!(out, "module gen_globals\n  implicit none\n  integer(8) :: x({INPUT_LEN})").unwrap();
    for g in all_globals(p) {
        match (g.len, g.ty) {
            (Some(n), _) => writeln!(out, "  integer(8) :: {}({n}) = 0", g.name).unwrap(),
            (None, Ty::Bool) => writeln!(out, "  logical :: {} = {}", g.name, if g.init != 0 { ".true." } else { ".false." }).unwrap(),
            (None, Ty::U64) => writeln!(out, "  integer(8) :: {} = {}", g.name, g.init).unwrap(),
        }
        g.threadprivate.then(|| writeln!(out, "  !$omp threadprivate({})", g.name).unwrap());
        match g.declare_target {
            Some(DeclareTarget::To) => writeln!(out, "  !$omp declare target({})", g.name).unwrap(),
            Some(DeclareTarget::Link) => writeln!(out, "  !$omp declare target link({})", g.name).unwrap(),
            Some(DeclareTarget::Enter) => writeln!(out, "  !$omp declare target enter({})", g.name).unwrap(),
            None => {}
        }
    }
    writeln!(out, "end module gen_globals\n").unwrap();
}

fn helper(k: usize, h: &Helper, indent: &str) -> String {
    format!(
        "{indent}integer(8) function hf{k}(v)\n{indent}  integer(8), intent(in) :: v\n{indent}  hf{k} = mod(v * {}_8 + {}_8, 1009_8)\n{indent}end function hf{k}\n",
        h.mul, h.add
    )
}

fn print_globals(p: &Program, out: &mut String) {
    for g in all_globals(p) {
        let n = &g.name;
        match (g.len, g.ty) {
            (Some(len), _) => writeln!(
                out,
                "  c = 0\n  do k = 1, {len}\n    c = mod(c * 31_8 + {n}(k), {HASH_MOD}_8)\n  end do\n  print '(A,1X,I0)', '{n}', c"
            )
            .unwrap(),
            (None, Ty::Bool) => writeln!(out, "  print '(A,1X,L1)', '{n}', {n}").unwrap(),
            (None, Ty::U64) => writeln!(out, "  print '(A,1X,I0)', '{n}', {n}").unwrap(),
        }
    }
}

pub fn emit(p: &Program) -> Sources {
    let mut out = format!("! ompadapt-generate: seed {} case {} (Fortran)\n", p.seed, p.case);
    globals_module(p, &mut out);
    let local = helpers_in(p, false);
    if !local.is_empty() {
        out += "module gen_helpers\n  implicit none\ncontains\n";
        local.iter().for_each(|(k, h)| out += &helper(*k, h, "  "));
        out += "end module gen_helpers\n\n";
    }
    out += "program main\n  use gen_globals\n";
    (!local.is_empty()).then(|| out += "  use gen_helpers\n");
    out += "  use omp_lib\n  implicit none\n";
    for (k, _) in helpers_in(p, true) {
        writeln!(out, "  integer(8), external :: hf{k}").unwrap();
    }
    writeln!(out, "  integer(8) :: k, c\n  do k = 1, {INPUT_LEN}\n    x(k) = mod(k * 7_8 + 3_8, 101_8)\n  end do").unwrap();
    for b in &p.blocks {
        writeln!(out, "  call {}()", b.name()).unwrap();
    }
    print_globals(p, &mut out);
    out += "contains\n";
    for b in &p.blocks {
        block(b, &mut out);
    }
    out += "end program main\n";
    let mut files = vec![("case.f90".to_string(), out)];
    if p.has_second_unit() {
        let mut unit = String::from("! the second translation unit: the analysis cannot see these\n");
        helpers_in(p, true).into_iter().for_each(|(k, h)| unit += &helper(k, h, ""));
        files.push(("unit2.f90".to_string(), unit));
    }
    Sources { files }
}
