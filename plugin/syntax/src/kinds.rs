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

/// Kinds that take a numeric range: `name[B:E:S]` (or a single `name[V:V:1]`).
pub const RANGE_KINDS: [&str; 5] = ["thread_limit", "num_teams", "coschedule", "num_threads", "threads"];
/// Every kind's name, for "did you mean".
pub const KIND_NAMES: [&str; 9] = ["cpu", "gpu", "serial", "thread_limit", "num_teams", "coschedule", "num_threads", "threads", "schedule"];

/// "; did you mean 'x'?" when `name` is close to a kind's name.
pub fn did_you_mean(name: &str) -> String {
    crate::diag::closest(name, &KIND_NAMES).map_or(String::new(), |m| format!("; did you mean '{m}'?"))
}

/// Schedules `schedule(...)` takes.
pub const SCHEDULES: [&str; 4] = ["static", "dynamic", "guided", "auto"];
/// Every kind name, for messages.
pub const ALL_KINDS: &str = "cpu, gpu, thread_limit[B:E:S], num_teams[B:E:S], coschedule[B:E:S] (before a target construct); \
     serial, threads[B:E:S] (shares of the team, 0 < share <= 1), num_threads[B:E:S], schedule(static|dynamic|guided|auto[, chunk]) (before a parallel for; \
     the team sizes also before a parallel region)";

/// One decoded variant.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// The host version of an offloaded region.
    Cpu,
    /// The offload as written.
    Gpu,
    /// The offload with this thread limit per team, set in the launch at run time.
    ThreadLimit(u32),
    /// The offload with this many teams, set in the launch at run time.
    NumTeams(u32),
    /// Fraction of the iterations offloaded; the rest run on the host meanwhile.
    Coschedule(f64),
    /// The `parallel for` with one thread (`if(0)`).
    Serial,
    /// The `parallel` construct with this many threads.
    NumThreads(u32),
    /// A share of the team the program would get (its `num_threads` clause, else
    /// `omp_get_max_threads()`), resolved where it runs: portable between machines.
    Threads(f64),
    /// `omp_sched_t` (1 static, 2 dynamic, 3 guided, 4 auto) and chunk (0: default).
    Schedule(u32, u32),
}

impl Kind {
    /// Runs the kernel on the device, wholly or in part.
    pub fn offloads(&self) -> bool {
        matches!(self, Kind::Gpu | Kind::ThreadLimit(_) | Kind::NumTeams(_) | Kind::Coschedule(_))
    }
    /// Generated only before an offloading target construct.
    pub fn for_target(&self) -> bool {
        matches!(self, Kind::Cpu | Kind::Gpu | Kind::ThreadLimit(_) | Kind::NumTeams(_) | Kind::Coschedule(_))
    }
    /// Generated before a host `parallel for` (the team-size kinds also before a `parallel`
    /// region: see `sets_team_size`).
    pub fn for_parallel_for(&self) -> bool {
        matches!(self, Kind::Serial | Kind::NumThreads(_) | Kind::Threads(_) | Kind::Schedule(..))
    }
    /// Sets a host parallel region's team size (fits a `parallel` region that is not a loop).
    pub fn sets_team_size(&self) -> bool {
        matches!(self, Kind::Serial | Kind::NumThreads(_) | Kind::Threads(_))
    }
    /// Valued by its number (`model_output` gets 128 for `thread_limit=128`), not its index.
    pub fn is_numeric(&self) -> bool {
        matches!(self, Kind::ThreadLimit(_) | Kind::NumTeams(_) | Kind::NumThreads(_) | Kind::Threads(_) | Kind::Coschedule(_))
    }
}

/// The kind a variant name decodes to, if it names one.
pub fn decode(name: &str) -> Option<Kind> {
    match name {
        "cpu" => return Some(Kind::Cpu),
        "gpu" => return Some(Kind::Gpu),
        "serial" => return Some(Kind::Serial),
        _ => {}
    }
    let (kind, value) = name.split_once('=')?;
    let int = || value.parse::<f64>().ok().filter(|v| *v >= 1.0 && v.fract() == 0.0 && *v <= u32::MAX as f64).map(|v| v as u32);
    match kind {
        "thread_limit" => int().map(Kind::ThreadLimit),
        "num_teams" => int().map(Kind::NumTeams),
        "num_threads" => int().map(Kind::NumThreads),
        "coschedule" => value.parse::<f64>().ok().filter(|f| (0.0..=1.0).contains(f)).map(Kind::Coschedule),
        "threads" => value.parse::<f64>().ok().filter(|f| *f > 0.0 && *f <= 1.0).map(Kind::Threads),
        "schedule" => {
            let (s, chunk) = match value.split_once(',') {
                Some((s, c)) => (s, c.parse::<u32>().ok()?),
                None => (value, 0),
            };
            let k = SCHEDULES.iter().position(|x| *x == s)? as u32 + 1;
            Some(Kind::Schedule(k, chunk))
        }
        _ => None,
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
            diags.push(Diagnostic::error(
                item.start,
                item.start + 1,
                format!("unknown variant kind '{name}[...]'{}; the kinds are {ALL_KINDS}", did_you_mean(name)),
            ));
            return None;
        }
        let values = parse_range(toks, open..item.end, brackets, room, diags)?;
        for &v in &values {
            let bad = if name == "coschedule" {
                (!(0.0..=1.0).contains(&v)).then_some("a coschedule fraction is between 0 and 1")
            } else if name == "threads" {
                (!(v > 0.0 && v <= 1.0)).then_some("a share of the team is above 0 and at most 1")
            } else {
                (v < 1.0 || v.fract() != 0.0 || v > i32::MAX as f64).then_some("this kind takes positive integers")
            };
            if let Some(why) = bad {
                diags.push(Diagnostic::error(open, item.end, format!("{why}; '{name}' gets {}", format_value(v))));
                return None;
            }
        }
        return Some(values.into_iter().map(|v| (format!("{name}={}", format_value(v)), v)).collect());
    }
    if name != "schedule" {
        diags.push(Diagnostic::error(
            item.start,
            item.start + 1,
            format!("unknown variant kind '{name}(...)'{}; the kinds are {ALL_KINDS}", did_you_mean(name)),
        ));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_decode() {
        assert_eq!(decode("thread_limit=128"), Some(Kind::ThreadLimit(128)));
        assert_eq!(decode("coschedule=0.25"), Some(Kind::Coschedule(0.25)));
        assert_eq!(decode("schedule=dynamic,16"), Some(Kind::Schedule(2, 16)));
        assert_eq!(decode("schedule=guided"), Some(Kind::Schedule(3, 0)));
        assert_eq!(decode("host"), None);
        assert_eq!(decode("thread_limit=0"), None);
        assert_eq!(decode("threads=0.25"), Some(Kind::Threads(0.25)));
        assert_eq!(decode("threads=1"), Some(Kind::Threads(1.0)));
        assert_eq!(decode("threads=0"), None);
        assert_eq!(decode("threads=1.5"), None);
    }
}
