//! The report's data: everything the text and the JSON report say about one region, read from
//! the region once. The text is rendered from this value alone ([`super::text`]), so the two
//! forms cannot disagree.

use serde::Serialize;

use crate::region::declared::DeclaredReport;
use crate::region::{Origin, Region, Snapshot, Trained};

/// The JSON report of one region.
#[derive(Serialize, Debug)]
pub struct RegionReport {
    /// The region's name (`model(...)` of the directive, or the generated name).
    pub region: String,
    /// Where the directive is: `file:line`.
    pub loc: String,
    /// Variant names, in the directive's order.
    pub variants: Vec<String>,
    /// For numeric variants (team sizes, limits): each variant's value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<f64>>,
    /// For a host region's `threads=F` variants: the team each variant runs with here (None for
    /// a variant that sets no team size); empty for other regions.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub team_sizes: Vec<Option<u32>>,
    /// Feature names as the directive gave them.
    pub features: Vec<String>,
    /// Why the descriptor could not be used (the region then always ran its first variant).
    pub malformed: Option<String>,
    /// Why the region ran as written: calls into other translation units not cleared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held: Option<String>,
    /// Offload variants in a program built without an offload target: they ran the same code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub same_code: Option<String>,
    /// `adaptive`, `explore-only`, `frozen` or `coarse`.
    pub mode: String,
    /// The exploration strategy.
    pub explore: String,
    /// Measurements per (feature vector, variant) pair; `explore::ADAPTIVE` for adaptive repetition.
    pub repeats: u32,
    /// Training samples needed before the first training.
    pub min_train: usize,
    /// The model the directive or the environment asked for.
    pub model_asked: String,
    /// Executions that reached their end.
    pub executions: u64,
    /// Of those, the ones recorded by exploration.
    pub exploring: u64,
    /// Of those, the ones the model chose.
    pub chosen_by_model: u64,
    /// Of those, the ones that ran but were not recorded (warm-up, invalid variant).
    pub unrecorded: u64,
    /// Measured (feature vector, variant) pairs that count for training.
    pub training_samples: usize,
    /// Retained measurements.
    pub stored_samples: usize,
    /// The model that decides, once trained.
    pub model: Option<ModelReport>,
    /// Times the region trained again in this run.
    pub retrains: u32,
    /// Drifts detected in this run, in order.
    pub drift: Vec<DriftReport>,
    /// Labels measured again in this run because earlier runs' trained executions contradicted
    /// them (see `recheck`), in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rechecks: Vec<RecheckReport>,
    /// Labels judged against the program's own variant at load (see `control`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub controls: Vec<ControlReport>,
    /// Variants that could not run in this process (their host version would have read data
    /// the device holds), in the order found; empty when every variant was available.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unavailable: Vec<UnavailableReport>,
    /// The `cpu` variant's copies (only for an offload's host version that ran).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_copies: Option<HostCopiesReport>,
    /// Whether trained executions are timed to detect drift.
    pub monitoring: bool,
    /// Measurements loaded from earlier runs (of the region's current variants).
    pub loaded_samples: u64,
    /// What changed in the region's definition since its saved data, and what of it is not
    /// used (null: nothing changed; see `store::definition`).
    pub saved_data: Option<String>,
    /// What start-up did with the saved data and the stored model: loaded it (trained on
    /// exactly the saved data), loaded an older one, or left training to the exit (null: no
    /// saved data to train on, or a frozen or coarse region; see `store::start_learning`).
    pub startup: Option<String>,
    /// Times per feature vector and variant.
    pub timings: Vec<TimingReport>,
    /// What is decided for each feature vector.
    pub decisions: Vec<DecisionReport>,
    /// The decisions against always running the best single variant, over the vectors with
    /// every variant measured (times as labels use them); absent before training or without
    /// such a vector.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub payoff: Option<crate::model::payoff::Payoff>,
    /// Why every vector runs the program's own variant: the decisions' measured benefit over
    /// it is inside the noise (absent when the model decides; see `region::own`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settled_on_own: Option<String>,
    /// Per variant: bytes moved and transfer time per execution (only when the OMPT tool
    /// `libompadapt_dataperf.so` measured them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub data_movement: Vec<DataMovementReport>,
    /// The `declare adaptation` clauses: executions outside declared feature ranges; for an
    /// associated region, its primary, mapping and executions per variant.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared: Option<DeclaredReport>,
}

