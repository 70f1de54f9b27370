//! The evaluation kernels (`benchmarks/kernels/*.c`) and the inputs the harness runs them on.

/// One kernel: its source, its adaptive regions (model names, in the order its `DECISIONS`
/// lines print them), what its input means, and the inputs of the full and the smoke run.
pub struct Kernel {
    pub name: &'static str,
    pub source: &'static str,
    pub regions: &'static [&'static str],
    pub input: &'static str,
    pub full: &'static [u64],
    pub smoke: &'static [u64],
    /// Seed 000 Table 3's program it is modelled on.
    pub models: &'static str,
}

/// Inputs span the CPU/GPU crossover on a GPU machine as far as a run stays short here (host
/// offload, 2 cores: most runs take 10-300 ms).
pub const KERNELS: &[Kernel] = &[
    Kernel {
        name: "xsbench",
        source: "xsbench.c",
        regions: &["xs_lookup"],
        input: "lookups per batch",
        full: &[250, 500, 1000, 2000, 4000, 8000, 16000, 32000],
        smoke: &[],
        models: "XSBench",
    },
    Kernel {
        name: "rsbench",
        source: "rsbench.c",
        regions: &["rs_lookup"],
        input: "lookups per batch",
        full: &[250, 500, 1000, 2000, 4000, 8000, 16000, 32000],
        smoke: &[],
        models: "RSBench",
    },
    Kernel {
        name: "lulesh",
        source: "lulesh.c",
        regions: &["lulesh_elem", "lulesh_node"],
        input: "mesh edge N (N^3 elements)",
        full: &[4, 6, 8, 12, 16, 20, 26, 32],
        smoke: &[],
        models: "LULESH",
    },
    Kernel {
        name: "amgmk_relax",
        source: "amgmk_relax.c",
        regions: &["relax"],
        input: "grid edge M (M^3 rows)",
        full: &[6, 8, 12, 16, 20, 26, 32, 40],
        smoke: &[],
        models: "AMGmk (relax)",
    },
    Kernel {
        name: "heat2d",
        source: "heat2d.c",
        regions: &["heat"],
        input: "grid edge N (N^2 cells)",
        full: &[32, 64, 96, 128, 192, 256, 384, 512],
        smoke: &[32, 64, 128, 256],
        models: "Heat",
    },
    Kernel {
        name: "lbm2d",
        source: "lbm2d.c",
        regions: &["lbm"],
        input: "lattice edge N (N^2 cells)",
        full: &[16, 24, 32, 48, 64, 96, 128, 192],
        smoke: &[],
        models: "FluidSim",
    },
    Kernel {
        name: "smith_waterman",
        source: "smith_waterman.c",
        regions: &["sw"],
        input: "sequence length N (2N-1 diagonals)",
        full: &[64, 128, 256, 384, 512, 768, 1024, 1536],
        smoke: &[64, 128, 256, 512],
        models: "Smith-Waterman (seed 001)",
    },
];

pub fn find(name: &str) -> Option<&'static Kernel> {
    KERNELS.iter().find(|k| k.name == name)
}
