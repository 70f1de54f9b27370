//! A region's measurements while it explores, and the counters that decide when it trains.
//!
//! One `MeasurementTable` per region, behind the region's mutex: it is touched by exploring executions
//! that can change the training counters, by batches of buffered measurements, by training
//! (labels), by drift re-explorations and by persistence — never by a trained execution, which
//! records into per-thread shards instead (see `shard`).
//!
//! Training samples (`min_train_data`) are **distinct (feature vector, variant) pairs** with a
//! measurement (with fixed repeats: `repeats` of them, or at least one once the vector is
//! decided or the variant eliminated): exactly Apollo's and the paper's count. Training also
//! needs one decided feature vector.
//!
//! The table also keeps what adaptive repetition (see `explore`) needs region-wide: the
//! timing noise, estimated from how repeated measurements of one pair disagree (the median of
//! the last 64 deviations, scaled to a standard deviation; a conservative prior until 8 are
//! known), and the budget of extra measurements: at most half a pass over the measured pairs,
//! plus two per variant to learn the noise (doubts, the most frequent, a third of a pass).
//!
//! Memory: a **stored sample** is one retained measurement (feature vector, variant, time),
//! the row Apollo keeps per execution. It costs 8 bytes in its vector's sample list; each
//! feature vector adds a 40-byte record, its values (8 bytes per feature) in a key arena,
//! 12 bytes per variant of counters in a counter arena, and 9 bytes per index bucket.
//! [`MeasurementTable::heap_bytes`] adds it all up (capacities, not lengths).

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

use crate::explore::{all_mask, lower_median, Counts, Judge, Labeling, Params, Strategy, VectorRecord, VectorView, FRESH, UNDECIDED};
use crate::stats::{FeatureKey, FxBuild, XorShift};

/// The index is keyed by 32 bits of [`FeatureKey::hash64`], already mixed: no further hashing.
#[derive(Default)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn write(&mut self, _: &[u8]) {
        unreachable!("only u32 keys")
    }
    fn write_u32(&mut self, x: u32) {
        // hashbrown takes the control byte from the top bits and the bucket from the low ones
        self.0 = (x as u64) << 32 | x as u64;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// Timing noise assumed before the region has measured its own (σ of the log of a time): wide,
/// so that the first vectors are measured twice where close and the real noise gets known.
pub const PRIOR_SIGMA: f64 = 0.1;
/// Deviations kept for the noise estimate.
const NOISE_RING: usize = 64;

/// What the region tells the measurement table when a vector is assessed.
pub struct AssessmentInputs<'a> {
    /// Whether this process's next execution of variant `v` is warm.
    pub warm: &'a dyn Fn(usize) -> bool,
    /// The trained model's decision for a vector, when one decides.
    pub model: Option<&'a dyn Fn(&FeatureKey) -> usize>,
}

impl AssessmentInputs<'_> {
    /// No process state: every variant warm, no model (loading, tests).
    pub const NONE: AssessmentInputs<'static> = AssessmentInputs { warm: &|_| false, model: None };
}

/// One pair's measurements newer than the last save (see [`MeasurementTable::unsaved`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Unsaved {
    /// The pair's feature vector.
    pub key: FeatureKey,
    /// The pair's variant.
    pub variant: usize,
    /// Measurements since the last save.
    pub count: u32,
    /// The retained warm ones among them, oldest first, ns.
    pub warm: Vec<f64>,
    /// The retained cold ones among them, oldest first, ns.
    pub cold: Vec<f64>,
    /// They supersede the pair's earlier measurements (taken after a drift).
    pub fresh: bool,
    /// The pair's count when read (what [`MeasurementTable::mark_saved`] records as saved).
    pub at: u32,
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a over the 8 bytes of `w`.
fn fnv_word(h: u64, w: u64) -> u64 {
    w.to_le_bytes().iter().fold(h, |h, &b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

/// One word into a running hash (FNV-1a over 8-byte words: the inputs of an assessment are
/// thousands of words, hashed at every start).
fn mix(h: u64, w: u64) -> u64 {
    (h ^ w).wrapping_mul(0x0000_0100_0000_01b3)
}

/// What assessing every loaded vector ([`MeasurementTable::settle`]) decided, and a hash of
/// everything that assessment read. The store keeps it in its snapshot, so that the next run,
/// whose table hashes the same (it loaded the same measurements: a trained run adds only
/// execution counts), restores it instead of assessing every vector again (1.0 M instructions
/// for 61 vectors). Restoring gives the table exactly the state assessing gives it
/// (`a_restored_assessment_is_the_assessment`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settled {
    /// The hash of the assessment's inputs.
    pub inputs: u64,
    /// Per vector: its label ([`UNDECIDED`]).
    pub decided: Vec<u16>,
    /// Per vector: its candidates (successive elimination).
    pub alive: Vec<u64>,
    /// Per pair: the measurements it wants.
    pub want: Vec<u8>,
    /// The table's training samples after it.
    pub counted: u64,
    /// Its decided vectors.
    pub decided_n: u64,
    /// Its decisions so far.
    pub decisions: u64,
    /// Its extra measurements asked for.
    pub extras: u64,
}

/// A trained region trains again once its labels grew by 1/`RETRAIN_GROWTH`.
const RETRAIN_GROWTH: u64 = 8;

/// The measurements of one region.
#[derive(Debug)]
pub struct MeasurementTable {
    /// 32 bits of the key's hash → record index (a key whose hash bits are taken goes to
    /// `spill`, searched linearly: rare).
    index: HashMap<u32, u32, BuildHasherDefault<IdHasher>>,
    spill: Vec<u32>,
    keys: Vec<f64>,
    counts: Vec<Counts>,
    recs: Vec<VectorRecord>,
    /// Exploration parameters.
    pub params: Params,
    nv: usize,
    /// Training samples: counted pairs over all vectors.
    pub counted: usize,
    /// Decided feature vectors.
    pub decided: usize,
    /// Pairs with at least one measurement (the unit of the extra-measurement budget).
    pub measured_pairs: u64,
    /// Extra measurements adaptive repetition asked for.
    pub extras: u64,
    /// Labels changed (a vector decided, or decided again after a drift) since the last
    /// training: a trained region retrains (see [`MeasurementTable::retrain_due`]).
    pub labels_changed: bool,
    /// Decisions so far (a vector decided, or decided again), and their number and the
    /// labels' at the last training.
    decisions: u64,
    decisions_at_training: u64,
    labels_at_training: usize,
    /// Executions recorded by exploration (this process).
    pub recorded_explore: u64,
    /// Bumped when indices into the measurement table become invalid (never, today: vectors are never
    /// removed); buffered measurements carry it.
    pub generation: u32,
    noise: [f32; NOISE_RING],
    noise_len: usize,
    noise_at: usize,
    rng: XorShift,
    /// Coarse mode: the variant each feature vector runs for this whole run.
    pub pins: HashMap<FeatureKey, usize, FxBuild>,
    /// Vectors the model decided in earlier runs (from the saved data): they recur, so a
    /// trained region may explore them (see `region`).
    pub seen: HashSet<FeatureKey, FxBuild>,
    /// Per variant: unavailable in this run (its launch needs device data its code would not
    /// see, see [`MeasurementTable::set_unavailable`]); empty while every variant is available.
    off: Vec<bool>,
    /// Per variant: made unavailable before any data was in the table (a host region's
    /// same-team variants, known at creation): what the next process makes unavailable
    /// before it takes in the saved data ([`MeasurementTable::reloaded`]).
    off_from_start: Vec<bool>,
}

impl std::fmt::Debug for IdHasher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IdHasher")
    }
}