/// Bytes moved and transfer time per execution of one variant.
#[derive(Serialize, Debug)]
pub struct DataMovementReport {
    /// The variant's name.
    pub variant: String,
    /// Its bytes moved and transfer time per execution.
    #[serde(flatten)]
    pub per_execution: crate::dataflow::Movement,
}

/// The model that decides.
#[derive(Serialize, Debug)]
pub struct ModelReport {
    /// The model fitted (for `auto`/`cost`: the one chosen).
    pub kind: String,
    /// The model asked for (`auto` when the directive names none).
    pub asked: String,
    /// For a selection: the chosen model's cross-validated mean regret.
    pub estimated_regret: Option<f64>,
    /// For a selection: its fraction of held-out vectors within 5 % of the best time.
    pub estimated_within5: Option<f64>,
    /// For a selection: the held-out vectors of the estimate.
    pub estimated_on_vectors: Option<usize>,
    /// For a selection: the folds of the estimate.
    pub estimated_folds: Option<usize>,
    /// How it came to be (trained in this run, loaded, frozen...).
    pub origin: String,
    /// Where it came from as the store records it (`online`, `retrained`, `explicit`,
    /// `loaded`, `pooled`, `offline`: what `ompadapt show` gives as the stored model's
    /// `origin`); a frozen run's is the stored model's; null for a fixed variant.
    pub source: Option<String>,
    /// Executions of the region (in this process) when it was trained.
    pub trained_after_executions: u64,
    /// Feature vectors in its training set.
    pub feature_vectors: usize,
    /// Training samples (counted pairs) when it was trained.
    pub training_samples: usize,
    /// Wall time of fitting and compiling it, ns.
    pub train_ns: u64,
    /// Why training failed, when a constant model replaced the one asked for.
    pub fallback: Option<String>,
    /// Why model selection took the measured table (every feature constant, or no model
    /// beating the best single variant on held-out vectors); null otherwise.
    pub note: Option<String>,
    /// The model as text (a tree, formulas, scores).
    pub text: String,
}

/// One recheck: a label ran far faster in earlier runs than the time it was chosen on; its
/// vector was re-measured.
#[derive(Serialize, Debug)]
pub struct RecheckReport {
    /// Executions of the region when it happened.
    pub at_execution: u64,
    /// The feature vector re-measured.
    pub features: Vec<f64>,
    /// The label before.
    pub label_before: String,
    /// Its label now (null: not decided yet).
    pub label_now: Option<String>,
    /// The time the label was chosen on, ns.
    pub measured_ns: f64,
    /// Its mean over earlier runs' timed trained executions, ns.
    pub mean_ns: f64,
    /// The execution of this run that showed the steady rate, ns.
    pub ran_ns: f64,
}

/// One control verdict: a vector's label against the program's own variant, from the stored
/// trained executions of both.
#[derive(Serialize, Debug)]
pub struct ControlReport {
    /// The feature vector.
    pub features: Vec<f64>,
    /// Its label.
    pub label: String,
    /// The program's own variant.
    pub own: String,
    /// The label's mean over stored timed trained executions, ns.
    pub label_mean_ns: f64,
    /// The own variant's (null: none stored yet).
    pub own_mean_ns: Option<f64>,
    /// `trial` (the own variant runs this run to be timed), `own` (it runs: the label is not
    /// clearly faster) or `label`.
    pub verdict: &'static str,
}

/// One drift: a variant ran slower than measured on a feature vector, which was re-measured.
#[derive(Serialize, Debug)]
pub struct DriftReport {
    /// Executions of the region when it happened.
    pub at_execution: u64,
    /// The feature vector re-measured.
    pub features: Vec<f64>,
    /// The variant that ran slow.
    pub variant: String,
    /// The vector's label before (null: none).
    pub label_before: Option<String>,
    /// Its label now (null: not decided yet).
    pub label_now: Option<String>,
    /// Slow executions in the window that triggered it.
    pub slow: u32,
    /// The window's length (timed executions).
    pub window: u32,
}

