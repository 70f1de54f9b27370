//! The campaign's table: one TSV row per program, and a Markdown summary with every difference.

use crate::ast::Lang;
use crate::campaign::Row;
use crate::toolchain::Build;
use std::fmt::Write;

pub const TSV_HEADER: &str = "lang\tcase\tblocks\tregions\tadaptive_auto\tadaptive_auto_teams\tadaptive_pass\tremarks_passed\tremarks_missed\truns\tverdict\tdifferences\tseconds\tfeatures\treproducer\tdiagnosis";

fn adaptive(r: &Row, b: Build) -> String {
    r.adaptive.iter().find(|(x, _)| *x == b).map_or("-".into(), |(_, n)| n.to_string())
}

pub fn tsv_row(r: &Row) -> String {
    format!(
        "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{:.1}\t{}\t{}\t{}",
        r.lang.name(),
        r.case,
        r.blocks,
        r.regions,
        adaptive(r, Build::Auto),
        adaptive(r, Build::AutoTeams),
        adaptive(r, Build::Pass),
        r.remarks.0,
        r.remarks.1,
        r.runs,
        r.verdict,
        r.differences,
        r.seconds,
        r.features,
        r.reproducer.as_deref().unwrap_or("-"),
        if r.diagnosis.is_empty() { "-" } else { &r.diagnosis },
    )
}

/// Totals per language: programs, generator bugs, programs with differences, regions
/// generated, regions adaptive in the pass-only build, runs.
pub fn summary(rows: &[Row], seed: u64) -> String {
    let mut s = String::from("| language | programs | checked | generator bugs (skipped) | with differences | regions generated | adaptive (pass-only) | adaptive (zero-source-change, default kinds) | runs compared |\n|---|---|---|---|---|---|---|---|---|\n");
    for lang in [Lang::C, Lang::Fortran] {
        let rs: Vec<&Row> = rows.iter().filter(|r| r.lang == lang).collect();
        if rs.is_empty() {
            continue;
        }
        let bugs = rs.iter().filter(|r| r.verdict.starts_with("generator-bug")).count();
        let diff = rs.iter().filter(|r| r.differences > 0).count();
        let checked: Vec<&&Row> = rs.iter().filter(|r| !r.verdict.starts_with("generator-bug")).collect();
        let regions: u32 = checked.iter().map(|r| r.regions).sum();
        let share = |b: Build| {
            let n: usize = checked.iter().filter_map(|r| r.adaptive.iter().find(|(x, _)| *x == b).map(|(_, n)| *n)).sum();
            let of: u32 = checked.iter().filter(|r| r.adaptive.iter().any(|(x, _)| *x == b)).map(|r| r.regions).sum();
            if of == 0 {
                "-".to_string()
            } else {
                format!("{n} of {of} ({:.0} %)", 100.0 * n as f64 / of as f64)
            }
        };
        let runs: usize = rs.iter().map(|r| r.runs).sum();
        writeln!(
            s,
            "| {} | {} | {} | {bugs} | {diff} | {regions} | {} | {} | {runs} |",
            lang.name(),
            rs.len(),
            checked.len(),
            share(Build::Pass),
            share(Build::Auto)
        )
        .unwrap();
    }
    writeln!(s, "\nSeed {seed}. Each program: stock built and run twice per team; every adaptive build run once with the real runtime (no store), with every region pinned to each variant (all regions together, and one region at a time when there are at most 40 pairs), and three times with the real runtime on one store, each compared with stock's stdout and exit status at the same `OMP_NUM_THREADS` (2; 2 and 3 for every third case).").unwrap();
    let diffs: Vec<&Row> = rows.iter().filter(|r| r.differences > 0).collect();
    if !diffs.is_empty() {
        s += "\n## Differences\n\n| program | runs differing | reduced reproducer | diagnosis |\n|---|---|---|---|\n";
        for r in diffs {
            writeln!(
                s,
                "| {} case {} ({}) | {} | `{}` | {} |",
                r.lang.name(),
                r.case,
                r.features,
                r.differences,
                r.reproducer.as_deref().unwrap_or("-"),
                r.diagnosis
            )
            .unwrap();
        }
    }
    s
}