/// A feature on the log scale on which neighbouring vectors are compared.
fn log_scale(x: f64) -> f64 {
    x.signum() * x.abs().ln_1p()
}

impl MeasurementTable {
    /// An empty table for `nv` variants.
    pub fn new(nv: usize, params: Params, seed: u64) -> MeasurementTable {
        MeasurementTable {
            index: HashMap::default(),
            spill: Vec::new(),
            keys: Vec::new(),
            counts: Vec::new(),
            recs: Vec::new(),
            params,
            nv,
            counted: 0,
            decided: 0,
            measured_pairs: 0,
            extras: 0,
            labels_changed: false,
            decisions: 0,
            decisions_at_training: 0,
            labels_at_training: 0,
            recorded_explore: 0,
            generation: 0,
            noise: [0.0; NOISE_RING],
            noise_len: 0,
            noise_at: 0,
            rng: XorShift::new(seed),
            pins: HashMap::default(),
            seen: HashSet::default(),
            off: Vec::new(),
            off_from_start: Vec::new(),
        }
    }

    /// Whether variant `v` may run in this process.
    pub fn available(&self, v: usize) -> bool {
        !self.off.get(v).copied().unwrap_or(false)
    }

    /// Makes variant `v` unavailable for the rest of the run: no vector wants it, none is
    /// labelled with it (vectors it labelled are labelled again from the others' measurements,
    /// or explore them), its pairs count as done, and coarse-mode pins on it are dropped.
    /// Returns false if it already was.
    pub fn set_unavailable(&mut self, v: usize, env: &AssessmentInputs) -> bool {
        if v >= self.nv || !self.available(v) {
            return false;
        }
        if self.off.is_empty() {
            self.off = vec![false; self.nv];
        }
        self.off[v] = true;
        if self.recs.is_empty() {
            self.off_from_start = self.off.clone();
        }
        self.pins.retain(|_, p| *p != v);
        self.reassess_all(env);
        true
    }

    /// Feature vectors with data.
    pub fn len(&self) -> usize {
        self.recs.len()
    }

    /// Whether no feature vector has data.
    pub fn is_empty(&self) -> bool {
        self.recs.is_empty()
    }

    /// Number of variants.
    pub fn nv(&self) -> usize {
        self.nv
    }

    fn key_slice(&self, i: usize) -> &[f64] {
        let r = &self.recs[i];
        &self.keys[r.key_off as usize..r.key_off as usize + r.nf as usize]
    }

    /// The feature vector at index `i`.
    pub fn key(&self, i: usize) -> FeatureKey {
        FeatureKey::new(self.key_slice(i))
    }

    /// Whether the vector at index `i` is `f`.
    pub fn key_matches(&self, i: usize, f: &[f64]) -> bool {
        i < self.recs.len() && FeatureKey::new(self.key_slice(i)).matches(f)
    }

    /// Whether the vector at index `i` is `key`.
    pub fn key_is(&self, i: usize, key: &FeatureKey) -> bool {
        i < self.recs.len() && key.matches(self.key_slice(i))
    }

    /// The record at index `i`.
    pub fn rec(&self, i: usize) -> &VectorRecord {
        &self.recs[i]
    }

    /// The label of vector `key` (None: not measured, or undecided).
    pub fn label_of(&self, key: &FeatureKey) -> Option<usize> {
        self.find(key).and_then(|i| self.recs[i].decided())
    }

    /// The per-variant counters of the vector at index `i`.
    pub fn counts(&self, i: usize) -> &[Counts] {
        &self.counts[i * self.nv..(i + 1) * self.nv]
    }

