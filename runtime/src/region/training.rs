//! Training: when a region trains, on what, and how a model is published.
//!
//! `ModelChoice` is cloned, not copied: it may grow parameters that are not `Copy`.
#![allow(clippy::clone_on_copy)]

use std::sync::atomic::Ordering::*;
use std::sync::Arc;

use super::{Inner, Region};
use crate::clock;
use crate::ctx::MAX_FEATURES;
use crate::diag;
use crate::drift::TimeModel;
use crate::explore::Params;
use crate::measurements::MeasurementTable;
use crate::model::{self, Compiled, Estimate, ModelChoice, TrainingSet};
use crate::stats::{fnv1a, FeatureKey};

/// What decides: a trained model or a constant variant.
#[derive(Debug)]
pub enum Predictor {
    /// A compiled model.
    Model(Compiled),
    /// Always this variant.
    Constant(usize),
}

impl Predictor {
    /// The variant for `x` (zero-padded features).
    #[inline]
    pub fn predict(&self, x: &[f64; MAX_FEATURES]) -> usize {
        match self {
            Predictor::Model(m) => m.predict(x),
            Predictor::Constant(v) => *v,
        }
    }

    /// The decision function as a model (a constant as a one-leaf tree).
    pub fn compiled(&self) -> Compiled {
        match self {
            Predictor::Model(m) => m.clone(),
            Predictor::Constant(v) => Compiled::Tree(model::FlatTree::constant(*v)),
        }
    }

    /// Indented text of the decision function.
    pub fn render(&self, feature: &dyn Fn(usize) -> String, class: &dyn Fn(usize) -> String, indent: usize) -> String {
        match self {
            Predictor::Model(m) => m.render(feature, class, indent),
            Predictor::Constant(v) => format!("{}-> {} (always)\n", "  ".repeat(indent), class(*v)),
        }
    }
}

/// How a published decision function came to be.
#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// Trained during this run once enough samples were measured.
    Online,
    /// Trained by an explicit train call.
    Explicit,
    /// Trained again in this run: new vectors were measured, or drifting ones re-measured.
    Retrained,
    /// Trained at start-up from data saved by earlier runs ([`Region::train_if_ready`]; runs
    /// load the stored model, [`Origin::Stored`], and train at exit; older stores name it).
    Loaded,
    /// The stored model, installed at start-up with its parameters and not retrained there:
    /// `current` when it was trained on exactly the saved measurements (else newer ones
    /// arrived since, and a model trained at exit replaces it); `origin` is where it came from
    /// (its `ModelRecord::origin`).
    Stored {
        /// The stored model's origin key.
        origin: String,
        /// Trained on exactly the measurements saved.
        current: bool,
    },
    /// Trained at the exit of this run on everything measured so far, for the next run to
    /// load (off the start-up path).
    AtExit,
    /// The stored model of a frozen (production) run; where the stored model came from
    /// (its `ModelRecord::origin`).
    Frozen(String),
    /// A fixed variant set through the API (Apollo's `Static,policy=N`) or a frozen region
    /// without a stored model.
    Fixed,
    /// Trained on samples pooled over MPI ranks (the number of rows).
    Pooled(usize),
}

impl Origin {
    /// What a stored model records as its origin (`ModelRecord::origin`): the same word for
    /// the same origin, so that the report and `ompadapt show` name it alike. `None`: a model
    /// that is not stored (a frozen run's is on disk already; a fixed variant is no model).
    pub fn key(&self) -> Option<&'static str> {
        match self {
            Origin::Online => Some("online"),
            Origin::Explicit => Some("explicit"),
            Origin::Retrained => Some("retrained"),
            Origin::Loaded => Some("loaded"),
            Origin::AtExit => Some("exit"),
            Origin::Pooled(_) => Some("pooled"),
            Origin::Frozen(_) | Origin::Fixed | Origin::Stored { .. } => None,
        }
    }
}

