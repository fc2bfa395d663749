//! Stage timers, fixed-size histograms and frame budgets.
//!
//! Every stage of every tick runs inside [`StageTracks::run`], which opens a
//! scope guard ([`StageTimer`]): on drop it records the elapsed nanoseconds in
//! the stage's HDR histogram (allocated once, at three significant figures, so
//! recording never allocates) and counts the tick as over budget when it
//! exceeded the stage's share of the frame. With the `tracy` feature the same
//! guard is a Tracy zone, and a stage may open zones for its phases inside
//! it (`zone!`); without it the Tracy calls are compiled out.
//!
//! Each stage's figures (pairs tested, requests served, …) are typed
//! ([`StageStats`]); each says how it folds over the run, and the report
//! carries them under their names.

use std::time::{Duration, Instant};

mod stats;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

pub use stats::{
    FormationsFigures, IntegrateFigures, PathsFigures, SeparationFigures, SpatialFigures,
    StageStats, SteeringFigures,
};

/// A Tracy zone named by the string literal, nested in the stage's zone,
/// from here to the end of the enclosing block, with the `tracy` feature
/// (when the client runs); nothing without it. For the phases of a stage,
/// on the thread that runs the stage.
macro_rules! zone {
    ($name:literal) => {
        #[cfg(feature = "tracy")]
        let _zone = tracy_client::Client::running()
            .map(|client| client.span(tracy_client::span_location!($name), 0));
    };
}
pub(crate) use zone;

/// The stages of a tick, in the order `Sim::step` runs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stage {
    /// Rebuild the spatial hash.
    Spatial,
    /// Serve path requests within the budget.
    Paths,
    /// Move platoons, write members' drive-to points.
    Formations,
    /// Desired velocity per unit.
    Steering,
    /// Vehicle dynamics: new velocity, heading, position.
    Integrate,
    /// Push overlapping shields apart.
    Separation,
}

impl Stage {
    /// Every stage, in tick order.
    pub const ALL: [Stage; 6] = [
        Stage::Spatial,
        Stage::Paths,
        Stage::Formations,
        Stage::Steering,
        Stage::Integrate,
        Stage::Separation,
    ];

    /// The stage's name in reports and profiles.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Stage::Spatial => "spatial",
            Stage::Paths => "paths",
            Stage::Formations => "formations",
            Stage::Steering => "steering",
            Stage::Integrate => "integrate",
            Stage::Separation => "separation",
        }
    }
}

/// Longest duration the histograms hold; longer ticks saturate to it.
const HISTOGRAM_MAX_NS: u64 = 60_000_000_000;

/// Timing and counters of one stage (or of the whole tick) over a run.
#[derive(Clone, Debug)]
struct Track {
    budget: Duration,
    last: Duration,
    histogram: Histogram<u64>,
    total_ns: u128,
    over_budget_ticks: u64,
}

impl Track {
    fn new(budget: Duration) -> Track {
        Track {
            budget,
            last: Duration::ZERO,
            histogram: Histogram::new_with_bounds(1, HISTOGRAM_MAX_NS, 3)
                .expect("constant histogram bounds are valid"),
            total_ns: 0,
            over_budget_ticks: 0,
        }
    }

    fn record(&mut self, elapsed: Duration) {
        self.last = elapsed;
        let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        self.histogram
            .saturating_record(nanos.clamp(1, HISTOGRAM_MAX_NS));
        self.total_ns += u128::from(nanos);
        if elapsed > self.budget {
            self.over_budget_ticks += 1;
        }
    }

    fn report(&self, name: &str, counters: Vec<(&'static str, f64)>) -> TimingReport {
        let ms = |nanos: u64| nanos as f64 / 1e6;
        let ticks = self.histogram.len();
        let counters = counters
            .into_iter()
            .map(|(key, value)| (key.to_owned(), value))
            .collect();
        TimingReport {
            name: name.to_owned(),
            budget_ms: self.budget.as_secs_f64() * 1e3,
            mean_ms: if ticks == 0 {
                0.0
            } else {
                self.total_ns as f64 / ticks as f64 / 1e6
            },
            p50_ms: ms(self.histogram.value_at_quantile(0.50)),
            p95_ms: ms(self.histogram.value_at_quantile(0.95)),
            p99_ms: ms(self.histogram.value_at_quantile(0.99)),
            max_ms: ms(self.histogram.max()),
            over_budget_ticks: self.over_budget_ticks,
            counters,
        }
    }
}

/// Per-stage and whole-tick budgets, as durations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budgets {
    /// The whole tick.
    pub frame: Duration,
    /// Each stage, in [`Stage::ALL`] order.
    pub stages: [Duration; 6],
}

