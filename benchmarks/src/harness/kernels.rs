//! The evaluation kernels (`benchmarks/kernels/*.c`), the use-cases each is built for, and
//! the inputs the harness runs them on.

/// The use-cases of Georgakoudis et al.'s Table 3. A kernel source is built once per use-case it
/// has (the kernel's `variants(BENCH_KINDS)` comes from `bench.h` and the flag): each build is its
/// own benchmark with its own baseline, oracle, models and tables, as in the paper's sections
/// 4.1-4.3, rather than one program whose regions mix use-cases (whose combinations the
/// oracle would have to search jointly and whose runs would time all of them at once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UseCase {
    /// `variants(cpu, gpu)`: which device (Georgakoudis et al. §4.1); baseline GPU.
    CpuGpu,
    /// `variants(thread_limit[64:256:64])`: threads per team on the GPU (4.2); baseline 256.
    Threads,
    /// `variants(coschedule[0:1:0.25])`: the share of iterations on the GPU, the rest on the
    /// host meanwhile (4.3); baseline GPU only (`coschedule=1`).
    Cosched,
}

impl UseCase {
    /// The compiler flag selecting the use-case in `bench.h`.
    pub fn flag(self) -> Option<&'static str> {
        match self {
            UseCase::CpuGpu => None,
            UseCase::Threads => Some("-DUSE_THREADS"),
            UseCase::Cosched => Some("-DUSE_COSCHED"),
        }
    }

    /// The baseline variant (speedups are over it) and how the tables name it.
    pub fn baseline(self) -> (&'static str, &'static str) {
        match self {
            UseCase::CpuGpu => ("gpu", "Static GPU"),
            UseCase::Threads => ("thread_limit=256", "Static thread_limit=256"),
            UseCase::Cosched => ("coschedule=1", "Static coschedule=1"),
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            UseCase::CpuGpu => "CPU/GPU",
            UseCase::Threads => "GPU threads",
            UseCase::Cosched => "co-scheduling",
        }
    }

    /// Variants per region (the harness's progress estimate before the first run tells).
    pub fn variants(self) -> u64 {
        match self {
            UseCase::CpuGpu => 2,
            UseCase::Threads => 4,
            UseCase::Cosched => 5,
        }
    }
}

/// One benchmark: a kernel source built for one use-case, its adaptive regions (model names,
/// in the order its `DECISIONS` lines print them), what its input means, and the inputs of the
/// full and the smoke run.
pub struct Kernel {
    pub name: &'static str,
    pub source: &'static str,
    pub use_case: UseCase,
    /// The kernel's second argument (time steps or batches) where the default is too short for
    /// this use-case: an Online run must explore every variant and still have steps to exploit.
    pub steps: Option<u64>,
    pub regions: &'static [&'static str],
    pub input: &'static str,
    pub full: &'static [u64],
    pub smoke: &'static [u64],
    /// The program of Georgakoudis et al.'s Table 3 it is modelled on.
    pub models: &'static str,
}

/// Inputs span the CPU/GPU crossover on a GPU machine as far as a run stays short here (host
/// offload, 2 cores: most runs take 10-300 ms).
pub const KERNELS: &[Kernel] = &[
    XSBENCH,
    RSBENCH,
    LULESH,
    AMGMK_RELAX,
    HEAT2D,
    LBM2D,
    SMITH_WATERMAN,
    // Georgakoudis et al.'s Table 3, GPU-threads column: LULESH, AMGmk, Heat, FluidSim
    Kernel { name: "lulesh-threads", use_case: UseCase::Threads, steps: Some(20), ..LULESH },
    Kernel { name: "amgmk_relax-threads", use_case: UseCase::Threads, steps: Some(20), ..AMGMK_RELAX },
    Kernel { name: "heat2d-threads", use_case: UseCase::Threads, ..HEAT2D },
    Kernel { name: "lbm2d-threads", use_case: UseCase::Threads, steps: Some(20), ..LBM2D },
    // its co-scheduling column: XSBench, RSBench
    Kernel {
        name: "xsbench-cosched",
        use_case: UseCase::Cosched,
        // smaller inputs than the CPU/GPU build: a co-scheduled run here (host offload, two
        // cores shared by both parts) takes 2-5 s at 16000 lookups x 20 batches
        full: &[250, 500, 1000, 1500, 2000, 3000, 4000, 6000],
        smoke: &[250, 500, 1000, 2000],
        ..XSBENCH
    },
    Kernel { name: "rsbench-cosched", use_case: UseCase::Cosched, full: &[250, 500, 1000, 2000, 4000, 6000, 8000, 12000], ..RSBENCH },
];