/// A published decision function and how it came to be.
#[derive(Debug)]
pub struct Trained {
    /// The decision function.
    pub predictor: Predictor,
    /// The model that was asked for.
    pub choice: ModelChoice,
    /// The model fitted (for `auto` and `cost`: the one cross-validation chose).
    pub chosen: ModelChoice,
    /// The chosen model's cross-validated quality on the training data (selections only).
    pub estimate: Option<Estimate>,
    /// The training set: each decided feature vector and its label.
    pub labels: Vec<(FeatureKey, usize)>,
    /// Training samples (counted pairs) when trained.
    pub training_samples: usize,
    /// Executions of the region (in this process) when trained.
    pub executions: u64,
    /// Wall time of fitting + compiling, ns.
    pub train_ns: u64,
    /// Set when the learner failed and the model is the most frequent label; the reason.
    pub fallback: Option<String>,
    /// Why model selection took the measured table, in words ([`ModelChoice::Table`]).
    pub note: Option<String>,
    /// The fingerprint of the measurements it was trained on
    /// ([`MeasurementTable::fingerprint`] with the region's settings: [`Region::data_fingerprint`]);
    /// None when unknown (pooled rows, an older stored model).
    pub trained_on: Option<u64>,
    /// Predicted time per (feature vector, variant), for drift detection.
    pub time: TimeModel,
    /// How it came to be.
    pub origin: Origin,
    /// Epoch under which it was published.
    pub epoch: u64,
}

impl Trained {
    /// The decision for `key`.
    pub fn predict(&self, key: &FeatureKey) -> usize {
        self.predictor.predict(&key.padded())
    }
}

/// What a stored model brings besides its decision function: the fingerprint of the data it
/// was trained on, its cross-validated estimate and why it is the measured table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StoredFacts {
    /// [`Trained::trained_on`].
    pub trained_on: Option<u64>,
    /// [`Trained::estimate`].
    pub estimate: Option<Estimate>,
    /// [`Trained::note`].
    pub note: Option<String>,
}

pub(super) struct TrainJob {
    pub(super) labels: Vec<(FeatureKey, usize)>,
    medians: Vec<(FeatureKey, usize, f64)>,
    /// Fit the labels alone (the medians still feed drift detection).
    labels_only: bool,
    choice: ModelChoice,
    training_samples: usize,
    executions: u64,
    generation: u32,
    origin: Origin,
    trained_on: Option<u64>,
}

impl Region {
    /// Claims the training flag and returns the training set when the region should train:
    /// exploring and ready, or trained and its labels changed since (new vectors, drift).
    pub(super) fn claim(&self, g: &mut Inner) -> Option<TrainJob> {
        if g.settings.explore_only || self.mode.frozen || self.training.load(Relaxed) {
            return None;
        }
        let origin = if self.epoch.load(Relaxed) & 1 == 0 {
            // deferred at start-up: the loaded labels train at exit, new ones may train now
            let deferred = self.deferred.load(Relaxed) && !g.measurements.retrain_due();
            if !g.measurements.ready(g.settings.min_train) || deferred {
                return None;
            }
            Origin::Online
        } else {
            match self.model.load_full() {
                Some(t) if g.measurements.retrain_due() && self.learns_after_training(&t) => Origin::Retrained,
                _ => return None,
            }
        };
        if self.training.swap(true, AcqRel) {
            return None;
        }
        let labels = g.measurements.take_labels();
        Some(self.job(g, labels, origin))
    }

    fn job(&self, g: &mut Inner, labels: Vec<(FeatureKey, usize)>, origin: Origin) -> TrainJob {
        let job = self.job_without_fingerprint(g, labels, origin);
        TrainJob { trained_on: Some(self.fingerprint_locked(g)), ..job }
    }

    fn job_without_fingerprint(&self, g: &mut Inner, labels: Vec<(FeatureKey, usize)>, origin: Origin) -> TrainJob {
        self.adopt_pending(g);
        TrainJob {
            labels,
            medians: g.measurements.medians(),
            labels_only: false,
            choice: g.settings.choice.clone(),
            training_samples: g.measurements.counted,
            executions: g.measurements.recorded_explore + self.unrecorded.load(Relaxed),
            generation: g.measurements.generation,
            origin,
            trained_on: None,
        }
    }

