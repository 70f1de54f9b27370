//! Variant kinds: the variants the compiler generates from one ordinary OpenMP construct
//! instead of leaving them to user code, typed once for every side — the plugin (which lowers
//! them from source), the pass (which builds them from IR in pass-only mode), the runtime (which
//! resolves team sizes) and the harness (which pins them).
//!
//! A variant's *name* is what reports show and what stored data is keyed by (`cpu`,
//! `thread_limit=128`, `threads=0.25`, `schedule=dynamic,16`): [`Kind::name`] writes it,
//! [`decode`] reads it back, and the two agree (tested). A *list* (`serial,threads[0.25:1:0.25]`,
//! the text of `-fplugin-arg-ompadapt-auto=` and of the pass's `auto=`) expands ranges
//! `[BEGIN:END:STEP]` into one kind per value ([`parse_list`]).
//!
//! The team a host variant runs with is [`team_size`]: the formula the generated code's
//! `__ompadapt_team_size` computes (plugin/include/ompadapt_lowering.h, also precompiled into the
//! loader the pass adds), checked against it by the tests crate.

use std::fmt;

/// One decoded variant.
#[derive(Clone, Copy, Debug, PartialEq)]
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
    /// The host parallel region with one thread and no team (`if(0)`).
    Serial,
    /// The host parallel region with this many threads.
    NumThreads(u32),
    /// A share of the team the program would get (its `num_threads` clause, else
    /// `omp_get_max_threads()`), resolved where it runs: portable between machines.
    Threads(f64),
    /// `omp_sched_t` (1 static, 2 dynamic, 3 guided, 4 auto) and chunk (0: default).
    Schedule(u32, u32),
}

/// Kinds that take a numeric range: `name[B:E:S]` (or a single `name[V:V:1]`).
pub const RANGE_KINDS: [&str; 5] = ["thread_limit", "num_teams", "coschedule", "num_threads", "threads"];
/// Every kind's name, for "did you mean".
pub const KIND_NAMES: [&str; 9] = ["cpu", "gpu", "serial", "thread_limit", "num_teams", "coschedule", "num_threads", "threads", "schedule"];
/// Schedules `schedule(...)` takes, in `omp_sched_t` order from 1.
pub const SCHEDULES: [&str; 4] = ["static", "dynamic", "guided", "auto"];
/// Every kind, for messages.
pub const ALL_KINDS: &str = "cpu, gpu, thread_limit[B:E:S], num_teams[B:E:S], coschedule[B:E:S] (before a target construct); \
     serial, threads[B:E:S] (shares of the team, 0 < share <= 1), num_threads[B:E:S], schedule(static|dynamic|guided|auto[, chunk]) (before a parallel for; \
     the team sizes also before a parallel region)";

/// What `default` means for offloading target constructs: the host version and the offload as
/// written.
pub const DEFAULT_TARGET_KINDS: &str = "cpu,gpu";
/// What `default` means for host parallel regions: no team (`serial`), and shares of the team
/// the program would get, halving from all of it — resolved at run time against the machine, so
/// one binary adapts on a laptop and on a 128-core node.
pub const DEFAULT_HOST_KINDS: &str = "serial,threads[0.125:0.125:1],threads[0.25:0.25:1],threads[0.5:0.5:1],threads[1:1:1]";

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
    /// region: see [`Kind::sets_team_size`]).
    pub fn for_parallel_for(&self) -> bool {
        matches!(self, Kind::Serial | Kind::NumThreads(_) | Kind::Threads(_) | Kind::Schedule(..))
    }
    /// Sets a host parallel region's team size (fits a `parallel` region that is not a loop).
    pub fn sets_team_size(&self) -> bool {
        matches!(self, Kind::Serial | Kind::NumThreads(_) | Kind::Threads(_))
    }
    /// Applied by the pass to the IR of a launch or a fork (pass-only mode, and
    /// zero-source-change mode handed to the pass): everything but the kinds that rewrite the
    /// loop's source (`schedule(...)`, `coschedule[...]`).
    pub fn applies_to_ir(&self) -> bool {
        !matches!(self, Kind::Schedule(..) | Kind::Coschedule(_))
    }
    /// Valued by its number (`model_output` gets 128 for `thread_limit=128`), not its index.
    pub fn is_numeric(&self) -> bool {
        matches!(self, Kind::ThreadLimit(_) | Kind::NumTeams(_) | Kind::NumThreads(_) | Kind::Threads(_) | Kind::Coschedule(_))
    }
    /// The variant's numeric value (0 for kinds without one).
    pub fn value(&self) -> f64 {
        match *self {
            Kind::ThreadLimit(n) | Kind::NumTeams(n) | Kind::NumThreads(n) => n as f64,
            Kind::Threads(f) | Kind::Coschedule(f) => f,
            _ => 0.0,
        }
    }
    /// The arguments of [`team_size`] that give this variant's team: (absolute, share); (0, 0)
    /// (the program's team) for a kind that sets none, and for `serial`, which runs no team.
    pub fn team_arguments(&self) -> (u32, f64) {
        match *self {
            Kind::NumThreads(n) => (n, 0.0),
            Kind::Threads(f) => (0, f),
            _ => (0, 0.0),
        }
    }
    /// The variant's name, as reports show it and stored data is keyed by.
    pub fn name(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Kind::Cpu => f.write_str("cpu"),
            Kind::Gpu => f.write_str("gpu"),
            Kind::Serial => f.write_str("serial"),
            Kind::ThreadLimit(n) => write!(f, "thread_limit={n}"),
            Kind::NumTeams(n) => write!(f, "num_teams={n}"),
            Kind::NumThreads(n) => write!(f, "num_threads={n}"),
            Kind::Coschedule(x) => write!(f, "coschedule={}", format_value(x)),
            Kind::Threads(x) => write!(f, "threads={}", format_value(x)),
            Kind::Schedule(s, 0) => write!(f, "schedule={}", SCHEDULES[(s as usize).clamp(1, 4) - 1]),
            Kind::Schedule(s, c) => write!(f, "schedule={},{c}", SCHEDULES[(s as usize).clamp(1, 4) - 1]),
        }
    }
}

