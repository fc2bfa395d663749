//! Shared by the criterion benches: seeded inputs and the pprof profiler hook.

use std::fs::File;
use std::path::Path;

use convoy::glam::Vec2;
use convoy::random::unit_f32;
use criterion::profiler::Profiler;

/// `count` points uniform over a square holding one point per
/// `area_per_point` m², from `seed`; returns the points and the square's side.
pub fn uniform_points(count: usize, area_per_point: f32, seed: u64) -> (Vec<Vec2>, f32) {
    let side = (count as f32 * area_per_point).sqrt();
    let points = (0..count as u64)
        .map(|i| Vec2::new(unit_f32(seed, 0, i), unit_f32(seed, 1, i)) * side)
        .collect();
    (points, side)
}

/// Samples each benchmark with pprof while criterion runs it under
/// `--profile-time`, writing `flamegraph.svg` into the benchmark's directory.
/// (pprof's own criterion integration targets criterion 0.5; this is the
/// small `Profiler` trait of 0.8.)
pub struct FlamegraphProfiler {
    frequency: i32,
    guard: Option<pprof::ProfilerGuard<'static>>,
}

impl FlamegraphProfiler {
    /// Samples at `frequency` Hz.
    pub fn new(frequency: i32) -> FlamegraphProfiler {
        FlamegraphProfiler {
            frequency,
            guard: None,
        }
    }
}

impl Profiler for FlamegraphProfiler {
    fn start_profiling(&mut self, _benchmark_id: &str, _benchmark_dir: &Path) {
        self.guard = Some(pprof::ProfilerGuard::new(self.frequency).expect("pprof sampler starts"));
    }

    fn stop_profiling(&mut self, _benchmark_id: &str, benchmark_dir: &Path) {
        let Some(guard) = self.guard.take() else {
            return;
        };
        std::fs::create_dir_all(benchmark_dir)
            .expect("criterion's benchmark directory can be created");
        let path = benchmark_dir.join("flamegraph.svg");
        let file = File::create(&path).expect("flamegraph file can be created");
        let report = guard.report().build().expect("pprof report builds");
        report.flamegraph(file).expect("flamegraph is written");
        eprintln!("flamegraph: {}", path.display());
    }
}
