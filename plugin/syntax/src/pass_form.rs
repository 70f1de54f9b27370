//! The pass form: `#pragma omp adaptation ... variants(<kinds>)` right before one ordinary
//! OpenMP construct. The compiler generates every variant from that one construct:
//!
//! - before an offloading `target` construct: a call of the launch-site marker that the ompadapt
//!   pass (pass/) turns into the dispatch stub — `cpu` runs the host version, `thread_limit` and
//!   `num_teams` values are set in the launch at run time (no kernel is recompiled) — and, for
//!   `cpu`, the copies that keep the host version correct inside a device data environment
//!   (`target update from` the sections in view before it, `target update to` the sections the
//!   kernel may write after it; inside the region, so their time is the variant's);
//!   `coschedule` variants split the loop here (see [`crate::coschedule`]).
//! - before a host `parallel for`: one copy of the loop whose `if`, `num_threads` and
//!   `schedule(runtime)` clauses take the variant's values at run time; before a host
//!   `parallel` region, its `if` and `num_threads` clauses.

use crate::coschedule::{self, LoopSplit, SplitValues};
use crate::data_env::DataDirective;
use crate::diag::{Diagnostic, Diags};
use crate::kernel_scan::{construct, map_items, mentions, Construct};
use crate::kinds::{Kind, ALL_KINDS};
use crate::lower::{c_string, context_var};
use crate::piece::Piece;
use crate::token::{spell_written, Tok, TokKind, STATEMENT_LIST};
use crate::variants::VariantSet;
use ompadapt_abi::markers;

/// The statement's tokens as pieces.
fn stmt(r: std::ops::Range<usize>) -> Piece {
    Piece::statement_tokens(r)
}

fn at_stmt(d: Diagnostic) -> Diagnostic {
    d.in_saved(STATEMENT_LIST)
}

/// What the pass form makes of one region: the pieces between the region's begin and end,
/// and, when some variants cannot be generated (dropped with a warning), the variants the
/// region keeps.
pub struct Lowered {
    /// The pieces to emit between the region's begin and end.
    pub body: Vec<Piece>,
    /// The variants the region keeps, when some were dropped; None when all are kept.
    pub remaining: Option<VariantSet>,
}

/// Everything the lowering needs.
pub struct Site<'a> {
    /// The region's number in the translation unit (its generated names).
    pub id: u32,
    /// The region's name, passed to the runtime's launch-site and host-guard calls.
    pub model: &'a str,
    /// The region's variants.
    pub variants: &'a VariantSet,
    /// The decoded kind of each variant (None: a name that is not a kind).
    pub kinds: &'a [Option<Kind>],
    /// The statement after the directive: the construct the variants are generated from.
    pub stmt: &'a [Tok],
    /// Data directives in view at the directive.
    pub data: &'a [DataDirective],
    /// Tokens of the saved lists, by index.
    pub saved: &'a [Vec<Tok>],
    /// The compilation offloads (a launch exists for the pass to dispatch).
    pub offload: bool,
    /// The compilation is one for an offload device (the host compilation says what it must).
    pub device: bool,
    /// The translation unit is C++.
    pub cplusplus: bool,
}

/// Checks the kinds against the construct and lowers the region; errors leave `None`.
pub fn lower(s: &Site, diags: &mut Diags) -> Option<Lowered> {
    let kinds = every_variant_a_kind(s, diags)?;
    let Some(c) = construct(s.stmt) else {
        let first = &s.variants.variants[0];
        if s.stmt.first().is_some_and(|t| t.is_ident("for")) {
            diags.push(Diagnostic::warning(
                first.tok,
                first.tok + 1,
                "these variant kinds need an OpenMP construct to generate them from (a target construct or a 'parallel for'); before a plain loop every variant runs it as written",
            ));
        }
        return Some(Lowered { body: vec![Piece::Statement], remaining: None });
    };
    if !kinds_fit(s, &c, &kinds, diags) {
        return None;
    }
    if !c.offloads() {
        return Some(Lowered { body: lower_parallel_for(s, &c, &kinds), remaining: None });
    }
    let mut ok = true;
    for clause in ["nowait", "depend"] {
        if let Some(cl) = c.clause(clause) {
            diags.push(at_stmt(Diagnostic::error(
                cl.at,
                cl.span().end,
                format!("'{clause}' on a target construct with variant kinds: the variants are timed from launch to completion, so the launch must be synchronous; remove '{clause}' (a 'coschedule' variant overlaps host and device work itself)"),
            )));
            ok = false;
        }
    }
    if !ok {
        return None;
    }
    if !s.offload && !s.device {
        warn_no_offload_target(s, diags);
    }
    lower_target(s, &c, kinds, diags)
}

