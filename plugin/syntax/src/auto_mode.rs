//! Zero-source-change mode (`-fplugin-arg-ompadapt-auto[=<kinds>]`): every eligible offloading
//! `target` construct and every eligible host `parallel for` / `parallel` region of the
//! translation unit is lowered as if written after
//! `#pragma omp adaptation model_name(<function>@<file>:<line>) features(auto) variants(<kinds>)`,
//! with the kinds of the list that fit the construct: the target kinds (`cpu`, `gpu`,
//! `thread_limit`, `num_teams`, `coschedule`) for target constructs, the host kinds (`serial`,
//! `threads`, `num_threads`, `schedule`) for host ones. Without a list (or with `default`):
//! [`DEFAULT_TARGET_KINDS`] and [`DEFAULT_HOST_KINDS`].
//!
//! The user wrote no directive, so nothing here is an error: a construct that cannot be made
//! adaptive is left exactly as written, and a kind that does not fit a construct is dropped for
//! that construct only; both are said as remarks (shown under `-fplugin-arg-ompadapt-remarks`).

use crate::brackets::Brackets;
use crate::diag::{Diagnostic, Diags, Severity};
use crate::kernel_scan::{construct, Construct};
use crate::kinds::{self, Kind};
use crate::token::{lex, Tok, TokKind};
use crate::variants::{parse_variants, Variant, VariantSet};
use std::collections::HashMap;

/// The flag, for messages.
pub const FLAG: &str = "-fplugin-arg-ompadapt-auto";

pub use ompadapt_abi::kinds::{DEFAULT_HOST_KINDS, DEFAULT_TARGET_KINDS};

/// What zero-source-change mode applies, and the names it gave so far.
#[derive(Clone, Debug)]
pub struct AutoMode {
    /// The kinds for offloading target constructs (may be empty).
    pub target: VariantSet,
    /// The kinds for host `parallel for` and `parallel` regions (may be empty).
    pub host: VariantSet,
    /// How many regions got each base name (a second construct on the same line of the same
    /// function, from a macro, gets `#2`).
    names: HashMap<String, u32>,
    /// The list as the flag gave it, when the pass applies every kind of it (see
    /// [`AutoMode::handed_to_pass`]).
    handover: Option<String>,
}

/// Parses a list of kinds with the `variants(...)` parser: the same kinds, the same ranges.
fn parse_kinds(kinds_text: &str, shown: &str) -> Result<(VariantSet, Vec<Kind>), String> {
    let toks = lex(kinds_text);
    if toks.is_empty() {
        return Err(format!("{FLAG}= needs a list of variant kinds, e.g. {FLAG}=cpu,gpu (or no '=' for the default kinds)"));
    }
    let mut diags = Vec::new();
    let bad = |d: &Diagnostic| -> String {
        let at = toks.get(d.tok).map_or(String::new(), |t| format!(" (at '{}')", t.text));
        format!("invalid {FLAG}={shown}: {}{at}", d.message)
    };
    let Some(b) = Brackets::new(&toks, &mut diags) else {
        return Err(diags.first().map_or_else(|| format!("invalid {FLAG}={shown}"), bad));
    };
    let Some(set) = parse_variants(&toks, 0, 0..toks.len(), &b, &mut diags) else {
        return Err(diags.iter().find(|d| d.severity == Severity::Error).map_or_else(|| format!("invalid {FLAG}={shown}"), bad));
    };
    let decoded = set.kinds().unwrap_or_else(|| vec![None; set.variants.len()]);
    let mut kinds = Vec::new();
    for (v, k) in set.variants.iter().zip(decoded) {
        match k {
            Some(k) => kinds.push(k),
            None => {
                return Err(format!(
                    "invalid {FLAG}={shown}: '{}' is not a variant kind{}; the kinds are {} (or 'default')",
                    v.name,
                    kinds::did_you_mean(&v.name),
                    kinds::ALL_KINDS
                ))
            }
        }
    }
    Ok((set, kinds))
}

impl AutoMode {
    /// Parses the flag's value: a list of kinds, each applied to the constructs it fits, or
    /// `default`.
    pub fn parse(kinds_text: &str) -> Result<AutoMode, String> {
        let text =
            if kinds_text.trim() == "default" { format!("{DEFAULT_TARGET_KINDS},{DEFAULT_HOST_KINDS}") } else { kinds_text.to_owned() };
        let (set, kinds) = parse_kinds(&text, kinds_text)?;
        let handover = kinds.iter().all(Kind::applies_to_ir).then(|| kinds_text.trim().to_owned());
        let (mut target, mut host): (Vec<Variant>, Vec<Variant>) = (Vec::new(), Vec::new());
        for (v, k) in set.variants.into_iter().zip(kinds) {
            if k.for_target() {
                target.push(v);
            } else {
                host.push(v);
            }
        }
        Ok(AutoMode { target: VariantSet::remaining(target), host: VariantSet::remaining(host), names: HashMap::new(), handover })
    }