/// A variant found unavailable in this process.
#[derive(Serialize, Debug)]
pub struct UnavailableReport {
    /// The variant that could not run.
    pub variant: String,
    /// The variant the execution that found it ran instead (null: not recorded).
    pub replacement: Option<String>,
    /// Executions of the region when it was found.
    pub at_execution: u64,
    /// Why it could not run.
    pub reason: String,
}

/// What the `cpu` variant of an offload copied around its host version, per execution.
#[derive(Serialize, Debug)]
pub struct HostCopiesReport {
    /// Executions of the host version that copied (the averages are over these).
    pub executions: u64,
    /// Bytes of the present device mappings the launch reached, per execution: what the
    /// offload would have found on the device.
    pub mapped_bytes: f64,
    /// Bytes brought from the device into host memory per execution: the mapped bytes, exactly
    /// (less those an `always to` map sends from the host anyway).
    pub brought_in_bytes: f64,
    /// Bytes moved between host and device (both ways) per execution.
    pub transferred_bytes: f64,
    /// Host bytes saved and restored (what the offload would not change) per execution.
    pub preserved_bytes: f64,
    /// Time of the copies per execution (part of the variant's measured time).
    pub ns: f64,
}

/// The times of one variant on one feature vector.
#[derive(Serialize, Debug)]
pub struct TimingReport {
    /// The feature vector.
    pub features: Vec<f64>,
    /// The variant.
    pub variant: String,
    /// Exploring executions recorded (including earlier runs').
    pub exploring_runs: u64,
    /// Executions the model chose (this process).
    pub model_runs: u64,
    /// Model-chosen executions that were timed (one in `OMPADAPT_SAMPLE`).
    pub model_timed: u64,
    /// Median of the retained exploring times, ns.
    pub median_ns: Option<f64>,
    /// Mean over the retained exploring times and the timed model-chosen executions, ns.
    pub mean_ns: Option<f64>,
    /// The robust time the label uses (lower quartile of the warm measurements, else the cold).
    pub estimate_ns: Option<f64>,
}

/// What is decided for one feature vector.
#[derive(Serialize, Debug)]
pub struct DecisionReport {
    /// The feature vector.
    pub features: Vec<f64>,
    /// Variant the model picks, or null while exploring.
    pub decision: Option<String>,
    /// Label exploration found for it (if decided).
    pub explored_best: Option<String>,
    /// The label the model was trained with for this vector (null: not in its training set).
    pub trained_label: Option<String>,
}

impl RegionReport {
    /// The name of feature `i` (`f<i>` where the directive gave none).
    pub fn feature_name(&self, i: usize) -> String {
        match self.features.get(i) {
            Some(f) if !f.trim().is_empty() => f.trim().to_owned(),
            _ => format!("f{i}"),
        }
    }

    /// Columns of the feature vectors measured (the directive's features when none was).
    pub fn feature_count(&self) -> usize {
        self.decisions.iter().map(|d| d.features.len()).max().unwrap_or(self.features.len())
    }

    /// Whether the region follows another region's model (`use_model`).
    pub fn is_associated(&self) -> bool {
        self.declared.as_ref().is_some_and(|d| d.use_model.is_some())
    }
}

/// Where a model came from, as the store records it (`ModelRecord::origin`, what `ompadapt
/// show` reports): its own origin, or for a frozen run's the stored model's.
fn source(o: &Origin) -> Option<String> {
    match o {
        Origin::Frozen(stored) | Origin::Stored { origin: stored, .. } => Some(stored.clone()),
        o => o.key().map(str::to_owned),
    }
}

fn origin_text(o: &Origin) -> String {
    match o {
        Origin::Online => "trained in this run".into(),
        Origin::Explicit => "trained by an explicit train call".into(),
        Origin::Retrained => "retrained in this run on newly measured feature vectors".into(),
        Origin::Loaded => "trained at start-up from saved data".into(),
        Origin::Stored { origin, current: true } => {
            format!("loaded: the stored model, trained on exactly the saved data ({})", crate::store::ModelRecord::origin_text(origin))
        }
        Origin::Stored { origin, current: false } => {
            format!("loaded: the stored model, trained before the newest saved data ({})", crate::store::ModelRecord::origin_text(origin))
        }
        Origin::AtExit => "trained at exit on everything measured (the next run loads it)".into(),
        Origin::Frozen(stored) => format!("stored model (frozen), {}", crate::store::ModelRecord::origin_text(stored)),
        Origin::Fixed => "fixed variant".into(),
        Origin::Pooled(n) => format!("trained on {n} measurements pooled over MPI ranks"),
    }
}