    fn fv_mut(&mut self, i: usize) -> VectorView<'_> {
        VectorView { rec: &mut self.recs[i], counts: &mut self.counts[i * self.nv..(i + 1) * self.nv], off: &self.off }
    }

    fn hash32(key: &FeatureKey) -> u32 {
        (key.hash64() >> 32) as u32
    }

    /// Index of `key`'s data, if any.
    pub fn find(&self, key: &FeatureKey) -> Option<usize> {
        let hit = |i: u32| FeatureKey::new(self.key_slice(i as usize)) == *key;
        match self.index.get(&Self::hash32(key)) {
            Some(&i) if hit(i) => Some(i as usize),
            Some(_) => self.spill.iter().copied().find(|&i| hit(i)).map(|i| i as usize),
            None => None,
        }
    }

    /// Index of `key`'s data, created if new (every variant wanted once).
    pub fn fv(&mut self, key: &FeatureKey) -> usize {
        if let Some(i) = self.find(key) {
            return i;
        }
        let i = self.recs.len() as u32;
        let vals = key.values();
        self.recs.push(VectorRecord {
            key_off: self.keys.len() as u32,
            nf: vals.len() as u8,
            flags: 0,
            decided: UNDECIDED,
            alive: all_mask(self.nv),
            times: Vec::new(),
        });
        self.keys.extend_from_slice(&vals);
        let first = Counts { want: 1, ..Counts::default() };
        self.counts.extend(std::iter::repeat_n(first, self.nv));
        for (v, &off) in self.off.iter().enumerate() {
            if off {
                // an unavailable variant's pair is done from the start: it counts as a
                // training sample, as `reassess_all` counts it for the vectors it had
                self.counts[i as usize * self.nv + v].want = 0;
                self.counted += 1;
            }
        }
        match self.index.entry(Self::hash32(key)) {
            std::collections::hash_map::Entry::Occupied(_) => self.spill.push(i),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(i);
            }
        }
        i as usize
    }

    /// Marks vector `i` as first explored after training (see `region`).
    pub fn mark_novel(&mut self, i: usize) {
        self.recs[i].flags |= crate::explore::NOVEL;
    }

    /// The variant an exploring execution of `key` runs when chosen under the lock (a thread
    /// whose shard is full), and the vector's index.
    pub fn choose(&mut self, key: &FeatureKey) -> (usize, usize) {
        let i = self.fv(key);
        let p = self.params;
        let k: u64 = self.counts(i).iter().map(|c| c.count as u64).sum();
        let mut rng = self.rng.clone();
        let v = VectorView { rec: &mut self.recs[i], counts: &mut self.counts[i * self.nv..(i + 1) * self.nv], off: &self.off }
            .choose(&p, k, &mut rng);
        self.rng = rng;
        (v, i)
    }

    /// Records a measurement of variant `v` on `key` (warm, no process state: tests and
    /// pooled data).
    pub fn record(&mut self, key: &FeatureKey, v: usize, ns: f64) {
        let i = self.fv(key);
        self.record_at(i, v, ns, false, &AssessmentInputs::NONE);
    }

    /// Records a measurement of variant `v` on the vector at index `i`; assesses the vector
    /// when what it wanted has arrived.
    #[inline]
    pub fn record_at(&mut self, i: usize, v: usize, ns: f64, cold: bool, env: &AssessmentInputs) {
        let p = self.params;
        let first = self.counts[i * self.nv + v].count == 0;
        let before = self.pair_counted(i, v);
        let (deviation, due) = self.fv_mut(i).record(v, ns, cold, &p);
        self.counted += (self.pair_counted(i, v) && !before) as usize;
        self.measured_pairs += first as u64;
        if let Some(d) = deviation {
            self.noise[self.noise_at] = d as f32;
            self.noise_at = (self.noise_at + 1) % NOISE_RING;
            self.noise_len = (self.noise_len + 1).min(NOISE_RING);
        }
        if due {
            self.assess(i, env);
        }
        self.recorded_explore += 1;
    }

    /// Whether pair (`i`, `v`) counts as a training sample (see [`VectorView::counted_pairs`]).
    fn pair_counted(&self, i: usize, v: usize) -> bool {
        let c = self.counts[i * self.nv + v].count;
        let r = &self.recs[i];
        !self.available(v)
            || c >= self.params.threshold()
            || (c >= 1
                && (r.decided != UNDECIDED || (self.params.strategy == Strategy::Elimination && !crate::explore::is_alive(r.alive, v))))
    }

    /// The region's timing noise: σ of the log of a measurement (see the module docs). The
    /// deviations are between two noisy measurements, hence the √2.
    pub fn sigma(&self) -> f64 {
        if self.noise_len < 8 {
            return PRIOR_SIGMA;
        }
        let mut v: Vec<f64> = self.noise[..self.noise_len].iter().map(|&x| x as f64).collect();
        (1.4826 * lower_median(&mut v) / std::f64::consts::SQRT_2).max(0.005)
    }

    /// Fills the noise estimate from the retained warm measurements of pairs measured several
    /// times (after loading saved data).
    fn learn_noise(&mut self) {
        let mut devs = Vec::new();
        for r in &self.recs {
            for v in 0..self.nv {
                let mut w: Vec<f64> = r.times.iter().filter(|s| s.v as usize == v && !s.cold).map(|s| s.ns as f64).take(9).collect();
                if w.len() < 2 {
                    continue;
                }
                let m = lower_median(&mut w.clone());
                devs.extend(w.drain(..).filter(|&t| t > 0.0 && m > 0.0).map(|t| (t / m).ln().abs()).filter(|&d| d > 0.0));
            }
            if devs.len() >= NOISE_RING {
                break;
            }
        }
        for d in devs.into_iter().take(NOISE_RING) {
            self.noise[self.noise_at] = d as f32;
            self.noise_at = (self.noise_at + 1) % NOISE_RING;
            self.noise_len = (self.noise_len + 1).min(NOISE_RING);
        }
    }

    /// Whether adaptive repetition may still ask for extra measurements: half a pass over the
    /// measured pairs (plus two per variant, to learn the noise).
    pub fn extra_ok(&self) -> bool {
        self.extras < self.measured_pairs / 2 + 2 * self.nv as u64
    }

    /// Whether doubts may still ask for extra measurements: a third of a pass.
    pub fn doubt_ok(&self) -> bool {
        self.extras < self.measured_pairs / 3 + 2 * self.nv as u64
    }

    /// The squared log-scale distance between vectors `i` and `j` (None: other lengths), from
    /// `scaled` (the key arena on the log scale, made once when every vector is assessed) or
    /// scaling both here.
    fn log_distance(&self, scaled: Option<&[f64]>, i: usize, j: usize) -> Option<f64> {
        let (ri, rj) = (&self.recs[i], &self.recs[j]);
        if ri.nf != rj.nf {
            return None;
        }
        let (oi, oj, n) = (ri.key_off as usize, rj.key_off as usize, ri.nf as usize);
        Some(match scaled {
            Some(s) => s[oj..oj + n].iter().zip(&s[oi..oi + n]).map(|(y, x)| (y - x).powi(2)).sum(),
            None => {
                let (k, me) = (&self.keys[oj..oj + n], &self.keys[oi..oi + n]);
                k.iter().zip(me).map(|(&y, &x)| (log_scale(y) - log_scale(x)).powi(2)).sum()
            }
        })
    }

    /// The label of the decided vector nearest to vector `i` (features compared on a log
    /// scale); scans at most 4096 vectors.
    fn nearest_label(&self, i: usize, scaled: Option<&[f64]>) -> Option<usize> {
        if self.decided == 0 || self.recs.len() > 4096 {
            return None;
        }
        let mut best: Option<(f64, usize)> = None;
        for (j, r) in self.recs.iter().enumerate() {
            let Some(l) = r.decided() else { continue };
            if j == i {
                continue;
            }
            let Some(d) = self.log_distance(scaled, i, j) else { continue };
            if !best.is_some_and(|(bd, _)| bd <= d) {
                best = Some((d, l));
            }
        }
        best.map(|(_, l)| l)
    }

    /// Per variant, its robust time on the vector nearest to vector `i` (features compared
    /// on a log scale) where it was measured, if that vector is close (each feature within
    /// about 1.35× of `i`'s: a cost does not double there but at a step); scans at most 4096
    /// vectors.
    fn nearest_times(&self, i: usize, scaled: Option<&[f64]>) -> Vec<Option<f64>> {
        let mut best: Vec<Option<(f64, usize)>> = vec![None; self.nv];
        if self.recs.len() <= 4096 {
            for j in 0..self.recs.len() {
                if j == i {
                    continue;
                }
                let Some(d) = self.log_distance(scaled, i, j) else { continue };
                if d > 0.09 {
                    continue;
                }
                for (v, c) in self.counts(j).iter().enumerate() {
                    if c.kept > 0 && !best[v].is_some_and(|(bd, _)| bd <= d) {
                        best[v] = Some((d, j));
                    }
                }
            }
        }
        best.iter().enumerate().map(|(v, b)| b.and_then(|(_, j)| self.rec(j).estimate(v)).map(|(t, _)| t)).collect()
    }

    /// Assesses vector `i`: what it wants next, or its label.
    pub fn assess(&mut self, i: usize, env: &AssessmentInputs) {
        self.assess_scaled(i, env, None);
    }

    /// [`MeasurementTable::assess`] with the key arena on the log scale when every vector is
    /// assessed: scaling each vector's features once instead of once per pair of vectors made
    /// a start-up's assessment of 61 vectors 8 M instructions cheaper (two `ln_1p` per
    /// feature and pair).
    fn assess_scaled(&mut self, i: usize, env: &AssessmentInputs, scaled: Option<&[f64]>) {
        let p = self.params;
        let hint = match env.model {
            Some(m) => Some(m(&self.key(i))),
            None => self.nearest_label(i, scaled),
        };
        let times = if p.adaptive() { self.nearest_times(i, scaled) } else { Vec::new() };
        let near = |v: usize| times.get(v).copied().flatten();
        let judge = Judge { sigma: self.sigma(), extra_ok: self.extra_ok(), doubt_ok: self.doubt_ok(), hint, near: &near, warm: env.warm };
        let out = self.fv_mut(i).assess(&p, &judge);
        self.counted = (self.counted as i64 + out.counted).max(0) as usize;
        if out.decided {
            self.decided += 1;
            self.decisions += 1;
            self.labels_changed = true;
        }
        self.extras += out.extras as u64;
    }

    /// Adds measurements loaded from files (already saved: they are not written again).
    /// `count` includes measurements no longer retained; `fresh` ones supersede what the pair
    /// retained so far.
    pub fn absorb(&mut self, key: &FeatureKey, v: usize, count: u64, warm: &[f64], cold: &[f64], fresh: bool) {
        if v >= self.nv || count == 0 {
            return;
        }
        let i = self.fv(key);
        let first = self.counts[i * self.nv + v].count == 0;
        let mut fv = self.fv_mut(i);
        if fresh {
            let kept = fv.counts[v].kept as usize;
            fv.drop_oldest(v, kept);
        }
        let keep = |xs: &[f64]| xs[xs.len().saturating_sub(2 * crate::explore::KEEP - 1)..].to_vec();
        for t in keep(cold) {
            fv.keep(v, t, true);
        }
        for t in keep(warm) {
            fv.keep(v, t, false);
        }
        let c = &mut fv.counts[v];
        c.count = c.count.saturating_add(count.min(u32::MAX as u64) as u32);
        c.saved = c.count;
        c.want = 0;
        self.measured_pairs += first as u64;
        // Measurements beyond one of each kind were extras some earlier process took: the
        // budget (half a pass) is the region's over all its runs, not each process's, or a
        // region run once per process would measure a tie again in every run.
        self.extras += (warm.len().saturating_sub(1) + cold.len().saturating_sub(1)) as u64;
    }

    /// Assesses every vector after loading (what each wants, or its label) and recounts the
    /// training samples. The noise is estimated from the loaded measurements first.
    pub fn settle(&mut self, env: &AssessmentInputs) {
        self.learn_noise();
        self.reassess_all(env);
    }

    /// [`MeasurementTable::settle`], restoring `cache` instead of assessing where it was made
    /// from exactly these inputs. Returns what the assessment decided (None where a model's
    /// hints took part: not kept).
    pub fn settle_cached(&mut self, env: &AssessmentInputs, cache: Option<&Settled>) -> Option<Settled> {
        self.learn_noise();
        let inputs = env.model.is_none().then(|| self.assessment_inputs(env.warm));
        match (inputs, cache) {
            (Some(h), Some(c)) if c.inputs == h && c.decided.len() == self.len() && c.want.len() == self.counts.len() => {
                self.restore(c);
                Some(c.clone())
            }
            _ => {
                self.reassess_all(env);
                inputs.map(|h| self.settled(h))
            }
        }
    }

    /// A hash of everything assessing every vector reads: keys, counts and retained
    /// measurements, the counters it adds to, the noise, the parameters, the unavailable
    /// variants and which variants are warm.
    fn assessment_inputs(&self, warm: &dyn Fn(usize) -> bool) -> u64 {
        let how = format!("{:?}|{:?}", self.params, self.off);
        let mut h = how.bytes().fold(FNV_OFFSET, |h, b| mix(h, b as u64));
        for w in [self.nv, self.len(), self.keys.len(), self.decisions as usize, self.extras as usize, self.measured_pairs as usize] {
            h = mix(h, w as u64);
        }
        h = (0..self.nv).fold(h, |h, v| mix(h, warm(v) as u64));
        h = self.keys.iter().fold(h, |h, x| mix(h, x.to_bits()));
        h = self.counts.iter().fold(h, |h, c| mix(h, (c.count as u64) << 32 | (c.kept as u64) << 8 | c.flags as u64));
        for r in &self.recs {
            h = mix(h, (r.key_off as u64) << 32 | (r.nf as u64) << 16 | r.flags as u64);
            h = r.times.iter().fold(h, |h, t| mix(h, (t.ns.to_bits() as u64) << 32 | (t.v as u64) << 1 | t.cold as u64));
        }
        h = mix(mix(h, self.noise_len as u64), self.noise_at as u64);
        self.noise.iter().fold(h, |h, d| mix(h, d.to_bits() as u64))
    }

    /// What the assessment just made decided (see [`Settled`]).
    fn settled(&self, inputs: u64) -> Settled {
        Settled {
            inputs,
            decided: self.recs.iter().map(|r| r.decided).collect(),
            alive: self.recs.iter().map(|r| r.alive).collect(),
            want: self.counts.iter().map(|c| c.want).collect(),
            counted: self.counted as u64,
            decided_n: self.decided as u64,
            decisions: self.decisions,
            extras: self.extras,
        }
    }

    /// Puts the table in the state the assessment `c` describes left it.
    fn restore(&mut self, c: &Settled) {
        for (r, (&d, &a)) in self.recs.iter_mut().zip(c.decided.iter().zip(&c.alive)) {
            r.decided = d;
            r.alive = a;
        }
        for (x, &w) in self.counts.iter_mut().zip(&c.want) {
            x.want = w;
        }
        self.counted = c.counted as usize;
        self.decided = c.decided_n as usize;
        self.decisions = c.decisions;
        self.extras = c.extras;
        self.labels_changed = self.decided > 0;
    }

    /// Assesses every vector afresh (what each wants, or its label) and recounts the training
    /// samples.
    fn reassess_all(&mut self, env: &AssessmentInputs) {
        let p = self.params;
        for i in 0..self.recs.len() {
            let fv = self.fv_mut(i);
            fv.rec.decided = UNDECIDED;
            fv.rec.alive = all_mask(fv.counts.len());
            for c in fv.counts.iter_mut() {
                c.want = 0;
            }
        }
        self.decided = 0;
        let scaled: Vec<f64> = self.keys.iter().map(|&x| log_scale(x)).collect();
        for i in 0..self.recs.len() {
            self.assess_scaled(i, env, Some(&scaled));
        }
        self.counted = (0..self.recs.len()).map(|i| self.fv_mut(i).counted_pairs(&p) as usize).sum();
        self.labels_changed = self.decided > 0;
    }

    /// Changes the exploration parameters and re-derives eliminations and decisions.
    pub fn set_params(&mut self, p: Params, env: &AssessmentInputs) {
        self.params = p;
        self.settle(env);
    }

    /// Whether there is enough to train on: `min_train` training samples and a decided vector.
    pub fn ready(&self, min_train: usize) -> bool {
        self.counted >= min_train && self.decided >= 1
    }

    /// Whether a trained region should train again: labels changed, and by at least an
    /// eighth of the labels it was trained on. Decided vectors keep their own label, so the
    /// model only generalises to new vectors; retraining on every new decision made a region
    /// whose every execution brings a new vector quadratic (thousands of fits per run), while
    /// growth by a fraction keeps the total cost of fits within a constant of the last one.
    pub fn retrain_due(&self) -> bool {
        self.labels_changed && self.decisions - self.decisions_at_training >= (self.labels_at_training as u64 / RETRAIN_GROWTH).max(1)
    }

    /// Takes the training set for a training that starts now.
    pub fn take_labels(&mut self) -> Vec<(FeatureKey, usize)> {
        let labels = self.labels();
        self.labels_changed = false;
        self.decisions_at_training = self.decisions;
        self.labels_at_training = labels.len();
        labels
    }

    /// Counts the current labels as trained on without taking them (a model trained on them
    /// was loaded, or training on them is deferred): [`MeasurementTable::retrain_due`] then
    /// waits for new labels, as after [`MeasurementTable::take_labels`].
    pub fn mark_trained(&mut self) {
        self.labels_changed = false;
        self.decisions_at_training = self.decisions;
        self.labels_at_training = self.decided;
    }

    /// The table a new process builds from what this one saves (every pair's count and
    /// retained measurements, the vectors seen), assessed as that process's start-up assesses
    /// it (`warm`: nothing has run there). What a model trained at exit is trained on, so that
    /// it is the model the next run would train at its start-up. `runs`: coarse mode's totals
    /// of this run (vector, variant, ns), which the next run loads as one measurement each
    /// after the rest.
    pub fn reloaded(&self, runs: &[(FeatureKey, usize, f64)], warm: &dyn Fn(usize) -> bool) -> MeasurementTable {
        let mut t = MeasurementTable::new(self.nv, self.params, 0);
        t.rng = self.rng.clone();
        // the next process on this machine makes the same variants unavailable before it
        // takes in the data (same-team variants), so its labels are assessed without them
        t.off = self.off_from_start.clone();
        for i in 0..self.len() {
            let key = self.key(i);
            for v in 0..self.nv {
                let count = self.counts[i * self.nv + v].count;
                let kept = || self.recs[i].times.iter().filter(move |s| s.v as usize == v);
                let warm_ns: Vec<f64> = kept().filter(|s| !s.cold).map(|s| s.ns as f64).collect();
                let cold_ns: Vec<f64> = kept().filter(|s| s.cold).map(|s| s.ns as f64).collect();
                t.absorb(&key, v, count as u64, &warm_ns, &cold_ns, false);
            }
        }
        for (key, v, ns) in runs {
            t.absorb(key, *v, 1, &[*ns], &[], false);
        }
        t.seen = self.seen.clone();
        t.settle(&AssessmentInputs { warm, model: None });
        t
    }

    /// A fingerprint of the data: every measured (feature vector, variant) pair with its count
    /// of measurements, in no particular order (the pairs a save writes: finite vectors). A
    /// pair's count only grows, so a new measurement anywhere changes it; a run that loads
    /// what another saved, with nothing measured since, computes the fingerprint that run had
    /// after its save.
    pub fn fingerprint(&self) -> u64 {
        let mut pairs: Vec<(u64, u32, u32)> = Vec::new();
        for i in 0..self.len() {
            let values = self.key(i).values();
            if values.iter().any(|x| !x.is_finite()) {
                continue;
            }
            let h = values.iter().fold(FNV_OFFSET, |h, x| fnv_word(h, x.to_bits()));
            for v in 0..self.nv {
                let c = self.counts[i * self.nv + v].count;
                if c > 0 {
                    pairs.push((h, v as u32, c));
                }
            }
        }
        pairs.sort_unstable();
        pairs.iter().fold(fnv_word(FNV_OFFSET, pairs.len() as u64), |h, &(k, v, c)| fnv_word(fnv_word(h, k), (v as u64) << 32 | c as u64))
    }

    /// The training set: every decided vector and its label.
    pub fn labels(&self) -> Vec<(FeatureKey, usize)> {
        (0..self.len()).filter_map(|i| self.recs[i].decided().map(|l| (self.key(i), l))).collect()
    }

    /// Labels for an explicit training call: decided vectors, else every vector whose variants
    /// all have a measurement (lowest estimate).
    pub fn labels_for_explicit_training(&self) -> Vec<(FeatureKey, usize)> {
        let l = self.labels();
        if !l.is_empty() {
            return l;
        }
        (0..self.len()).filter_map(|i| self.label_any(i).map(|l| (self.key(i), l))).collect()
    }

    /// The label of vector `i` when every variant has a measurement (data pooled from other
    /// ranks carries no exploration state): lowest estimate.
    pub fn label_any(&self, i: usize) -> Option<usize> {
        let all: Vec<usize> = (0..self.nv).filter(|&v| self.available(v)).collect();
        self.recs[i].label_among(&all, Labeling::Median)
    }

    /// Every retained measurement: (feature vector, variant, ns).
    pub fn rows(&self) -> Vec<(FeatureKey, usize, f64)> {
        let mut out = Vec::new();
        for i in 0..self.len() {
            let k = self.key(i);
            out.extend(self.recs[i].times.iter().map(|s| (k, s.v as usize, s.ns as f64)));
        }
        out
    }

    /// The robust time of every measured (feature vector, variant) pair: the lower quartile of
    /// its warm measurements, else of its cold ones (what models and the time model learn).
    pub fn medians(&self) -> Vec<(FeatureKey, usize, f64)> {
        let mut out = Vec::new();
        for i in 0..self.len() {
            let k = self.key(i);
            for v in 0..self.nv {
                if let Some((m, _)) = self.recs[i].estimate(v) {
                    out.push((k, v, m));
                }
            }
        }
        out
    }

    /// For persistence: per (vector, variant) the measurements newer than the last save. They
    /// stay unsaved until [`MeasurementTable::mark_saved`] (a failed write loses nothing).
    pub fn unsaved(&self) -> Vec<Unsaved> {
        let mut out = Vec::new();
        for i in 0..self.len() {
            for v in 0..self.nv {
                let c = self.counts[i * self.nv + v];
                let new = c.count.saturating_sub(c.saved);
                if new == 0 {
                    continue;
                }
                // the newest `new` retained measurements, split by kind (oldest first)
                let mine: Vec<&crate::explore::Sample> = self.recs[i].times.iter().filter(|s| s.v as usize == v).collect();
                let take = &mine[mine.len().saturating_sub(new as usize)..];
                out.push(Unsaved {
                    key: self.key(i),
                    variant: v,
                    count: new,
                    warm: take.iter().filter(|s| !s.cold).map(|s| s.ns as f64).collect(),
                    cold: take.iter().filter(|s| s.cold).map(|s| s.ns as f64).collect(),
                    fresh: c.flags & FRESH != 0,
                    at: c.count,
                });
            }
        }
        out
    }

    /// Marks what [`MeasurementTable::unsaved`] returned as saved.
    pub fn mark_saved(&mut self, saved: &[Unsaved]) {
        for u in saved {
            if let Some(i) = self.find(&u.key) {
                let c = &mut self.counts[i * self.nv + u.variant];
                c.saved = c.saved.max(u.at);
                if u.fresh {
                    c.flags &= !FRESH;
                }
            }
        }
    }

    /// Coarse mode: the variant of vector `key` with the fewest recorded runs (lowest index on
    /// ties).
    pub fn least_measured(&mut self, key: &FeatureKey) -> usize {
        let i = self.fv(key);
        let c = self.counts(i);
        (0..c.len()).filter(|&v| self.available(v)).min_by_key(|&v| c[v].count).unwrap_or(0)
    }

    /// Drift: vector `key` is measured afresh (its retained measurements no longer describe
    /// its costs; the files keep them) and labelled again. Returns its previous label.
    pub fn reopen(&mut self, key: &FeatureKey) -> Option<usize> {
        let i = self.find(key)?;
        let p = self.params;
        let before = self.fv_mut(i).counted_pairs(&p);
        let old = self.recs[i].decided();
        self.fv_mut(i).reopen();
        let after = self.fv_mut(i).counted_pairs(&p);
        self.counted = (self.counted as i64 + after as i64 - before as i64).max(0) as usize;
        if old.is_some() {
            self.decided -= 1;
        }
        old
    }

    /// Retained measurements (the "stored samples" of the memory figure).
    pub fn stored_samples(&self) -> usize {
        self.recs.iter().map(|r| r.times.len()).sum()
    }

    /// Heap bytes of the stored data: records, sample lists, key and counter arenas, index
    /// (allocated capacities; the hash index as hashbrown lays it out: a bucket and a control
    /// byte per slot, buckets a power of two at most 7/8 full).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let buckets = if self.index.is_empty() { 0 } else { (self.index.capacity() * 8 / 7).next_power_of_two() };
        self.recs.capacity() * size_of::<VectorRecord>()
            + self.recs.iter().map(|r| r.times.capacity() * size_of::<crate::explore::Sample>()).sum::<usize>()
            + self.keys.capacity() * 8
            + self.counts.capacity() * size_of::<Counts>()
            + self.spill.capacity() * 4
            + buckets * (size_of::<(u32, u32)>() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::{Labeling, Strategy, ADAPTIVE};

    /// A table as a process loads it: vectors decided, tied, measured once, cold only.
    fn loaded(p: Params, off: Option<usize>) -> MeasurementTable {
        let mut t = MeasurementTable::new(3, p, 7);
        if let Some(v) = off {
            t.set_unavailable(v, &AssessmentInputs::NONE);
        }
        for i in 0..40u32 {
            let k = FeatureKey::new(&[f64::from(1 + i * 3), f64::from(i % 4)]);
            // every sixth vector lacks a variant's measurement: undecided
            for v in 0..if i % 6 == 1 { 2 } else { 3 } {
                let base = 1000.0 * (1.0 + ((i as usize + v) % 3) as f64) * if i % 5 == 0 { 1.0 + v as f64 * 0.01 } else { 1.0 };
                let warm: Vec<f64> = (0..(i % 4) as usize).map(|j| base * (1.0 + 0.03 * j as f64)).collect();
                let cold = if i % 7 == 0 { vec![base * 5.0] } else { vec![] };
                t.absorb(&k, v, (warm.len() + cold.len()) as u64, &warm, &cold, false);
            }
        }
        t
    }

    /// Restoring a kept assessment leaves the table exactly as assessing does (every field:
    /// labels, wants, candidates, counters), and it goes on deciding and exploring alike; a
    /// table whose inputs differ (a measurement more, another warm state, an unavailable
    /// variant) assesses instead.
    #[test]
    fn a_restored_assessment_is_the_assessment() {
        let cold = |_: usize| false;
        let env = AssessmentInputs { warm: &cold, model: None };
        for p in [
            Params { repeats: 1, ..Params::default() },
            Params { repeats: ADAPTIVE, ..Params::default() },
            Params { repeats: 3, strategy: Strategy::Elimination, ..Params::default() },
        ] {
            let mut eager = loaded(p, None);
            let kept = eager.settle_cached(&env, None).expect("no model: kept");
            assert!(
                kept.decided_n > 0 && kept.decided.iter().any(|&d| d == crate::explore::UNDECIDED),
                "{p:?}: decided and undecided vectors"
            );
            let mut lazy = loaded(p, None);
            assert_eq!(lazy.settle_cached(&env, Some(&kept)), Some(kept.clone()));
            assert_eq!(format!("{lazy:?}"), format!("{eager:?}"), "{p:?}: restored as assessed");
            for i in 0..200u32 {
                let k = FeatureKey::new(&[f64::from(1 + (i % 50) * 3), f64::from(i % 4)]);
                let (ve, ie) = eager.choose(&k);
                let (vl, il) = lazy.choose(&k);
                assert_eq!((ve, ie), (vl, il));
                eager.record_at(ie, ve, 900.0 + f64::from(i), false, &env);
                lazy.record_at(il, vl, 900.0 + f64::from(i), false, &env);
            }
            assert_eq!(format!("{lazy:?}"), format!("{eager:?}"), "{p:?}: explored alike");
            assert_eq!(lazy.labels(), eager.labels());
            // other inputs: assessed, not restored
            let warm = |_: usize| true;
            let other_env = AssessmentInputs { warm: &warm, model: None };
            let mut more = loaded(p, None);
            more.absorb(&FeatureKey::new(&[1.0, 0.0]), 0, 1, &[5.0], &[], false);
            let mut off = loaded(p, Some(2));
            for (t, e, what) in
                [(&mut more, &env, "a measurement more"), (&mut off, &env, "unavailable"), (&mut loaded(p, None), &other_env, "warm")]
            {
                let again = t.settle_cached(e, Some(&kept)).unwrap();
                assert_ne!(again.inputs, kept.inputs, "{what}");
            }
        }
    }

    /// A variant unavailable before any vector was measured (a host region's share that gives
    /// the same team as another variant) counts as done in every new vector: the vector's
    /// training samples reach the variant count once the available variants are measured.
    #[test]
    fn unavailable_variants_count_in_new_vectors() {
        let mut s = MeasurementTable::new(3, Params { repeats: 1, ..Params::default() }, 1);
        assert!(s.set_unavailable(1, &AssessmentInputs::NONE));
        let a = FeatureKey::new(&[1.0]);
        s.record(&a, 0, 5.0);
        s.record(&a, 2, 9.0);
        assert_eq!((s.counted, s.decided), (3, 1));
        assert!(s.ready(3));
    }

    /// A variant made unavailable before any data (a host region's same-team variant, known
    /// at creation) is unavailable in the table the next process builds, so the model
    /// trained at exit has the labels that process assesses; one found unavailable once data
    /// was in (a launch's guard) is not: the next process runs it until it finds out again.
    #[test]
    fn the_next_process_knows_only_variants_unavailable_from_the_start() {
        let warm = |_: usize| true;
        let env = AssessmentInputs { warm: &warm, model: None };
        let p = Params { repeats: 1, ..Params::default() };
        let a = FeatureKey::new(&[1.0]);
        let mut start = MeasurementTable::new(3, p, 1);
        assert!(start.set_unavailable(1, &env));
        start.record(&a, 0, 9.0);
        start.record(&a, 2, 5.0);
        let next = start.reloaded(&[], &warm);
        assert!(!next.available(1) && next.available(0) && next.available(2));
        assert_eq!(next.labels(), start.labels());
        let mut later = MeasurementTable::new(3, p, 1);
        for v in 0..3 {
            later.record(&a, v, 5.0 + v as f64);
        }
        assert!(later.set_unavailable(1, &env));
        assert!((0..3).all(|v| later.reloaded(&[], &warm).available(v)));
    }

    /// Assessing every vector with the features scaled once decides as assessing each alone.
    #[test]
    fn assessing_all_at_once_decides_as_one_at_a_time() {
        let p = Params { repeats: 2, ..Params::default() };
        let loaded = || {
            let mut t = MeasurementTable::new(3, p, 5);
            for f in 0..40 {
                let key = FeatureKey::new(&[f as f64, (f % 5) as f64 * 1e6, -3.0]);
                for v in 0..3 {
                    let ns = |r: usize| 1000.0 * (1.0 + ((f * 7 + v * 3 + r) % 11) as f64 / 20.0);
                    t.absorb(&key, v, 2, &[ns(0), ns(1)], &[], false);
                }
            }
            t
        };
        let state = |t: &MeasurementTable| {
            (0..t.len()).map(|i| (t.rec(i).decided(), t.counts(i).iter().map(|c| c.want).collect::<Vec<_>>())).collect::<Vec<_>>()
        };
        let mut all = loaded();
        all.settle(&AssessmentInputs::NONE);
        let mut one = loaded();
        one.learn_noise();
        for i in 0..one.len() {
            one.assess(i, &AssessmentInputs::NONE);
        }
        assert!(all.decided > 0);
        assert_eq!(state(&all), state(&one));
        assert_eq!(all.extras, one.extras);
    }

    #[test]
    fn counts_pairs_and_decisions() {
        let mut s = MeasurementTable::new(2, Params { repeats: 2, ..Params::default() }, 1);
        let a = FeatureKey::new(&[1.0]);
        let b = FeatureKey::new(&[2.0]);
        for (k, v, t) in [(a, 0, 5.0), (a, 1, 9.0), (b, 0, 5.0)] {
            s.record(&k, v, t);
        }
        assert_eq!((s.counted, s.decided), (0, 0));
        s.record(&a, 0, 6.0);
        s.record(&a, 1, 8.0);
        assert_eq!((s.counted, s.decided), (2, 1));
        assert!(s.ready(2) && !s.ready(3));
        assert_eq!(s.labels(), vec![(a, 0)]);
        assert_eq!(s.rows().len(), 5);
        s.absorb(&b, 1, 4, &[1.0, 2.0], &[], false);
        assert_eq!(s.counts(1)[1], Counts { count: 4, saved: 4, kept: 2, want: 0, flags: 0 });
        s.settle(&AssessmentInputs::NONE);
        assert_eq!(s.counted, 3);
        assert_eq!(s.key(1), b);
        assert!(s.key_matches(1, &[2.0]) && !s.key_matches(1, &[1.0]));
        let unsaved = s.unsaved();
        assert_eq!(unsaved.len(), 3, "b/1 was loaded");
        assert_eq!(s.unsaved().len(), 3, "nothing is saved until marked");
        s.mark_saved(&unsaved);
        assert!(s.unsaved().is_empty());
    }

    /// Retraining waits until the labels grew by an eighth of those the model was trained on.
    #[test]
    fn retraining_waits_for_a_fraction_of_new_labels() {
        let mut s = MeasurementTable::new(2, Params { repeats: 1, ..Params::default() }, 1);
        let decide = |s: &mut MeasurementTable, x: f64| {
            let k = FeatureKey::new(&[x]);
            s.record(&k, 0, 5.0);
            s.record(&k, 1, 9.0);
        };
        decide(&mut s, 0.0);
        assert!(s.retrain_due());
        assert_eq!(s.take_labels().len(), 1);
        assert!(!s.retrain_due());
        decide(&mut s, 1.0);
        assert!(s.retrain_due(), "a small training set retrains at every new label");
        for x in 2..24 {
            decide(&mut s, x as f64);
        }
        assert_eq!(s.take_labels().len(), 24);
        for x in 24..26 {
            decide(&mut s, x as f64);
            assert!(!s.retrain_due(), "{x}: 24 labels wait for 3 new ones");
        }
        decide(&mut s, 26.0);
        assert!(s.retrain_due());
    }

    /// Adaptive (the default): a pair counts from its first measurement; a vector is decided
    /// after one pass when its two fastest are clearly apart.
    #[test]
    fn one_pass_decides_clear_vectors() {
        let mut s = MeasurementTable::new(3, Params::default(), 1);
        assert_eq!(s.params.repeats, ADAPTIVE);
        let a = FeatureKey::new(&[1.0]);
        for (v, t) in [(0, 30_000.0), (1, 10_000.0), (2, 90_000.0)] {
            s.record(&a, v, t);
        }
        assert_eq!((s.counted, s.decided), (3, 1));
        assert_eq!(s.labels(), vec![(a, 1)]);
        // close, and the neighbour's label loses: it is measured again first, then both
        let b = FeatureKey::new(&[2.0]);
        for (v, t) in [(0, 10_000.0), (1, 10_500.0), (2, 90_000.0)] {
            s.record(&b, v, t);
        }
        let i = s.find(&b).unwrap();
        assert_eq!(s.rec(i).decided(), None);
        assert_eq!(s.counts(i).iter().map(|c| c.want).collect::<Vec<_>>(), vec![0, 1, 0]);
        s.record(&b, 1, 10_400.0);
        assert_eq!(s.rec(i).decided(), None, "still within the noise");
        assert_eq!(s.counts(i).iter().map(|c| c.want).collect::<Vec<_>>(), vec![1, 1, 0]);
    }

    #[test]
    fn strategy_change_rederives() {
        let mut s = MeasurementTable::new(3, Params { repeats: 3, ..Params::default() }, 1);
        let a = FeatureKey::new(&[1.0]);
        for _ in 0..2 {
            for (v, t) in [(0, 10.0), (1, 100.0), (2, 100.0)] {
                s.record(&a, v, t);
            }
        }
        assert_eq!(s.decided, 0);
        s.set_params(Params { strategy: Strategy::Elimination, repeats: 3, ..Params::default() }, &AssessmentInputs::NONE);
        assert_eq!((s.decided, s.counted), (1, 3), "b and c eliminated: a is the label");
        assert_eq!(s.labels(), vec![(a, 0)]);
        let _ = Labeling::Median;
    }

    #[test]
    fn hash_collisions_are_kept_apart() {
        let mut s = MeasurementTable::new(2, Params::default(), 1);
        let a = FeatureKey::new(&[1.0]);
        let b = FeatureKey::new(&[2.0]);
        let ia = s.fv(&a);
        // force b into the spill list as if it collided with a
        s.recs.push(VectorRecord { key_off: s.keys.len() as u32, nf: 1, flags: 0, decided: UNDECIDED, alive: 3, times: vec![] });
        s.keys.push(2.0);
        s.counts.extend([Counts::default(); 2]);
        s.spill.push(1);
        assert_eq!(s.find(&a), Some(ia));
        assert_eq!(s.find(&b), None, "b's hash is not in the index");
        s.index.insert(MeasurementTable::hash32(&b), ia as u32); // b's hash points at a: must fall back to spill
        assert_eq!(s.find(&b), Some(1));
    }

    /// The memory figure: bytes per stored sample at a few shapes (2 features).
    #[test]
    fn memory_per_stored_sample() {
        for (nv, repeats, fvs, limit) in [(2usize, 1u32, 1000usize, 64.0), (4, 1, 1000, 64.0), (4, 3, 1000, 32.0)] {
            let mut s = MeasurementTable::new(nv, Params { repeats, ..Params::default() }, 1);
            for f in 0..fvs {
                for _ in 0..repeats {
                    for v in 0..nv {
                        s.record(&FeatureKey::new(&[f as f64, 8.0]), v, 1000.0 * (v + 1) as f64);
                    }
                }
            }
            let per = s.heap_bytes() as f64 / s.stored_samples() as f64;
            assert!(per <= limit, "{nv} variants × {repeats}: {per:.1} bytes per stored sample");
        }
    }

    /// A noise estimate from disagreeing repeated measurements.
    #[test]
    fn noise_is_learned_from_repeated_measurements() {
        let mut s = MeasurementTable::new(2, Params { repeats: 4, ..Params::default() }, 1);
        assert_eq!(s.sigma(), PRIOR_SIGMA);
        let mut r = XorShift::new(3);
        for f in 0..20 {
            for _ in 0..4 {
                for v in 0..2 {
                    let jitter = 1.0 + (r.below(1001) as f64 - 500.0) / 10_000.0; // ±5 %
                    s.record(&FeatureKey::new(&[f as f64]), v, 10_000.0 * (v + 1) as f64 * jitter);
                }
            }
        }
        let sigma = s.sigma();
        assert!((0.01..0.06).contains(&sigma), "{sigma}");
    }
}