    /// The list of kinds the frontend hands to the pass, when the pass applies every kind of
    /// the list (`default` included): the pass then makes the translation unit's regions
    /// adaptive from its IR, as in pass-only mode, and the frontend leaves every construct as
    /// written. None: a kind rewrites the loop's source (`schedule(...)`, `coschedule[...]`), so
    /// the frontend lowers the constructs itself.
    pub fn handed_to_pass(&self) -> Option<&str> {
        self.handover.as_deref()
    }

    /// The kinds for construct `c` before fitting: the target kinds for an offloading construct,
    /// the host kinds for a host one.
    pub fn kinds_for(&self, c: &Construct) -> &VariantSet {
        if c.offloads() {
            &self.target
        } else {
            &self.host
        }
    }

    /// `<function>@<file>:<line>`, unique in the translation unit (`#2`, `#3` for further
    /// constructs at the same place, which only macros make).
    pub fn region_name(&mut self, function: &str, location: &str) -> String {
        let function = if function.is_empty() { "file-scope" } else { function };
        let base = format!("{function}@{location}");
        let n = self.names.entry(base.clone()).or_insert(0);
        *n += 1;
        if *n == 1 {
            base
        } else {
            format!("{base}#{n}")
        }
    }
}

/// The construct a `#pragma omp` line starts (`toks`: after `omp`), read as the statement's
/// first directive is read.
pub fn directive(toks: &[Tok]) -> Option<Construct> {
    let mut s = Vec::with_capacity(toks.len() + 2);
    s.push(Tok::new(TokKind::OmpBegin, ""));
    s.extend_from_slice(toks);
    s.push(Tok::new(TokKind::OmpEnd, ""));
    construct(&s)
}

/// Whether construct `c` is one this mode makes adaptive: an offloading target construct, or a
/// host `parallel for [simd]` / `parallel` / `parallel loop` region.
pub fn considered(c: &Construct) -> bool {
    c.offloads() || c.is_parallel_for() || c.is_parallel_region()
}

/// Why a construct cannot be made adaptive as it stands, from its clauses: an asynchronous
/// target construct. Whether a host region can observe its team is not decided here, from its
/// clauses, but by the pass's analysis of everything the region runs (pass/src/team).
pub fn ineligible_clause(c: &Construct) -> Option<(usize, String)> {
    // Indices into the directive's tokens (the construct was read with OmpBegin first).
    if c.offloads() {
        for clause in ["nowait", "depend"] {
            if let Some(cl) = c.clause(clause) {
                return Some((
                    cl.at - 1,
                    format!("'{clause}': a variant is timed from launch to completion, so an asynchronous launch is left as written"),
                ));
            }
        }
    }
    None
}

/// Why a variant kind does not fit construct `c` (None: it fits).
fn unfit(k: &Kind, c: &Construct) -> Option<String> {
    let name = c.words.join(" ");
    match k {
        Kind::NumTeams(_) if !c.may_have_teams() => Some(format!("'{name}' creates no teams")),
        Kind::Coschedule(_) if !c.is_target_loop() => Some(format!("the split needs a combined target loop construct, not '{name}'")),
        Kind::Cpu => crate::kernel_scan::device_memory_clause(c).map(device_memory_reason),
        Kind::Schedule(..) if c.is_parallel_region() => Some(format!("'{name}' has no loop to schedule")),
        Kind::Schedule(..) if c.clause("schedule").is_some() => {
            Some("the loop names its schedule, which its code may rely on (which thread runs which iterations)".to_owned())
        }
        _ => None,
    }
}

/// The kinds that fit construct `c`, and a remark for each kind item dropped for it.
pub fn fitting(set: &VariantSet, c: &Construct, diags: &mut Diags) -> VariantSet {
    let mut said: Vec<String> = Vec::new();
    let mut kept = Vec::new();
    for v in &set.variants {
        match kinds::decode(&v.name).and_then(|k| unfit(&k, c)) {
            Some(why) => {
                let item = v.name.split('=').next().unwrap_or(&v.name).to_string();
                if !said.contains(&item) {
                    diags.push(Diagnostic::remark(0, 1, format!("variant kind '{item}' dropped for this construct: {why}")));
                    said.push(item);
                }
            }
            None => kept.push(v.clone()),
        }
    }
    VariantSet::remaining(kept)
}

/// The call by which a kernel asks where it runs.
pub const WHERE_IT_RUNS: &str = "omp_is_initial_device";

/// Why `cpu` cannot run a construct that names device memory in `clause`.
pub fn device_memory_reason(clause: &str) -> String {
    format!("'{clause}' names device memory, which the host version cannot read")
}