/// How variant names write a value (the descriptor's number format).
pub use crate::descriptor::format_number as format_value;

/// Rounds away the binary noise of `BEGIN + i*STEP` (0.30000000000000004 -> 0.3).
pub fn tidy(v: f64) -> f64 {
    format!("{v:.12e}").parse().unwrap_or(v)
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
    let int = || value.parse::<f64>().ok().filter(|v| *v >= 1.0 && v.fract() == 0.0 && *v <= i32::MAX as f64).map(|v| v as u32);
    match kind {
        "thread_limit" => int().map(Kind::ThreadLimit),
        "num_teams" => int().map(Kind::NumTeams),
        "num_threads" => int().map(Kind::NumThreads),
        "coschedule" => value.parse::<f64>().ok().filter(|f| (0.0..=1.0).contains(f)).map(Kind::Coschedule),
        "threads" => value.parse::<f64>().ok().filter(|f| *f > 0.0 && *f <= 1.0).map(Kind::Threads),
        "schedule" => {
            let (s, chunk) = match value.split_once(',') {
                Some((s, c)) => (s, c.parse::<u32>().ok().filter(|c| *c >= 1)?),
                None => (value, 0),
            };
            let k = SCHEDULES.iter().position(|x| *x == s)? as u32 + 1;
            Some(Kind::Schedule(k, chunk))
        }
        _ => None,
    }
}

/// Why a range value does not fit its kind, if it does not.
pub fn unfit_value(kind: &str, v: f64) -> Option<&'static str> {
    match kind {
        "coschedule" => (!(0.0..=1.0).contains(&v)).then_some("a coschedule fraction is between 0 and 1"),
        "threads" => (!(v > 0.0 && v <= 1.0)).then_some("a share of the team is above 0 and at most 1"),
        _ => (v < 1.0 || v.fract() != 0.0 || v > i32::MAX as f64).then_some("this kind takes positive integers"),
    }
}

/// The values of `[BEGIN:END:STEP]` (the text between the brackets), at most `room`.
pub fn expand_range(inside: &str, room: usize) -> Result<Vec<f64>, String> {
    let parts: Vec<&str> = inside.split(':').map(str::trim).collect();
    if parts.len() != 3 {
        return Err("a range is written [BEGIN:END:STEP]".into());
    }
    let mut nums = [0.0f64; 3];
    for ((p, what), n) in parts.iter().zip(["range BEGIN", "range END", "range STEP"]).zip(nums.iter_mut()) {
        *n = p.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| format!("{what} '{p}' is not a number"))?;
    }
    let [begin, end, step] = nums;
    if step <= 0.0 {
        return Err("range STEP must be positive".into());
    }
    if end < begin {
        return Err("range END is smaller than BEGIN: the range is empty".into());
    }
    let float = parts.iter().any(|p| p.contains(['.', 'e', 'E']));
    let slack = if float { 1e-9 } else { 0.0 };
    let count = ((end - begin) / step + slack).floor() + 1.0;
    if count > room as f64 {
        return Err(format!("the range has {count} values; a region has at most {room} variants"));
    }
    Ok((0..count as u64).map(|i| tidy(begin + i as f64 * step)).collect())
}

