//! What the harness reads from a run's JSON report (`OMPADAPT_REPORT=json:<file>`, the runtime's
//! `RegionReport`): per region, its executions, the exploring and model-chosen ones, the time of
//! one execution of each variant on the run's feature vector, drifts, training and the variants
//! that could not run here. The excess of an adaptive run over the static run of its choice is
//! explained from these facts (`excess`).

use std::path::Path;

use anyhow::{anyhow, Context, Result};
use serde_json::Value;

/// One region's facts in one run.
#[derive(Clone, Debug, Default)]
pub struct RegionFacts {
    pub region: String,
    /// Executions that reached their end.
    pub executions: u64,
    /// Of those, the ones recorded by exploration (in this run; re-measurements after a drift
    /// included).
    pub exploring: u64,
    /// Per variant: executions the model chose in this run.
    pub model_runs: Vec<u64>,
    /// Model-chosen executions that were timed (one in `OMPADAPT_SAMPLE`).
    pub model_timed: u64,
    /// Per variant: median time of one execution on the run's feature vector, ns (NaN: none
    /// measured). A frozen run's come from the stored measurements it loaded.
    pub per_execution_ns: Vec<f64>,
    /// Drifts detected (each re-measures its feature vector's variants).
    pub drifts: usize,
    /// Times the region trained again in this run.
    pub retrains: u32,
    /// Fitting time of the model in force, ns, when this run trained it after its start
    /// (online or retrained; 0 for a stored model, one trained at start-up from saved data in
    /// coarse mode, or one trained at exit: after the run's last step, in no measured step).
    pub train_ns_in_run: f64,
    /// Variants that could not run here, with why (`threads=0.5`: the same team as `serial`).
    pub unavailable: Vec<(String, String)>,
}

/// Every region's facts in one run, in the report's order.
#[derive(Clone, Debug, Default)]
pub struct RunReport {
    pub regions: Vec<RegionFacts>,
}

impl RunReport {
    /// The facts of region `name`.
    pub fn region(&self, name: &str) -> Option<&RegionFacts> {
        self.regions.iter().find(|r| r.region == name)
    }
}

/// Reads the report a run wrote.
pub fn read(path: &Path) -> Result<RunReport> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    parse(&text)
}

/// Parses a report's JSON text.
pub fn parse(text: &str) -> Result<RunReport> {
    let doc: Value = serde_json::from_str(text)?;
    let regions = doc["regions"].as_array().ok_or_else(|| anyhow!("no 'regions' in the report"))?;
    Ok(RunReport { regions: regions.iter().map(region_facts).collect() })
}

fn region_facts(r: &Value) -> RegionFacts {
    let variants: Vec<String> = strings(&r["variants"]);
    let count = |v: &Value| v.as_u64().unwrap_or(0);
    let timings = r["timings"].as_array().cloned().unwrap_or_default();
    // the run's feature vector: the one its model chose most often (a frozen run holds the
    // stored vectors of other runs too), else the one explored most
    let vector = timings
        .iter()
        .max_by_key(|t| (count(&t["model_runs"]), count(&t["exploring_runs"])))
        .map(|t| t["features"].clone())
        .unwrap_or(Value::Null);
    let mut model_runs = vec![0; variants.len()];
    let mut per_execution_ns = vec![f64::NAN; variants.len()];
    let mut model_timed = 0;
    for t in &timings {
        let Some(v) = variants.iter().position(|n| t["variant"].as_str() == Some(n)) else { continue };
        model_runs[v] += count(&t["model_runs"]);
        model_timed += count(&t["model_timed"]);
        if t["features"] == vector {
            per_execution_ns[v] = t["median_ns"].as_f64().unwrap_or(f64::NAN);
        }
    }
    let model = &r["model"];
    let trained_here = matches!(model["source"].as_str(), Some("online" | "retrained"));
    RegionFacts {
        region: r["region"].as_str().unwrap_or_default().to_owned(),
        executions: count(&r["executions"]),
        exploring: count(&r["exploring"]),
        model_runs,
        model_timed,
        per_execution_ns,
        drifts: r["drift"].as_array().map_or(0, Vec::len),
        retrains: count(&r["retrains"]) as u32,
        train_ns_in_run: if trained_here { model["train_ns"].as_f64().unwrap_or(0.0) } else { 0.0 },
        unavailable: r["unavailable"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|u| (u["variant"].as_str().unwrap_or_default().to_owned(), u["reason"].as_str().unwrap_or_default().to_owned()))
            .collect(),
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().into_iter().flatten().filter_map(|s| s.as_str().map(str::to_owned)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape of the runtime's report (abridged): an Online run of a host region.
    const ONLINE: &str = r#"{"format": "ompadapt-report", "version": 1, "regions": [{
        "region": "pairs", "variants": ["serial", "threads=0.5", "threads=1", "schedule=dynamic,16"],
        "executions": 200, "exploring": 14, "chosen_by_model": 186, "retrains": 0, "drift": [],
        "model": {"source": "online", "train_ns": 41000},
        "unavailable": [{"variant": "threads=0.5", "replacement": "serial", "at_execution": 0,
                         "reason": "the same team as 'serial' here (1 thread)"}],
        "timings": [
          {"features": [256.0], "variant": "serial", "exploring_runs": 6, "model_runs": 186, "model_timed": 12, "median_ns": 125655.5},
          {"features": [256.0], "variant": "threads=0.5", "exploring_runs": 0, "model_runs": 0, "model_timed": 0, "median_ns": null},
          {"features": [256.0], "variant": "threads=1", "exploring_runs": 2, "model_runs": 0, "model_timed": 0, "median_ns": 128886.0},
          {"features": [256.0], "variant": "schedule=dynamic,16", "exploring_runs": 6, "model_runs": 0, "model_timed": 0, "median_ns": 123232.5}
        ]}]}"#;

    #[test]
    fn an_online_runs_facts() {
        let r = parse(ONLINE).unwrap();
        let f = r.region("pairs").unwrap();
        assert_eq!((f.executions, f.exploring, f.model_timed, f.drifts), (200, 14, 12, 0));
        assert_eq!(f.model_runs, vec![186, 0, 0, 0]);
        assert_eq!(f.per_execution_ns[0], 125655.5);
        assert!(f.per_execution_ns[1].is_nan());
        assert_eq!(f.train_ns_in_run, 41000.0);
        assert_eq!(f.unavailable, vec![("threads=0.5".to_owned(), "the same team as 'serial' here (1 thread)".to_owned())]);
    }

    #[test]
    fn a_frozen_run_takes_its_own_vector_among_the_stored_ones() {
        let frozen = ONLINE
            .replace(r#""source": "online""#, r#""source": "offline""#)
            .replace(r#"{"features": [256.0], "variant": "threads=1""#, r#"{"features": [64.0], "variant": "threads=1""#);
        let f = parse(&frozen).unwrap().regions.remove(0);
        assert_eq!(f.train_ns_in_run, 0.0, "a stored model was not trained in the run");
        assert!(f.per_execution_ns[2].is_nan(), "threads=1 was measured on another vector only");
        assert_eq!(f.per_execution_ns[3], 123232.5);
    }
}