fn mode_name(r: &Region) -> String {
    if let Some(&v) = r.pinned.get() {
        return format!("pinned to '{}' (OMPADAPT_VARIANT)", r.spec.variants.get(v).map_or("?", String::as_str));
    }
    if r.mode.frozen {
        "frozen"
    } else if r.mode.coarse {
        "coarse"
    } else if r.settings().explore_only {
        "explore-only"
    } else {
        "adaptive"
    }
    .to_owned()
}

/// Names of a region's variants and features, for the report's lines.
struct Names<'a>(&'a Region);

impl Names<'_> {
    fn variant(&self, v: usize) -> String {
        self.0.spec.variants.get(v).cloned().unwrap_or_else(|| format!("#{v}"))
    }
    fn feature(&self, i: usize) -> String {
        self.0.spec.feature_name(i)
    }
}

fn model_report(t: &Trained, names: &Names) -> ModelReport {
    let e = t.estimate.as_ref();
    ModelReport {
        kind: t.chosen.describe(),
        asked: t.choice.describe(),
        estimated_regret: e.map(|e| e.mean_regret),
        estimated_within5: e.map(|e| e.within5),
        estimated_on_vectors: e.map(|e| e.decisions),
        estimated_folds: e.map(|e| e.folds),
        origin: origin_text(&t.origin),
        source: source(&t.origin),
        trained_after_executions: t.executions,
        feature_vectors: t.labels.len(),
        training_samples: t.training_samples,
        train_ns: t.train_ns,
        fallback: t.fallback.clone(),
        note: t.note.clone(),
        text: t.predictor.render(&|i| names.feature(i), &|v| names.variant(v), 0),
    }
}

fn drift_reports(r: &Region, names: &Names) -> Vec<DriftReport> {
    r.drift_events()
        .iter()
        .map(|d| DriftReport {
            at_execution: d.at_execution,
            features: d.key.values(),
            variant: names.variant(d.variant),
            label_before: d.label_before.map(|v| names.variant(v)),
            label_now: r.label(&d.key.values()).map(|v| names.variant(v)),
            slow: d.slow,
            window: d.window,
        })
        .collect()
}

fn recheck_reports(r: &Region, names: &Names) -> Vec<RecheckReport> {
    r.recheck_events()
        .iter()
        .map(|e| RecheckReport {
            at_execution: e.at_execution,
            features: e.key.values(),
            label_before: names.variant(e.variant),
            label_now: r.label(&e.key.values()).map(|v| names.variant(v)),
            measured_ns: e.measured_ns,
            mean_ns: e.mean_ns,
            ran_ns: e.ran_ns,
        })
        .collect()
}

fn control_reports(r: &Region, names: &Names) -> Vec<ControlReport> {
    use crate::control::Verdict;
    r.control_events()
        .iter()
        .map(|e| ControlReport {
            features: e.key.values(),
            label: names.variant(e.label),
            own: names.variant(e.own),
            label_mean_ns: e.label_mean_ns,
            own_mean_ns: e.own_mean_ns,
            verdict: match e.verdict {
                Verdict::Trial => "trial",
                Verdict::Own => "own",
                Verdict::Label => "label",
            },
        })
        .collect()
}

fn unavailable_reports(r: &Region, names: &Names) -> Vec<UnavailableReport> {
    r.unavailable()
        .into_iter()
        .map(|u| UnavailableReport {
            variant: names.variant(u.variant),
            replacement: u.replacement.map(|v| names.variant(v)),
            at_execution: u.at_execution,
            reason: u.reason.clone(),
        })
        .collect()
}

fn host_copies_report(r: &Region) -> Option<HostCopiesReport> {
    let c = r.host_copies.totals();
    if c.runs == 0 {
        return None;
    }
    let per = |x: u64| x as f64 / c.runs as f64;
    Some(HostCopiesReport {
        executions: c.runs,
        mapped_bytes: per(c.mapped),
        brought_in_bytes: per(c.brought_in),
        transferred_bytes: per(c.transferred),
        preserved_bytes: per(c.preserved),
        ns: per(c.ns),
    })
}