    /// The fingerprint of the region's measurements and of what it trains with (the model
    /// asked for, the exploration parameters, the variants): what a stored model records as
    /// [`Trained::trained_on`], so that a run whose loaded data has the same one loads that
    /// model instead of training ([`crate::store`]).
    pub fn data_fingerprint(&self) -> u64 {
        let mut g = self.lock();
        self.adopt_pending(&mut g);
        self.fingerprint_locked(&g)
    }

    fn fingerprint_locked(&self, g: &Inner) -> u64 {
        self.fingerprint_of(g, &g.measurements)
    }

    /// The fingerprint of `data` with the region's settings (see [`Region::data_fingerprint`]).
    fn fingerprint_of(&self, g: &Inner, data: &MeasurementTable) -> u64 {
        let how = format!("{:?}|{:?}|{}", g.settings.choice, data.params, self.spec.variants.join("\u{1f}"));
        data.fingerprint() ^ fnv1a(&how).rotate_left(17)
    }

    /// Fits the job's model; never panics (a learner failure becomes a constant model).
    fn fit(&self, job: TrainJob) -> Trained {
        let t0 = clock::now();
        let seed = fnv1a(&self.spec.model);
        let choice = job.choice.clone();
        let fitted = if job.labels.is_empty() {
            Err("no labelled feature vector".to_owned())
        } else {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let medians: &[_] = if job.labels_only { &[] } else { &job.medians };
                fit_labelled(choice, &job.labels, medians, self.nvariants(), seed)
            }))
            .unwrap_or_else(|_| Err("the learner panicked".to_owned()))
        };
        let (predictor, chosen, estimate, note, fallback) = match fitted {
            Ok(f) => (Predictor::Model(f.model), f.chosen, f.estimate, f.note, None),
            Err(e) => {
                // Most frequent label (ties: lower index) as a constant model.
                let mut counts = vec![0usize; self.nvariants()];
                let last = counts.len() - 1;
                for &(_, y) in &job.labels {
                    counts[y.min(last)] += 1;
                }
                let best = (0..counts.len()).fold(0, |b, i| if counts[i] > counts[b] { i } else { b });
                (Predictor::Constant(best), job.choice.clone(), None, None, Some(e))
            }
        };
        Trained {
            predictor,
            choice: job.choice,
            chosen,
            estimate,
            time: TimeModel::fit(&job.medians, self.nvariants()),
            labels: job.labels,
            training_samples: job.training_samples,
            executions: job.executions,
            train_ns: clock::to_ns(clock::now() - t0),
            fallback,
            note,
            trained_on: job.trained_on,
            origin: job.origin,
            epoch: 0,
        }
    }

    pub(super) fn train_and_publish(&self, job: TrainJob) -> bool {
        let generation = job.generation;
        if job.origin == Origin::Retrained {
            self.retrains.fetch_add(1, Relaxed);
        }
        let t = self.fit(job);
        let ok = self.publish(t, Some(generation));
        self.training.store(false, Release);
        ok
    }

    /// Makes `t` decide (unless the data it was trained on was reset meanwhile). A fit that
    /// failed (a constant stand-in) never replaces a model that was fitted: it is said, and the
    /// model decides on.
    pub(super) fn publish(&self, mut t: Trained, generation: Option<u32>) -> bool {
        let g = self.lock();
        if generation.is_some_and(|gen| gen != g.measurements.generation) {
            return false;
        }
        if let (Some(e), Predictor::Constant(v)) = (&t.fallback, &t.predictor) {
            let name = &self.spec.model;
            if self.model.load().as_ref().is_some_and(|m| m.fallback.is_none()) {
                diag::warn(&format!("region '{name}': training the model failed ({e}); the model trained before decides on"));
                return false;
            }
            diag::warn(&format!("region '{name}': training the model failed ({e}); always running '{}'", self.spec.variants[*v]));
        }
        let e = self.epoch.load(Relaxed);
        let next = if e & 1 == 1 { e + 2 } else { e + 1 };
        t.epoch = next;
        self.deferred.store(false, Relaxed);
        self.model.store(Some(Arc::new(t)));
        self.epoch.store(next, Release);
        crate::program_memo::invalidate();
        drop(g);
        true
    }

    /// Trains now on what has been measured (`ompadapt_train`, Apollo's train call), even
    /// before `min_train` is reached. Uses the decided feature vectors, else every vector with
    /// all variants measured. Returns the number of labelled vectors.
    pub fn train_now(&self) -> Result<usize, String> {
        if self.broken.is_some() {
            return Err("malformed region".into());
        }
        if self.mode.frozen {
            return Err("frozen (OMPADAPT_FROZEN=1): the stored model is kept".into());
        }
        let job = {
            let mut g = self.lock();
            self.adopt_pending(&mut g);
            let labels = g.measurements.labels_for_explicit_training();
            if labels.is_empty() {
                return Err("no feature vector has every variant measured yet".into());
            }
            self.job(&mut g, labels, Origin::Explicit)
        };
        let n = job.labels.len();
        self.train_and_publish(job);
        Ok(n)
    }

    /// Trains on rows pooled from every MPI rank (`(features, variant, ns)`): per vector with
    /// every variant measured, the lowest median wins. Every rank passes the same rows, so
    /// every rank gets the same model.
    pub fn train_on_rows(&self, rows: &[(Vec<f64>, usize, f64)]) -> Result<usize, String> {
        if self.broken.is_some() || self.mode.frozen {
            return Err("not trainable".into());
        }
        let nv = self.nvariants();
        let mut pooled = MeasurementTable::new(nv, Params { repeats: 1, ..Params::default() }, 0);
        for (f, v, ns) in rows {
            if *v < nv {
                pooled.record(&FeatureKey::new(f), *v, *ns);
            }
        }
        let labels: Vec<(FeatureKey, usize)> = (0..pooled.len())
            .filter(|&i| pooled.counts(i).iter().all(|c| c.count > 0))
            .filter_map(|i| pooled.label_any(i).map(|l| (pooled.key(i), l)))
            .collect();
        if labels.is_empty() {
            return Err("no feature vector has every variant measured on any rank".into());
        }
        let executions = self.executions();
        let job = {
            let g = self.lock();
            TrainJob {
                labels,
                medians: pooled.medians(),
                labels_only: false,
                choice: g.settings.choice.clone(),
                training_samples: pooled.counted,
                executions,
                generation: g.measurements.generation,
                origin: Origin::Pooled(rows.len()),
                trained_on: None,
            }
        };
        let n = job.labels.len();
        self.train_and_publish(job);
        Ok(n)
    }

    /// This process's measurements as rows (for pooling over MPI ranks).
    pub fn rows(&self) -> Vec<(Vec<f64>, usize, f64)> {
        let mut g = self.lock();
        self.adopt_pending(&mut g);
        g.measurements.rows().into_iter().map(|(k, v, t)| (k.values(), v, t)).collect()
    }

    /// Installs a model refitted on a stored model's decisions (a file without parameters, frozen
    /// or loaded start-up): `choice` (else the region's own model) on the labels alone, the
    /// decisions being what is to be reproduced; a model that needs times (a cost model, a
    /// selection) becomes the default tree, which with its exceptions reproduces every label.
    /// `facts` are the stored model's (its fingerprint is kept; the refit has its own estimate).
    pub fn install(&self, labels: Vec<(FeatureKey, usize)>, origin: Origin, choice: Option<ModelChoice>, facts: StoredFacts) -> bool {
        let job = {
            let mut g = self.lock();
            let labels = labels.into_iter().filter(|&(_, v)| v < self.nvariants()).collect::<Vec<_>>();
            if labels.is_empty() {
                return false;
            }
            let mut job = self.job(&mut g, labels, origin);
            if let Some(c) = choice {
                job.choice = c;
            }
            job.labels_only = true;
            job.trained_on = facts.trained_on;
            job
        };
        let t = self.fit(job);
        self.publish(t, None)
    }

    /// Installs a stored model as it was trained (frozen or loaded start-up): `model` decides,
    /// `labels` are its training set, `chosen` what it is, `facts` what it records besides.
    /// Nothing is refitted.
    pub fn install_trained(
        &self,
        labels: Vec<(FeatureKey, usize)>,
        origin: Origin,
        chosen: ModelChoice,
        model: Compiled,
        facts: StoredFacts,
    ) -> bool {
        let job = {
            let mut g = self.lock();
            // the stored fingerprint is the model's: the table's is not computed (86 k
            // instructions of a 61-vector region's start)
            self.job_without_fingerprint(&mut g, labels, origin)
        };
        let t = Trained {
            predictor: Predictor::Model(model),
            choice: job.choice,
            chosen,
            estimate: facts.estimate,
            time: TimeModel::fit(&job.medians, self.nvariants()),
            labels: job.labels,
            training_samples: job.training_samples,
            executions: job.executions,
            train_ns: 0,
            fallback: None,
            note: facts.note,
            trained_on: facts.trained_on,
            origin: job.origin,
            epoch: 0,
        };
        self.publish(t, None)
    }

    /// Times the model was retrained in this run.
    pub fn retrains(&self) -> u32 {
        self.retrains.load(Relaxed)
    }

    /// Trains at start-up if loaded data suffices (same rule as online training), replacing a
    /// stored model installed at start-up but no model this run trained.
    pub fn train_if_ready(&self) -> bool {
        let job = {
            let mut g = self.lock();
            if self.mode.frozen || self.model.load().as_ref().is_some_and(|m| m.origin != Origin::Loaded) {
                return false;
            }
            if g.settings.explore_only || !g.measurements.ready(g.settings.min_train) || self.training.swap(true, AcqRel) {
                return false;
            }
            let labels = g.measurements.take_labels();
            self.job(&mut g, labels, Origin::Loaded)
        };
        self.train_and_publish(job)
    }
}

