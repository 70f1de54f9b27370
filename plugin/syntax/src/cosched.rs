//! `coschedule[B:E:S]`: Georgakoudis et al. Listing 5 from one ordinary loop. A fraction f of the
//! iterations is offloaded with `nowait`, the rest run meanwhile in a host `parallel for`, then
//! both are joined (`taskwait`). Map sections of arrays the loop writes shrink to the device's
//! part; arrays only read keep their sections.
//!
//! Done in the frontend, not in IR: the split needs the loop's bounds and variable and the map
//! clauses' array sections as the user wrote them, and produces two OpenMP constructs (a
//! deferred target task and a host parallel loop) that Clang then lowers as it lowers any
//! other. Recovering the same from IR would mean re-deriving clang's outlined loop bounds and
//! `.offload_sizes` arrays, and building a target task by hand.
//!
//! The split is only made where it is safe from what the tokens show: a canonical loop
//! (`for (T i = lb; i < ub; ++i)`), no clause whose meaning crosses iterations (`reduction`,
//! `collapse`, `lastprivate`, `linear`, `ordered`, ...), and every variable the loop writes that
//! is not its own local is an array written and read only as `a[i]`. Otherwise the caller warns
//! and keeps the region's other variants.

use crate::kernel_scan::{canonical_loop, declared_names, indexed_only_by, map_items, may_write, Construct};
use crate::lower::ctx_var;
use crate::pass_form::Site;
use crate::session::Piece;
use crate::token::{spell_written, TokKind, STATEMENT_LIST};

/// Clauses whose meaning crosses iterations or devices: the split does not handle them.
const UNSAFE_CLAUSES: [&str; 10] =
    ["reduction", "collapse", "lastprivate", "linear", "ordered", "if", "device", "in_reduction", "allocate", "uses_allocators"];

/// Clauses the host part keeps.
const HOST_CLAUSES: [&str; 3] = ["private", "firstprivate", "shared"];

const KEYWORDS: [&str; 24] = [
    "if", "else", "for", "while", "do", "return", "sizeof", "const", "volatile", "static", "unsigned", "signed", "int", "long", "short",
    "char", "float", "double", "void", "struct", "break", "continue", "switch", "case",
];

fn stmt(r: std::ops::Range<usize>) -> Piece {
    Piece::Saved(STATEMENT_LIST, r)
}

