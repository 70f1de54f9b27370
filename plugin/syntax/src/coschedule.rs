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

use crate::kernel_scan::{canonical_loop, declared_names, indexed_only_by, map_items, may_write, CanonicalLoop, Construct};
use crate::lower::context_var;
use crate::piece::Piece;
use crate::token::{Tok, TokKind};

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
    Piece::statement_tokens(r)
}

/// A target loop construct found safe to split, and what the split needs of it.
pub struct LoopSplit<'a> {
    /// The statement's tokens.
    stmt: &'a [Tok],
    construct: &'a Construct,
    for_loop: CanonicalLoop,
    /// Variables the loop writes, each only as `a[i]`: their map sections shrink to the
    /// device's part, and the host's part is sent back to the device after the join.
    written_arrays: Vec<String>,
}

/// What the split of one region reads besides its loop.
pub struct SplitValues<'a> {
    /// The region's number (its generated names).
    pub region: u32,
    /// For each variant, the fraction of the iterations it offloads (0 for variants that are
    /// not `coschedule`).
    pub fractions: &'a [f64],
    /// The translation unit is C++: the generated code names types with `decltype` instead of
    /// `__typeof__`.
    pub cplusplus: bool,
    /// The sections of the data environment the loop uses: the host part reads their device
    /// copies.
    pub sections: &'a [Piece],
}

/// Whether the split can be made of construct `c` of statement `stmt`: the loop to split, or
/// where and why not.
pub fn check<'a>(stmt: &'a [Tok], c: &'a Construct) -> Result<LoopSplit<'a>, (Option<usize>, String)> {
    let t = stmt;
    if !c.is_target_loop() {
        return Err((None, format!("the split needs a combined target loop construct, not '{}'", c.words.join(" "))));
    }
    if let Some(cl) = c.clauses.iter().find(|cl| UNSAFE_CLAUSES.contains(&cl.name.as_str())) {
        return Err((Some(cl.at), format!("the split does not handle the '{}' clause", cl.name)));
    }
    let Some(l) = canonical_loop(t, c.body.start, t.len(), &c.brackets) else {
        return Err((Some(c.body.start), "the loop is not of the form 'for (T i = lb; i < ub; ++i)'".into()));
    };
    let written_arrays = written_arrays(stmt, c, &l)?;
    Ok(LoopSplit { stmt, construct: c, for_loop: l, written_arrays })
}

/// The variables loop `l` writes that are not its own: each must be an array indexed only by
/// the loop variable.
fn written_arrays(t: &[Tok], c: &Construct, l: &CanonicalLoop) -> Result<Vec<String>, (Option<usize>, String)> {
    let locals = declared_names(t, l.body.clone());
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
    Ok(arrays)
}

/// Names of the split's generated variables: the iteration space's bounds and the split point.
struct Bounds {
    lo: String,
    hi: String,
    split_at: String,
}

