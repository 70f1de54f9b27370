//! Zero-source-change mode (`-fplugin-arg-ompadapt-auto=<kinds>`): every eligible offloading
//! `target` construct of the translation unit is lowered as if written after
//! `#pragma omp adaptation model_name(<function>@<file>:<line>) features(auto) variants(<kinds>)`.
//!
//! The user wrote no directive, so nothing here is an error: a construct that cannot be made
//! adaptive is left exactly as written, and a kind that does not fit a construct is dropped for
//! that construct only; both are said as remarks (shown under `-fplugin-arg-ompadapt-remarks`).

use crate::brackets::Brackets;
use crate::diag::{Diagnostic, Diags, Severity};
use crate::kernel_scan::{construct, Construct};
use crate::kinds::{self, Kind};
use crate::token::{lex, Tok, TokKind};
use crate::variants::{parse_variants, VariantSet};
use std::collections::HashMap;

/// The flag, for messages.
pub const FLAG: &str = "-fplugin-arg-ompadapt-auto";

/// What zero-source-change mode applies, and the names it gave so far.
#[derive(Clone, Debug)]
pub struct AutoMode {
    pub variants: VariantSet,
    /// How many regions got each base name (a second construct on the same line of the same
    /// function, from a macro, gets `#2`).
    names: HashMap<String, u32>,
}

impl AutoMode {
    /// Parses the flag's value with the `variants(...)` parser: the same kinds, the same
    /// ranges. Kinds of host `parallel for` regions are refused: this mode adapts offloading
    /// target constructs.
    pub fn parse(kinds_text: &str) -> Result<AutoMode, String> {
        let toks = lex(kinds_text);
        if toks.is_empty() {
            return Err(format!("{FLAG}= needs a list of variant kinds, e.g. {FLAG}=cpu,gpu"));
        }
        let mut diags = Vec::new();
        let bad = |d: &Diagnostic| -> String {
            let at = toks.get(d.tok).map_or(String::new(), |t| format!(" (at '{}')", t.text));
            format!("invalid {FLAG}={kinds_text}: {}{at}", d.message)
        };
        let Some(b) = Brackets::new(&toks, &mut diags) else {
            return Err(diags.first().map_or_else(|| format!("invalid {FLAG}={kinds_text}"), bad));
        };
        let Some(set) = parse_variants(&toks, 0, 0..toks.len(), &b, &mut diags) else {
            return Err(diags.iter().find(|d| d.severity == Severity::Error).map_or_else(|| format!("invalid {FLAG}={kinds_text}"), bad));
        };
        let decoded = set.kinds().unwrap_or_else(|| vec![None; set.variants.len()]);
        for (v, k) in set.variants.iter().zip(&decoded) {
            let why = match k {
                None => format!("'{}' is not a variant kind; the kinds for target constructs are cpu, gpu, thread_limit[B:E:S], num_teams[B:E:S], coschedule[B:E:S]", v.name),
                Some(k) if !k.for_target() => {
                    format!("'{}' is a kind of host 'parallel for' regions; this mode makes offloading target constructs adaptive", v.name)
                }
                Some(_) => continue,
            };
            return Err(format!("invalid {FLAG}={kinds_text}: {why}"));
        }
        Ok(AutoMode { variants: set, names: HashMap::new() })
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

/// Why an offloading construct cannot be made adaptive as it stands, from its clauses.
pub fn ineligible_clause(c: &Construct) -> Option<(usize, String)> {
    for clause in ["nowait", "depend"] {
        if let Some(cl) = c.clause(clause) {
            // Index into the directive's tokens (the construct was read with OmpBegin first).
            return Some((
                cl.at - 1,
                format!("'{clause}': a variant is timed from launch to completion, so an asynchronous launch is left as written"),
            ));
        }
    }
    None
}

/// The kinds that fit construct `c`, and a remark for each kind item dropped for it.
pub fn fitting(set: &VariantSet, c: &Construct, diags: &mut Diags) -> VariantSet {
    let name = c.words.join(" ");
    let mut said: Vec<String> = Vec::new();
    let mut kept = Vec::new();
    for v in &set.variants {
        let unfit = match kinds::decode(&v.name) {
            Some(Kind::NumTeams(_)) if !c.may_have_teams() => Some(format!("'{name}' creates no teams")),
            Some(Kind::Coschedule(_)) if !c.is_target_loop() => {
                Some(format!("the split needs a combined target loop construct, not '{name}'"))
            }
            Some(Kind::Cpu) => crate::kernel_scan::device_memory_clause(c).map(device_memory_reason),
            _ => None,
        };
        match unfit {
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
        assert_eq!(m.variants.names(), ["cpu", "gpu", "thread_limit=64", "thread_limit=128", "thread_limit=192", "thread_limit=256"]);
        for (bad, why) in [
            ("", "needs a list of variant kinds"),
            ("cpu,host", "'host' is not a variant kind"),
            ("cpu,serial", "is a kind of host 'parallel for' regions"),
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
        let kept = fitting(&m.variants, &c, &mut d);
        assert_eq!(kept.names(), ["cpu", "gpu"]);
        assert_eq!(d.len(), 2, "{d:?}");
        assert!(d[0].message.contains("'num_teams' dropped"), "{}", d[0].message);
        let c = directive(&lex("target teams distribute parallel for nowait")).unwrap();
        assert!(ineligible_clause(&c).is_some_and(|(at, _)| at == 5));
        let mut d = Vec::new();
        assert_eq!(fitting(&m.variants, &c, &mut d).variants.len(), 7);
        assert!(d.is_empty());
    }
}