// The CPU/GPU builds; the other use-cases' builds differ from them in the fields they set.
const XSBENCH: Kernel = Kernel {
    name: "xsbench",
    source: "xsbench.c",
    use_case: UseCase::CpuGpu,
    // 20 batches rather than the kernel's 6: the variants are a few % apart here, and a
    // run of 5 steady batches under 1 ms is decided by single interruptions
    steps: Some(20),
    regions: &["xs_lookup"],
    input: "lookups per batch",
    full: &[250, 500, 1000, 2000, 4000, 8000, 16000, 32000],
    smoke: &[],
    models: "XSBench",
};
const RSBENCH: Kernel = Kernel {
    name: "rsbench",
    source: "rsbench.c",
    use_case: UseCase::CpuGpu,
    // 20 batches rather than the kernel's 6: the variants are a few % apart here, and a
    // run of 5 steady batches under 1 ms is decided by single interruptions
    steps: Some(20),
    regions: &["rs_lookup"],
    input: "lookups per batch",
    full: &[250, 500, 1000, 2000, 4000, 8000, 16000, 32000],
    smoke: &[],
    models: "RSBench",
};
const LULESH: Kernel = Kernel {
    name: "lulesh",
    source: "lulesh.c",
    use_case: UseCase::CpuGpu,
    steps: None,
    regions: &["lulesh_elem", "lulesh_node"],
    input: "mesh edge N (N^3 elements)",
    full: &[4, 6, 8, 12, 16, 20, 26, 32],
    smoke: &[],
    models: "LULESH",
};
const AMGMK_RELAX: Kernel = Kernel {
    name: "amgmk_relax",
    source: "amgmk_relax.c",
    use_case: UseCase::CpuGpu,
    steps: None,
    regions: &["relax"],
    input: "grid edge M (M^3 rows)",
    full: &[6, 8, 12, 16, 20, 26, 32, 40],
    smoke: &[],
    models: "AMGmk (relax)",
};
const HEAT2D: Kernel = Kernel {
    name: "heat2d",
    source: "heat2d.c",
    use_case: UseCase::CpuGpu,
    steps: None,
    regions: &["heat"],
    input: "grid edge N (N^2 cells)",
    full: &[32, 64, 96, 128, 192, 256, 384, 512],
    smoke: &[32, 64, 128, 256],
    models: "Heat",
};
const LBM2D: Kernel = Kernel {
    name: "lbm2d",
    source: "lbm2d.c",
    use_case: UseCase::CpuGpu,
    steps: None,
    regions: &["lbm"],
    input: "lattice edge N (N^2 cells)",
    full: &[16, 24, 32, 48, 64, 96, 128, 192],
    smoke: &[],
    models: "FluidSim",
};
const SMITH_WATERMAN: Kernel = Kernel {
    name: "smith_waterman",
    source: "smith_waterman.c",
    use_case: UseCase::CpuGpu,
    steps: None,
    regions: &["sw"],
    input: "sequence length N (2N-1 diagonals)",
    full: &[64, 128, 256, 384, 512, 768, 1024, 1536],
    smoke: &[64, 128, 256, 512],
    models: "Smith-Waterman (Liao et al.)",
};

pub fn find(name: &str) -> Option<&'static Kernel> {
    KERNELS.iter().find(|k| k.name == name)
}
