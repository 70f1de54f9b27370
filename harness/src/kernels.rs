//! The evaluation kernels (`benchmarks/kernels/*.c`), the use-cases each is built for, and
//! the inputs the harness runs them on (how many steps each input runs is the calibration's:
//! `calibrate`).

/// The use-cases of Georgakoudis et al.'s Table 3, and the host loops' (team size and schedule of
/// CPU-only OpenMP, the kinds of zero-source-change mode). A kernel source is built once per
/// use-case it has (the kernel's `variants(BENCH_KINDS)` comes from `bench.h` and the flag): each build is its
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
    /// `variants(serial, threads[0.5:1:0.5], schedule(dynamic, 16))` before a host `parallel
    /// for`: no team, half the team, the team as written, the team with a dynamic schedule;
    /// baseline the program as written (`threads=1`, its own schedule). Host kernels only.
    Host,
}

impl UseCase {
    /// The compiler flag selecting the use-case in `bench.h`.
    pub fn flag(self) -> Option<&'static str> {
        match self {
            UseCase::CpuGpu => None,
            UseCase::Threads => Some("-DUSE_THREADS"),
            UseCase::Cosched => Some("-DUSE_COSCHED"),
            UseCase::Host => Some("-DUSE_HOST"),
        }
    }

    /// The baseline variant (speedups are over it) and how the tables name it.
    pub fn baseline(self) -> (&'static str, &'static str) {
        match self {
            UseCase::CpuGpu => ("gpu", "Static GPU"),
            UseCase::Threads => ("thread_limit=256", "Static thread_limit=256"),
            UseCase::Cosched => ("coschedule=1", "Static coschedule=1"),
            UseCase::Host => ("threads=1", "Static threads=1"),
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            UseCase::CpuGpu => "CPU/GPU",
            UseCase::Threads => "GPU threads",
            UseCase::Cosched => "co-scheduling",
            UseCase::Host => "host loops",
        }
    }

    /// Variants per region (the harness's progress estimate before the first run tells).
    pub fn variants(self) -> u64 {
        match self {
            UseCase::CpuGpu => 2,
            UseCase::Threads => 4,
            UseCase::Cosched => 5,
            UseCase::Host => 4,
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
    /// The fewest steps (the kernel's second argument: time steps, batches, repetitions) a run
    /// takes, whatever the calibration finds enough to measure: an Online run must explore
    /// every variant and still have steps to exploit.
    pub min_steps: u64,
    pub regions: &'static [&'static str],
    pub input: &'static str,
    pub full: &'static [u64],
    pub smoke: &'static [u64],
    /// The program of Georgakoudis et al.'s Table 3 it is modelled on (host kernels: what it is).
    pub models: &'static str,
}

/// Inputs span the CPU/GPU crossover on a GPU machine as far as a run stays short here (host
/// offload, 2 cores); the host kernels' span the crossovers of team and schedule on a few
/// cores. Each input runs the steps the calibration found for it (at least `min_steps`).
pub const KERNELS: &[Kernel] = &[
    XSBENCH,
    RSBENCH,
    LULESH,
    AMGMK_RELAX,
    HEAT2D,
    LBM2D,
    SMITH_WATERMAN,
    // Georgakoudis et al.'s Table 3, GPU-threads column: LULESH, AMGmk, Heat, FluidSim
    Kernel { name: "lulesh-threads", use_case: UseCase::Threads, min_steps: 20, ..LULESH },
    Kernel { name: "amgmk_relax-threads", use_case: UseCase::Threads, min_steps: 20, ..AMGMK_RELAX },
    Kernel { name: "heat2d-threads", use_case: UseCase::Threads, ..HEAT2D },
    Kernel { name: "lbm2d-threads", use_case: UseCase::Threads, min_steps: 20, ..LBM2D },
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
    // host loops (CPU-only OpenMP): the team and schedule kinds
    JACOBI2D,
    TRIANGULAR,
];

// The CPU/GPU builds; the other use-cases' builds differ from them in the fields they set.
const XSBENCH: Kernel = Kernel {
    name: "xsbench",
    source: "xsbench.c",
    use_case: UseCase::CpuGpu,
    // at least 20 batches rather than the kernel's 6: Online explores and still exploits
    min_steps: 20,
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
    // at least 20 batches rather than the kernel's 6: Online explores and still exploits
    min_steps: 20,
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
    min_steps: 10,
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
    min_steps: 10,
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
    min_steps: 20,
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
    min_steps: 10,
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
    // repetitions of the whole alignment (2N-1 launches each)
    min_steps: 1,
    regions: &["sw"],
    input: "sequence length N (2N-1 diagonals)",
    full: &[64, 128, 256, 384, 512, 768, 1024, 1536],
    smoke: &[64, 128, 256, 512],
    models: "Smith-Waterman (Liao et al.)",
};

const JACOBI2D: Kernel = Kernel {
    name: "jacobi2d",
    source: "jacobi2d.c",
    use_case: UseCase::Host,
    min_steps: 20,
    regions: &["jacobi"],
    input: "grid edge N (N^2 cells)",
    full: &[16, 32, 48, 64, 96, 128, 256, 512],
    smoke: &[16, 64, 128, 512],
    models: "Jacobi 2D (regular host loop)",
};
const TRIANGULAR: Kernel = Kernel {
    name: "triangular",
    source: "triangular.c",
    use_case: UseCase::Host,
    min_steps: 20,
    regions: &["pairs"],
    input: "particles N (N(N-1)/2 pairs)",
    full: &[16, 32, 64, 96, 128, 256, 512, 2048],
    smoke: &[],
    models: "triangular pair loop (irregular host loop)",
};

pub fn find(name: &str) -> Option<&'static Kernel> {
    KERNELS.iter().find(|k| k.name == name)
}