impl Budgets {
    /// The budget of one stage.
    #[must_use]
    pub fn stage(&self, stage: Stage) -> Duration {
        self.stages[stage as usize]
    }
}

impl Default for Budgets {
    /// A 60 Hz frame split into shares that leave room for the rest of a game.
    fn default() -> Budgets {
        let ms = Duration::from_secs_f64;
        Budgets {
            frame: ms(4.0e-3),
            stages: [
                ms(0.5e-3),
                ms(1.0e-3),
                ms(0.3e-3),
                ms(1.0e-3),
                ms(0.5e-3),
                ms(0.7e-3),
            ],
        }
    }
}

/// The timers and counters of a simulation; working memory, reused every tick.
#[derive(Debug)]
pub struct Instruments {
    stages: StageTracks,
    tick: Track,
    trace: Vec<TickTrace>,
}

/// Milliseconds of each stage (in [`Stage::ALL`] order) and of the whole
/// tick, for one tick.
pub type TickTrace = [f32; 7];

/// The per-stage tracks and figures, handed to the body of a tick.
pub struct StageTracks {
    tracks: [Track; 6],
    /// Each stage's figures, folded over the run.
    pub stats: StageStats,
    #[cfg(feature = "tracy")]
    tracy: tracy_client::Client,
}

/// Times one stage (or a tick) until dropped; also a Tracy zone with the
/// `tracy` feature.
#[must_use = "the stage is timed until the timer is dropped"]
pub struct StageTimer<'a> {
    track: &'a mut Track,
    started: Instant,
    #[cfg(feature = "tracy")]
    _zone: tracy_client::Span,
}

impl Drop for StageTimer<'_> {
    fn drop(&mut self) {
        self.track.record(self.started.elapsed());
    }
}

// By hand: the Tracy client has no `Debug`.
impl std::fmt::Debug for StageTracks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StageTracks")
            .field("tracks", &self.tracks)
            .finish_non_exhaustive()
    }
}

impl StageTracks {
    /// Runs one stage under its timer and returns what it returns.
    pub fn run<R>(&mut self, stage: Stage, work: impl FnOnce() -> R) -> R {
        let _timer = self.time(stage);
        work()
    }

    /// [`StageTracks::run`] for a stage that also spent `earlier` in an
    /// earlier part of the same tick: one time, the sum, is recorded.
    pub fn run_adding<R>(&mut self, stage: Stage, earlier: Duration, work: impl FnOnce() -> R) -> R {
        let mut timer = self.time(stage);
        timer.started = timer.started.checked_sub(earlier).unwrap_or(timer.started);
        work()
    }

    /// Starts timing `stage`; the time is recorded when the guard drops.
    pub fn time(&mut self, stage: Stage) -> StageTimer<'_> {
        StageTimer {
            #[cfg(feature = "tracy")]
            _zone: self.tracy.clone().span(tracy_zone(stage), 0),
            track: &mut self.tracks[stage as usize],
            started: Instant::now(),
        }
    }
}

impl Instruments {
    /// Empty tracks with these budgets; starts the Tracy client if enabled.
    #[must_use]
    pub fn new(budgets: Budgets) -> Instruments {
        Instruments {
            stages: StageTracks {
                tracks: budgets.stages.map(Track::new),
                stats: StageStats::default(),
                #[cfg(feature = "tracy")]
                tracy: tracy_client::Client::start(),
            },
            tick: Track::new(budgets.frame),
            trace: Vec::new(),
        }
    }

    /// Keeps every stage's time for each of the next `ticks` ticks (for
    /// plots); the buffer is allocated here, so ticks stay allocation-free.
    /// Ticks past the capacity are not traced.
    pub fn trace_ticks(&mut self, ticks: usize) {
        self.trace = Vec::with_capacity(ticks);
    }

    /// The traced ticks, oldest first.
    #[must_use]
    pub fn trace(&self) -> &[TickTrace] {
        &self.trace
    }