/// Without an offload target (`-fopenmp-targets`) a target construct is host code: `cpu`, `gpu`
/// and the launch-shape variants all run that same code, and adapting among them learns noise.
/// A warning at the first variant (the run's report says it again).
fn warn_no_offload_target(s: &Site, diags: &mut Diags) {
    let first = &s.variants.variants[0];
    diags.push(Diagnostic::warning(
        first.tok,
        first.tok + 1,
        "no offload target in this compilation: the target construct compiles to host code only, so its variants run the same code and adapting among them learns noise; compile with -fopenmp-targets=nvptx64 (or amdgcn-amd-amdhsa) and --offload-arch",
    ));
}

/// The kinds of the variants, when every variant names one (else an error at each that does not).
fn every_variant_a_kind(s: &Site, diags: &mut Diags) -> Option<Vec<Kind>> {
    for (i, k) in s.kinds.iter().enumerate() {
        if k.is_none() {
            let v = &s.variants.variants[i];
            diags.push(Diagnostic::error(
                v.tok,
                v.tok + 1,
                format!(
                    "'{}' is not a variant kind{}; with kinds in the list, every variant must be one of: {ALL_KINDS}",
                    v.name,
                    crate::kinds::did_you_mean(&v.name)
                ),
            ));
        }
    }
    s.kinds.iter().cloned().collect()
}

/// Whether every kind applies to construct `c`; an error for each item of the list that does not.
fn kinds_fit(s: &Site, c: &Construct, kinds: &[Kind], diags: &mut Diags) -> bool {
    let name = c.words.join(" ");
    let unfit = |k: &Kind| -> Option<String> {
        if c.offloads() {
            if k.for_parallel_for() {
                return Some(format!("applies to a 'parallel for', not to '{name}'"));
            }
            if matches!(k, Kind::NumTeams(_)) && !c.may_have_teams() {
                return Some(format!("needs teams; '{name}' creates none"));
            }
            None
        } else if c.is_parallel_for() {
            k.for_target().then(|| format!("applies to a target construct, not to '{name}'"))
        } else if c.is_parallel_region() {
            (!k.sets_team_size()).then(|| format!("needs a loop to schedule; '{name}' sets only its team size"))
        } else {
            Some(format!("applies to a target construct, a 'parallel for' or a 'parallel' region, not to '{name}'"))
        }
    };
    let mut ok = true;
    let mut said: Vec<usize> = Vec::new();
    for (i, k) in kinds.iter().enumerate() {
        if let Some(why) = unfit(k) {
            let v = &s.variants.variants[i];
            ok = false;
            // Once per item of the list (a range expands to many variants).
            if said.contains(&v.tok) {
                continue;
            }
            said.push(v.tok);
            diags.push(Diagnostic::error(v.tok, v.tok + 1, format!("variant kind '{}' {why}", v.name)));
        }
    }
    ok
}

/// The sections the co-scheduling split copies: those of the data directives in view and of
/// the construct's own map clauses, for variables the construct uses.
fn sections(s: &Site, c: &Construct) -> Vec<Piece> {
    let mut out: Vec<(Piece, String)> = Vec::new();
    let mut add = |list: u32, range: std::ops::Range<usize>, text: String, base: &str| {
        if !mentions(s.stmt, 0..s.stmt.len(), base) || out.iter().any(|x| x.1 == text) {
            return;
        }
        out.push((Piece::Saved(list, range), text));
    };
    for d in s.data {
        let Some(toks) = s.saved.get(d.saved as usize) else { continue };
        for m in &d.items {
            add(d.saved, m.range.clone(), spell_written(toks, m.range.clone()), &m.base);
        }
    }
    for m in map_items(s.stmt, c.words_range.end..c.end, &c.brackets) {
        add(STATEMENT_LIST, m.range.clone(), spell_written(s.stmt, m.range.clone()), &m.base);
    }
    out.into_iter().map(|x| x.0).collect()
}

