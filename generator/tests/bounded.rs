//! A bounded campaign in the normal test run: 12 C and 8 Fortran programs of a fixed seed,
//! each built stock and adaptive (zero-source-change mode, pass-only mode), run with every
//! region pinned to each variant and under the real runtime, and compared with stock. Every
//! adaptive run must print what stock prints, and some generated regions must have become
//! adaptive (else the check would compare nothing). A failure names the case; the long run
//! and the reducer: `scripts/generate.sh N SEED` or
//!   target/release/ompadapt-generate --seed 20260 --only <case> --lang <c|fortran>

use ompadapt_generator::campaign::{run_all, Options};
use ompadapt_generator::table::tsv_row;
use ompadapt_generator::toolchain::{check_libraries, Build};
use std::path::PathBuf;
use std::time::Duration;

const SEED: u64 = 20260;

#[test]
fn generated_programs_print_what_stock_prints() {
    check_libraries().unwrap();
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("generated-bounded");
    let _ = std::fs::remove_dir_all(&out);
    let o = Options {
        seed: SEED,
        c: 12,
        fortran: 8,
        out: out.clone(),
        reduce: false,
        reduce_budget: Duration::ZERO,
        only: None,
        three_every: 4,
        from: 0,
        jobs: 1,
    };
    let rows = run_all(&o, |r| eprintln!("{}", tsv_row(r)));
    let checked: Vec<_> = rows.iter().filter(|r| !r.verdict.starts_with("generator-bug")).collect();
    assert!(
        checked.len() * 4 >= rows.len() * 3,
        "the generator wrote too many programs stock cannot run deterministically: {} of {}",
        rows.len() - checked.len(),
        rows.len()
    );
    let adaptive: usize = checked.iter().flat_map(|r| r.adaptive.iter().filter(|(b, _)| *b == Build::Pass).map(|(_, n)| *n)).sum();
    assert!(adaptive > 0, "no generated region became adaptive");
    let differing: Vec<String> = rows.iter().filter(|r| r.differences > 0).map(tsv_row).collect();
    assert!(
        differing.is_empty(),
        "{} programs differ from stock (folders under {}):\n{}",
        differing.len(),
        out.display(),
        differing.join("\n")
    );
}
