//! `ompadapt clear`: removes what the store holds for a region, a program, or everything.
//!
//! Each region directory is removed under its exclusive lock (no runtime is compacting it at
//! that moment); a process that saves later simply starts the region afresh. Links are never
//! followed: a program or region entry that is a symbolic link is refused, as the runtime
//! refuses it.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Result};
use ompadapt_rt::safe_fs::{Dir, Kind};

use crate::store;

/// What to clear.
pub enum Target {
    All,
    /// A program (its name or its directory).
    Program(String),
    /// A region (`REGION` or `PROGRAM/REGION`).
    Region(String),
}

fn subdirs(d: &Dir) -> Vec<String> {
    let mut v: Vec<String> =
        d.entries().unwrap_or_default().into_iter().filter(|(n, k)| *k == Kind::Dir && !n.starts_with('.')).map(|(n, _)| n).collect();
    v.sort();
    v
}

/// Removes one region directory under its exclusive lock.
fn remove_region(store: &Dir, program: &str, region: &str) -> Result<PathBuf> {
    let pdir = store.sub(program, false).map_err(|e| anyhow!("{e}"))?;
    let rdir = pdir.sub(region, false).map_err(|e| anyhow!("{e}"))?;
    let path = rdir.path().to_path_buf();
    let _lock = rdir.lock(true).map_err(|e| anyhow!("cannot lock {}: {e}", path.display()))?;
    // `sub` refused links; remove_dir_all does not follow links inside either
    std::fs::remove_dir_all(&path).map_err(|e| anyhow!("cannot remove {}: {e}", path.display()))?;
    if subdirs(&pdir).is_empty() {
        // the program's own files go with its last region: the whole-run trial's records
        // (they compare runs of labels that are gone) and their lock
        let _ = pdir.remove(ompadapt_rt::whole_run::FILE);
        let _ = pdir.remove(".lock");
        let _ = std::fs::remove_dir(pdir.path());
    }
    Ok(path)
}

/// Removes the target; returns the region directories removed.
pub fn clear(root: &Path, target: &Target) -> Result<Vec<PathBuf>> {
    if !root.is_dir() {
        bail!("{} is not a store directory (set --dir or OMPADAPT_DIR)", root.display());
    }
    let store = Dir::open(root, false).map_err(|e| anyhow!("{e}"))?;
    let pairs: Vec<(String, String)> = match target {
        // every directory, also regions whose files are all damaged
        Target::All => subdirs(&store)
            .into_iter()
            .flat_map(|p| {
                let regions = store.sub(&p, false).map(|d| subdirs(&d)).unwrap_or_default();
                regions.into_iter().map(move |r| (p.clone(), r))
            })
            .collect(),
        Target::Program(p) => {
            let found: Vec<_> = store::regions(root, Some(p))?.into_iter().map(|s| (s.program_dir, s.region_dir)).collect();
            if found.is_empty() {
                bail!("no program '{p}' in {}", root.display());
            }
            found
        }
        Target::Region(r) => {
            let s = store::region(root, r)?;
            vec![(s.program_dir, s.region_dir)]
        }
    };
    pairs.iter().map(|(p, r)| remove_region(&store, p, r)).collect()
}