/// `static const int name[] = {..};` and the expression that reads it for the chosen variant
/// (0 beyond the table).
fn table(id: u32, what: &str, values: &[i64]) -> (String, String) {
    let name = format!("_ompadapt_{what}{id}");
    let list: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    let context = context_var(id);
    (
        format!("static const int {name}[{}] = {{{}}};", values.len(), list.join(",")),
        format!("({context}.variant >= 0 && {context}.variant < {} ? {name}[{context}.variant] : 0)", values.len()),
    )
}

/// The shares of `threads=F` variants (0: the variant sets no share), and how the lowered
/// code reads the chosen one (0 outside the table: the team as written).
fn share_table(id: u32, values: &[f64]) -> (String, String) {
    let name = format!("_ompadapt_share{id}");
    let list: Vec<String> = values.iter().map(|v| format!("{v:?}")).collect();
    let context = context_var(id);
    (
        format!("static const double {name}[{}] = {{{}}};", values.len(), list.join(",")),
        format!("({context}.variant >= 0 && {context}.variant < {} ? {name}[{context}.variant] : 0.0)", values.len()),
    )
}

/// `__ompadapt_host_guard(&ctx, cpu, replacement, "model");` (see the lowering header): the
/// pass makes the runtime run the host version as the offload would (device data brought in,
/// sent back, host bytes the offload would not change restored), or refuse it at run time.
fn host_guard(s: &Site, cpu: usize, replacement: Option<usize>) -> Piece {
    let replacement = replacement.map_or(-1, |r| r as i64);
    Piece::Text(format!("{}(&{}, {cpu}, {replacement}, {});", markers::HOST_GUARD.name, context_var(s.id), c_string(s.model)))
}

/// A target construct: the variants that cannot be generated leave the region (with a
/// warning), then the region is lowered with the others.
fn lower_target(s: &Site, c: &Construct, kinds: Vec<Kind>, diags: &mut Diags) -> Option<Lowered> {
    let mut dropped = Vec::new();
    let split = coschedule_split(s, c, &kinds, &mut dropped, diags);
    let cpu = kinds.iter().position(|k| *k == Kind::Cpu);
    // A kernel handed device memory directly cannot run on the host.
    if let (Some(i), Some(clause)) = (cpu, crate::kernel_scan::device_memory_clause(c)) {
        let v = &s.variants.variants[i];
        diags.push(Diagnostic::warning(
            v.tok,
            v.tok + 1,
            format!("variant 'cpu' dropped: {}; the region keeps its other variants", crate::auto_mode::device_memory_reason(clause)),
        ));
        if let Some(cl) = c.clause(clause) {
            diags.push(at_stmt(Diagnostic::note(cl.at, cl.at + 1, "here")));
        }
        dropped.push(i);
    }
    if dropped.is_empty() {
        let body = target_body(s, c, s.variants, &kinds, split.as_ref(), diags);
        return Some(Lowered { body, remaining: None });
    }
    let kept = |i: &usize| !dropped.contains(i);
    let variants: Vec<_> = s.variants.variants.iter().enumerate().filter(|(i, _)| kept(i)).map(|(_, v)| v.clone()).collect();
    if variants.is_empty() {
        let v = &s.variants.variants[0];
        diags.push(Diagnostic::error(
            v.tok,
            v.tok + 1,
            "no variant is left once the variants above are dropped; add 'gpu' (the offload as written)",
        ));
        return None;
    }
    let remaining = VariantSet::remaining(variants);
    let kinds: Vec<Kind> = kinds.into_iter().enumerate().filter(|(i, _)| kept(i)).map(|(_, k)| k).collect();
    let body = target_body(s, c, &remaining, &kinds, split.as_ref(), diags);
    Some(Lowered { body, remaining: Some(remaining) })
}

