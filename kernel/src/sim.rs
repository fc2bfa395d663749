//! `Sim::step`: the stages of a tick, in order, and nothing else.
//!
//! A [`Sim`] owns the vehicle columns, each stage's working memory, the
//! instruments and one rayon pool built with a fixed thread count. Stages
//! never call each other: each takes the columns it reads and writes and
//! reports its counters to its timer.

use std::sync::Arc;
use std::time::Duration;

use glam::Vec2;
use rayon::{ThreadPool, ThreadPoolBuilder};
use thiserror::Error;

use crate::formation::{FormationStage, FormationWorld, Platoons};
use crate::instrument::{Budgets, Counter, Gauges, Instruments, Stage, TimingReport};
use crate::nav::service::Planner;
use crate::nav::{PathRequest, PathService, PolygonNavigator, WorldMap};
use crate::separation::{Separation, SeparationInput};
use crate::spatial::{Bounds, GridError, SpatialHash};
use crate::steer::dynamics::{self, SPEED_FRACTION_SCALE};
use crate::steer::field::{Disc, OrbitingBody};
use crate::steer::{self, SteerWorld, Steering};
use crate::vehicles::{SpawnError, StaleUnit, UnitId, UnitSpec, Vehicles};

/// Everything a [`Sim`] is built from, checked by [`Sim::new`].
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// Worker threads (≥ 1), including the thread that builds the `Sim`.
    pub threads: usize,
    /// The world the spatial hash covers; units outside still work, slower.
    pub bounds: Bounds,
    /// Spatial hash cell edge; `None` uses `neighbour_radius`.
    pub cell_size: Option<f32>,
    /// Radius of neighbour interactions, metres.
    pub neighbour_radius: f32,
    /// Frame and stage budgets.
    pub budgets: Budgets,
    /// Most path requests taken from the queue per tick.
    pub max_path_requests_per_tick: usize,
    /// The `paths` stage's work budget per tick, in cells: on a grid map
    /// its searches stop (suspended, to resume next tick) once they have
    /// done this much work in a tick; on a polygon map it stops serving
    /// between batches once they have expanded this many nodes (a
    /// deterministic budget; see [`crate::nav::service`]).
    pub max_path_nodes_per_tick: u64,
    /// Most separation pushes per tick (0 only measures overlap).
    pub separation_iterations: u32,
    /// Every this many ticks the vehicle rows are reordered into spatial
    /// cell order, so neighbours sit together in memory; 0 never does.
    pub reorder_interval: u32,
    /// Longest step, seconds: a longer `dt` is clamped to it (a stalled
    /// frame must not teleport units through each other).
    pub max_dt: f32,
    /// Round bodies moving along ellipses that potential-field units steer
    /// around (planets, patrols).
    pub bodies: Vec<OrbitingBody>,
    /// The grid terrain: routes are planned on it by grid A* (unless
    /// `polygon` is set), and the tick's local checks read it — line of
    /// sight in route following and the bad-position check, formation
    /// slots, swamp slowdown, walls in avoidance. `None` is an open field.
    pub map: Option<Arc<WorldMap>>,
    /// A polygon map's visibility graph: when set, every route is planned
    /// on it (Force 21) instead of on `map`; give `map` its raster
    /// ([`crate::nav::polygon::rasterize`]) for the local checks.
    pub polygon: Option<Arc<PolygonNavigator>>,
}

impl SimConfig {
    /// Defaults for a world covering `bounds`.
    #[must_use]
    pub fn new(bounds: Bounds) -> SimConfig {
        SimConfig {
            threads: std::thread::available_parallelism().map_or(1, usize::from),
            bounds,
            cell_size: None,
            neighbour_radius: 8.0,
            budgets: Budgets::default(),
            max_path_requests_per_tick: 1024,
            max_path_nodes_per_tick: 20_000,
            separation_iterations: 2,
            reorder_interval: 32,
            max_dt: 0.25,
            bodies: Vec::new(),
            map: None,
            polygon: None,
        }
    }
}

