//! ompadapt-generate: random OpenMP programs checked against stock (see the crate's docs).
//!
//!   ompadapt-generate --seed S [--c N] [--fortran N] [--out DIR] [--only I] [--lang c|fortran]
//!                     [--no-reduce] [--reduce-seconds T] [--three-every K] [--print]
//!                     [--from K] [--jobs J]
//!
//! `--print` writes case I's sources to stdout instead of checking it; `--from K` starts at case K
//! (a long campaign continued in parts); `--jobs J` checks J cases at a time.

use ompadapt_generator::ast::Lang;
use ompadapt_generator::campaign::{run_all, Options};
use ompadapt_generator::emit::emit;
use ompadapt_generator::random::program;
use ompadapt_generator::table::{summary, tsv_row, TSV_HEADER};
use ompadapt_generator::toolchain::check_libraries;
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

fn value(args: &[String], flag: &str) -> Option<String> {
    args.iter().position(|a| a == flag).and_then(|k| args.get(k + 1)).cloned()
}

fn number(args: &[String], flag: &str, default: u64) -> u64 {
    value(args, flag).map(|v| v.parse().unwrap_or_else(|_| panic!("{flag} takes a number, not '{v}'"))).unwrap_or(default)
}

fn options(args: &[String]) -> Options {
    let lang = value(args, "--lang");
    let count = |l: &str, flag: &str| match &lang {
        Some(x) if x != l => 0,
        _ => number(args, flag, 10),
    };
    Options {
        seed: number(args, "--seed", 1),
        c: count("c", "--c"),
        fortran: count("fortran", "--fortran"),
        out: PathBuf::from(value(args, "--out").unwrap_or_else(|| "target/generated".into())),
        reduce: !args.iter().any(|a| a == "--no-reduce"),
        reduce_budget: Duration::from_secs(number(args, "--reduce-seconds", 300)),
        only: value(args, "--only").map(|v| v.parse().expect("--only takes a case number")),
        three_every: number(args, "--three-every", 3),
        from: number(args, "--from", 0),
        jobs: number(args, "--jobs", 1) as usize,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!(
            "{}",
            include_str!("ompadapt-generate.rs").lines().take(9).map(|l| l.trim_start_matches("//!")).collect::<Vec<_>>().join("\n")
        );
        return;
    }
    let o = options(&args);
    if args.iter().any(|a| a == "--print") {
        let lang = if value(&args, "--lang").as_deref() == Some("fortran") { Lang::Fortran } else { Lang::C };
        for (name, text) in emit(&program(lang, o.seed, o.only.unwrap_or(0))).files {
            println!("===== {name}\n{text}");
        }
        return;
    }
    if let Err(e) = check_libraries() {
        eprintln!("ompadapt-generate: {e}");
        std::process::exit(2);
    }
    std::fs::create_dir_all(&o.out).expect("the output folder");
    let tsv_path = o.out.join("generated.tsv");
    let mut tsv = std::fs::File::create(&tsv_path).expect("the table");
    writeln!(tsv, "{TSV_HEADER}").unwrap();
    let rows = run_all(&o, |r| {
        writeln!(tsv, "{}", tsv_row(r)).unwrap();
        eprintln!(
            "{} case {}: {} ({} runs, {:.1} s){}",
            r.lang.name(),
            r.case,
            r.verdict,
            r.runs,
            r.seconds,
            r.reproducer.as_ref().map(|p| format!(" -> {p}")).unwrap_or_default()
        );
    });
    let md = summary(&rows, o.seed);
    std::fs::write(o.out.join("summary.md"), &md).expect("the summary");
    println!("{md}\ntable: {}", tsv_path.display());
    let differing = rows.iter().filter(|r| r.differences > 0).count();
    std::process::exit(if differing > 0 { 1 } else { 0 });
}