/// The split of `coschedule` variants, when there are any and it can be made; else they are
/// dropped (with a warning). Host and device compilations must generate the same target
/// constructs: the split does not depend on whether this one offloads.
fn coschedule_split<'a>(
    s: &Site<'a>,
    c: &'a Construct,
    kinds: &[Kind],
    dropped: &mut Vec<usize>,
    diags: &mut Diags,
) -> Option<(LoopSplit<'a>, Vec<Piece>)> {
    let coscheduled: Vec<usize> = kinds.iter().enumerate().filter(|(_, k)| matches!(k, Kind::Coschedule(_))).map(|(i, _)| i).collect();
    if coscheduled.is_empty() {
        return None;
    }
    match coschedule::check(s.stmt, c) {
        Ok(split) => Some((split, sections(s, c))),
        Err((at, why)) => {
            let v = &s.variants.variants[coscheduled[0]];
            diags.push(Diagnostic::warning(
                v.tok,
                v.tok + 1,
                format!("'coschedule' variants dropped: {why}; the region keeps its other variants"),
            ));
            if let Some(at) = at {
                diags.push(at_stmt(Diagnostic::note(at, at + 1, "here")));
            }
            dropped.extend(coscheduled.iter().copied());
            None
        }
    }
}

/// The region's body around a target construct whose `variants` (`kinds`) can all be
/// generated: the launch values of each variant, the split of `coschedule` variants, the host
/// guard of `cpu` and the launch-site marker before the construct.
fn target_body(
    s: &Site,
    c: &Construct,
    variants: &VariantSet,
    kinds: &[Kind],
    split: Option<&(LoopSplit, Vec<Piece>)>,
    diags: &mut Diags,
) -> Vec<Piece> {
    let context = context_var(s.id);
    let mut body = Vec::new();
    let cpu = kinds.iter().position(|k| *k == Kind::Cpu);
    let teams = launch_values(s, c, variants, kinds, ("nt", "num_teams"), &mut body, diags);
    let threads = launch_values(s, c, variants, kinds, ("tl", "thread_limit"), &mut body, diags);
    let use_host = cpu.map_or("0".to_string(), |i| format!("{context}.variant == {i}"));
    if let Some((split, sections)) = split {
        let fractions: Vec<f64> = kinds.iter().map(|k| if let Kind::Coschedule(f) = k { *f } else { 0.0 }).collect();
        let conds: Vec<String> = kinds
            .iter()
            .enumerate()
            .filter(|(_, k)| matches!(k, Kind::Coschedule(_)))
            .map(|(i, _)| format!("{context}.variant == {i}"))
            .collect();
        body.push(Piece::Text(format!("if ({}) {{", conds.join(" || "))));
        body.extend(split.pieces(&SplitValues { region: s.id, fractions: &fractions, cplusplus: s.cplusplus, sections }));
        body.push(Piece::Text("} else {".into()));
    }
    // Without an offload target there is no launch to dispatch (and the device compilations
    // compile no host code).
    if s.offload {
        if let Some(i) = cpu {
            body.push(host_guard(s, i, kinds.iter().position(|k| *k == Kind::Gpu)));
        }
        body.push(Piece::Text(format!("{}({use_host}, {teams}, {threads}, {});", markers::LAUNCH_SITE.name, c_string(s.model))));
    }
    body.push(Piece::Statement);
    if split.is_some() {
        body.push(Piece::Text("}".into()));
    }
    body
}

