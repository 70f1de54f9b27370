//! The text report of one region, rendered from its [`RegionReport`] alone.

use super::data::{DecisionReport, RegionReport};
use super::{fmt_ns, human_bytes, table};
use crate::region::declared::DeclaredReport;

fn fmt_value(x: f64) -> String {
    format!("{x}")
}

/// `name=value, ...` of a feature vector, or `(no features)`.
fn feature_vector(rep: &RegionReport, fv: &[f64]) -> String {
    let parts: Vec<String> = fv
        .iter()
        .enumerate()
        .map(|(i, x)| {
            let name = rep.feature_name(i);
            let value = crate::feature_grid::shown(&name, *x, &fmt_value);
            format!("{name}={value}")
        })
        .collect();
    if parts.is_empty() {
        "(no features)".to_owned()
    } else {
        parts.join(", ")
    }
}

/// The `declare adaptation` lines: an associated region's runs, executions outside ranges.
pub fn declared_lines(d: &DeclaredReport, variants: &[String]) -> String {
    let mut out = String::new();
    if let Some(p) = &d.use_model {
        let mapping: Vec<String> = d.variant_mapping.iter().map(usize::to_string).collect();
        let nv = variants.len();
        let mut ran: Vec<String> =
            variants.iter().enumerate().map(|(v, name)| format!("'{name}' {} times", d.runs.get(v).copied().unwrap_or(0))).collect();
        ran.push(format!("none {} times", d.runs.get(nv).copied().unwrap_or(0)));
        out.push_str(&format!("  associated with '{p}' (variant_mapping {}): ran {}\n", mapping.join(", "), ran.join(", ")));
    }
    if d.declared_ranges {
        out.push_str(&format!("  executions with a feature outside its declared range: {}\n", d.outside_range));
    }
    out
}

/// Variants, features, mode, executions, training samples, declared clauses, loaded data.
fn overview(rep: &RegionReport) -> String {
    let variants: Vec<String> = match &rep.values {
        Some(values) => rep.variants.iter().zip(values).map(|(n, v)| format!("{n} (= {})", fmt_value(*v))).collect(),
        None if !rep.team_sizes.is_empty() => rep
            .variants
            .iter()
            .zip(&rep.team_sizes)
            .map(|(n, t)| match t {
                Some(t) if n.starts_with("threads=") => format!("{n} ({t} thread{})", if *t == 1 { "" } else { "s" }),
                _ => n.clone(),
            })
            .collect(),
        None => rep.variants.clone(),
    };
    let mut out = format!("  variants: {}\n", variants.join(", "));
    if let Some(note) = &rep.same_code {
        out.push_str(&format!("  warning: {note}\n"));
    }
    let feats: Vec<String> = (0..rep.feature_count()).map(|i| rep.feature_name(i)).collect();
    out.push_str(&format!("  features: {}\n", if feats.is_empty() { "(none)".to_owned() } else { feats.join(", ") }));
    let repeats = match rep.repeats {
        crate::explore::ADAPTIVE => "adaptive repetition".to_owned(),
        1 => "1 measurement per pair".to_owned(),
        n => format!("{n} measurements per pair"),
    };
    out.push_str(&format!("  mode: {}; exploration: {}, {repeats}\n", rep.mode, rep.explore));
    let timed: u64 = rep.timings.iter().map(|t| t.model_timed).sum();
    out.push_str(&format!(
        "  executions: {} ({} exploring, {} chosen by the model of which {} timed{})\n",
        rep.executions,
        rep.exploring,
        rep.chosen_by_model,
        timed,
        if rep.unrecorded > 0 { format!(", {} not recorded", rep.unrecorded) } else { String::new() }
    ));
    out.push_str(&format!(
        "  training samples: {} measured (feature vector, variant) pairs; training needs {}\n",
        rep.training_samples, rep.min_train
    ));
    if let Some(d) = &rep.declared {
        out.push_str(&declared_lines(d, &rep.variants));
    }
    if rep.loaded_samples > 0 {
        out.push_str(&format!("  loaded from earlier runs: {} measurements\n", rep.loaded_samples));
    }
    if let Some(note) = &rep.saved_data {
        out.push_str(&format!("  saved data: {note}\n"));
    }
    if let Some(note) = &rep.startup {
        out.push_str(&format!("  start-up: {note}\n"));
    }
    out
}

