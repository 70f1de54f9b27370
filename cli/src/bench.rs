//! `ompadapt bench`: the command line of the evaluation harness, which lives in a crate of its
//! own (`ompadapt_harness`); Adaptive-100's offline training is this
//! command's own (`ompadapt train`'s code).

use std::path::{Path, PathBuf};

use anyhow::Result;
use ompadapt_harness::{self as harness, OfflineTrainer, Options, Trained};
use ompadapt_rt::model::ModelChoice;

use crate::show::Learned;
use crate::store;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Kernels to run (default: all): xsbench, rsbench, lulesh, amgmk_relax, heat2d, lbm2d,
    /// smith_waterman; their GPU-threads builds lulesh-threads, amgmk_relax-threads,
    /// heat2d-threads, lbm2d-threads; co-scheduling xsbench-cosched, rsbench-cosched; host loops
    /// jacobi2d, triangular.
    #[arg(long, value_delimiter = ',')]
    kernels: Vec<String>,
    /// The CI subset: five kernels (four use-cases) on four inputs each, one run per measurement.
    #[arg(long)]
    smoke: bool,
    /// Only size the inputs: measure every input's steps on this machine so that a run's
    /// measured part reaches --target-ms, write them to the calibration file, print them.
    #[arg(long)]
    calibrate: bool,
    /// The calibration file (default: calibration.json in --out). A run reads the steps this
    /// machine has there and measures the inputs it lacks first.
    #[arg(long)]
    calibration: Option<PathBuf>,
    /// The measured part (all steps but the first) a run must reach with the fastest variant, ms
    /// (default 20, 2 with --smoke: CI checks that the harness works, not the figures).
    #[arg(long)]
    target_ms: Option<f64>,
    /// Inputs for every kernel asked for (instead of the built-in ones).
    #[arg(long, value_delimiter = ',')]
    inputs: Vec<u64>,
    /// Where results and figures go.
    #[arg(long, default_value = "bench-results")]
    out: PathBuf,
    /// The kernels' sources (default: benchmarks/kernels of this checkout).
    #[arg(long)]
    source: Option<PathBuf>,
    /// libompadapt.so (default: beside this executable).
    #[arg(long)]
    plugin: Option<PathBuf>,
    /// The compiler that builds the kernels with the plugin (clang of LLVM 19).
    #[arg(long, default_value = "clang-19")]
    cc: String,
    /// Offload target (nvptx64 on an NVIDIA machine; see docs/packaging.md for its CUDA flags).
    #[arg(long, default_value = "x86_64-pc-linux-gnu")]
    targets: String,
    /// Extra compiler flag (repeatable), e.g. --cflag=--offload-arch=sm_90.
    #[arg(long = "cflag", allow_hyphen_values = true)]
    cflags: Vec<String>,
    /// Keep the kernels' mutable state in `target data` too (needs a pass whose cpu variant is correct there).
    #[arg(long)]
    resident: bool,
    /// Runs per measured configuration (the fastest counts; default 3, 1 with --smoke).
    #[arg(long)]
    repeats: Option<usize>,
    /// More runs of every static configuration at an input whose verdict is in doubt (its two
    /// fastest configurations within --doubt of each other); default 2 x --repeats.
    #[arg(long)]
    doubt_repeats: Option<usize>,
    /// When an input's verdict is in doubt: its two fastest configurations this close (0.25 = 25 %).
    #[arg(long, default_value_t = 0.25)]
    doubt: f64,
    /// Shuffles of the K-fold evaluation.
    #[arg(long, default_value_t = 10)]
    shuffles: usize,
    /// The adaptive model (OMPADAPT_MODEL spelling).
    #[arg(long, default_value = "dtree,2")]
    model: String,
    /// Exploration strategies of the Online comparator.
    #[arg(long, value_delimiter = ',', default_values_t = vec!["roundrobin".to_owned(), "elimination".to_owned()])]
    strategies: Vec<String>,
    /// SVG only.
    #[arg(long)]
    no_png: bool,
}

impl Args {
    /// The harness's options; the model's spelling is parsed here.
    fn options(self) -> Result<Options> {
        let choice = store::parse_model(&self.model)?;
        Ok(Options {
            kernels: self.kernels,
            smoke: self.smoke,
            inputs: self.inputs,
            out: self.out,
            source: self.source,
            plugin: self.plugin,
            cc: self.cc,
            targets: self.targets,
            cflags: self.cflags,
            resident: self.resident,
            repeats: self.repeats,
            doubt_repeats: self.doubt_repeats,
            doubt: self.doubt,
            shuffles: self.shuffles,
            model: (choice, self.model),
            strategies: self.strategies,
            png: !self.no_png,
            calibrate: self.calibrate,
            calibration: self.calibration,
            target_ms: self.target_ms,
        })
    }
}

/// Trains as `ompadapt train` does: fits on the region's stored data and stores the model.
struct TrainCommand;

impl OfflineTrainer for TrainCommand {
    fn train(&self, store_dir: &Path, region: &str, choice: ModelChoice) -> Result<Option<Trained>> {
        let Some(stored) = store::regions(store_dir, None)?.into_iter().find(|s| s.file.model == region) else {
            return Ok(None);
        };
        let learned = Learned::fit(stored, Some(choice))?;
        crate::train::store_model(store_dir, &learned)?;
        Ok(Some(Trained { model_text: learned.model_text(), costs: learned.costs }))
    }
}

/// Runs the harness.
pub fn run(args: Args, as_json: bool) -> Result<()> {
    harness::run(&args.options()?, &TrainCommand, as_json)
}
