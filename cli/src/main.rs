//! `ompadapt`: the command-line tool over what the runtime learned (its store), and the
//! evaluation harness of the benchmark kernels (`ompadapt bench`, which runs
//! `ompadapt_harness`).
//!
//! Every command reads the store through the runtime's own library (`ompadapt_rt::store`,
//! `model`; `ompadapt_evaluate` scores decisions), so what it shows is what a program would load. Errors are one line
//! on stderr (`ompadapt: error: ...`) and exit status 1 (2 for bad usage, from clap).

mod archive;
mod bench;
mod clear;
mod evaluate;
mod inspect;
mod show;
mod store;
mod summaries;
mod trace;
mod train;

#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use ompadapt_abi::store::RegionPath;
use ompadapt_evaluate::Method;
use ompadapt_rt::model::ModelChoice;
use serde_json::json;

#[derive(Parser)]
#[command(
    name = "ompadapt",
    version,
    about = "Inspect, train, evaluate, move and clear what adaptive OpenMP regions learned; summarise and draw a timeline of their executions; run the evaluation harness",
    after_help = "Inefficient data mappings of any offload program (duplicate, round-trip and unused transfers, repeated allocations) are found by a tool of its own, beside this one: ompadapt-dataperf -- ./app args (docs/data-movement.md)."
)]
struct Cli {
    /// The store of the commands that read or write one: where programs save what they learned (as the runtime: $OMPADAPT_DIR, else ./.ompadapt).
    #[arg(long, global = true, env = "OMPADAPT_DIR", value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Machine-readable JSON on stdout instead of text.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// What the compiler decided for each OpenMP construct of a program or library built with ompadapt: adaptive with its variants, or left as written and why (the remark's id, reason and place).
    Inspect {
        /// Executables, shared libraries or objects (name the shared libraries a program loads to resolve regions that wait for their summaries).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// The summaries ompadapt wrote into objects, executables and shared libraries, and (with --depends) what the runtime would decide for a region that waits for them.
    Summaries {
        /// Objects, executables or shared libraries.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// A region's dependencies, as its descriptor's depends= (K:symbol,...; OMPADAPT158 names them).
        #[arg(long)]
        depends: Option<String>,
    },
    /// Programs, regions and samples in the store.
    List {
        /// Only this program.
        program: Option<String>,
    },
    /// A region's model (as text, and as a picture with --svg), its timings per variant and decisions.
    Show {
        /// REGION or PROGRAM/REGION.
        region: String,
        /// Model to fit on the stored data (default: the kind the runtime trained, else auto); spelled as OMPADAPT_MODEL.
        #[arg(long)]
        model: Option<String>,
        /// Write the picture (measured times per variant; the model's decision over the features) as SVG.
        #[arg(long, value_name = "FILE")]
        svg: Option<PathBuf>,
        /// Also write it as PNG.
        #[arg(long, value_name = "FILE")]
        png: Option<PathBuf>,
        /// Feature on the picture's horizontal axis (name or index; default the first that varies in the data).
        #[arg(long)]
        axis: Option<String>,
    },
    /// Train a model offline on a region's stored data and store it as the region's model.
    Train {
        /// REGION or PROGRAM/REGION.
        region: String,
        /// auto, cost[,family[,depth]], dtree[,depth], rfc[,trees[,depth]], logistic.
        #[arg(long, default_value = "auto")]
        model: String,
        /// Train and show, store nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// K-fold cross-validated decision quality (Adaptive-K) and regret against the oracle.
    Evaluate {
        /// Regions (REGION or PROGRAM/REGION); default every region of the store.
        regions: Vec<String>,
        /// Models to evaluate (repeatable).
        #[arg(long = "model", default_values_t = vec!["auto".to_owned(), "dtree,2".to_owned()])]
        models: Vec<String>,
        /// Groups the inputs are split into.
        #[arg(long, default_value_t = 4)]
        k: usize,
        /// Training fractions in percent (multiples of 100/K).
        #[arg(long, value_delimiter = ',', default_values_t = vec![25, 50, 75])]
        train: Vec<usize>,
        /// Shuffles of the inputs.
        #[arg(long, default_value_t = 10)]
        shuffles: usize,
        /// Regret that still counts as the best, in percent.
        #[arg(long, default_value_t = 5.0)]
        tolerance: f64,
        /// Seed of the shuffles and of the models' fits (one seed, the same scores).
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Write what the store learned as a versioned archive (to stdout, or -o FILE).
    Export {
        /// Only this program (or PROGRAM/REGION).
        what: Option<String>,
        /// Write the archive to FILE (replaced whole, never half-written) instead of stdout, and say what it holds.
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Add an archive's data to the store (created if missing); importing twice adds nothing.
    Import {
        /// The archive (- for stdin).
        archive: PathBuf,
        /// The program on this machine: its data go where that executable finds them (by
        /// default they go to the folder they came from, which a program at the same path finds).
        #[arg(long, value_name = "PATH", conflicts_with = "program_id")]
        executable: Option<PathBuf>,
        /// The identity to file the data under (what the program runs with in OMPADAPT_PROGRAM).
        #[arg(long, value_name = "ID")]
        program_id: Option<String>,
    },
    /// Run the paper's evaluation on the benchmark kernels: comparators, CSV, plots.
    Bench(bench::Args),
    /// Summarise a timeline recorded with OMPADAPT_TRACE=FILE (per region and variant); --html draws it.
    Trace {
        /// The traces the runtime wrote (Chrome trace-event JSON; Perfetto and chrome://tracing open it too): one, or
        /// each process's of one run (`%p` in OMPADAPT_TRACE), or a directory of them.
        #[arg(required = true, num_args = 1..)]
        files: Vec<PathBuf>,
        /// Also write a self-contained page (inline SVG) that draws the timeline: per process and thread, a lane per region, a box per execution.
        #[arg(long, value_name = "OUT")]
        html: Option<PathBuf>,
        /// Boxes the page draws one per execution at most; past it, executions that start in one pixel column share a box.
        #[arg(long, default_value_t = 20_000, value_name = "N")]
        max_boxes: usize,
    },
    /// Remove what the store holds for a region, a program, or (--all) everything.
    // One of the three is required: without one it is a usage error (exit status 2), as for any
    // other missing argument.
    #[command(group(clap::ArgGroup::new("target").required(true).args(["what", "region", "all"])))]
    Clear {
        /// PROGRAM, or PROGRAM/REGION, or --region REGION.
        what: Option<String>,
        /// A region in whichever program has it.
        #[arg(long, conflicts_with = "what")]
        region: Option<String>,
        /// Everything in the store.
        #[arg(long, conflicts_with_all = ["what", "region"])]
        all: bool,
    },
    /// Print the version (as --version does).
    Version,
}

/// The commands that read no store: `--dir` (global, so that it goes before or after a
/// command) is left out of their help and refused after them.
const NO_STORE: [&str; 4] = ["inspect", "summaries", "trace", "bench"];

/// The command line: [`Cli`], with `--dir` shadowed in the commands that read no store (clap
/// gives a command a global argument only where it has none of that name).
fn command() -> clap::Command {
    let mut cmd = Cli::command();
    for name in NO_STORE {
        cmd = cmd.mut_subcommand(name, |sc| {
            let refused = move |_: &str| Err::<PathBuf, String>(format!("`{name}` reads no store (--dir is for the commands that do)"));
            sc.arg(clap::Arg::new("dir").long("dir").value_name("DIR").hide(true).value_parser(refused))
        });
    }
    cmd
}

fn bar(len: u64, what: &str, hidden: bool) -> ProgressBar {
    let b = if hidden { ProgressBar::hidden() } else { ProgressBar::new(len) };
    b.set_style(
        ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    b.set_prefix(what.to_owned());
    b
}

fn main() {
    let cli = Cli::from_arg_matches(&command().get_matches()).unwrap_or_else(|e| e.exit());
    if let Err(e) = run(cli) {
        // one line: the causes joined
        let msg = format!("{e:#}").replace('\n', " ");
        eprintln!("ompadapt: error: {msg}");
        std::process::exit(1);
    }
}

fn run(cli: Cli) -> Result<()> {
    let root = store::root(cli.dir.clone());
    let as_json = cli.json;
    match cli.command {
        Command::List { program } => list_regions(&root, program.as_deref(), as_json)?,
        Command::Inspect { files } => inspect::run(&files, as_json)?,
        Command::Summaries { files, depends } => summaries::run(&files, depends.as_deref(), as_json)?,
        Command::Show { region, model, svg, png, axis } => {
            let choice = model.as_deref().map(store::parse_model).transpose()?;
            let learned = show::Learned::fit(store::region(&root, &region)?, choice)?;
            show::run(&learned, svg, png, axis.as_deref(), as_json)?;
        }
        Command::Train { region, model, dry_run } => {
            let choice = store::parse_model(&model)?;
            let learned = show::Learned::fit(store::region(&root, &region)?, Some(choice))?;
            train::run(&root, &learned, &model, !dry_run, as_json)?;
        }
        Command::Evaluate { regions, models, k, train, shuffles, tolerance, seed } => {
            let choices = models.iter().map(|m| store::parse_model(m)).collect::<Result<Vec<_>>>()?;
            let method = evaluation_method(k, &train, shuffles, tolerance, seed)?;
            evaluate_regions(&root, &regions, &choices, &method, as_json)?;
        }
        Command::Export { what, output } => export_archive(&root, what, output, as_json)?,
        Command::Import { archive: path, executable, program_id } => import_archive(&root, &path, executable, program_id, as_json)?,
        Command::Clear { what, region, all } => clear_store(&root, what, region, all, as_json)?,
        Command::Bench(args) => bench::run(args, as_json)?,
        Command::Trace { files, html, max_boxes } => trace::run(&files, html.as_deref(), max_boxes, as_json)?,
        Command::Version if as_json => println!("{}", json!({"name": "ompadapt", "version": env!("CARGO_PKG_VERSION")})),
        Command::Version => print!("{}", Cli::command().render_version()),
    }
    Ok(())
}

/// `list`: every region of the store (of one program), as a table or JSON.
fn list_regions(root: &Path, program: Option<&str>, as_json: bool) -> Result<()> {
    let regions = store::regions(root, program)?;
    let unreadable = if program.is_none() { store::unreadable_folders(root, &regions) } else { Vec::new() };
    let sums: Vec<store::Summary> = regions.iter().map(store::summary).collect();
    if as_json {
        let doc = json!({"store": root.display().to_string(), "regions": sums, "unreadable": unreadable});
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(());
    }
    let unread = || format!("{} region folder(s) whose files could not be read (named above): {}", unreadable.len(), unreadable.join(", "));
    if sums.is_empty() {
        if !unreadable.is_empty() {
            bail!("{}: no readable region; {}", root.display(), unread());
        }
        println!("{}: no saved regions", root.display());
        println!("(a program whose regions were all left as written saves nothing: `ompadapt inspect PROGRAM` says why)");
        return Ok(());
    }
    let mut rows = vec![["program", "region", "location", "features", "variants", "samples", "vectors", "complete", "model", "set aside"]
        .map(String::from)
        .to_vec()];
    for s in &sums {
        rows.push(vec![
            s.program.clone(),
            s.region.clone(),
            s.location.clone(),
            compact(&s.features),
            compact(&s.variants),
            s.samples.to_string(),
            s.feature_vectors.to_string(),
            s.complete_vectors.to_string(),
            s.model.clone().unwrap_or_else(|| "—".into()),
            s.set_aside.describe().join("; "),
        ]);
    }
    print!("{}", show::table(&rows, 0));
    point_to_inspect(&sums);
    if !unreadable.is_empty() {
        println!("also {}", unread());
    }
    Ok(())
}

/// For each listed program whose executable (its identity) has constructs left as written, a line
/// saying how many and that `ompadapt inspect` says why.
fn point_to_inspect(sums: &[store::Summary]) {
    let mut programs: Vec<&str> = sums.iter().map(|s| s.program_id.as_str()).collect();
    programs.sort_unstable();
    programs.dedup();
    for id in programs {
        let path = Path::new(id);
        let Ok(found) = path.is_file().then(|| inspect::read(path)).transpose() else { continue };
        let left = found.map_or(0, |f| f.decisions.iter().filter(|(d, _)| d.status == ompadapt_abi::decisions::Status::AsWritten).count());
        if left > 0 {
            println!("{id}: {left} construct(s) left as written: `ompadapt inspect {id}` says why");
        }
    }
}

/// A list for a table column: whole up to 4 items, else its count, first and last (`show`
/// and `--json` give every item), so that `list` stays readable with 11 variants.
fn compact(items: &[String]) -> String {
    match items {
        [first, .., last] if items.len() > 4 => format!("{} ({first} … {last})", items.len()),
        _ => items.join(","),
    }
}

/// `evaluate`'s options as the method: the training fractions in groups of `k`.
fn evaluation_method(k: usize, train: &[usize], shuffles: usize, tolerance: f64, seed: u64) -> Result<Method> {
    let mut groups = Vec::new();
    for t in train {
        let m = t * k;
        if m % 100 != 0 || m == 0 || m >= 100 * k {
            bail!("--train {t}: with K = {k} the training fractions are multiples of {}% below 100%", 100 / k.max(1));
        }
        groups.push(m / 100);
    }
    if k < 2 || shuffles == 0 || !(0.0..100.0).contains(&tolerance) {
        bail!("need K >= 2, at least one shuffle and a tolerance in [0, 100)");
    }
    Ok(Method { k, train_groups: groups, shuffles, seed, tolerance: tolerance / 100.0 })
}

/// `evaluate`: the regions named (default every region of the store), scored and printed.
fn evaluate_regions(root: &Path, regions: &[String], choices: &[ModelChoice], method: &Method, as_json: bool) -> Result<()> {
    let files = if regions.is_empty() {
        store::regions(root, None)?
    } else {
        regions.iter().map(|r| store::region(root, r)).collect::<Result<Vec<_>>>()?
    };
    if files.is_empty() {
        bail!("no saved regions in {}", root.display());
    }
    let pb = bar(files.len() as u64, "evaluating", as_json);
    let mut out = Vec::new();
    for f in files {
        pb.set_message(f.file.model.clone());
        out.push(evaluate::evaluate(f, choices, method));
        pb.inc(1);
    }
    pb.finish_and_clear();
    if as_json {
        let docs: Vec<_> = out.iter().map(|r| evaluate::to_json(r, method)).collect();
        println!("{}", serde_json::to_string_pretty(&json!({"regions": docs}))?);
    } else {
        for r in &out {
            print!("{}", evaluate::to_text(r, method));
        }
    }
    if out.iter().all(|r| r.complete == 0) {
        bail!("nothing was evaluated: no region has a feature vector with every variant measured (each region above says which variants are missing, and why)");
    }
    Ok(())
}

/// `export`: a program's (or region's, or the whole store's) data as an archive.
fn export_archive(root: &Path, what: Option<String>, output: Option<PathBuf>, as_json: bool) -> Result<()> {
    // PROGRAM alone, or PROGRAM/REGION
    let (program, region) = match what.as_deref().map(|w| (w, RegionPath::parse(w))) {
        Some((_, RegionPath { program: Some(p), region: r })) => (Some(p.to_owned()), Some(r.to_owned())),
        Some((w, _)) => (Some(w.to_owned()), None),
        None => (None, None),
    };
    let mut regions = store::regions(root, program.as_deref())?;
    if let Some(r) = &region {
        regions.retain(|s| &s.file.model == r || &s.region_dir == r);
    }
    if regions.is_empty() {
        bail!("nothing to export in {}{}", root.display(), what.map(|w| format!(" for '{w}'")).unwrap_or_default());
    }
    let a = archive::export(root, regions);
    let text = serde_json::to_string_pretty(&a)?;
    match &output {
        Some(p) => {
            ompadapt_rt::store::write_atomic(p, text.as_bytes()).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", p.display()))?;
            let summary = json!({"archive": p.display().to_string(), "regions": a.regions.iter().map(|r| json!({"program": r.data.program, "region": r.data.model, "directory": format!("{}/{}", r.program_dir, r.region_dir)})).collect::<Vec<_>>()});
            if as_json {
                println!("{}", serde_json::to_string_pretty(&summary)?);
            } else {
                println!("exported {} regions to {}", a.regions.len(), p.display());
            }
        }
        None => println!("{text}"),
    }
    Ok(())
}

/// `import`: an archive's data into the store, under the identity asked for.
fn import_archive(root: &Path, path: &Path, executable: Option<PathBuf>, program_id: Option<String>, as_json: bool) -> Result<()> {
    let a = archive::read(path)?;
    let identity = match (executable, program_id) {
        (Some(e), _) => Some(e.canonicalize().map_err(|err| anyhow::anyhow!("--executable {}: {err}", e.display()))?.display().to_string()),
        (None, id) => id,
    };
    if identity.is_some() && a.regions.iter().map(|r| &r.data.program).collect::<std::collections::BTreeSet<_>>().len() > 1 {
        bail!("the archive holds several programs: export one program to import it under --executable or --program-id");
    }
    let pb = bar(a.regions.len() as u64, "importing", as_json);
    let done = archive::import(root, &a, identity.as_deref(), |r| {
        pb.set_message(r.to_owned());
        pb.inc(1);
    })?;
    pb.finish_and_clear();
    if as_json {
        println!("{}", serde_json::to_string_pretty(&json!({"store": root.display().to_string(), "imported": done}))?);
    } else {
        for d in &done {
            match &d.file {
                Some(f) => println!("{}/{}: {} measurements -> {f}", d.program, d.region, d.samples),
                None => println!("{}/{}: already imported, nothing added", d.program, d.region),
            }
        }
    }
    Ok(())
}

/// `clear`: a region, a program or everything.
fn clear_store(root: &Path, what: Option<String>, region: Option<String>, all: bool, as_json: bool) -> Result<()> {
    let target = match (what, region, all) {
        (_, _, true) => clear::Target::All,
        (Some(w), None, false) if w.contains('/') => clear::Target::Region(w),
        (Some(w), None, false) => clear::Target::Program(w),
        (None, Some(r), false) => clear::Target::Region(r),
        // (clap requires one of the three and lets no two through)
        _ => bail!("say what to clear: PROGRAM, PROGRAM/REGION, --region REGION or --all"),
    };
    let removed = clear::clear(root, &target)?;
    if as_json {
        println!("{}", serde_json::to_string_pretty(&json!({"removed": removed}))?);
    } else if removed.is_empty() {
        println!("{}: nothing to clear", root.display());
    } else {
        for r in &removed {
            println!("removed {}", r.display());
        }
    }
    Ok(())
}