/// The model: what it is, how it was trained, its text.
fn model(rep: &RegionReport) -> String {
    let Some(m) = &rep.model else {
        return format!(
            "  model: {}, not trained yet (needs {} training samples and one decided feature vector)\n",
            rep.model_asked, rep.min_train
        );
    };
    let mut out = format!(
        "  model: {}, {} after {} executions on {} feature vectors ({} training samples) in {}\n",
        m.kind,
        m.origin,
        m.trained_after_executions,
        m.feature_vectors,
        m.training_samples,
        fmt_ns(m.train_ns as f64)
    );
    if let Some(e) = &m.fallback {
        out.push_str(&format!("  (training failed: {e}; constant model)\n"));
    }
    if let Some(why) = &m.note {
        out.push_str(&format!("  (the measured table decides: {why})\n"));
    }
    if m.asked != m.kind {
        let estimate = match (m.estimated_on_vectors, m.estimated_folds, m.estimated_regret, m.estimated_within5) {
            (Some(vectors), Some(folds), Some(r), Some(w)) => format!(
                "; cross-validated on {vectors} feature vectors ({folds} folds): mean regret {:.2} %, {:.0} % within 5 % of the best",
                r * 100.0,
                w * 100.0
            ),
            _ => "; too few feature vectors with every variant measured to cross-validate".to_owned(),
        };
        out.push_str(&format!("  (asked for: {}{estimate})\n", m.asked));
    }
    for line in m.text.lines() {
        out.push_str(&format!("    {line}\n"));
    }
    out
}

/// What this run did about labels its stored trained executions contradict: rechecks and
/// control verdicts (see `recheck` and `control`).
fn judgements(rep: &RegionReport) -> String {
    let mut out = String::new();
    for c in &rep.rechecks {
        let outcome = match &c.label_now {
            Some(b) if *b == c.label_before => format!("label kept ({b})"),
            Some(b) => format!("label changed from {} to {b}", c.label_before),
            None => "being re-measured".to_owned(),
        };
        let what = if c.features.is_empty() {
            c.label_before.clone()
        } else {
            format!("{} on {}", c.label_before, feature_vector(rep, &c.features))
        };
        out.push_str(&format!(
            "  recheck: {what} was chosen on {} but ran in {} on average in earlier runs; re-measured after execution {} \
             (it took {}): {outcome}\n",
            crate::report::fmt_ns(c.measured_ns),
            crate::report::fmt_ns(c.mean_ns),
            c.at_execution,
            crate::report::fmt_ns(c.ran_ns),
        ));
    }
    for c in &rep.controls {
        let what = if c.features.is_empty() { c.label.clone() } else { format!("{} on {}", c.label, feature_vector(rep, &c.features)) };
        let line = match c.own_mean_ns {
            None => format!(
                "{what} ran in {} on average; this run times the program's own {} instead (its trial)",
                crate::report::fmt_ns(c.label_mean_ns),
                c.own
            ),
            Some(o) => format!(
                "{what} ran in {} on average, the program's own {} in {}: {} runs",
                crate::report::fmt_ns(c.label_mean_ns),
                c.own,
                crate::report::fmt_ns(o),
                if c.verdict == "label" { &c.label } else { &c.own }
            ),
        };
        out.push_str(&format!("  control: {line}\n"));
    }
    out
}

/// Drifts, rechecks and control verdicts, unavailable variants, the cpu variant's copies, retraining.
fn events(rep: &RegionReport) -> String {
    let mut out = String::new();
    for d in &rep.drift {
        let outcome = match (&d.label_before, &d.label_now) {
            (Some(a), Some(b)) if a == b => format!("label kept ({b})"),
            (Some(a), Some(b)) => format!("label changed from {a} to {b}"),
            (_, Some(b)) => format!("labelled {b}"),
            (_, None) => "being re-measured".to_owned(),
        };
        let what = if d.features.is_empty() { d.variant.clone() } else { format!("{} on {}", d.variant, feature_vector(rep, &d.features)) };
        out.push_str(&format!(
            "  drift: {what} ran slower than its measured time in {} of {} timed executions (after execution {}); \
             re-measured: {outcome}\n",
            d.slow, d.window, d.at_execution
        ));
    }
    out.push_str(&judgements(rep));
    for u in &rep.unavailable {
        if u.at_execution == 0 {
            // known before the first execution (a host share giving another variant's team)
            out.push_str(&format!("  unavailable: {} ({}): not selected in this run\n", u.variant, u.reason));
            continue;
        }
        out.push_str(&format!(
            "  unavailable: {} ({}; found at execution {}{}): not selected for the rest of the run\n",
            u.variant,
            u.reason,
            u.at_execution + 1,
            u.replacement.as_ref().map_or(String::new(), |r| format!(", which ran {r} instead"))
        ));
    }
    if let Some(h) = &rep.host_copies {
        out.push_str(&format!(
            "  cpu copies per execution: {} of device mappings reached, {} brought in from the device, {} between host and device in all, {} saved and restored on the host, {:.1} us ({} executions)\n",
            human_bytes(h.mapped_bytes),
            human_bytes(h.brought_in_bytes),
            human_bytes(h.transferred_bytes),
            human_bytes(h.preserved_bytes),
            h.ns / 1e3,
            h.executions
        ));
    }
    if rep.retrains > 0 {
        out.push_str(&format!("  retrained {} time(s) in this run on newly measured feature vectors\n", rep.retrains));
    }
    out
}

