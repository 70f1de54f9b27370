//! Inputs sized to be measured: how many steps (the kernel's second argument) each kernel runs
//! at each input, so that a run's measured part — all steps but the first — takes at least the
//! target time (20 ms by default) with the fastest variant, on the machine it runs on. A run
//! shorter than that is decided by the machine's interruptions rather than by the variants.
//!
//! The steps are measured, not guessed: each input runs every variant pinned at the kernel's
//! fewest steps, then the fastest variants again at the steps that should reach the target
//! (with a margin), until the fastest one does. They are kept in a JSON file per machine (CPU,
//! cores, offload target, GPU, build flags; see `machine`), kernel and input, which later runs
//! on the same machine read; another machine, another target time or an input the file does
//! not have is measured and added.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use indicatif::ProgressBar;
use serde_json::{json, Map, Value};

use super::kernels::Kernel;
use super::machine::{load_average, Machine};
use super::measure::fastest;
use super::runner;

/// The measured part a run should reach, by default: 20 ms.
pub const DEFAULT_TARGET_MS: f64 = 20.0;
/// No kernel runs more steps than this.
const MAX_STEPS: u64 = 5_000_000;
/// Rounds of probing an input before its last step count is taken.
const ROUNDS: usize = 4;
/// Steps are sized for this much more than the target: the fastest run of a later measurement
/// may be faster than the probe's.
const MARGIN: f64 = 1.25;
const FORMAT: &str = "ompadapt-bench-calibration";

/// One input's steps and what the calibration measured with them.
#[derive(Clone, Debug)]
pub struct Sized {
    pub steps: u64,
    /// The fastest variant's measured part at those steps, s.
    pub measured_s: f64,
    pub fastest: String,
    /// The load average when it was measured.
    pub load: f64,
}

/// The calibration file, and this machine's part of it.
pub struct Calibration {
    path: PathBuf,
    doc: Value,
    machine: Value,
    target_s: f64,
    /// What was measured in this process (the rest came from the file).
    pub measured: Vec<(String, u64, Sized)>,
}

impl Calibration {
    /// Reads `path` (a missing file is an empty calibration); `target_ms`: the measured part
    /// the steps must reach.
    pub fn load(path: &Path, machine: &Machine, target_ms: f64) -> Result<Calibration> {
        if !(target_ms.is_finite() && target_ms > 0.0) {
            bail!("--target-ms: {target_ms} is not a positive time in ms");
        }
        let doc = match std::fs::read_to_string(path) {
            Ok(text) => {
                let doc: Value = serde_json::from_str(&text).with_context(|| format!("{}: not a calibration file", path.display()))?;
                if doc["format"] != FORMAT {
                    bail!("{}: not a calibration file (no \"format\": \"{FORMAT}\")", path.display());
                }
                doc
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => json!({"format": FORMAT, "version": 1, "machines": []}),
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
        };
        Ok(Calibration { path: path.to_owned(), doc, machine: machine.key(), target_s: target_ms / 1e3, measured: Vec::new() })
    }

    pub fn target_s(&self) -> f64 {
        self.target_s
    }

    /// This machine's kernels, `{kernel: {input: {steps, target_s, ...}}}`.
    fn kernels(&self) -> Option<&Map<String, Value>> {
        self.doc["machines"].as_array()?.iter().find(|m| m["machine"] == self.machine)?["kernels"].as_object()
    }

    /// The steps the file has for `kernel` at `input` on this machine, for this target.
    pub fn steps(&self, kernel: &str, input: u64) -> Option<u64> {
        let e = self.kernels()?.get(kernel)?.get(input.to_string())?;
        let same_target = e["target_s"].as_f64().is_some_and(|t| (t - self.target_s).abs() < 1e-9);
        e["steps"].as_u64().filter(|_| same_target)
    }

    /// Records what was measured for `kernel` at `input`.
    pub fn record(&mut self, kernel: &str, input: u64, s: &Sized) {
        let machines = self.doc["machines"].as_array_mut().expect("a calibration document has machines");
        let pos = match machines.iter().position(|m| m["machine"] == self.machine) {
            Some(p) => p,
            None => {
                machines.push(json!({"machine": self.machine, "kernels": {}}));
                machines.len() - 1
            }
        };
        let entry = json!({"steps": s.steps, "target_s": self.target_s, "measured_s": s.measured_s, "fastest": s.fastest, "load": s.load});
        machines[pos]["kernels"][kernel][input.to_string()] = entry;
        self.measured.push((kernel.to_owned(), input, s.clone()));
    }

    /// Writes the file (a new file renamed over the old one).
    pub fn save(&self) -> Result<()> {
        let tmp = self.path.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_string_pretty(&self.doc)?).with_context(|| format!("cannot write {}", tmp.display()))?;
        std::fs::rename(&tmp, &self.path).with_context(|| format!("cannot write {}", self.path.display()))
    }
}

