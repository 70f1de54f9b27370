//! `export` / `import`: what a store learned, as one versioned archive that moves between
//! machines (train on one, ship to another).
//!
//! An archive is JSON: `{"format": "ompadapt-archive", "version": 1, "created_unix_ns",
//! "host", "source", "regions": [<data file>...]}`, each region in the runtime's own data-file
//! format (its merged view: measurements, model-chosen executions, run totals, the last model
//! trained). Importing writes each region as one new part file of the destination store — the
//! runtime's unit of "what one writer added" — so the runtime merges it with whatever the
//! store already holds and never loses or rewrites anybody's data. The part's name carries a
//! hash of its content: importing the same archive twice adds nothing the second time (also
//! after the runtime merged the part into `merged.json`, which lists the parts it contains).

use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use ompadapt_rt::safe_fs::Dir;
use ompadapt_rt::store::{self, DataFile, Writer};
use serde::{Deserialize, Serialize};

pub const FORMAT: &str = "ompadapt-archive";
pub const VERSION: u32 = 1;

#[derive(Serialize, Deserialize, Debug)]
pub struct Archive {
    pub format: String,
    pub version: u32,
    #[serde(default)]
    pub created_unix_ns: u64,
    #[serde(default)]
    pub host: String,
    #[serde(default)]
    pub source: String,
    pub regions: Vec<Region>,
}

/// One region: where it lived in the source store, and its data.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct Region {
    /// Directory names below the store's root (the runtime's key of the program and region).
    pub program_dir: String,
    pub region_dir: String,
    pub data: DataFile,
}

fn now_ns() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0)
}

pub fn host() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname").map(|h| h.trim().to_owned()).unwrap_or_else(|_| "host".into())
}

/// The archive of `regions` (from [`crate::store::regions`]).
pub fn export(root: &Path, regions: Vec<crate::store::Stored>) -> Archive {
    let regions = regions.into_iter().map(|s| Region { program_dir: s.program_dir, region_dir: s.region_dir, data: s.all }).collect();
    Archive {
        format: FORMAT.into(),
        version: VERSION,
        created_unix_ns: now_ns(),
        host: host(),
        source: root.display().to_string(),
        regions,
    }
}

/// Reads and checks an archive.
pub fn read(path: &Path) -> Result<Archive> {
    let text = if path == Path::new("-") {
        std::io::read_to_string(std::io::stdin()).context("reading the archive from stdin")?
    } else {
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?
    };
    let head: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| anyhow!("{} is not an ompadapt archive (not JSON: {e})", path.display()))?;
    if head.get("format").and_then(|f| f.as_str()) != Some(FORMAT) {
        bail!("{} is not an ompadapt archive (its \"format\" is not \"{FORMAT}\")", path.display());
    }
    match head.get("version").and_then(|v| v.as_u64()) {
        Some(v) if v == VERSION as u64 => {}
        Some(v) => bail!("{} is archive version {v}; this ompadapt reads version {VERSION}", path.display()),
        None => bail!("{} has no archive version", path.display()),
    }
    let a: Archive = serde_json::from_value(head).map_err(|e| anyhow!("{} is a damaged archive: {e}", path.display()))?;
    for Region { program_dir, region_dir, data: r } in &a.regions {
        for d in [program_dir, region_dir] {
            if d.is_empty() || store::sanitize(d) != *d {
                bail!("{}: '{d}' is not a store directory name", path.display());
            }
        }
        if r.format != store::FORMAT || r.version != store::VERSION {
            bail!(
                "{}: region '{}' holds data format {} version {}; this ompadapt reads {} version {}",
                path.display(),
                r.model,
                r.format,
                r.version,
                store::FORMAT,
                store::VERSION
            );
        }
        if r.program.is_empty() || r.model.is_empty() {
            bail!("{}: a region without a program or region name", path.display());
        }
    }
    Ok(a)
}

/// What importing one region did.
#[derive(Serialize, Debug)]
pub struct Imported {
    pub program: String,
    pub region: String,
    pub directory: String,
    /// The part file written, or `None` when the same data was imported before.
    pub file: Option<String>,
    pub samples: u64,
}

/// Writes every region of `a` into the store at `root` (created if missing). With `identity`,
/// the regions go to the folder of the program with that identity (its executable's canonical
/// path on this machine, or its `OMPADAPT_PROGRAM`), else to the folder they came from: the
/// runtime keys a program's data by its identity, so a program at another path than on the
/// machine that trained it needs this to find what it was sent.
pub fn import(root: &Path, a: &Archive, identity: Option<&str>, mut progress: impl FnMut(&str)) -> Result<Vec<Imported>> {
    let store = Dir::open(root, true).map_err(|e| anyhow!("cannot open the store {}: {e}", root.display()))?;
    let mut out = Vec::new();
    for Region { program_dir, region_dir, data: r } in &a.regions {
        progress(&r.model);
        let mut part = r.clone();
        let program_dir = match identity {
            Some(id) => {
                part.program_id = id.to_owned();
                store::Program::new(&r.program, id).folder()
            }
            None => program_dir.clone(),
        };
        let program_dir = &program_dir;
        part.merged_parts.clear();
        part.reset = false;
        let body = serde_json::to_string(&part)?;
        let hash = ompadapt_rt::model::fnv1a(&body);
        let name = format!("part-import-{hash:016x}.json");
        part.written_unix_ns = now_ns();
        part.writer = Writer { host: host(), pid: std::process::id(), rank: None, size: None, run: format!("import-{hash:016x}") };
        let rdir = store.sub(program_dir, true).and_then(|p| p.sub(region_dir, true)).map_err(|e| anyhow!("region '{}': {e}", r.model))?;
        let _lock = rdir.lock(false).map_err(|e| anyhow!("region '{}': cannot lock its directory: {e}", r.model))?;
        let merged_has = store::read_file_in(&rdir, "merged.json").map(|m| m.merged_parts.contains(&name)).unwrap_or(false);
        let samples = r.samples.iter().map(|s| s.count).sum();
        if rdir.kind(&name).is_some() || merged_has {
            out.push(Imported {
                program: r.program.clone(),
                region: r.model.clone(),
                directory: format!("{program_dir}/{region_dir}"),
                file: None,
                samples,
            });
            continue;
        }
        let json = serde_json::to_vec_pretty(&part)?;
        rdir.write_atomic(&name, &json).map_err(|e| anyhow!("region '{}': cannot write {}: {e}", r.model, rdir.join(&name).display()))?;
        // the runtime's own reader must accept it, or it does not stay
        if let Err(e) = store::read_file_in(&rdir, &name) {
            let _ = rdir.remove(&name);
            bail!("region '{}' of the archive is not valid data ({e:?}); nothing of it was imported", r.model);
        }
        out.push(Imported {
            program: r.program.clone(),
            region: r.model.clone(),
            directory: format!("{program_dir}/{region_dir}"),
            file: Some(rdir.join(&name).display().to_string()),
            samples,
        });
    }
    Ok(out)
}