/// The timings table: one row per feature vector and variant.
fn timings(rep: &RegionReport) -> String {
    let nf = rep.feature_count();
    let mut header: Vec<String> = (0..nf).map(|i| rep.feature_name(i)).collect();
    header.extend(["variant", "runs", "mean", "median"].map(String::from));
    let mut rows = vec![header];
    let mut previous: Option<&[f64]> = None;
    for t in &rep.timings {
        // the vector's values on its first row only
        let first = previous != Some(&t.features[..]);
        previous = Some(&t.features);
        let mut row: Vec<String> =
            (0..nf).map(|i| if first && i < t.features.len() { fmt_value(t.features[i]) } else { String::new() }).collect();
        row.push(t.variant.clone());
        row.push((t.exploring_runs + t.model_runs).to_string());
        row.push(t.mean_ns.map_or("-".to_owned(), fmt_ns));
        row.push(t.median_ns.map_or("-".to_owned(), fmt_ns));
        rows.push(row);
    }
    format!("  timings per feature vector and variant:\n{}", table(&rows, "    "))
}

/// What is decided for one vector, and how that compares with what was measured.
fn decision_row(rep: &RegionReport, d: &DecisionReport) -> Vec<String> {
    let (decision, note) = match &d.decision {
        Some(dec) => {
            let note = match (&d.trained_label, &d.explored_best) {
                (Some(l), _) if l == dec => "(fastest when trained)".to_owned(),
                (Some(l), _) => format!("(fastest when trained: {l})"),
                (None, Some(b)) if b == dec => "(not in training set; fastest measured)".to_owned(),
                (None, Some(b)) => format!("(not in training set; fastest measured: {b})"),
                (None, None) => "(not in training set)".to_owned(),
            };
            (format!("-> {dec}"), note)
        }
        None => match &d.explored_best {
            Some(b) => ("exploring".to_owned(), format!("(fastest measured: {b})")),
            None => ("exploring".to_owned(), String::new()),
        },
    };
    vec![feature_vector(rep, &d.features), decision, note]
}

fn decisions(rep: &RegionReport) -> String {
    let rows: Vec<Vec<String>> = rep.decisions.iter().map(|d| decision_row(rep, d)).collect();
    let mut out = format!("  decisions:\n{}", table(&rows, "    "));
    if let Some(p) = &rep.payoff {
        let name = |v: usize| rep.variants.get(v).cloned().unwrap_or_default();
        out += &format!("  adaptation: {}\n", p.describe(&name, &|t| fmt_ns(t)));
    }
    if let Some(note) = &rep.settled_on_own {
        out += &format!("  settled: {note}\n");
    }
    out
}

fn data_movement(rep: &RegionReport) -> String {
    let rows: Vec<Vec<String>> = rep
        .data_movement
        .iter()
        .map(|d| {
            let m = &d.per_execution;
            vec![
                d.variant.clone(),
                format!("{:.0} B to device", m.to_device_bytes),
                format!("{:.0} B from device", m.from_device_bytes),
                format!("{} in transfers", fmt_ns(m.transfer_ns)),
                format!("({} executions)", m.executions),
            ]
        })
        .collect();
    format!("  data movement per execution (OMPT):\n{}", table(&rows, "    "))
}

/// The text report section of one region.
pub fn render(rep: &RegionReport) -> String {
    let mut out = format!("region '{}' ({})\n", rep.region, rep.loc);
    if let Some(why) = &rep.held {
        out.push_str(&format!("  ran as written: {why}\n"));
    }
    if let Some(why) = &rep.malformed {
        out.push_str(&format!("  malformed region descriptor ({why}): always ran its first variant\n"));
        return out;
    }
    if rep.is_associated() {
        if let Some(d) = &rep.declared {
            out.push_str(&declared_lines(d, &rep.variants));
        }
        return out;
    }
    out.push_str(&overview(rep));
    out.push_str(&model(rep));
    out.push_str(&events(rep));
    if !rep.decisions.is_empty() {
        out.push_str(&timings(rep));
        out.push_str(&decisions(rep));
    }
    if !rep.data_movement.is_empty() {
        out.push_str(&data_movement(rep));
    }
    out
}
