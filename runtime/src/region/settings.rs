//! What a region's owner can change or ask at run time: settings (the API, Apollo's
//! `model_info`, the environment) and state.

use std::sync::atomic::Ordering::*;
use std::sync::Arc;

use super::{DriftEvent, Inner, Origin, Predictor, Region, Settings, Trained};
use crate::config::DriftConfig;
use crate::drift::TimeModel;
use crate::explore::{Labeling, Params, Strategy};
use crate::measurements::MeasurementTable;
use crate::model::ModelChoice;
use crate::stats::FeatureKey;

impl Region {
    /// Sets the exploration strategy (Apollo's `explore=` in model_info, `OMPADAPT_EXPLORE`).
    pub fn set_explore(&self, s: Strategy) {
        let mut g = self.lock();
        let p = Params { strategy: s, ..g.measurements.params };
        self.set_params(&mut g, p);
    }

    fn set_params(&self, g: &mut Inner, p: Params) {
        self.adopt_pending(g);
        self.with_assessment_inputs(|env| g.measurements.set_params(p, env));
        self.strategy.store(p.strategy as u8, Relaxed);
        self.exploration_version.fetch_add(1, Release);
    }

    /// Sets the measurements per pair before it counts (`OMPADAPT_REPEATS`;
    /// [`crate::explore::ADAPTIVE`]: adaptive).
    pub fn set_repeats(&self, r: u32) {
        let mut g = self.lock();
        let p = Params { repeats: r, ..g.measurements.params };
        self.set_params(&mut g, p);
    }

    /// Sets how labels are made from repeated measurements.
    pub fn set_labeling(&self, l: Labeling) {
        let mut g = self.lock();
        let p = Params { labeling: l, ..g.measurements.params };
        self.set_params(&mut g, p);
    }

    /// Sets the training samples needed before training (`min_train_data`).
    pub fn set_min_train(&self, n: usize) {
        self.lock().settings.min_train = n.max(1);
    }

    /// Sets the model the next training fits (Apollo's model_info, `OMPADAPT_MODEL`).
    pub fn set_model(&self, choice: ModelChoice) {
        self.lock().settings.choice = choice;
    }

    /// Never train automatically (exploration-only data collection; Apollo's `RoundRobin` /
    /// `Random` model_info).
    pub fn set_explore_only(&self, on: bool) {
        self.lock().settings.explore_only = on;
        self.cycling.store(on, Relaxed);
    }

    /// Always run variant `v` (Apollo's `Static,policy=N`); `None` returns to learning.
    pub fn set_fixed_variant(&self, v: Option<usize>) {
        match v {
            Some(v) => {
                let v = v.min(self.nvariants() - 1);
                let t = Trained {
                    predictor: Predictor::Constant(v),
                    choice: self.settings().choice,
                    chosen: self.settings().choice,
                    estimate: None,
                    labels: Vec::new(),
                    training_samples: 0,
                    executions: self.executions(),
                    train_ns: 0,
                    fallback: None,
                    note: None,
                    trained_on: None,
                    time: TimeModel::default(),
                    origin: Origin::Fixed,
                    epoch: 0,
                };
                self.publish(t, None);
            }
            None => {
                let _g = self.lock();
                let e = self.epoch.load(Relaxed);
                if e & 1 == 1 && !self.mode.coarse {
                    self.epoch.store(e + 1, Release);
                    self.model.store(None);
                    crate::program_memo::invalidate();
                }
            }
        }
    }

    /// Notes what start-up did with the saved data and the stored model (the first note stays).
    pub fn note_startup(&self, note: &str) {
        let _ = self.startup_note.set(note.to_owned());
    }

    /// What start-up did with the saved data and the stored model, as the report says it.
    pub fn startup_note(&self) -> Option<&str> {
        self.startup_note.get().map(String::as_str)
    }

    /// Notes what changed in the region's definition since its saved data (the first note
    /// stays).
    pub fn note_saved_data(&self, note: &str) {
        let _ = self.saved_data_note.set(note.to_owned());
    }

    /// What changed in the region's definition since its saved data, as the run said it.
    pub fn saved_data_note(&self) -> Option<&str> {
        self.saved_data_note.get().map(String::as_str)
    }

    /// The current settings.
    pub fn settings(&self) -> Settings {
        self.lock().settings.clone()
    }

    /// The current exploration parameters.
    pub fn params(&self) -> Params {
        self.lock().measurements.params
    }

    /// Training samples needed before training.
    pub fn min_train(&self) -> usize {
        self.lock().settings.min_train
    }

    /// Drift settings.
    pub fn drift_config(&self) -> DriftConfig {
        self.drift_cfg
    }

    /// The published decision function, if any.
    pub fn trained(&self) -> Option<Arc<Trained>> {
        self.model.load_full()
    }

    /// Whether a published decision function decides the executions.
    pub fn is_trained(&self) -> bool {
        self.model.load().is_some()
    }

    /// The model's decision for `features`, or the region's own variant where it settled on
    /// it (see `own`; None while exploring).
    pub fn decide(&self, features: &[f64]) -> Option<usize> {
        self.trained().map(|t| self.settled_on_own(&t).unwrap_or_else(|| t.predict(&FeatureKey::new(features))))
    }

    /// Current epoch (even: exploring; odd: decided).
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Acquire)
    }

    /// Drifts so far (vectors re-measured).
    pub fn drift_events(&self) -> Vec<DriftEvent> {
        self.lock().drifts.clone()
    }

    /// The label exploration found for `features` (None: not measured, or undecided).
    pub fn label(&self, features: &[f64]) -> Option<usize> {
        let mut g = self.lock();
        self.adopt_pending(&mut g);
        g.measurements.label_of(&FeatureKey::new(features))
    }

    /// Exploring executions while a model decided (new vectors, drift re-measurements).
    pub fn learning_executions(&self) -> u64 {
        self.learn_execs.load(Relaxed)
    }

    /// Whether trained executions are still checked for drift.
    pub fn monitoring(&self) -> bool {
        self.monitor.load(Relaxed)
    }

    /// Distinct (feature vector, variant) pairs counted as training samples.
    pub fn training_samples(&self) -> usize {
        let mut g = self.lock();
        self.adopt_pending(&mut g);
        g.measurements.counted
    }

    /// Runs `f` on the measurement table (persistence), with every buffered measurement in it.
    pub fn with_measurements<R>(&self, f: impl FnOnce(&mut MeasurementTable) -> R) -> R {
        let mut g = self.lock();
        self.adopt_pending(&mut g);
        f(&mut g.measurements)
    }
}
