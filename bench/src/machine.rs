//! What the run ran on, for the report: reports from different machines are
//! not comparable, so every JSON report says where it came from.

use serde::{Deserialize, Serialize};

/// The machine a run was measured on.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Machine {
    /// CPU model name (from /proc/cpuinfo on Linux).
    pub cpu: String,
    /// Logical cores available to this process.
    pub cores: usize,
    /// Operating system.
    pub os: String,
    /// CPU architecture.
    pub arch: String,
}

impl Machine {
    /// Reads this machine's description.
    pub fn detect() -> Machine {
        Machine {
            cpu: cpu_model().unwrap_or_else(|| "unknown".to_owned()),
            cores: std::thread::available_parallelism().map_or(1, usize::from),
            os: std::env::consts::OS.to_owned(),
            arch: std::env::consts::ARCH.to_owned(),
        }
    }
}

fn cpu_model() -> Option<String> {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    cpuinfo.lines().find_map(|line| {
        line.strip_prefix("model name")?
            .split_once(':')
            .map(|(_, model)| model.trim().to_owned())
    })
}