/// Expands a list of kinds written as text (`serial,threads[0.25:1:0.25],schedule(dynamic,16)`;
/// `default` stands for [`DEFAULT_TARGET_KINDS`] and [`DEFAULT_HOST_KINDS`]) into its kinds, in
/// order, without duplicates; at most [`crate::MAX_VARIANTS`].
pub fn parse_list(text: &str) -> Result<Vec<Kind>, String> {
    let mut out: Vec<Kind> = Vec::new();
    for item in split_items(text)? {
        let item = item.trim();
        if item.is_empty() {
            return Err("an empty item in the list of kinds".into());
        }
        let expanded = if item == "default" {
            let mut both = parse_list(DEFAULT_TARGET_KINDS)?;
            both.extend(parse_list(DEFAULT_HOST_KINDS)?);
            both
        } else {
            expand_item(item, crate::MAX_VARIANTS)?
        };
        for k in expanded {
            if !out.contains(&k) {
                out.push(k);
            }
        }
        if out.len() > crate::MAX_VARIANTS {
            return Err(format!("the list has more than {} variants", crate::MAX_VARIANTS));
        }
    }
    if out.is_empty() {
        return Err("the list of kinds is empty".into());
    }
    Ok(out)
}

/// The items of a list: split at commas outside brackets and parentheses.
fn split_items(text: &str) -> Result<Vec<&str>, String> {
    let (mut depth, mut start, mut items) = (0i32, 0usize, Vec::new());
    for (i, c) in text.char_indices() {
        match c {
            '[' | '(' => depth += 1,
            ']' | ')' => {
                depth -= 1;
                if depth < 0 {
                    return Err(format!("an unmatched '{c}' in the list of kinds"));
                }
            }
            ',' if depth == 0 => {
                items.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if depth != 0 {
        return Err("an unclosed bracket in the list of kinds".into());
    }
    items.push(&text[start..]);
    Ok(items)
}

/// One item: `name`, `name=value`, `name[B:E:S]` or `schedule(kind[, chunk or [B:E:S]])`.
fn expand_item(item: &str, room: usize) -> Result<Vec<Kind>, String> {
    let unknown = |name: &str| format!("'{item}' is not a variant kind{}; the kinds are {ALL_KINDS}", did_you_mean(name));
    if let Some(inside) = item.strip_prefix("schedule(").and_then(|r| r.strip_suffix(')')) {
        let (sched, chunk) = match inside.split_once(',') {
            Some((s, c)) => (s.trim(), Some(c.trim())),
            None => (inside.trim(), None),
        };
        let chunks = match chunk {
            None => vec![0.0],
            Some(c) if c.starts_with('[') && c.ends_with(']') => expand_range(&c[1..c.len() - 1], room)?,
            Some(c) => vec![c.parse::<f64>().map_err(|_| format!("a chunk size is a positive integer, not '{c}'"))?],
        };
        return chunks
            .into_iter()
            .map(|c| {
                let name = if chunk.is_none() { format!("schedule={sched}") } else { format!("schedule={sched},{}", format_value(c)) };
                decode(&name)
                    .ok_or_else(|| "'schedule' variants are schedule(static | dynamic | guided | auto [, positive chunk])".to_string())
            })
            .collect();
    }
    if let Some(open) = item.find('[') {
        let name = item[..open].trim();
        if !item.ends_with(']') || !RANGE_KINDS.contains(&name) {
            return Err(unknown(name));
        }
        let values = expand_range(&item[open + 1..item.len() - 1], room)?;
        return values
            .into_iter()
            .map(|v| match unfit_value(name, v) {
                Some(why) => Err(format!("{why}; '{name}' gets {}", format_value(v))),
                None => decode(&format!("{name}={}", format_value(v))).ok_or_else(|| unknown(name)),
            })
            .collect();
    }
    decode(item).map(|k| vec![k]).ok_or_else(|| unknown(item.split(['=', '(']).next().unwrap_or(item)))
}

/// "; did you mean 'x'?" when `name` is close to a kind's name.
pub fn did_you_mean(name: &str) -> String {
    crate::names::closest(name, &KIND_NAMES).map_or(String::new(), |m| format!("; did you mean '{m}'?"))
}

/// The team a host variant runs with — what the generated code's `__ompadapt_team_size`
/// computes: `absolute` threads (`num_threads=N`, as the user asked), else `share` of the team
/// the `program` asked for (its `num_threads` clause, else `omp_get_max_threads()`):
/// `threads=F` is `max(1, round(F × program))`, so that `threads=1` is the region as written
/// (docs/soundness.md, §10.1.2) and no share exceeds what the program sized its per-thread
/// buffers by; else the program's team.
pub fn team_size(absolute: i32, share: f64, program: i32) -> i32 {
    if absolute > 0 {
        return absolute;
    }
    if share > 0.0 {
        return ((share * program as f64 + 0.5) as i32).clamp(1, program.max(1));
    }
    program
}

#[cfg(test)]
mod tests;
