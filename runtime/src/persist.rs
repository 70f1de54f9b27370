//! Minimal persistence of a region's samples across runs (hardened in the next issue).
//!
//! File: `$OMPADAPT_DIR/<program-name>/<model>.json` (model name sanitised to
//! `[A-Za-z0-9_.-]`), JSON with a `"format": "ompadapt-samples", "version": 1` header. It is
//! loaded when the region is created (so a second run starts with the first run's samples and
//! trains at once if they suffice) and written at exit, atomically: a temporary file in the same
//! directory, flushed, then renamed over the old one.
//!
//! Not yet handled (next issue): two processes of one program saving at once (last writer
//! wins), MPI ranks, versions other than 1 (left alone, with a warning, and not overwritten).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::diag;
use crate::region::Region;
use crate::stats::{FKey, VariantStats};

/// `"format"` of a samples file.
pub const FORMAT: &str = "ompadapt-samples";
/// `"version"` written by this runtime.
pub const VERSION: u32 = 1;

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct Header {
    format: String,
    version: u32,
}

/// The samples file.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
pub struct SamplesFile {
    pub format: String,
    pub version: u32,
    pub program: String,
    pub model: String,
    pub loc: String,
    pub features: Vec<String>,
    pub variants: Vec<String>,
    pub samples: Vec<SampleRecord>,
}

/// Timings of one variant on one feature vector.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
pub struct SampleRecord {
    pub features: Vec<f64>,
    pub variant: String,
    pub count: u64,
    pub sum_ns: u64,
    pub min_ns: u64,
    pub max_ns: u64,
    /// Most recent times, oldest first (the median is taken over these).
    pub recent_ns: Vec<u64>,
}

/// `<dir>/<program>/<model>.json`.
pub fn path_for(dir: &Path, program: &str, model: &str) -> PathBuf {
    dir.join(sanitize(program)).join(format!("{}.json", sanitize(model)))
}

fn sanitize(s: &str) -> String {
    let t: String = s
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') { c } else { '_' })
        .collect();
    if t.is_empty() || t.starts_with('.') { format!("_{t}") } else { t }
}

/// Outcome of [`load`].
#[derive(Debug, PartialEq)]
pub enum Loaded {
    /// No file.
    Missing,
    /// Samples to absorb (feature vector, variant index, timings).
    Samples(Vec<(FKey, usize, VariantStats)>),
    /// A file this runtime must not overwrite (other version); the region is not persisted.
    Foreign,
    /// Unreadable or corrupt (moved aside); start afresh.
    Discarded,
}

/// Loads the samples of `region` from `path`. Never fails: problems are one stderr line.
pub fn load(path: &Path, region: &Region) -> Loaded {
    let model = &region.spec.model;
    let text = match fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Loaded::Missing,
        Err(e) => {
            diag::warn(&format!("region '{model}': cannot read {}: {e}; starting without saved samples", path.display()));
            return Loaded::Discarded;
        }
    };
    // Check the header first so that a newer file is recognised even if its body changed.
    match serde_json::from_str::<Header>(&text) {
        Ok(h) if h.format == FORMAT && h.version != VERSION => {
            diag::warn(&format!(
                "region '{model}': {} has samples format version {} but this runtime reads {VERSION}; \
                 ignoring it and leaving it untouched (samples of this run are not saved)",
                path.display(),
                h.version
            ));
            return Loaded::Foreign;
        }
        _ => {}
    }
    let file = match serde_json::from_str::<SamplesFile>(&text) {
        Ok(f) if f.format == FORMAT => f,
        Ok(_) => return move_aside(path, model, "not an ompadapt samples file"),
        Err(e) => return move_aside(path, model, &e.to_string()),
    };
    if file.features.len() != region.spec.features.len()
        || file.features.iter().zip(&region.spec.features).any(|(a, b)| a.trim() != b.trim())
    {
        diag::warn(&format!(
            "region '{model}': {} was recorded with features ({}) but the region now has ({}); \
             starting afresh (the file will be replaced at exit)",
            path.display(),
            file.features.join(", "),
            region.spec.features.join(", ")
        ));
        return Loaded::Discarded;
    }
    let mut out = Vec::new();
    for s in file.samples {
        // Variants are matched by name, so adding or reordering variants keeps the others' data.
        let Some(v) = region.spec.variants.iter().position(|n| *n == s.variant) else { continue };
        if s.count == 0 || s.recent_ns.is_empty() || s.features.len() > crate::ctx::MAX_FEATURES {
            continue;
        }
        let stats = VariantStats::from_parts(s.count, s.sum_ns, s.min_ns, s.max_ns, s.recent_ns);
        out.push((FKey::new(&s.features), v, stats));
    }
    Loaded::Samples(out)
}

fn move_aside(path: &Path, model: &str, why: &str) -> Loaded {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let mut aside = path.as_os_str().to_owned();
    aside.push(format!(".corrupt-{stamp}"));
    let aside = PathBuf::from(aside);
    let what = match fs::rename(path, &aside) {
        Ok(()) => format!("moved to {}", aside.display()),
        Err(e) => format!("could not move it aside: {e}"),
    };
    diag::warn(&format!(
        "region '{model}': saved samples {} are corrupt ({why}); {what}; starting afresh",
        path.display()
    ));
    Loaded::Discarded
}

