//! One suggestion per change. Findings often share their fix: a construct in a loop that both
//! receives unchanged data (a duplicate) and sends it back unchanged (a round trip) is cured by
//! one data region around the loop, and the same clause at the same line can be the fix of a
//! dozen rows. The report lists each edit once, with the findings it clears; every finding
//! names its change. Data regions for one variable around one place are one change whatever
//! their map types (`to` and `from` make `tofrom`). A finding whose suggestion was withheld (the
//! run contradicts the change it asks for) clears no change and names none (0).

use serde::Serialize;

use super::{Finding, FindingLists};
use crate::suggest::Suggestion;

/// One edit of the program and the findings it clears.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change {
    /// Its number in the report (findings refer to it).
    pub number: usize,
    /// The action of the suggestion that words it ([`speaks_before`]).
    pub action: &'static str,
    /// The directive or clause to write, map types merged.
    pub clause: Option<String>,
    /// Where to change the program.
    #[serde(rename = "where")]
    pub place: Option<String>,
    /// The change in words.
    pub text: String,
    /// Findings it clears, by kind: `duplicate transfers: 2`.
    pub clears: Vec<(String, usize)>,
    /// Bytes of those findings' operations (an operation in two findings counts twice here;
    /// the report's `savings` counts it once).
    pub saving_bytes: u64,
    /// Their time in this run.
    pub saving_ns: u64,
}

/// How a data region begins, in the clauses suggestions write.
const TARGET_DATA: &str = "#pragma omp target data map(";

/// Actions that put the data on the device around a loop or lines: one data region there for
/// the variable does what each asks (data present at the inner constructs is neither sent again,
/// nor sent back, nor allocated again).
const DATA_REGION: [&str; 3] = ["hoist-to-target-data", "keep-resident", "enter-exit-data"];

/// `... map(W: V)` → (`W`, `V`), of any directive.
fn map_item(clause: &str) -> Option<(&str, &str)> {
    let (word, var) = clause.split_once("map(")?.1.strip_suffix(')')?.split_once(':')?;
    Some((word.trim(), var.trim()))
}

/// `#pragma omp target data map(W: V)` → (`W`, `V`).
fn data_region(clause: &str) -> Option<(&str, &str)> {
    clause.starts_with(TARGET_DATA).then(|| map_item(clause)).flatten()
}

/// What makes two suggestions one edit.
fn key(f: &Finding) -> (String, Option<String>, String) {
    let s = &f.suggestion;
    match s.clause.as_deref().and_then(map_item).filter(|_| DATA_REGION.contains(&s.action)) {
        Some((_, var)) => ("data region".into(), s.place.clone(), var.to_owned()),
        None => (s.action.into(), s.place.clone(), s.clause.clone().unwrap_or_else(|| s.text.clone())),
    }
}

/// The map type that does both `a` and `b`.
fn union(a: &str, b: &str) -> &'static str {
    let to = |w: &str| w == "to" || w == "tofrom";
    let from = |w: &str| w == "from" || w == "tofrom";
    match (to(a) || to(b), from(a) || from(b)) {
        (true, true) => "tofrom",
        (true, false) => "to",
        (false, true) => "from",
        _ => "alloc",
    }
}

/// `clause` with the map type that also does what `other` does.
fn merged_clause(clause: &str, other: &str) -> String {
    match (data_region(clause), data_region(other)) {
        (Some((a, var)), Some((b, _))) if a != b => format!("{TARGET_DATA}{}: {var})", union(a, b)),
        _ => clause.to_owned(),
    }
}

/// Which of two suggestions of one change speaks for it: the one whose finding moves more bytes,
/// then the first by action and text. Not the costliest by time, which is the order findings
/// are listed in: two runs of one program would then word the same change differently when two
/// of its findings take about as long (bfs: "keep `stop` on the device" in one run, "hoist
/// `map(tofrom: stop)`" in the next).
/// `target data` says more than `enter data ... alloc`, so a change that has both is worded by
/// the former whatever the bytes.
/// A suggestion reworded for what the run saw (a `target update to` the data region needs)
/// speaks before one that was not: the change must say what any of its findings requires.
fn speaks_before(a: &Suggestion, b: &Suggestion) -> bool {
    let rank = |s: &Suggestion| {
        (s.action == "enter-exit-data", s.contradicted.is_none(), std::cmp::Reverse(s.saving_bytes), s.action, s.text.clone())
    };
    rank(a) < rank(b)
}

/// For each change (by [`key`], in order of first appearance), the suggestion that words it.
fn representatives(lists: &mut FindingLists) -> Vec<((String, Option<String>, String), Suggestion)> {
    let mut out: Vec<((String, Option<String>, String), Suggestion)> = Vec::new();
    for (_, list) in lists.each_mut() {
        for f in list.iter().filter(|f| !f.suggestion.withheld()) {
            let k = key(f);
            match out.iter_mut().find(|(x, _)| *x == k) {
                Some((_, s)) if speaks_before(&f.suggestion, s) => *s = f.suggestion.clone(),
                Some(_) => {}
                None => out.push((k, f.suggestion.clone())),
            }
        }
    }
    out
}