/// The values the dispatch stub sets in the launch for `clause` (`num_teams`,
/// `thread_limit`), one per variant (0: as compiled), capped by the construct's own clause
/// with a warning; their table (named by `short`) goes into `body`. The expression that reads
/// the chosen variant's value, or `0` when the launch keeps its own.
fn launch_values(
    s: &Site,
    c: &Construct,
    variants: &VariantSet,
    kinds: &[Kind],
    (short, clause): (&str, &str),
    body: &mut Vec<Piece>,
    diags: &mut Diags,
) -> String {
    let compiled = c.clause(clause).and_then(|cl| {
        let a = cl.args.clone()?;
        (a.len() == 1 && s.stmt[a.start].kind == TokKind::Number).then(|| s.stmt[a.start].text.parse::<i64>().ok()).flatten()
    });
    let pick = |k: &Kind| match (k, clause) {
        (Kind::NumTeams(n), "num_teams") | (Kind::ThreadLimit(n), "thread_limit") => i64::from(*n),
        _ => 0,
    };
    let mut warned = false;
    let mut values = Vec::new();
    for (i, k) in kinds.iter().enumerate() {
        let mut v = pick(k);
        if let Some(l) = compiled.filter(|l| v > *l) {
            if !warned {
                let var = &variants.variants[i];
                diags.push(Diagnostic::warning(
                    var.tok,
                    var.tok + 1,
                    format!("'{}' is above the construct's {clause}({l}): such variants run with {l}", var.name),
                ));
                warned = true;
            }
            v = l;
        }
        values.push(v);
    }
    // Read only by the launch-site marker, which exists only where there is a launch.
    if values.iter().all(|v| *v == 0) || !s.offload {
        return "0".into();
    }
    let (decl, read) = table(s.id, short, &values);
    body.push(Piece::Text(decl));
    read
}

/// A host `parallel for`: one copy of the loop whose `if`, `num_threads` and `schedule` take
/// the chosen variant's values at run time (the user's clauses they replace give the defaults).
fn lower_parallel_for(s: &Site, c: &Construct, kinds: &[Kind]) -> Vec<Piece> {
    let mut p = Vec::new();
    let serial = kinds.iter().position(|k| *k == Kind::Serial);
    let has_threads = kinds.iter().any(|k| matches!(k, Kind::NumThreads(_) | Kind::Threads(_)));
    let has_sched = kinds.iter().any(|k| matches!(k, Kind::Schedule(..)));
    let user = |name: &str| c.clause(name).and_then(|cl| cl.args.clone().map(|a| (cl.clone(), a)));
    // Clauses the variants take over leave the directive; their values become the defaults.
    let mut replaced: Vec<std::ops::Range<usize>> = Vec::new();
    let mut directive = vec![stmt(c.words_range.clone())];
    if let Some(i) = serial {
        directive.extend(serial_condition(s, c, i, &mut replaced));
    }
    if has_threads {
        let absolute: Vec<i64> = kinds.iter().map(|k| if let Kind::NumThreads(n) = k { i64::from(*n) } else { 0 }).collect();
        let shares: Vec<f64> = kinds.iter().map(|k| if let Kind::Threads(f) = k { *f } else { 0.0 }).collect();
        let (decl, absolute) = table(s.id, "nth", &absolute);
        p.push(Piece::Text(decl));
        let (decl, share) = share_table(s.id, &shares);
        p.push(Piece::Text(decl));
        let program: Vec<Piece> = match user("num_threads") {
            Some((cl, a)) => {
                replaced.push(cl.span());
                vec![Piece::Text("(".into()), stmt(a), Piece::Text(")".into())]
            }
            None => vec![Piece::Text("__ompadapt_omp_get_max_threads()".into())],
        };
        directive.push(Piece::Text(format!(" num_threads(__ompadapt_team_size({absolute}, {share}, ")));
        directive.extend(program);
        directive.push(Piece::Text("))".into()));
    }
    let mut restore = vec![];
    if has_sched {
        let user_schedule = user("schedule");
        if let Some((cl, _)) = &user_schedule {
            replaced.push(cl.span());
        }
        let (setup, back) = runtime_schedule(s, kinds, user_schedule.map(|(_, a)| a));
        p.extend(setup);
        directive.push(Piece::Text(" schedule(runtime)".into()));
        restore.push(back);
    }
    // The user's other clauses, as written.
    let mut at = c.words_range.end;
    replaced.sort_by_key(|r| r.start);
    for r in &replaced {
        if at < r.start {
            directive.push(stmt(at..r.start));
        }
        at = r.end;
    }
    if at < c.end {
        directive.push(stmt(at..c.end));
    }
    p.push(Piece::OmpBegin);
    p.extend(directive);
    p.push(Piece::OmpEnd);
    p.push(stmt(c.body.clone()));
    p.extend(restore);
    p
}