/// A configuration [`Sim::new`] refuses.
#[derive(Debug, Error)]
pub enum ConfigError {
    /// `threads` was 0.
    #[error("threads must be at least 1, was 0")]
    NoThreads,
    /// The neighbour radius was not a positive finite number.
    #[error("neighbour radius must be a positive number of metres, was {0}")]
    BadNeighbourRadius(f32),
    /// The longest step was not a positive finite number.
    #[error("max_dt must be a positive number of seconds, was {0}")]
    BadMaxDt(f32),
    /// A moving body is malformed.
    #[error("body {index}: `{key}` {reason}")]
    BadBody {
        /// Its position in the list.
        index: usize,
        /// The offending field.
        key: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// The spatial grid cannot be built.
    #[error(transparent)]
    Grid(#[from] GridError),
    /// The thread pool could not start.
    #[error("cannot start the thread pool: {0}")]
    Pool(#[from] rayon::ThreadPoolBuildError),
    /// The map file cannot be loaded.
    #[error(transparent)]
    Map(#[from] crate::nav::MapError),
    /// The map's movement costs are invalid.
    #[error(transparent)]
    Mobility(#[from] crate::nav::MobilityError),
    /// The polygon map cannot be loaded or its graph built (the message
    /// names the file and the element).
    #[error("polygon map: {0}")]
    Polygon(String),
    /// A scenario's move order was refused.
    #[error("scenario order refused: {0}")]
    Order(#[from] OrderError),
    /// A scenario's platoon was refused.
    #[error("scenario platoon refused: {0}")]
    Platoon(#[from] crate::formation::PlatoonError),
}

/// A `dt` [`Sim::try_step`] refuses.
#[derive(Clone, Copy, Debug, PartialEq, Error)]
#[error("dt must be a positive finite number of seconds, was {0}")]
pub struct BadStep(pub f32);

/// Movement quality over the run so far (since the last
/// [`Sim::reset_instruments`]): a change that makes units faster but dumber
/// shows up here.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Quality {
    /// Units within the arrival radius of their drive-to point at the last
    /// tick.
    pub arrived: usize,
    /// Shield overlaps found before the separation pass (collisions
    /// steering did not avoid) per 1,000 unit-ticks.
    pub collisions_per_1000_unit_ticks: f64,
    /// Mean `|velocity| / max_speed` over the unit-ticks steering asked to
    /// move.
    pub mean_speed_fraction: f64,
    /// Units without progress toward their drive-to point for 10 s at the
    /// last tick.
    pub stuck: usize,
    /// Mean distance of platoon members from their slots over the
    /// member-ticks, metres.
    pub formation_error_mean_m: f64,
    /// 95th percentile of that distance, metres (to 0.1 m).
    pub formation_error_p95_m: f64,
    /// Platoons whose members all stood on their destination spots at the
    /// last tick.
    pub platoons_arrived: usize,
}

/// Formation error samples: a histogram of 0.1 m bins (the last bin holds
/// everything beyond) and an exact sum.
#[derive(Clone, Debug, PartialEq)]
struct FormationErrors {
    bins: Vec<u64>,
    sum_m: f64,
    samples: u64,
}

/// Width of a formation-error histogram bin, metres.
const ERROR_BIN_M: f64 = 0.1;
/// Bins in the formation-error histogram (the last takes the overflow).
const ERROR_BINS: usize = 2048;

impl Default for FormationErrors {
    fn default() -> FormationErrors {
        FormationErrors {
            bins: vec![0; ERROR_BINS],
            sum_m: 0.0,
            samples: 0,
        }
    }
}

impl FormationErrors {
    fn add(&mut self, platoons: &Platoons) {
        for (_, platoon) in platoons.iter() {
            for &error in platoon.error.iter().filter(|error| error.is_finite()) {
                let bin = (f64::from(error) / ERROR_BIN_M) as usize;
                self.bins[bin.min(ERROR_BINS - 1)] += 1;
                self.sum_m += f64::from(error);
                self.samples += 1;
            }
        }
    }

    fn mean(&self) -> f64 {
        if self.samples == 0 {
            0.0
        } else {
            self.sum_m / self.samples as f64
        }
    }

    /// The upper edge of the bin holding the 95th percentile.
    fn p95(&self) -> f64 {
        let wanted = (self.samples as f64 * 0.95).ceil() as u64;
        let mut seen = 0;
        for (bin, &count) in self.bins.iter().enumerate() {
            seen += count;
            if seen >= wanted && seen > 0 {
                return (bin + 1) as f64 * ERROR_BIN_M;
            }
        }
        0.0
    }
}

/// Running sums behind [`Quality`].
#[derive(Clone, Debug, Default, PartialEq)]
struct QualityTotals {
    unit_ticks: u64,
    collisions: u64,
    driving_unit_ticks: u64,
    speed_fraction_sum: u64,
    last: steer::SteerStats,
    formation: FormationErrors,
    platoons_arrived: usize,
}

/// The simulation: vehicles, stages and instruments. Working memory is
/// reused across ticks, so after the first tick `step` does not allocate.
#[derive(Debug)]
pub struct Sim {
    pub(crate) config: SimConfig,
    pub(crate) vehicles: Vehicles,
    spatial: SpatialHash,
    pub(crate) paths: PathService,
    pub(crate) platoons: Platoons,
    pub(crate) formations: FormationStage,
    steering: Steering,
    separation: Separation,
    instruments: Instruments,
    reorder_scratch: Vec<u128>,
    discs: Vec<Disc>,
    quality: QualityTotals,
    pool: Arc<ThreadPool>,
    pub(crate) tick: u64,
    pub(crate) time_s: f64,
}

impl Sim {
    /// A world with no units.
    ///
    /// The calling thread joins the pool as worker 0 when it can (rayon's
    /// `use_current_thread`), so `step` on this thread hands work to the
    /// others without going through rayon's injector, which allocates.
    pub fn new(config: SimConfig) -> Result<Sim, ConfigError> {
        if config.threads == 0 {
            return Err(ConfigError::NoThreads);
        }
        let radius = config.neighbour_radius;
        if !(radius.is_finite() && radius > 0.0) {
            return Err(ConfigError::BadNeighbourRadius(radius));
        }
        if !(config.max_dt.is_finite() && config.max_dt > 0.0) {
            return Err(ConfigError::BadMaxDt(config.max_dt));
        }
        for (index, body) in config.bodies.iter().enumerate() {
            body.validate()
                .map_err(|(key, reason)| ConfigError::BadBody { index, key, reason })?;
        }
        let cell_size = config.cell_size.unwrap_or(radius);
        let spatial = SpatialHash::new(config.bounds, cell_size)?;
        let separation = Separation::new(config.bounds, cell_size, config.separation_iterations)?;
        let builder = || ThreadPoolBuilder::new().num_threads(config.threads);
        let pool = builder()
            .use_current_thread()
            .build()
            .or_else(|_already_in_a_pool| builder().build())?;
        // A worker's first steal creates its crossbeam-epoch handle (an
        // allocation): make it here, not inside some later tick.
        pool.broadcast(|_| drop(crossbeam_epoch::pin()));
        Ok(Sim {
            instruments: Instruments::new(config.budgets),
            discs: vec![Disc::default(); config.bodies.len()],
            quality: QualityTotals::default(),
            time_s: 0.0,
            config,
            vehicles: Vehicles::default(),
            spatial,
            paths: PathService::default(),
            platoons: Platoons::default(),
            formations: FormationStage::default(),
            steering: Steering::default(),
            separation,
            reorder_scratch: Vec::new(),
            pool: Arc::new(pool),
            tick: 0,
        })
    }

    /// The configuration it was built with.
    #[must_use]
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// Worker threads in the pool.
    #[must_use]
    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// Ticks stepped so far.
    #[must_use]
    pub fn tick_count(&self) -> u64 {
        self.tick
    }

    /// The vehicle columns (zero-copy).
    #[must_use]
    pub fn vehicles(&self) -> &Vehicles {
        &self.vehicles
    }

    /// Mutable vehicle columns, for engines that teleport or retune units
    /// between ticks. Lengths cannot change here: use spawn and despawn.
    pub fn vehicles_mut(&mut self) -> crate::vehicles::ColumnsMut<'_> {
        self.vehicles.columns_mut()
    }

    /// Adds a unit; every stage's scratch grows with it, outside the tick.
    /// On a map, a movable ground unit must start on an open cell
    /// ([`SpawnError::NotOnOpenGround`]): walls only stop units that stand
    /// on open ground, so one started inside a building would drive through
    /// walls until it got out.
    pub fn spawn(&mut self, spec: &UnitSpec) -> Result<UnitId, SpawnError> {
        spec.validate()?;
        let grounded = spec.inv_mass > 0.0 && !spec.kind.handling().flies;
        if let Some(map) = self.config.map.as_deref()
            && grounded
            && !map.is_open(spec.position)
        {
            return Err(SpawnError::NotOnOpenGround {
                x: spec.position.x,
                y: spec.position.y,
            });
        }
        let id = self.vehicles.spawn(spec)?;
        self.reserve(self.vehicles.len());
        Ok(id)
    }

    /// Removes a unit; its handle becomes stale. A platoon member leaves
    /// its platoon first (see [`Sim::leave_platoon`]).
    pub fn despawn(&mut self, id: UnitId) -> Result<(), StaleUnit> {
        self.leave_platoon(id).map_err(|_| StaleUnit(id))?;
        self.vehicles.despawn(id)
    }

    /// Sizes every stage's scratch for `units`, so ticks never allocate.
    pub fn reserve(&mut self, units: usize) {
        self.spatial.reserve(units);
        let slots = self.vehicles.handle_parts().0.len();
        let threads = self.pool.current_num_threads();
        let planner = planner(&self.config);
        let requests = units + self.platoons.records().len();
        self.paths.reserve(requests, slots.max(units), planner);
        self.formations.reserve(self.config.map.as_deref(), threads);
        let bridges = self
            .config
            .polygon
            .as_ref()
            .map_or(0, |nav| nav.bridge_count());
        self.formations.reserve_bridges(bridges);
        self.steering.reserve(units);
        self.separation.reserve(units);
        // The widest column is 16 bytes a row.
        self.reorder_scratch
            .reserve(units.saturating_sub(self.reorder_scratch.len()));
    }

    /// Orders a unit to `goal`: queued for the `paths` stage. Until it is
    /// served the unit's own checks ask for no path (theirs would lead to
    /// the old goal and, being newer, replace the order).
    pub fn order_move(&mut self, unit: UnitId, goal: Vec2) -> Result<(), OrderError> {
        let row = self
            .vehicles
            .row_of(unit)
            .ok_or(OrderError::Stale(StaleUnit(unit)))?;
        if !goal.is_finite() {
            return Err(OrderError::BadGoal(goal));
        }
        if let Some(map) = &self.config.map
            && map.cell_at(goal).is_none()
        {
            return Err(OrderError::OffMap(goal));
        }
        self.paths.push(PathRequest::for_unit(unit, goal));
        self.vehicles.columns_mut().route_pending[row] = 1;
        Ok(())
    }

    /// Every unit's route, by handle slot (see [`crate::nav::Routes`]; a
    /// unit's `route_len` column says how many points are in use).
    #[must_use]
    pub fn routes(&self) -> &crate::nav::Routes {
        self.paths.routes()
    }

    /// Path requests waiting for the `paths` stage or being searched.
    #[must_use]
    pub fn open_path_requests(&self) -> usize {
        self.paths.waiting()
    }

    /// Grid searches the `paths` stage has begun and suspended, to resume
    /// next tick.
    #[must_use]
    pub fn path_searches_in_flight(&self) -> usize {
        self.paths.flights.searching()
    }

    /// Advances the world by `dt` seconds (at most `max_dt`), running
    /// every stage in order.
    ///
    /// # Panics
    /// If `dt` is NaN, infinite or not positive; [`Sim::try_step`] returns
    /// an error instead.
    pub fn step(&mut self, dt: f32) {
        if let Err(error) = self.try_step(dt) {
            panic!("{error}");
        }
    }

    /// [`Sim::step`] for an untrusted `dt`: refused, with nothing changed,
    /// unless it is a positive finite number of seconds.
    pub fn try_step(&mut self, dt: f32) -> Result<(), BadStep> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(BadStep(dt));
        }
        let dt = dt.min(self.config.max_dt);
        let pool = Arc::clone(&self.pool);
        pool.install(|| self.run_stages(dt));
        self.learn_of_removed_bridges();
        self.tick += 1;
        self.time_s += f64::from(dt);
        Ok(())
    }

    /// Simulated seconds so far.
    #[must_use]
    pub fn time_s(&self) -> f64 {
        self.time_s
    }

    /// Where the moving bodies are now.
    pub fn bodies_now(&self) -> impl Iterator<Item = Disc> + '_ {
        self.config
            .bodies
            .iter()
            .map(|body| body.disc_at(self.time_s))
    }

    /// Movement quality since the last [`Sim::reset_instruments`].
    #[must_use]
    pub fn quality(&self) -> Quality {
        let totals = &self.quality;
        let per = |sum: f64, count: u64| if count == 0 { 0.0 } else { sum / count as f64 };
        Quality {
            arrived: totals.last.arrived,
            collisions_per_1000_unit_ticks: per(
                1000.0 * totals.collisions as f64,
                totals.unit_ticks,
            ),
            mean_speed_fraction: per(
                totals.speed_fraction_sum as f64 / f64::from(SPEED_FRACTION_SCALE),
                totals.driving_unit_ticks,
            ),
            stuck: totals.last.stuck,
            formation_error_mean_m: totals.formation.mean(),
            formation_error_p95_m: totals.formation.p95(),
            platoons_arrived: totals.platoons_arrived,
        }
    }

    fn run_stages(&mut self, dt: f32) {
        let reorder_due = self.config.reorder_interval > 0
            && self
                .tick
                .is_multiple_of(u64::from(self.config.reorder_interval));
        let Sim {
            config,
            vehicles,
            spatial,
            paths,
            platoons,
            formations,
            steering,
            separation,
            instruments,
            reorder_scratch,
            discs,
            quality,
            time_s,
            tick,
            ..
        } = self;
        for (disc, body) in discs.iter_mut().zip(&config.bodies) {
            *disc = body.disc_at(*time_s);
        }
        instruments.tick(|stages| {
            stages.run(Stage::Spatial, || {
                let built = spatial.rebuild(vehicles.columns().position());
                if reorder_due {
                    vehicles.reorder(spatial.order(), reorder_scratch);
                    spatial.renumber_in_cell_order();
                }
                [
                    Counter::sum("reorders", f64::from(u8::from(reorder_due))),
                    Counter::max("max_cell_units", f64::from(built.max_cell_units)),
                    Counter::max("outside_bounds", f64::from(built.outside_bounds)),
                ]
            });
            stages.run(Stage::Paths, || {
                let served = paths.run(
                    vehicles,
                    platoons,
                    planner(config),
                    config.map.as_deref(),
                    config.max_path_nodes_per_tick,
                    config.max_path_requests_per_tick,
                    *tick,
                );
                [
                    Counter::sum("served", served.served as f64),
                    Counter::sum("dropped", served.dropped as f64),
                    Counter::sum("unreachable", served.unreachable as f64),
                    Counter::sum("requested", served.requested as f64),
                    Counter::mean("expanded", served.expanded as f64),
                    Counter::mean("work_cells", served.work as f64),
                    Counter::max("max_work_cells", served.work as f64),
                    Counter::max("queue_len", served.waiting as f64),
                    Counter::max("in_flight", served.in_flight as f64),
                ]
            });
            stages.run(Stage::Formations, || {
                let world = FormationWorld {
                    map: config.map.as_deref(),
                    bridges: config.polygon.as_deref(),
                    dt,
                    tick: *tick,
                };
                let moved = formations.run(platoons, vehicles, world);
                quality.formation.add(platoons);
                quality.platoons_arrived = moved.arrived;
                [
                    Counter::mean("solo_units", moved.solo as f64),
                    Counter::mean("platoons", moved.platoons as f64),
                    Counter::mean("moving_platoons", moved.moving as f64),
                    Counter::mean("waiting_platoons", moved.waiting as f64),
                    Counter::mean("softened_slots", moved.softened as f64),
                    Counter::mean("platoons_at_bridge", moved.at_bridge as f64),
                    Counter::max("platoons_arrived", moved.arrived as f64),
                ]
            });
            let mut columns = vehicles.columns_mut();
            stages.run(Stage::Steering, || {
                let world = SteerWorld {
                    spatial,
                    map: config.map.as_deref(),
                    avoid_radius: config.neighbour_radius,
                    bodies: discs,
                    dt,
                };
                let steered = steering.run(&mut columns, world);
                quality.last = steered;
                [
                    Counter::mean("arrived_units", steered.arrived as f64),
                    Counter::mean("avoiding_units", steered.avoiding as f64),
                    Counter::mean("stopped_for_threat", steered.stopped as f64),
                    Counter::max("stuck_units", steered.stuck as f64),
                ]
            });
            stages.run(Stage::Integrate, || {
                let moved = dynamics::integrate_columns(&mut columns, config.map.as_deref(), dt);
                quality.driving_unit_ticks += moved.driving as u64;
                quality.speed_fraction_sum += moved.speed_fraction_sum;
                [
                    Counter::mean("moving_units", moved.moving as f64),
                    Counter::mean("stopped_at_walls", moved.walled as f64),
                ]
            });
            stages.run(Stage::Separation, || {
                let input = SeparationInput {
                    altitude: columns.altitude,
                    heading: columns.heading,
                    shield: columns.shield,
                    inv_mass: columns.inv_mass,
                    spatial,
                    terrain: config.map.as_deref(),
                };
                let pass = separation.pass(input, columns.position);
                quality.collisions += pass.overlaps;
                quality.unit_ticks += columns.position.len() as u64;
                [
                    Counter::mean("pairs_tested", pass.pairs_tested as f64),
                    Counter::mean("exact_tests", pass.exact_tests as f64),
                    Counter::mean("overlaps", pass.overlaps as f64),
                    Counter::mean("iterations", f64::from(pass.iterations)),
                    Counter::max("max_overlap_m", f64::from(pass.max_overlap_m)),
                    Counter::max("max_overlap_rel", f64::from(pass.max_overlap_rel)),
                ]
            });
            Gauges {
                units: vehicles.len(),
                open_path_requests: paths.waiting(),
            }
        });
    }

    /// The instruments (timings and counters so far).
    #[must_use]
    pub fn instruments(&self) -> &Instruments {
        &self.instruments
    }

    /// Keeps per-tick stage times for the next `ticks` ticks (see
    /// [`Instruments::trace`]); allocates now, not in the ticks.
    pub fn trace_ticks(&mut self, ticks: usize) {
        self.instruments.trace_ticks(ticks);
    }

    /// Forgets recorded timings and quality sums, e.g. after warm-up
    /// ticks.
    pub fn reset_instruments(&mut self) {
        self.instruments.reset();
        self.quality = QualityTotals {
            last: self.quality.last,
            platoons_arrived: self.quality.platoons_arrived,
            ..QualityTotals::default()
        };
    }

    /// Per-stage and whole-tick figures since the last reset.
    #[must_use]
    pub fn report(&self) -> (Vec<TimingReport>, TimingReport) {
        self.instruments.report()
    }

    /// A 64-bit XXH3 hash of the whole simulation state: every section a
    /// snapshot holds (tick, map identity, unit count and clock, every
    /// column, the handle table, the path queue and searches in flight,
    /// routes and platoons). Equal checksums mean bit-identical state.
    #[must_use]
    pub fn checksum(&self) -> u64 {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        for (name, bytes) in crate::snapshot::state_sections(self) {
            hasher.update(name.as_bytes());
            hasher.update(&(bytes.len() as u64).to_le_bytes());
            hasher.update(&bytes);
        }
        hasher.digest()
    }

    /// Identifies the world a snapshot belongs to: a hash of the bounds,
    /// the spatial cell size, the grid map and the polygon map's graph size
    /// and bridges (which stand, and what each faction believes).
    #[must_use]
    pub fn map_identity(&self) -> u64 {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        hasher.update(bytemuck::bytes_of(&self.config.bounds.min));
        hasher.update(bytemuck::bytes_of(&self.config.bounds.max));
        hasher.update(&self.spatial.cell_size().to_le_bytes());
        if let Some(map) = &self.config.map {
            hasher.update(&map.identity().to_le_bytes());
        }
        if let Some(nav) = &self.config.polygon {
            hasher.update(&(nav.total_nodes() as u64).to_le_bytes());
            // Bridges removed or added at run time, and who knows: a
            // snapshot restores only into a world whose bridges match.
            nav.hash_bridges(&mut hasher);
        }
        hasher.digest()
    }

    /// Replaces this simulation's state with a snapshot's (see
    /// [`crate::snapshot`]). On any error nothing changes.
    pub fn restore(
        &mut self,
        reader: &mut impl std::io::Read,
    ) -> Result<(), crate::snapshot::SnapshotError> {
        let state = crate::snapshot::read(reader, self.map_identity())?;
        let flights = crate::snapshot::rebuild_flights(&state.flights, self.config.map.as_deref())?;
        self.reserve(state.vehicles.len());
        self.vehicles = state.vehicles;
        self.paths.queue = state.path_queue;
        self.paths.routes = state.routes;
        self.paths.flights = flights;
        self.platoons = state.platoons;
        let slots = self.vehicles.handle_parts().0.len();
        let planner = planner(&self.config);
        let requests = self.vehicles.len() + self.platoons.records().len();
        self.paths.reserve(requests, slots, planner);
        self.tick = state.tick;
        self.time_s = state.time_s;
        Ok(())
    }

    /// Writes the whole simulation state as a snapshot (see
    /// [`crate::snapshot`]).
    pub fn save(&self, writer: &mut impl std::io::Write) -> std::io::Result<()> {
        crate::snapshot::write(self, writer)
    }

    /// The budgets the instruments compare against.
    #[must_use]
    pub fn budgets(&self) -> Budgets {
        self.config.budgets
    }

    /// The budget of one stage.
    #[must_use]
    pub fn stage_budget(&self, stage: Stage) -> Duration {
        self.config.budgets.stage(stage)
    }
}

/// What the `paths` stage plans on under `config`.
fn planner(config: &SimConfig) -> Planner<'_> {
    match (&config.polygon, &config.map) {
        (Some(nav), _) => Planner::Polygon(nav),
        (None, Some(map)) => Planner::Grid(map),
        (None, None) => Planner::OpenField,
    }
}

/// An order [`Sim::order_move`] refuses; nothing was queued.
#[derive(Clone, Copy, Debug, PartialEq, Error)]
pub enum OrderError {
    /// The unit is gone.
    #[error(transparent)]
    Stale(#[from] StaleUnit),
    /// The goal is NaN or infinite.
    #[error("move goal must be finite, was {0:?}")]
    BadGoal(Vec2),
    /// The goal lies off the map.
    #[error("move goal {0:?} is off the map")]
    OffMap(Vec2),
}
