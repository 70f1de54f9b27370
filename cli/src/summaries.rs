//! `ompadapt summaries FILE...`: the summaries ompadapt wrote into objects, executables and
//! shared libraries (the `.note.ompadapt` notes, see `ompadapt_abi::summary`), and with
//! `--depends` the verdict the runtime would give a region that waits for them: what a program
//! linked from exactly these files decides before it runs.

use std::path::PathBuf;

use anyhow::{Context, Result};
use ompadapt_abi::summary::{Dependencies, ModuleSummary, Program, Verdict};
use serde_json::json;

/// The module summaries in `file`'s `.note.ompadapt` sections (read as `inspect` reads them).
fn read(file: &PathBuf) -> Result<Vec<ModuleSummary>> {
    Ok(crate::inspect::read(file)?.summaries)
}

/// Runs the subcommand.
pub fn run(files: &[PathBuf], depends: Option<&str>, as_json: bool) -> Result<()> {
    let mut modules = Vec::new();
    let mut per_file = Vec::new();
    for f in files {
        let m = read(f)?;
        let clean = m.iter().flat_map(|m| &m.functions).filter(|s| matches!(s.verdict, Verdict::Clean(_))).count();
        let all = m.iter().map(|m| m.functions.len()).sum::<usize>();
        per_file.push(json!({"file": f.display().to_string(), "units": m.len(), "summaries": all, "clean": clean}));
        modules.extend(m);
    }
    let program = Program::new(&modules);
    let verdict = match depends {
        None => None,
        Some(text) => {
            let deps = Dependencies::parse(text).with_context(|| format!("--depends {text}: not a list of K:symbol"))?;
            Some(program.resolve(&deps))
        }
    };
    if as_json {
        let v = verdict.as_ref().map(|r| match r {
            Ok(()) => json!({"adaptive": true}),
            Err(why) => json!({"adaptive": false, "why": why}),
        });
        println!("{}", serde_json::to_string_pretty(&json!({"files": per_file, "verdict": v}))?);
        return Ok(());
    }
    for f in &per_file {
        println!(
            "{}: {} unit(s), {} summaries ({} found nothing)",
            f["file"].as_str().unwrap_or(""),
            f["units"],
            f["summaries"],
            f["clean"]
        );
    }
    match verdict {
        None => {}
        Some(Ok(())) => println!("adaptive: every function it reaches has a summary that found nothing"),
        Some(Err(why)) => println!("as written: {why}"),
    }
    Ok(())
}