#[cfg(test)]
mod strategy_tests {
    use super::*;
    use crate::explore::Strategy;

    /// Explores 12 vectors × 4 variants with `strategy` until all are decided; times from
    /// `cost` with ±3 % noise and 1 measurement in 50 preempted (×20). Returns (exploring
    /// executions, decisions).
    fn run(strategy: Strategy, repeats: u32, cost: &dyn Fn(usize, usize) -> f64) -> (usize, Vec<usize>) {
        let mut s = MeasurementTable::new(4, Params { strategy, repeats, ..Params::default() }, 7);
        let mut noise = XorShift::new(99);
        let keys: Vec<FeatureKey> = (0..12).map(|f| FeatureKey::new(&[f as f64])).collect();
        let mut n = 0;
        while s.decided < 12 {
            for (f, k) in keys.iter().enumerate() {
                if s.find(k).and_then(|i| s.rec(i).decided()).is_some() {
                    continue;
                }
                let (v, _) = s.choose(k);
                let jitter = 1.0 + (noise.below(601) as f64 - 300.0) / 10_000.0;
                let preempt = if noise.below(50) == 0 { 20.0 } else { 1.0 };
                s.record(k, v, cost(f, v) * jitter * preempt);
                n += 1;
            }
            assert!(n < 100_000);
        }
        (n, keys.iter().map(|k| s.rec(s.find(k).unwrap()).decided().unwrap()).collect())
    }