/// Probing one built kernel.
pub struct Probe<'a> {
    pub kernel: &'static Kernel,
    pub exe: &'a Path,
    /// Where the probe runs (nothing is stored: `OMPADAPT_PERSIST=0`).
    pub work: &'a Path,
    pub pb: &'a ProgressBar,
}

impl Probe<'_> {
    /// The steps of `kernel` at every input: from the file where it has them (unless
    /// `again`), else measured now and recorded.
    pub fn steps(&self, cal: &mut Calibration, inputs: &[u64], again: bool) -> Result<BTreeMap<u64, u64>> {
        let mut out = BTreeMap::new();
        let mut variants: Option<Vec<String>> = None;
        for &n in inputs {
            let known = if again { None } else { cal.steps(self.kernel.name, n) };
            let steps = match known {
                Some(s) => s,
                None => {
                    if variants.is_none() {
                        variants = Some(self.variants(inputs[0])?);
                    }
                    let sized = self.size(n, cal.target_s, variants.as_deref().unwrap_or_default())?;
                    cal.record(self.kernel.name, n, &sized);
                    sized.steps
                }
            };
            out.insert(n, steps);
        }
        Ok(out)
    }

    /// The variants that run here: those an exploring run executes (a share of the team that
    /// gives the same team as another variant does not).
    fn variants(&self, n: u64) -> Result<Vec<String>> {
        let env = [("OMPADAPT_PERSIST", "0".to_owned()), ("OMPADAPT_EXPLORE_ONLY", "1".to_owned())];
        let o = runner::run(self.exe, n, self.kernel.min_steps.max(20), self.work, &env)?;
        let first = o.decisions.first().map(|(_, c)| c.clone()).unwrap_or_default();
        Ok(first.into_iter().filter(|(_, count)| *count > 0).map(|(v, _)| v).collect())
    }

    /// The steps that make the fastest variant's measured part reach `target_s` at input `n`.
    fn size(&self, n: u64, target_s: f64, variants: &[String]) -> Result<Sized> {
        let k = self.kernel;
        let mut steps = k.min_steps;
        let mut candidates = variants.to_vec();
        let mut last = (f64::NAN, String::new());
        for round in 1..=ROUNDS {
            self.pb.set_message(format!("{} {n}: calibrating ({steps} steps)", k.name));
            let times = self.pinned_times(n, steps, &candidates)?;
            let best = fastest(&times.iter().map(|t| t.1).collect::<Vec<_>>());
            last = times.iter().find(|t| t.1 == best).map(|(v, t)| (*t, v.clone())).unwrap_or((best, String::new()));
            // the last round's steps are kept as measured (the quality table shows a run
            // that stays short), not scaled once more unmeasured
            if best >= target_s || steps >= MAX_STEPS || round == ROUNDS {
                break;
            }
            candidates = contenders(&times, best);
            steps = next_steps(steps, best, target_s);
        }
        Ok(Sized { steps, measured_s: last.0, fastest: last.1, load: load_average() })
    }

    /// The measured part of one run of each variant (every region pinned to it).
    fn pinned_times(&self, n: u64, steps: u64, variants: &[String]) -> Result<Vec<(String, f64)>> {
        variants
            .iter()
            .map(|v| {
                let env = [("OMPADAPT_PERSIST", "0".to_owned()), ("OMPADAPT_VARIANT", v.clone())];
                Ok((v.clone(), runner::run(self.exe, n, steps, self.work, &env)?.steady_s))
            })
            .collect()
    }
}