/// In zero-source-change mode the user wrote no directive: what would be a warning or an error
/// on an explicit one is a remark at the construct's directive.
pub fn as_remarks(diags: Diags) -> Diags {
    diags
        .into_iter()
        .map(|mut d| {
            if d.src == crate::token::Src::Here {
                d.tok = 0;
                d.end = 1;
            }
            if d.severity != Severity::Note {
                d.severity = Severity::Remark;
            }
            d.fixit = None;
            d
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_values() {
        let m = AutoMode::parse("cpu,gpu,thread_limit[64:256:64]").unwrap();
        assert_eq!(m.target.names(), ["cpu", "gpu", "thread_limit=64", "thread_limit=128", "thread_limit=192", "thread_limit=256"]);
        assert!(m.host.variants.is_empty());
        // one list for both kinds of construct
        let m = AutoMode::parse("cpu,gpu,serial,threads[0.5:1:0.5],schedule(dynamic)").unwrap();
        assert_eq!(m.target.names(), ["cpu", "gpu"]);
        assert_eq!(m.host.names(), ["serial", "threads=0.5", "threads=1", "schedule=dynamic"]);
        let d = AutoMode::parse("default").unwrap();
        assert_eq!(d.target.names(), ["cpu", "gpu"]);
        assert_eq!(d.host.names(), ["serial", "threads=0.125", "threads=0.25", "threads=0.5", "threads=1"]);
        // handed to the pass only when it applies every kind
        assert_eq!(d.handed_to_pass(), Some("default"));
        assert_eq!(AutoMode::parse(" cpu,gpu,threads[0.5:1:0.5] ").unwrap().handed_to_pass(), Some("cpu,gpu,threads[0.5:1:0.5]"));
        assert_eq!(m.handed_to_pass(), None, "schedule(...) rewrites the loop's source");
        for (bad, why) in [
            ("", "needs a list of variant kinds"),
            ("cpu,host", "'host' is not a variant kind"),
            ("cpu,gpuu", "'gpuu' is not a variant kind; did you mean 'gpu'?"),
            ("thread_limt[64:128:64]", "unknown variant kind 'thread_limt[...]'; did you mean 'thread_limit'?"),
            ("threads[0:1:0.5]", "a share of the team is above 0 and at most 1"),
            ("thread_limit[64:0:64]", "invalid -fplugin-arg-ompadapt-auto=thread_limit[64:0:64]: "),
            ("cpu,cpu", "duplicate variant 'cpu'"),
            ("cpu,gpu,[1:2:1]", "invalid"),
            ("cpu,(gpu", "invalid"),
        ] {
            let e = AutoMode::parse(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn names_are_unique() {
        let mut m = AutoMode::parse("cpu,gpu").unwrap();
        assert_eq!(m.region_name("ns::Cls::run", "src/a.cpp:12"), "ns::Cls::run@src/a.cpp:12");
        assert_eq!(m.region_name("ns::Cls::run", "src/a.cpp:12"), "ns::Cls::run@src/a.cpp:12#2");
        assert_eq!(m.region_name("main", "a.c:3"), "main@a.c:3");
    }

    #[test]
    fn kinds_are_fitted_to_the_construct() {
        let m = AutoMode::parse("cpu,gpu,num_teams[2:4:2],coschedule[0:1:0.5]").unwrap();
        let mut d = Vec::new();
        let c = directive(&lex("target parallel map(x)")).unwrap();
        let kept = fitting(m.kinds_for(&c), &c, &mut d);
        assert_eq!(kept.names(), ["cpu", "gpu"]);
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(d[0].message.contains("'num_teams' dropped"), "{}", d[0].message);
        let c = directive(&lex("target teams distribute parallel for nowait")).unwrap();
        assert!(ineligible_clause(&c).is_some_and(|(at, _)| at == 5));
        let mut d = Vec::new();
        assert_eq!(fitting(m.kinds_for(&c), &c, &mut d).variants.len(), 7);
        assert!(d.is_empty());
    }

    #[test]
    fn host_constructs() {
        let m = AutoMode::parse("cpu,gpu,serial,threads[0.5:1:0.5],schedule(dynamic)").unwrap();
        let fit = |text: &str| {
            let c = directive(&lex(text)).unwrap();
            let mut d = Vec::new();
            let kept = fitting(m.kinds_for(&c), &c, &mut d);
            (considered(&c), ineligible_clause(&c).map(|(_, why)| why), kept.names().join(","), d.len())
        };
        assert_eq!(fit("parallel for"), (true, None, "serial,threads=0.5,threads=1,schedule=dynamic".into(), 0));
        assert_eq!(fit("parallel for simd reduction(+:s)"), (true, None, "serial,threads=0.5,threads=1,schedule=dynamic".into(), 0));
        // a loop that names its schedule keeps it; a region has none to change
        assert_eq!(fit("parallel for schedule(static)"), (true, None, "serial,threads=0.5,threads=1".into(), 1));
        assert_eq!(fit("parallel"), (true, None, "serial,threads=0.5,threads=1".into(), 1));
        // whether the code observes its team is the pass's analysis, not a clause's
        assert_eq!(fit("parallel num_threads(4)").1, None);
        assert_eq!(fit("parallel for ordered").1, None);
        // fewer threads than a parallel for asks for are always correct
        assert_eq!(fit("parallel for num_threads(8)").1, None);
        assert!(!fit("parallel sections").0);
        assert!(!fit("for").0);
        assert!(!fit("parallel master").0);
    }
}