/// The file contents for `region`'s current data.
pub fn to_file(region: &Region, program: &str) -> SamplesFile {
    let snap = region.snapshot();
    let mut samples = Vec::new();
    for e in &snap.entries {
        let features = e.key.values();
        if features.iter().any(|x| !x.is_finite()) {
            continue; // JSON has no NaN/inf
        }
        for (v, s) in e.per_variant.iter().enumerate() {
            if s.count == 0 {
                continue;
            }
            samples.push(SampleRecord {
                features: features.clone(),
                variant: region.spec.variants[v].clone(),
                count: s.count,
                sum_ns: s.sum_ns,
                min_ns: s.min_ns,
                max_ns: s.max_ns,
                recent_ns: s.recent_in_order(),
            });
        }
    }
    SamplesFile {
        format: FORMAT.to_owned(),
        version: VERSION,
        program: program.to_owned(),
        model: region.spec.model.clone(),
        loc: region.spec.loc.clone(),
        features: region.spec.features.clone(),
        variants: region.spec.variants.clone(),
        samples,
    }
}

/// Writes `region`'s samples to `path` atomically. Errors are returned as a message.
pub fn save(path: &Path, region: &Region, program: &str) -> Result<(), String> {
    let dir = path.parent().ok_or("no parent directory")?;
    fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let json = serde_json::to_vec_pretty(&to_file(region, program)).map_err(|e| e.to_string())?;
    let name = path.file_name().ok_or("no file name")?.to_string_lossy();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let write = || -> std::io::Result<()> {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(&json)?;
        f.write_all(b"\n")?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    };
    write().map_err(|e| {
        let _ = fs::remove_file(&tmp);
        format!("cannot write {}: {e}", path.display())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ctx::Ctx;
    use crate::spec;

    fn tmpdir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("ompadapt-persist-{tag}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    fn region(min_train: i64) -> Region {
        let s = spec::parse("ompadapt1;model=m/1;loc=a.c:3;features=N;variants=cpu,gpu").unwrap().spec;
        Region::new(s, min_train, -1, -1, false, None)
    }

    #[test]
    fn sanitized_paths() {
        assert_eq!(path_for(Path::new("/d"), "prog", "m/1"), PathBuf::from("/d/prog/m_1.json"));
        assert_eq!(path_for(Path::new("/d"), "..", ""), PathBuf::from("/d/_../_.json"));
    }

    #[test]
    fn round_trip_and_immediate_training() {
        let dir = tmpdir("rt");
        let r = region(4);
        for f in [10.0, 20.0] {
            for _ in 0..2 {
                let mut c = Ctx::zeroed();
                r.begin(&[f], &mut c);
                r.end(&c);
            }
        }
        assert!(r.is_trained());
        let path = path_for(&dir, "prog", &r.spec.model);
        save(&path, &r, "prog").unwrap();
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"format\": \"ompadapt-samples\""));
        assert!(text.contains("\"version\": 1"));
        assert_eq!(fs::read_dir(path.parent().unwrap()).unwrap().count(), 1, "no temp file left");

        let r2 = region(4);
        let Loaded::Samples(s) = load(&path, &r2) else { panic!("not loaded") };
        assert_eq!(s.len(), 4);
        r2.absorb(s);
        assert!(r2.is_trained(), "enough saved samples: trains at creation");
        let a = r.snapshot();
        let b = r2.snapshot();
        assert_eq!(b.training_samples, 4);
        for (x, y) in a.entries.iter().zip(&b.entries) {
            assert_eq!(x.key, y.key);
            for (p, q) in x.per_variant.iter().zip(&y.per_variant) {
                assert_eq!((p.count, p.sum_ns, p.min_ns, p.max_ns), (q.count, q.sum_ns, q.min_ns, q.max_ns));
                assert_eq!(p.recent_in_order(), q.recent_in_order());
            }
        }
        // a region with other variant names keeps the ones that match
        let s3 = spec::parse("ompadapt1;model=m/1;features=N;variants=gpu,fpga").unwrap().spec;
        let r3 = Region::new(s3, -1, -1, -1, false, None);
        let Loaded::Samples(s) = load(&path, &r3) else { panic!() };
        assert_eq!(s.len(), 2);
        assert!(s.iter().all(|(_, v, _)| *v == 0));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn corrupt_file_is_moved_aside() {
        let dir = tmpdir("corrupt");
        let path = path_for(&dir, "prog", "m/1");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, "{ \"format\": \"ompadapt-samples\", \"version\": 1, \"samp").unwrap();
        let r = region(-1);
        assert_eq!(load(&path, &r), Loaded::Discarded);
        assert!(!path.exists());
        let moved: Vec<_> = fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(moved.len(), 1);
        assert!(moved[0].starts_with("m_1.json.corrupt-"), "{moved:?}");
        // and the region carries on: saving works again
        save(&path, &r, "prog").unwrap();
        assert!(matches!(load(&path, &r), Loaded::Samples(_)));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn other_version_is_left_alone() {
        let dir = tmpdir("ver");
        let path = path_for(&dir, "prog", "m/1");
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, r#"{"format":"ompadapt-samples","version":2,"whatever":[]}"#).unwrap();
        assert_eq!(load(&path, &region(-1)), Loaded::Foreign);
        assert!(path.exists());
        assert_eq!(load(&dir.join("nope.json"), &region(-1)), Loaded::Missing);
        fs::remove_dir_all(&dir).unwrap();
    }
}