/// Groups the findings' suggestions into changes (numbered in the order of their costliest
/// finding; worded by [`speaks_before`]) and numbers each finding's change.
pub fn group(lists: &mut FindingLists) -> Vec<Change> {
    let words = representatives(lists);
    let mut keys: Vec<(String, Option<String>, String)> = Vec::new();
    let mut changes: Vec<Change> = Vec::new();
    for (kind, list) in lists.each_mut() {
        for f in list.iter_mut().filter(|f| !f.suggestion.withheld()) {
            let k = key(f);
            let s = &f.suggestion;
            let i = match keys.iter().position(|x| *x == k) {
                Some(i) => i,
                None => {
                    let r = &words.iter().find(|(x, _)| *x == k).expect("every key has its words").1;
                    keys.push(k);
                    changes.push(Change {
                        number: changes.len() + 1,
                        action: r.action,
                        clause: r.clause.clone(),
                        place: r.place.clone(),
                        text: r.text.clone(),
                        clears: Vec::new(),
                        saving_bytes: 0,
                        saving_ns: 0,
                    });
                    changes.len() - 1
                }
            };
            let c = &mut changes[i];
            if let (Some(mine), Some(theirs)) = (c.clause.clone(), s.clause.as_deref()) {
                let merged = merged_clause(&mine, theirs);
                c.text = c.text.replace(&mine, &merged);
                c.clause = Some(merged);
            }
            match c.clears.iter_mut().find(|(k, _)| k == kind) {
                Some((_, n)) => *n += 1,
                None => c.clears.push((kind.to_owned(), 1)),
            }
            c.saving_bytes += s.saving_bytes;
            c.saving_ns += s.saving_ns;
            f.change = c.number;
        }
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(action: &'static str, clause: &str, place: &str) -> Finding {
        let suggestion = Suggestion {
            text: format!("do `{clause}` here"),
            action,
            clause: Some(clause.into()),
            place: Some(place.into()),
            saving_bytes: 100,
            saving_ns: 10,
            assumes: None,
            contradicted: None,
        };
        Finding { suggestion, ..Finding::default() }
    }

    #[test]
    fn one_data_region_clears_a_duplicate_and_a_round_trip() {
        let mut lists = FindingLists {
            duplicate_transfers: vec![
                finding("hoist-to-target-data", "#pragma omp target data map(to: a[0:n])", "p.c:18"),
                finding("hoist-to-target-data", "#pragma omp target data map(to: b[0:n])", "p.c:18"),
            ],
            round_trips: vec![finding("keep-resident", "#pragma omp target data map(tofrom: a[0:n])", "p.c:18")],
            repeated_allocations: vec![finding("enter-exit-data", "#pragma omp target enter data map(alloc: a[0:n])", "p.c:18")],
            unused_transfers: vec![
                finding("map-alloc", "map(alloc: c[0:n])", "p.c:20"),
                finding("map-alloc", "map(alloc: c[0:n])", "p.c:20"),
            ],
            ..FindingLists::default()
        };
        let changes = group(&mut lists);
        assert_eq!(changes.len(), 3, "{changes:#?}");
        assert_eq!(changes[0].clause.as_deref(), Some("#pragma omp target data map(tofrom: a[0:n])"));
        assert_eq!(changes[0].text, "do `#pragma omp target data map(tofrom: a[0:n])` here");
        assert_eq!(
            changes[0].clears,
            vec![("duplicate transfers".to_owned(), 1), ("round trips".to_owned(), 1), ("repeated allocations".to_owned(), 1)]
        );
        assert_eq!((changes[0].saving_bytes, changes[0].saving_ns), (300, 30));
        assert_eq!(changes[2].clears, vec![("unused transfers".to_owned(), 2)]);
        assert_eq!(lists.round_trips[0].change, 1);
        assert_eq!(lists.duplicate_transfers[1].change, 2);
        assert_eq!(lists.unused_transfers[1].change, 3);
    }

    /// bfs's `stop` flag: a duplicate whose fix is to keep it resident and one whose fix is to
    /// hoist its map are one change; which of the two took longer in a run (the order of the
    /// list) must not decide the change's words.
    #[test]
    fn a_change_is_worded_the_same_whichever_finding_took_longer() {
        let keep = || {
            let mut f = finding("keep-resident", "#pragma omp target data map(tofrom: stop)", "bfs.c:14");
            f.suggestion.saving_bytes = 312;
            f
        };
        let hoist = || {
            let mut f = finding("hoist-to-target-data", "#pragma omp target data map(tofrom: stop)", "bfs.c:14");
            f.suggestion.saving_bytes = 316;
            f
        };
        // more bytes, but `enter data ... alloc` says less than a data region
        let alloc = || {
            let mut f = finding("enter-exit-data", "#pragma omp target enter data map(alloc: stop)", "bfs.c:14");
            f.suggestion.saving_bytes = 400;
            f
        };
        let mut one =
            FindingLists { duplicate_transfers: vec![keep(), hoist()], repeated_allocations: vec![alloc()], ..FindingLists::default() };
        let mut other =
            FindingLists { duplicate_transfers: vec![hoist(), keep()], repeated_allocations: vec![alloc()], ..FindingLists::default() };
        let (a, b) = (group(&mut one), group(&mut other));
        assert_eq!(a.len(), 1, "{a:#?}");
        assert_eq!(a, b);
        assert_eq!(a[0].action, "hoist-to-target-data");
        assert_eq!(a[0].saving_bytes, 1028);
    }
}