/// The team of each variant of a region with `threads=F` variants, on this machine.
fn team_sizes(variants: &[String]) -> Vec<Option<u32>> {
    match crate::team::max_threads() {
        Some(max) if variants.iter().any(|v| v.starts_with("threads=")) => {
            variants.iter().map(|v| crate::team::team_size(v, max)).collect()
        }
        _ => Vec::new(),
    }
}

/// The report's data with what the snapshot of measurements holds still empty.
fn region_settings_report(r: &Region, names: &Names, trained: Option<&Trained>) -> RegionReport {
    let spec = &r.spec;
    RegionReport {
        region: spec.model.clone(),
        loc: spec.loc.clone(),
        variants: spec.variants.clone(),
        values: spec.numeric.then(|| spec.values.clone()),
        team_sizes: team_sizes(&spec.variants),
        features: spec.features.clone(),
        malformed: r.broken.clone(),
        held: r.held.clone(),
        same_code: crate::offload_build::same_code_note(&spec.variants),
        mode: mode_name(r),
        explore: r.params().strategy.name().into(),
        repeats: r.params().repeats,
        min_train: r.min_train(),
        model_asked: r.settings().choice.describe(),
        executions: 0,
        exploring: 0,
        chosen_by_model: 0,
        unrecorded: 0,
        training_samples: 0,
        stored_samples: 0,
        model: trained.map(|t| model_report(t, names)),
        retrains: r.retrains(),
        drift: drift_reports(r, names),
        rechecks: recheck_reports(r, names),
        controls: control_reports(r, names),
        unavailable: unavailable_reports(r, names),
        host_copies: host_copies_report(r),
        monitoring: r.monitoring(),
        loaded_samples: r.loaded_samples(),
        saved_data: r.saved_data_note().map(str::to_owned),
        startup: r.startup_note().map(str::to_owned),
        timings: Vec::new(),
        decisions: Vec::new(),
        payoff: None,
        settled_on_own: None,
        data_movement: (0..r.nvariants())
            .filter_map(|v| r.data_movement(v).map(|m| DataMovementReport { variant: names.variant(v), per_execution: m }))
            .collect(),
        declared: crate::region::declared::report(r),
    }
}

/// Adds the snapshot's counts, timings and decisions to `rep`.
fn add_measurements(rep: &mut RegionReport, r: &Region, snap: &Snapshot, names: &Names, trained: Option<&Trained>) {
    rep.executions = snap.executions();
    rep.exploring = snap.recorded_explore;
    rep.chosen_by_model = snap.recorded_model;
    rep.unrecorded = snap.unrecorded;
    rep.training_samples = snap.training_samples;
    rep.stored_samples = snap.stored_samples;
    let labels: std::collections::HashMap<_, _> = trained.map(|t| t.labels.iter().copied().collect()).unwrap_or_default();
    let (mut times, mut decided) = (Vec::new(), Vec::new());
    for e in &snap.entries {
        for (v, p) in e.per_variant.iter().enumerate() {
            rep.timings.push(TimingReport {
                features: e.key.values(),
                variant: names.variant(v),
                exploring_runs: p.count,
                model_runs: p.model_count,
                model_timed: p.model_timed,
                median_ns: p.median(),
                mean_ns: p.mean(),
                estimate_ns: p.estimate,
            });
        }
        let decision = trained.map(|t| r.decision(&e.key, t));
        if let Some(d) = decision {
            times.push(e.per_variant.iter().map(|p| p.estimate.unwrap_or(f64::NAN)).collect());
            decided.push(d);
        }
        rep.decisions.push(DecisionReport {
            features: e.key.values(),
            decision: decision.map(|d| names.variant(d)),
            explored_best: e.decided.map(|v| names.variant(v)),
            trained_label: labels.get(&e.key).map(|&v| names.variant(v)),
        });
    }
    rep.payoff = crate::model::payoff::payoff(&times, &decided).filter(|_| r.spec.variants.len() > 1);
    rep.settled_on_own = trained.and_then(|t| r.own_note(t));
}

/// The report data of one region.
pub fn region_report(r: &Region) -> RegionReport {
    let names = Names(r);
    let trained = r.trained();
    let mut rep = region_settings_report(r, &names, trained.as_deref());
    if r.broken.is_none() {
        add_measurements(&mut rep, r, &r.snapshot(), &names, trained.as_deref());
    }
    rep
}
