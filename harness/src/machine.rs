//! The machine the kernels run on, as the summary names it and as the calibration keys its
//! step counts (a run's length depends on the CPU, its cores, the offload target and its GPU,
//! and the build flags), and its load while they run.

use serde_json::{json, Value};

use super::runner::Toolchain;

/// What a run's speed depends on, besides the kernel and its input.
#[derive(Clone, Debug, PartialEq)]
pub struct Machine {
    pub cpu: String,
    pub cores: usize,
    /// The offload target (`-fopenmp-targets=`).
    pub targets: String,
    /// The GPU an nvptx64 build runs on (`nvidia-smi`'s name), `None` for host offload.
    pub gpu: Option<String>,
    /// The compiler flags that change the code (`--cflag`s, `--resident`).
    pub build: String,
}

impl Machine {
    pub fn of(tc: &Toolchain) -> Machine {
        let mut build = tc.cflags.join(" ");
        if tc.resident {
            build = format!("{build} -DRESIDENT_STATE=1").trim().to_owned();
        }
        Machine {
            cpu: cpu_model(),
            cores: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            targets: tc.targets.clone(),
            gpu: if tc.targets.starts_with("nvptx") { Some(nvidia_gpu().unwrap_or_else(|| "unknown NVIDIA GPU".into())) } else { None },
            build,
        }
    }

    /// Host offload: the `gpu` variants run on libomptarget's host plugin.
    pub fn host_offload(&self) -> bool {
        self.targets.starts_with("x86_64") || self.targets.starts_with("aarch64")
    }

    /// The machine in the summary's words.
    pub fn describe(&self) -> String {
        let device = match (&self.gpu, self.host_offload()) {
            (Some(g), _) => format!(", GPU {g}"),
            (None, true) => " — HOST OFFLOAD: the \"gpu\" variant runs on libomptarget's host plugin, not on a GPU".to_owned(),
            (None, false) => String::new(),
        };
        format!("{} ({} cores), offload target {}{device}", self.cpu, self.cores, self.targets)
    }

    /// The calibration file's key for this machine.
    pub fn key(&self) -> Value {
        json!({"cpu": self.cpu, "cores": self.cores, "targets": self.targets, "gpu": self.gpu, "build": self.build})
    }
}

/// The 1-minute load average (`/proc/loadavg`), NaN where there is none.
pub fn load_average() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|t| t.split_whitespace().next().and_then(|l| l.parse().ok()))
        .unwrap_or(f64::NAN)
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| t.lines().find(|l| l.starts_with("model name")).and_then(|l| l.split_once(':')).map(|(_, v)| v.trim().to_owned()))
        .unwrap_or_else(|| "unknown CPU".into())
}

fn nvidia_gpu() -> Option<String> {
    let out = std::process::Command::new("nvidia-smi").args(["--query-gpu=name", "--format=csv,noheader"]).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines().next().map(|l| l.trim().to_owned()).filter(|l| out.status.success() && !l.is_empty())
}