impl Region {
    /// Start-up on saved data: the loaded labels count as trained on (a stored model trained on
    /// them decides, or training on them waits for [`Region::train_at_exit`]), so the region
    /// trains in this run only once it adds labels of its own (by the usual growth, see
    /// `MeasurementTable::retrain_due`). Without a model the measured table decides meanwhile:
    /// each decided vector its label, other vectors explore.
    /// Returns whether training waits for the exit: no model decides and the data suffices
    /// (with too little data to train on, the region explores and trains when ready, as
    /// without saved data).
    pub fn start_on_saved(&self) -> bool {
        let mut g = self.lock();
        let trained = self.epoch.load(Relaxed) & 1 == 1;
        if !trained && !g.measurements.ready(g.settings.min_train) {
            return false;
        }
        g.measurements.mark_trained();
        self.deferred.store(!trained, Relaxed);
        !trained
    }

    /// Whether training on the loaded data waits for the exit (no model decides yet).
    pub fn training_deferred(&self) -> bool {
        self.deferred.load(Relaxed)
    }

    /// At exit, before the report and the save: trains on everything measured when that
    /// differs from what the deciding model was trained on (its [`Trained::trained_on`]), or
    /// no model was trained yet and the data suffices, so that the next run loads a model
    /// trained on exactly what it loads instead of training at its start-up. In coarse mode the
    /// data includes this run's totals (what the save writes and the next run loads), so every
    /// run that executed the region trains here. Nothing for a frozen, explore-only or cycling
    /// region, a fixed variant, a model pooled over MPI ranks, or while another thread trains.
    /// Returns whether it trained.
    pub fn train_at_exit(&self) -> bool {
        if self.broken.is_some() || self.mode.frozen || self.cycling.load(Relaxed) {
            return false;
        }
        let runs = if self.mode.coarse { self.run_totals() } else { Vec::new() };
        let job = {
            let mut g = self.lock();
            self.adopt_pending(&mut g);
            if g.settings.explore_only {
                return false;
            }
            // a trained run with nothing new returns here, before the table the next run
            // would build is rebuilt and assessed (as much as its start-up's assessment)
            let now = self.fingerprint_locked(&g);
            if !self.exit_may_train(runs.is_empty().then_some(now)) {
                return false;
            }
            // the data as the next run loads and labels it
            let warm = |_: usize| !self.warmup;
            let next = g.measurements.reloaded(&runs, &warm);
            let now = if runs.is_empty() { now } else { self.fingerprint_of(&g, &next) };
            if !next.ready(g.settings.min_train) {
                return false;
            }
            if self.training.swap(true, AcqRel) {
                return false;
            }
            g.measurements.take_labels();
            TrainJob {
                labels: next.labels(),
                medians: next.medians(),
                labels_only: false,
                choice: g.settings.choice.clone(),
                training_samples: next.counted,
                executions: g.measurements.recorded_explore + self.unrecorded.load(Relaxed),
                generation: g.measurements.generation,
                origin: Origin::AtExit,
                trained_on: Some(now),
            }
        };
        self.train_and_publish(job)
    }

