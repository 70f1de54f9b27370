//! Variant kinds: variants the compiler generates from one ordinary region instead of leaving
//! them to user code (`cpu`, `gpu`, `thread_limit[B:E:S]`, `num_teams[B:E:S]`,
//! `coschedule[B:E:S]` before an offloaded construct; `serial`, `threads[B:E:S]` (shares of the
//! team the program would get, resolved at run time), `num_threads[B:E:S]` (absolute team
//! sizes), `schedule(kind[, chunk or chunk range])` before a host `parallel for`; the team-size
//! kinds also before a host `parallel` region).
//!
//! A list is the union of its kinds; the runtime sees one flat index. Each expanded variant is
//! named by its decoded value (`thread_limit=128`, `schedule=dynamic,16`), which is what
//! reports show; `model_output` receives the number for numeric kinds and the index otherwise.

use crate::brackets::Brackets;
use crate::clauses::{constant, split_top_level};
use crate::diag::{Diagnostic, Diags};
use crate::numeric_range::{format_value, parse_range, too_many};
use crate::token::{Tok, TokKind};
use std::ops::Range;

// The kinds, their names and lists are typed once, in the contract crate (the pass and the
// runtime use them too); this module adds what needs the plugin's tokens.
pub use ompadapt_abi::kinds::{decode, did_you_mean, parse_list, unfit_value, Kind, ALL_KINDS, KIND_NAMES, RANGE_KINDS, SCHEDULES};

/// An unknown kind `name` at token `at` (written `name<form>`), with a fix-it where a known kind
/// is close (`threads_limit` -> `thread_limit`).
fn unknown_kind(at: usize, name: &str, form: &str) -> Diagnostic {
    let d = Diagnostic::error(at, at + 1, format!("unknown variant kind '{name}{form}'{}; the kinds are {ALL_KINDS}", did_you_mean(name)));
    match ompadapt_abi::names::closest(name, &KIND_NAMES) {
        Some(meant) => d.with_fixit(meant),
        None => d,
    }
}

/// Whether `item` is `ident[...]` or `ident(...)` spanning the whole item.
pub fn is_kind_item(toks: &[Tok], item: Range<usize>, brackets: &Brackets) -> bool {
    item.len() > 2
        && toks[item.start].kind == TokKind::Ident
        && (toks[item.start + 1].is_punct("[") || toks[item.start + 1].is_punct("("))
        && brackets.close_of(item.start + 1) == Some(item.end - 1)
}

/// Expands `thread_limit[64:256:64]`, `coschedule[0:1:0.25]`, `schedule(dynamic, [1:64:x])`
/// into (name, value) pairs; at most `room`.
pub fn expand_kind_item(
    toks: &[Tok],
    item: Range<usize>,
    brackets: &Brackets,
    room: usize,
    diags: &mut Diags,
) -> Option<Vec<(String, f64)>> {
    let name = toks[item.start].text.as_str();
    let open = item.start + 1;
    if toks[open].is_punct("[") {
        if !RANGE_KINDS.contains(&name) {
            diags.push(unknown_kind(item.start, name, "[...]"));
            return None;
        }
        let values = parse_range(toks, open..item.end, brackets, room, diags)?;
        for &v in &values {
            if let Some(why) = unfit_value(name, v) {
                diags.push(Diagnostic::error(open, item.end, format!("{why}; '{name}' gets {}", format_value(v))));
                return None;
            }
        }
        return Some(values.into_iter().map(|v| (format!("{name}={}", format_value(v)), v)).collect());
    }
    if RANGE_KINDS.contains(&name) {
        // `thread_limit(64:256:64)`: a range is written in brackets
        let inner: String = toks[open + 1..item.end - 1].iter().map(|t| t.text.as_str()).collect();
        diags.push(
            Diagnostic::error(
                item.start,
                item.end,
                format!("'{name}' takes its values in brackets: '{name}[{inner}]' (a range B:E:S, or one value)"),
            )
            .with_fixit(format!("{name}[{inner}]")),
        );
        return None;
    }
    if name != "schedule" {
        diags.push(unknown_kind(item.start, name, "(...)"));
        return None;
    }
    let args = split_top_level(toks, open + 1..item.end - 1, brackets);
    let sched = args.first().filter(|a| a.len() == 1 && SCHEDULES.iter().any(|s| toks[a.start].is_ident(s)));
    let Some(sched) = sched else {
        diags.push(Diagnostic::error(
            open + 1,
            item.end - 1,
            "'schedule' variants are schedule(static | dynamic | guided | auto [, chunk or [B:E:S]])",
        ));
        return None;
    };
    let kind = toks[sched.start].text.clone();
    let chunks: Vec<f64> = match args.get(1) {
        None => vec![],
        Some(c) if !c.is_empty() && toks[c.start].is_punct("[") && brackets.close_of(c.start) == Some(c.end - 1) => {
            parse_range(toks, c.clone(), brackets, room, diags)?
        }
        Some(c) => vec![constant(toks, c.clone(), brackets, "a chunk size", diags)?.value],
    };
    if args.len() > 2 {
        let a = &args[2];
        diags.push(Diagnostic::error(a.start, a.end, "'schedule' takes a schedule and one chunk size or range"));
        return None;
    }
    if let Some(&c) = chunks.iter().find(|c| **c < 1.0 || c.fract() != 0.0) {
        diags.push(Diagnostic::error(open, item.end, format!("a chunk size is a positive integer, not {}", format_value(c))));
        return None;
    }
    if chunks.is_empty() {
        return Some(vec![(format!("schedule={kind}"), 0.0)]);
    }
    if chunks.len() > room {
        too_many(item, chunks.len() as f64, diags);
        return None;
    }
    Some(chunks.into_iter().map(|c| (format!("schedule={kind},{}", format_value(c)), 0.0)).collect())
}