    /// On controlled cost models with noise and preemptions, every strategy reaches
    /// round-robin's decisions (which are the true best variants), and successive elimination
    /// needs fewer exploring executions.
    #[test]
    fn strategies_reach_the_same_decisions() {
        let separated = |f: usize, v: usize| 10_000.0 * (1 + (v + 4 - f % 4) % 4) as f64;
        let threads = |f: usize, v: usize| {
            let t = [1.0, 2.0, 4.0, 8.0][v];
            2_000.0 * (1 + f) as f64 / f64::min(t, 2.0) + 3_000.0 * t
        };
        type Cost<'a> = &'a dyn Fn(usize, usize) -> f64;
        let models: [(Cost, &str); 2] = [(&separated, "separated"), (&threads, "threads")];
        for (cost, name) in models {
            // the chosen variants are the best, or tied with it (within the 3 % noise)
            let right = |d: &[usize], what: &str| {
                for (f, &v) in d.iter().enumerate() {
                    let best = (0..4).map(|u| cost(f, u)).fold(f64::INFINITY, f64::min);
                    assert!(cost(f, v) <= best * 1.03, "{name}, {what}: vector {f} chose {v}: {d:?}");
                }
            };
            for repeats in [3, 5] {
                let rr = run(Strategy::RoundRobin, repeats, &cost);
                let rnd = run(Strategy::Random, repeats, &cost);
                let se = run(Strategy::Elimination, repeats, &cost);
                right(&rr.1, &format!("{repeats} repeats, round-robin"));
                right(&rnd.1, &format!("{repeats} repeats, random"));
                right(&se.1, &format!("{repeats} repeats, elimination"));
                assert_eq!(rr.0, 12 * 4 * repeats as usize);
                assert!(se.0 * 10 <= rr.0 * 7, "{name}, {repeats}: elimination {} vs round-robin {}", se.0, rr.0);
            }
            let adaptive = run(Strategy::RoundRobin, crate::explore::ADAPTIVE, &cost);
            right(&adaptive.1, "adaptive repetition");
            assert!(adaptive.0 <= 12 * 4 * 3 / 2, "{name}: adaptive took {} measurements", adaptive.0);
        }
    }
}