    /// Whether the deciding model leaves training at exit to do: not a fixed, frozen or pooled
    /// one, nor one trained on exactly `unchanged` (the data's fingerprint when this run adds
    /// nothing to what it loaded besides measurements; None: it adds run totals).
    fn exit_may_train(&self, unchanged: Option<u64>) -> bool {
        match self.model.load_full().as_deref() {
            Some(t) if matches!(t.origin, Origin::Fixed | Origin::Frozen(_) | Origin::Pooled(_)) => false,
            Some(t) => unchanged.is_none() || t.trained_on != unchanged,
            None => true,
        }
    }

    /// Coarse mode: this run's total time per executed (vector, variant), ns (finite vectors:
    /// what the save writes as run records).
    fn run_totals(&self) -> Vec<(FeatureKey, usize, f64)> {
        let mut out = Vec::new();
        for (k, per) in self.monitored() {
            if k.values().iter().any(|x| !x.is_finite()) {
                continue;
            }
            out.extend(per.iter().enumerate().filter(|(_, m)| m.count > 0).map(|(v, m)| (k, v, m.sum_ns as f64)));
        }
        out
    }
}

/// Trains `choice` on the decided vectors `labels` with the measured medians of their variants
/// (what cost models, regret-aware trees and model selection learn from). Without any
/// measured time (labels stored by an earlier run without their samples) a classifier learns
/// the labels alone, and a cost model or selection becomes the default tree.
fn fit_labelled(
    choice: ModelChoice,
    labels: &[(FeatureKey, usize)],
    medians: &[(FeatureKey, usize, f64)],
    nv: usize,
    seed: u64,
) -> Result<model::Fitted, String> {
    let index: std::collections::HashMap<FeatureKey, usize, crate::stats::FxBuild> =
        labels.iter().enumerate().map(|(i, (k, _))| (*k, i)).collect();
    let mut times = vec![vec![f64::NAN; nv]; labels.len()];
    let mut measured = 0;
    for (k, v, t) in medians {
        if let (Some(&i), true) = (index.get(k), *v < nv) {
            times[i][*v] = *t;
            measured += 1;
        }
    }
    let rows: Vec<Vec<f64>> = labels.iter().map(|(k, _)| k.values()).collect();
    let ys: Vec<usize> = labels.iter().map(|&(_, y)| y).collect();
    if measured == 0 {
        let label_choice = match choice {
            ModelChoice::Auto | ModelChoice::CostSelected | ModelChoice::Cost(_) => {
                ModelChoice::Tree { max_depth: model::DEFAULT_TREE_DEPTH }
            }
            c => c,
        };
        let m = model::train(label_choice, &rows, &ys, seed)?;
        return Ok(model::Fitted { model: m, chosen: label_choice, estimate: None, note: None });
    }
    let costs = TrainingSet::with_labels(&rows, &times, nv, Some(&ys))?;
    model::train_costs(choice, &costs, seed)
}
