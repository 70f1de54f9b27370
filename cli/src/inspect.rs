//! `ompadapt inspect FILE...`: what the compiler decided for each OpenMP construct of an
//! executable, a shared library or an object built with ompadapt — adaptive with its variants,
//! or left as written with the remark's identifier, reason and place — read from the decisions
//! notes the pass wrote into it (`ompadapt_abi::decisions`), so that why a region did nothing
//! needs no rebuild with `-Rpass-missed=ompadapt`. A region that waits for other units'
//! summaries is resolved over the summaries of the files given, as the runtime would.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use object::{Object, ObjectSection};
use ompadapt_abi::decisions::{self, Decision, Status, UnitDecisions};
use ompadapt_abi::summary::{notes_of_type, Dependencies, ModuleSummary, Program, NOTE_SECTION};
use serde_json::json;

/// What one file holds: its units' decisions (repeats merged: an inline function's region in
/// several units), and its units' summaries.
pub struct Inspected {
    pub file: PathBuf,
    /// Each decision with the number of units that made it.
    pub decisions: Vec<(Decision, usize)>,
    /// The module summaries of its units (`ompadapt summaries` reads them too).
    pub summaries: Vec<ModuleSummary>,
}

/// The ompadapt notes of type `kind` in `file`'s `.note.ompadapt` sections, as text.
fn notes(obj: &object::File<'_>, kind: u32, file: &Path) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for section in obj.sections().filter(|s| s.name() == Ok(NOTE_SECTION)) {
        let data = section.data().with_context(|| format!("{}: {NOTE_SECTION}", file.display()))?;
        out.extend(notes_of_type(data, kind).into_iter().filter_map(|d| std::str::from_utf8(d).ok().map(str::to_owned)));
    }
    Ok(out)
}

/// Reads `file`.
pub fn read(file: &Path) -> Result<Inspected> {
    let bytes = std::fs::read(file).with_context(|| format!("{}", file.display()))?;
    let obj =
        object::File::parse(&*bytes).with_context(|| format!("{}: not an object file, executable or shared library", file.display()))?;
    let mut merged: BTreeMap<Decision, usize> = BTreeMap::new();
    let mut order = Vec::new();
    for text in notes(&obj, decisions::NOTE_TYPE, file)? {
        for d in UnitDecisions::parse(&text).map(|u| u.0).unwrap_or_default() {
            let n = merged.entry(d.clone()).or_insert(0);
            if *n == 0 {
                order.push(d);
            }
            *n += 1;
        }
    }
    let decisions = order.into_iter().map(|d| (d.clone(), merged[&d])).collect();
    let summaries = notes(&obj, ompadapt_abi::summary::NOTE_TYPE, file)?.iter().filter_map(|t| ModuleSummary::parse(t)).collect();
    Ok(Inspected { file: file.to_owned(), decisions, summaries })
}

/// A pending region's verdict over `program`: Ok where its variants apply.
fn verdict(program: &Program, d: &Decision) -> Option<Result<(), String>> {
    (d.status == Status::Pending).then(|| match Dependencies::parse(&d.depends) {
        Some(deps) => program.resolve(&deps),
        None => Err(format!("its dependencies '{}' do not read as a list", d.depends)),
    })
}

/// How a status reads in the listing.
fn heading(s: Status) -> &'static str {
    match s {
        Status::Adaptive => "adaptive",
        Status::Pending => "adaptive if the summaries of other units clear it",
        Status::AsWritten => "left as written",
        Status::Explicit => "constructs of explicit adaptive regions (their directives decide)",
    }
}

/// Counts of `decisions` by status, in words (`2 adaptive, 1 left as written`).
pub fn counts(decisions: &[(Decision, usize)]) -> String {
    let words: Vec<String> = Status::ALL
        .iter()
        .filter_map(|s| {
            let n = decisions.iter().filter(|(d, _)| d.status == *s).count();
            let word = match s {
                Status::Pending => "pending",
                Status::AsWritten => "left as written",
                Status::Explicit => "in explicit regions",
                Status::Adaptive => "adaptive",
            };
            (n > 0).then(|| format!("{n} {word}"))
        })
        .collect();
    words.join(", ")
}

fn print_text(all: &[Inspected], program: &Program) {
    for f in all {
        println!("{}: {} construct(s): {}", f.file.display(), f.decisions.len(), counts(&f.decisions));
        for status in Status::ALL {
            let of: Vec<&(Decision, usize)> = f.decisions.iter().filter(|(d, _)| d.status == status).collect();
            if of.is_empty() {
                continue;
            }
            println!("  {}:", heading(status));
            for (d, units) in of {
                let times = if *units > 1 { format!(" (in {units} units)") } else { String::new() };
                println!("    {}  at {}  [{}]{times}", d.region, d.place, d.remark);
                if !d.variants.is_empty() {
                    println!("      variants: {}", d.variants.replace(',', ", "));
                }
                println!("      {}", d.why);
                match verdict(program, d) {
                    Some(Ok(())) => println!("      with these files: adaptive (every function it reaches has a clean summary)"),
                    Some(Err(why)) => println!("      with these files: as written: {why}"),
                    None => {}
                }
            }
        }
    }
}

/// Runs the subcommand.
pub fn run(files: &[PathBuf], as_json: bool) -> Result<()> {
    let all = files.iter().map(|f| read(f)).collect::<Result<Vec<_>>>()?;
    let summaries: Vec<ModuleSummary> = all.iter().flat_map(|f| f.summaries.clone()).collect();
    let program = Program::new(&summaries);
    if as_json {
        let files: Vec<_> = all
            .iter()
            .map(|f| {
                let decisions: Vec<_> = f
                    .decisions
                    .iter()
                    .map(|(d, units)| {
                        let v = verdict(&program, d).map(|r| match r {
                            Ok(()) => json!({"adaptive": true}),
                            Err(why) => json!({"adaptive": false, "why": why}),
                        });
                        json!({"region": d.region, "status": d.status.word(), "remark": d.remark, "place": d.place,
                               "variants": d.variants.split(',').filter(|v| !v.is_empty()).collect::<Vec<_>>(),
                               "why": d.why, "depends": d.depends, "units": units, "verdict": v})
                    })
                    .collect();
                json!({"file": f.file.display().to_string(), "decisions": decisions})
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&json!({ "files": files }))?);
    } else {
        print_text(&all, &program);
    }
    if let Some(f) = all.iter().find(|f| f.decisions.is_empty()) {
        bail!(
            "{}: no decisions recorded: not built with ompadapt (-fplugin=libompadapt.so with -fplugin-arg-ompadapt-auto or adaptation directives, or -fpass-plugin=libompadapt_pass.so), or it has no OpenMP construct",
            f.file.display()
        );
    }
    Ok(())
}