/// The `if` clause that makes variant `i` (`serial`) a team of one: the user's `if` for the
/// parallel region (no directive-name modifier, or `parallel:`) joins it, and leaves the
/// directive (its span goes to `replaced`); one for another construct (`if(simd: c)`) stays as
/// written, and then clang wants every `if` to name its construct.
fn serial_condition(s: &Site, c: &Construct, i: usize, replaced: &mut Vec<std::ops::Range<usize>>) -> Vec<Piece> {
    let context = context_var(s.id);
    let modifier = |a: &std::ops::Range<usize>| {
        let toks = &s.stmt[a.clone()];
        (toks.len() > 2 && toks[0].kind == TokKind::Ident && toks[1].is_punct(":")).then(|| toks[0].text.clone())
    };
    let parallel_if = c.clauses.iter().filter(|cl| cl.name == "if").find_map(|cl| {
        let a = cl.args.clone()?;
        match modifier(&a).as_deref() {
            None => Some((cl.clone(), a)),
            Some("parallel") => Some((cl.clone(), a.start + 2..a.end)),
            Some(_) => None,
        }
    });
    match parallel_if {
        Some((cl, a)) => {
            replaced.push(cl.span());
            vec![Piece::Text(" if((".into()), stmt(a), Piece::Text(format!(") && {context}.variant != {i})"))]
        }
        None if c.clauses.iter().any(|cl| cl.name == "if") => vec![Piece::Text(format!(" if(parallel: {context}.variant != {i})"))],
        None => vec![Piece::Text(format!(" if({context}.variant != {i})"))],
    }
}

/// The schedule variants of a `parallel for` lowered with `schedule(runtime)`: code that saves
/// the run-time schedule and sets the chosen variant's (for variants that name none, the
/// user's `schedule` clause `user_args`, else static), and the code that restores it after the
/// loop.
fn runtime_schedule(s: &Site, kinds: &[Kind], user_args: Option<std::ops::Range<usize>>) -> (Vec<Piece>, Piece) {
    let schedule_kinds: Vec<i64> = kinds.iter().map(|k| if let Kind::Schedule(k, _) = k { i64::from(*k) } else { 0 }).collect();
    let chunks: Vec<i64> = kinds.iter().map(|k| if let Kind::Schedule(_, c) = k { i64::from(*c) } else { 0 }).collect();
    let (kind_table, chosen_kind) = table(s.id, "sk", &schedule_kinds);
    let (chunk_table, chosen_chunk) = table(s.id, "sc", &chunks);
    // The schedule of variants that name none: the user's clause, else static.
    let (default_kind, default_chunk) = match user_args {
        Some(a) => {
            let w: Vec<&Tok> = s.stmt[a.clone()].iter().collect();
            let kind_at = w.iter().position(|t| crate::kinds::SCHEDULES.iter().any(|x| t.is_ident(x)));
            let k = kind_at.map_or(1, |i| crate::kinds::SCHEDULES.iter().position(|x| w[i].is_ident(x)).unwrap_or(0) + 1);
            let comma = s.stmt[a.clone()].iter().position(|t| t.is_punct(","));
            let chunk = match comma {
                Some(ci) if kind_at.is_some_and(|k| k < ci) => Some(a.start + ci + 1..a.end),
                _ => None,
            };
            (k, chunk)
        }
        None => (1, None),
    };
    let saved_schedule = format!("_ompadapt_sv{}", s.id);
    let mut p = vec![Piece::Text(format!("{kind_table}{chunk_table} int {saved_schedule}[2]; __ompadapt_omp_get_schedule(&{saved_schedule}[0], &{saved_schedule}[1]); __ompadapt_omp_set_schedule({chosen_kind} ? {chosen_kind} : {default_kind}, {chosen_kind} ? {chosen_chunk} : ("))];
    match default_chunk {
        Some(r) => {
            p.push(Piece::Text("(".into()));
            p.push(stmt(r));
            p.push(Piece::Text("))".into()));
        }
        None => p.push(Piece::Text("0)".into())),
    }
    p.push(Piece::Text(");".into()));
    (p, Piece::Text(format!("__ompadapt_omp_set_schedule({saved_schedule}[0], {saved_schedule}[1]);")))
}