    /// Times a whole tick whose stages `body` runs, then ends the Tracy frame
    /// with the gauges `units` and `open_path_requests` (read after the tick).
    pub fn tick(&mut self, body: impl FnOnce(&mut StageTracks) -> Gauges) {
        let gauges = {
            let _timer = StageTimer {
                #[cfg(feature = "tracy")]
                _zone: self
                    .stages
                    .tracy
                    .clone()
                    .span(tracy_client::span_location!("tick"), 0),
                track: &mut self.tick,
                started: Instant::now(),
            };
            body(&mut self.stages)
        };
        if self.trace.len() < self.trace.capacity() {
            let ms = |track: &Track| track.last.as_secs_f32() * 1e3;
            let stages = &self.stages.tracks;
            let tick = ms(&self.tick);
            self.trace.push([
                ms(&stages[0]),
                ms(&stages[1]),
                ms(&stages[2]),
                ms(&stages[3]),
                ms(&stages[4]),
                ms(&stages[5]),
                tick,
            ]);
        }
        self.end_frame(gauges);
    }

    #[cfg_attr(not(feature = "tracy"), allow(unused_variables, clippy::unused_self))]
    fn end_frame(&self, gauges: Gauges) {
        #[cfg(feature = "tracy")]
        {
            let tracy = &self.stages.tracy;
            tracy.frame_mark();
            tracy.plot(tracy_client::plot_name!("units"), gauges.units as f64);
            tracy.plot(
                tracy_client::plot_name!("open path requests"),
                gauges.open_path_requests as f64,
            );
        }
    }

    /// Forgets every recorded tick (for example after warm-up).
    pub fn reset(&mut self) {
        for track in self.stages.tracks.iter_mut().chain([&mut self.tick]) {
            *track = Track::new(track.budget);
        }
        self.stages.stats = StageStats::default();
        self.trace.clear();
    }

    /// Ticks recorded since creation or the last reset.
    #[must_use]
    pub fn ticks(&self) -> u64 {
        self.tick.histogram.len()
    }

    /// The figures of every stage and of the whole tick.
    #[must_use]
    pub fn report(&self) -> (Vec<TimingReport>, TimingReport) {
        let stats = self.stats();
        let stages = Stage::ALL
            .iter()
            .map(|&stage| self.stages.tracks[stage as usize].report(stage.name(), stats.named(stage)))
            .collect();
        (stages, self.tick.report("tick", Vec::new()))
    }

    /// Every stage's figures since creation or the last reset.
    #[must_use]
    pub fn stats(&self) -> StageStats {
        self.stages.stats.over(self.ticks())
    }
}

/// Levels plotted once per tick (Tracy plots).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Gauges {
    /// Live units.
    pub units: usize,
    /// Path requests waiting.
    pub open_path_requests: usize,
}

#[cfg(feature = "tracy")]
fn tracy_zone(stage: Stage) -> &'static tracy_client::SpanLocation {
    match stage {
        Stage::Spatial => tracy_client::span_location!("spatial"),
        Stage::Paths => tracy_client::span_location!("paths"),
        Stage::Formations => tracy_client::span_location!("formations"),
        Stage::Steering => tracy_client::span_location!("steering"),
        Stage::Integrate => tracy_client::span_location!("integrate"),
        Stage::Separation => tracy_client::span_location!("separation"),
    }
}

/// Timing figures of one stage, or of the whole tick, over a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimingReport {
    /// Stage name, or `tick`.
    pub name: String,
    /// Its budget per tick.
    pub budget_ms: f64,
    /// Mean milliseconds per tick.
    pub mean_ms: f64,
    /// Median.
    pub p50_ms: f64,
    /// 95th percentile.
    pub p95_ms: f64,
    /// 99th percentile.
    pub p99_ms: f64,
    /// Slowest tick.
    pub max_ms: f64,
    /// Ticks that took longer than the budget.
    pub over_budget_ticks: u64,
    /// Stage-specific counters, folded over the run.
    #[serde(flatten)]
    pub counters: std::collections::BTreeMap<String, f64>,
}

impl TimingReport {
    /// Percent of the budget used at the 99th percentile.
    #[must_use]
    pub fn budget_used_p99(&self) -> f64 {
        100.0 * self.p99_ms / self.budget_ms
    }

    /// The 99th percentile exceeds the budget.
    #[must_use]
    pub fn is_over(&self) -> bool {
        self.p99_ms > self.budget_ms
    }
}