/// The variants that may still be the fastest at more steps: those within 2x of the fastest
/// at these (a variant's time per step changes little with the number of steps; the first
/// step's one-off costs are outside the measured part).
fn contenders(times: &[(String, f64)], best: f64) -> Vec<String> {
    times.iter().filter(|t| t.1 <= 2.0 * best).map(|t| t.0.clone()).collect()
}

/// The steps to try after `steps` measured `best_s` with the fastest variant: scaled to reach
/// `target_s` with [`MARGIN`] (the measured part grows in proportion to the steps), at least one
/// more, at most [`MAX_STEPS`].
fn next_steps(steps: u64, best_s: f64, target_s: f64) -> u64 {
    let grow = target_s * MARGIN / best_s.max(1e-9);
    ((steps as f64 * grow).ceil() as u64).clamp(steps + 1, MAX_STEPS)
}

/// The calibration as a Markdown table: every input's steps, the fastest variant and its
/// measured part (`ompadapt bench --calibrate`'s output).
pub fn table(cal: &Calibration) -> String {
    let mut t = format!(
        "Calibration ({}): steps per input so that the fastest variant's measured part (all steps but the first) reaches {:.0} ms.\n\n| kernel | input | steps | fastest variant | its measured part | load |\n|---|---|---|---|---|---|\n",
        cal.path.display(),
        cal.target_s * 1e3
    );
    for (k, n, s) in &cal.measured {
        t += &format!("| {k} | {n} | {} | {} | {:.1} ms | {:.1} |\n", s.steps, s.fastest, s.measured_s * 1e3, s.load);
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine(targets: &str) -> Machine {
        Machine { cpu: "cpu".into(), cores: 2, targets: targets.into(), gpu: None, build: String::new() }
    }

    #[test]
    fn steps_grow_in_proportion_to_reach_the_target_with_a_margin() {
        // 20 steps measured 4 ms: 20 ms needs 100 steps, 125 with the margin
        assert_eq!(next_steps(20, 0.004, 0.020), 125);
        // already past the target (a noisy probe): still one more, never fewer
        assert_eq!(next_steps(20, 0.040, 0.020), 21);
        // a run too fast to time is bounded
        assert_eq!(next_steps(20, 0.0, 0.020), MAX_STEPS);
        assert_eq!(next_steps(MAX_STEPS - 1, 0.001, 0.020), MAX_STEPS);
    }

    #[test]
    fn only_variants_within_twice_the_fastest_are_probed_again() {
        let times = vec![("serial".to_owned(), 0.010), ("threads=1".to_owned(), 0.006), ("schedule=dynamic,16".to_owned(), 0.013)];
        assert_eq!(contenders(&times, 0.006), vec!["serial".to_owned(), "threads=1".to_owned()]);
    }

    #[test]
    fn steps_are_kept_per_machine_and_target() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("calibration.json");
        let mut c = Calibration::load(&path, &machine("x86_64-pc-linux-gnu"), 20.0).unwrap();
        assert_eq!(c.steps("heat2d", 32), None);
        c.record("heat2d", 32, &Sized { steps: 400, measured_s: 0.021, fastest: "cpu".into(), load: 1.0 });
        c.save().unwrap();
        let again = Calibration::load(&path, &machine("x86_64-pc-linux-gnu"), 20.0).unwrap();
        assert_eq!(again.steps("heat2d", 32), Some(400));
        assert_eq!(again.steps("heat2d", 64), None);
        assert_eq!(Calibration::load(&path, &machine("nvptx64"), 20.0).unwrap().steps("heat2d", 32), None, "another target");
        assert_eq!(Calibration::load(&path, &machine("x86_64-pc-linux-gnu"), 40.0).unwrap().steps("heat2d", 32), None, "another time");
        std::fs::write(&path, "{}").unwrap();
        assert!(Calibration::load(&path, &machine("x86_64-pc-linux-gnu"), 20.0).is_err());
    }
}