/// The pieces of the split for `c`, or where and why it cannot be made. `sections`: the data
/// environment's sections the loop uses, with whether the loop may write them.
pub fn split(s: &Site, c: &Construct, sections: &[(Piece, bool)]) -> Result<Vec<Piece>, (Option<usize>, String)> {
    let t = s.stmt;
    if !c.is_target_loop() {
        return Err((None, format!("the split needs a combined target loop construct, not '{}'", c.words.join(" "))));
    }
    if let Some(cl) = c.clauses.iter().find(|cl| UNSAFE_CLAUSES.contains(&cl.name.as_str())) {
        return Err((Some(cl.at), format!("the split does not handle the '{}' clause", cl.name)));
    }
    let Some(l) = canonical_loop(t, c.body.start, t.len(), &c.brackets) else {
        return Err((Some(c.body.start), "the loop is not of the form 'for (T i = lb; i < ub; ++i)'".into()));
    };
    let locals = declared_names(t, l.body.clone());
    // Every written variable is a local or an array indexed only by the loop variable.
    let mut arrays: Vec<String> = Vec::new();
    for i in l.body.clone() {
        let tok = &t[i];
        let name = tok.text.as_str();
        if tok.kind != TokKind::Ident
            || KEYWORDS.contains(&name)
            || name == l.var
            || locals.iter().any(|x| x == name)
            || arrays.iter().any(|x| x == name)
            || (i > l.body.start && (t[i - 1].is_punct(".") || t[i - 1].is_punct("->")))
            || t.get(i + 1).is_some_and(|n| n.kind == TokKind::Ident || n.is_punct("("))
        {
            continue;
        }
        if !may_write(t, l.body.clone(), &c.brackets, name) {
            continue;
        }
        if !indexed_only_by(t, l.body.clone(), &c.brackets, name, &l.var) {
            return Err((Some(i), format!("'{name}' is written other than as '{name}[{}]'", l.var)));
        }
        arrays.push(name.to_string());
    }
    let id = s.id;
    let cv = ctx_var(id);
    let (lo, hi, sp) = (format!("_ompadapt_lo{id}"), format!("_ompadapt_hi{id}"), format!("_ompadapt_sp{id}"));
    let ty: Vec<Piece> = if l.var_type.is_empty() || t[l.var_type.clone()].iter().any(|x| x.is_ident("auto")) {
        let of = if s.cplusplus { "decltype" } else { "__typeof__" };
        if l.var_type.is_empty() {
            vec![Piece::Text(format!("{of}({})", l.var))]
        } else {
            vec![Piece::Text(format!("{of}(")), stmt(l.lower.clone()), Piece::Text(")".into())]
        }
    } else {
        vec![stmt(l.var_type.clone())]
    };
    let fracs: Vec<String> = s
        .kinds
        .iter()
        .map(|k| match k {
            Some(crate::kinds::Kind::Coschedule(f)) => format!("{f:?}"),
            _ => "0.0".into(),
        })
        .collect();
    let mut p = vec![Piece::Text(format!("static const double _ompadapt_cf{id}[{}] = {{{}}};", fracs.len(), fracs.join(",")))];
    p.extend(ty.iter().cloned());
    p.push(Piece::Text(format!(" {lo} = (")));
    p.push(stmt(l.lower.clone()));
    p.push(Piece::Text(");".into()));
    p.extend(ty.iter().cloned());
    p.push(Piece::Text(format!(" {hi} = (")));
    p.push(stmt(l.upper.clone()));
    p.push(Piece::Text(if l.inclusive { ") + 1;" } else { ");" }.into()));
    p.extend(ty.iter().cloned());
    p.push(Piece::Text(format!(
        " {sp} = {lo}; if ({hi} > {lo}) {{ {sp} = {lo} + ({hi} - {lo}) * _ompadapt_cf{id}[{cv}.variant >= 0 && {cv}.variant < {} ? {cv}.variant : 0]; if ({sp} > {hi}) {sp} = {hi}; }}",
        fracs.len()
    )));
    // The host part reads what the device copies hold.
    if !sections.is_empty() {
        p.push(Piece::OmpBegin);
        p.push(Piece::Text("target update from(".into()));
        for (i, (sec, _)) in sections.iter().enumerate() {
            if i > 0 {
                p.push(Piece::Text(",".into()));
            }
            p.push(sec.clone());
        }
        p.push(Piece::Text(")".into()));
        p.push(Piece::OmpEnd);
    }
    let header = |from: &str, to: &str| -> Vec<Piece> {
        let mut h = vec![Piece::Text("for (".into())];
        if !l.var_type.is_empty() {
            h.push(stmt(l.var_type.clone()));
        }
        h.push(Piece::Text(format!(" {v} = {from}; {v} < {to}; {v}++)", v = l.var)));
        h.push(stmt(l.body.clone()));
        h
    };
    // Device part: the construct with the written arrays' sections shrunk, nowait.
    p.push(Piece::Text(format!("if ({sp} > {lo}) {{")));
    p.push(Piece::OmpBegin);
    p.push(stmt(c.words_range.clone()));
    for cl in &c.clauses {
        let Some(args) = cl.args.clone().filter(|_| cl.name == "map") else {
            p.push(stmt(cl.span()));
            continue;
        };
        let items = map_items(t, cl.at..args.end + 1, &c.brackets);
        let Some(first) = items.first() else {
            p.push(stmt(cl.span()));
            continue;
        };
        p.push(stmt(cl.at..first.range.start));
        for (k, m) in items.iter().enumerate() {
            if k > 0 {
                p.push(Piece::Text(",".into()));
            }
            if arrays.contains(&m.base) && t[m.range.clone()].iter().any(|x| x.is_punct("[")) {
                p.push(Piece::Text(format!("{}[{lo}:{sp} - {lo}]", m.base)));
            } else {
                p.push(stmt(m.range.clone()));
            }
        }
        p.push(Piece::Text(")".into()));
    }
    p.push(Piece::Text(" nowait".into()));
    p.push(Piece::OmpEnd);
    p.extend(header(&lo, &sp));
    p.push(Piece::Text("}".into()));
    // Host part, meanwhile.
    p.push(Piece::Text(format!("if ({sp} < {hi}) {{")));
    p.push(Piece::OmpBegin);
    p.push(Piece::Text("parallel for".into()));
    for cl in c.clauses.iter().filter(|cl| HOST_CLAUSES.contains(&cl.name.as_str())) {
        p.push(stmt(cl.span()));
    }
    p.push(Piece::OmpEnd);
    p.extend(header(&sp, &hi));
    p.push(Piece::Text("}".into()));
    p.push(Piece::OmpBegin);
    p.push(Piece::Text("taskwait".into()));
    p.push(Piece::OmpEnd);
    // The host's part of what was written goes to the device copies (nothing if not present).
    let written: Vec<&String> = arrays.iter().collect();
    if !written.is_empty() {
        p.push(Piece::Text(format!("if ({sp} < {hi}) {{")));
        p.push(Piece::OmpBegin);
        let list: Vec<String> = written.iter().map(|a| format!("{a}[{sp}:{hi} - {sp}]")).collect();
        p.push(Piece::Text(format!("target update to({})", list.join(","))));
        p.push(Piece::OmpEnd);
        p.push(Piece::Text("}".into()));
    }
    let _ = spell_written;
    Ok(p)
}