impl LoopSplit<'_> {
    /// The pieces of the split: bounds and split point, the device part (nowait), the host part
    /// meanwhile, the join, and the host's writes sent to the device copies.
    pub fn pieces(&self, v: &SplitValues) -> Vec<Piece> {
        let id = v.region;
        let b = Bounds { lo: format!("_ompadapt_lo{id}"), hi: format!("_ompadapt_hi{id}"), split_at: format!("_ompadapt_sp{id}") };
        let mut p = self.split_point(v, &b);
        // The host part reads what the device copies hold.
        if !v.sections.is_empty() {
            p.push(Piece::OmpBegin);
            p.push(Piece::Text("target update from(".into()));
            for (i, sec) in v.sections.iter().enumerate() {
                if i > 0 {
                    p.push(Piece::Text(",".into()));
                }
                p.push(sec.clone());
            }
            p.push(Piece::Text(")".into()));
            p.push(Piece::OmpEnd);
        }
        p.extend(self.device_part(&b));
        p.extend(self.host_part(&b));
        p.push(Piece::OmpBegin);
        p.push(Piece::Text("taskwait".into()));
        p.push(Piece::OmpEnd);
        // The host's part of what was written goes to the device copies (nothing if not present).
        if !self.written_arrays.is_empty() {
            let (split, hi) = (&b.split_at, &b.hi);
            p.push(Piece::Text(format!("if ({split} < {hi}) {{")));
            p.push(Piece::OmpBegin);
            let list: Vec<String> = self.written_arrays.iter().map(|a| format!("{a}[{split}:{hi} - {split}]")).collect();
            p.push(Piece::Text(format!("target update to({})", list.join(","))));
            p.push(Piece::OmpEnd);
            p.push(Piece::Text("}".into()));
        }
        p
    }

    /// The table of fractions, the loop's bounds, and the split point the chosen variant's
    /// fraction gives.
    fn split_point(&self, v: &SplitValues, b: &Bounds) -> Vec<Piece> {
        let (t, l, id) = (self.stmt, &self.for_loop, v.region);
        let context = context_var(id);
        let (lo, hi, split) = (&b.lo, &b.hi, &b.split_at);
        let var_type: Vec<Piece> = if l.var_type.is_empty() || t[l.var_type.clone()].iter().any(|x| x.is_ident("auto")) {
            let of = if v.cplusplus { "decltype" } else { "__typeof__" };
            if l.var_type.is_empty() {
                vec![Piece::Text(format!("{of}({})", l.var))]
            } else {
                vec![Piece::Text(format!("{of}(")), stmt(l.lower.clone()), Piece::Text(")".into())]
            }
        } else {
            vec![stmt(l.var_type.clone())]
        };
        let fraction_literals: Vec<String> = v.fractions.iter().map(|f| format!("{f:?}")).collect();
        let mut p = vec![Piece::Text(format!(
            "static const double _ompadapt_cf{id}[{}] = {{{}}};",
            fraction_literals.len(),
            fraction_literals.join(",")
        ))];
        p.extend(var_type.iter().cloned());
        p.push(Piece::Text(format!(" {lo} = (")));
        p.push(stmt(l.lower.clone()));
        p.push(Piece::Text(");".into()));
        p.extend(var_type.iter().cloned());
        p.push(Piece::Text(format!(" {hi} = (")));
        p.push(stmt(l.upper.clone()));
        p.push(Piece::Text(if l.inclusive { ") + 1;" } else { ");" }.into()));
        p.extend(var_type.iter().cloned());
        p.push(Piece::Text(format!(
            " {split} = {lo}; if ({hi} > {lo}) {{ {split} = {lo} + ({hi} - {lo}) * _ompadapt_cf{id}[{context}.variant >= 0 && {context}.variant < {} ? {context}.variant : 0]; if ({split} > {hi}) {split} = {hi}; }}",
            fraction_literals.len()
        )));
        p
    }

    /// `for ([T] i = from; i < to; i++) body`
    fn loop_over(&self, from: &str, to: &str) -> Vec<Piece> {
        let l = &self.for_loop;
        let mut h = vec![Piece::Text("for (".into())];
        if !l.var_type.is_empty() {
            h.push(stmt(l.var_type.clone()));
        }
        h.push(Piece::Text(format!(" {v} = {from}; {v} < {to}; {v}++)", v = l.var)));
        h.push(stmt(l.body.clone()));
        h
    }

    /// The construct with the written arrays' sections shrunk, nowait, over `[lo, split)`.
    fn device_part(&self, b: &Bounds) -> Vec<Piece> {
        let (t, c) = (self.stmt, self.construct);
        let mut p = vec![Piece::Text(format!("if ({} > {}) {{", b.split_at, b.lo))];
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
                if self.written_arrays.contains(&m.base) && t[m.range.clone()].iter().any(|x| x.is_punct("[")) {
                    p.push(Piece::Text(format!("{}[{lo}:{split} - {lo}]", m.base, lo = b.lo, split = b.split_at)));
                } else {
                    p.push(stmt(m.range.clone()));
                }
            }
            p.push(Piece::Text(")".into()));
        }
        p.push(Piece::Text(" nowait".into()));
        p.push(Piece::OmpEnd);
        p.extend(self.loop_over(&b.lo, &b.split_at));
        p.push(Piece::Text("}".into()));
        p
    }

    /// A host `parallel for` over `[split, hi)`, meanwhile.
    fn host_part(&self, b: &Bounds) -> Vec<Piece> {
        let mut p = vec![Piece::Text(format!("if ({} < {}) {{", b.split_at, b.hi))];
        p.push(Piece::OmpBegin);
        p.push(Piece::Text("parallel for".into()));
        for cl in self.construct.clauses.iter().filter(|cl| HOST_CLAUSES.contains(&cl.name.as_str())) {
            p.push(stmt(cl.span()));
        }
        p.push(Piece::OmpEnd);
        p.extend(self.loop_over(&b.split_at, &b.hi));
        p.push(Piece::Text("}".into()));
        p
    }
}
