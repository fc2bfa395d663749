//! `Sim::step`: the stages of a tick, in order, and nothing else.
//!
//! A [`Sim`] owns the vehicle columns, each stage's working memory, the
//! instruments and the rayon pool it steps in (its own of a fixed thread
//! count, an engine's, or none for one thread). Stages
//! never call each other: each takes the columns it reads and writes and
//! reports its counters to its timer.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rayon::{ThreadPool, ThreadPoolBuilder};
use thiserror::Error;

mod checksum;
mod config;
mod engine_edits;
mod events;
mod group_plan;
mod group_spots;
mod groups;
mod mobility;
mod orders;
mod platoon_orders;
mod quality;
mod queries;
mod views;
pub mod snapshot;
mod snapshot_values;
mod obstacle_edits;
mod world_catch_up;
mod world_edits;

pub use config::{ConfigError, FactionAvoidance, GroupPace, Map, SimConfig};
pub use events::Event;
pub use orders::{MoveState, OrderError, UnreachableGoals};
pub use quality::Quality;
pub use queries::{QueryError, QueryFilter, QueryHit};
pub use views::{EngineColumns, ParamsError, PlatoonView};
use events::EventLog;
use quality::QualityTotals;
use crate::data::platoons::Platoons;
use crate::data::points_of_interest::PointsOfInterest;
use crate::instrument::{
    Budgets, FormationsFigures, Gauges, Instruments, IntegrateFigures, PathsFigures,
    SeparationFigures, SpatialFigures, Stage, StageStats, SteeringFigures, TickTrace, TimingReport,
};
use crate::stages::spatial::SpatialStage;
use crate::nav::{ClassMaps, PolygonNavigator};
use crate::stages::formations::{FormationStage, FormationWorld};
use crate::stages::paths::{PathService, Planner};
use crate::stages::separation::{Separation, SeparationInput};
use crate::data::spatial_hash::SpatialHash;
use crate::stages::integrate::dynamics::{self, SPEED_FRACTION_SCALE};
use crate::stages::steering::field::Disc;
use crate::stages::steering::{SteerWorld, Steering};
use crate::data::vehicles::{SpawnError, StaleUnit, UnitId, UnitSpec, Vehicles};

/// Why [`Sim::try_step`] refused to step; nothing changed.
#[derive(Clone, Copy, Debug, PartialEq, Error)]
pub enum StepError {
    /// `dt` is NaN, infinite or not positive.
    #[error("dt must be a positive finite number of seconds, was {0}")]
    BadDt(f32),
    /// A value written through [`Sim::columns_mut`] since the last step is
    /// out of the range a spawned unit's must lie in (the error names the
    /// field; the ranges of [`crate::unit_limits`]).
    #[error("unit {unit:?} after an edit through `columns_mut`: {source}")]
    BadEdit {
        /// The unit whose value is out of range.
        unit: UnitId,
        /// The rule it breaks, naming the field.
        source: SpawnError,
    },
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
    spatial_stage: SpatialStage,
    discs: Vec<Disc>,
    quality: QualityTotals,
    events: EventLog,
    group_planner: group_plan::GroupPlanner,
    /// The grid map as built and the edits since.
    edits: world_edits::WorldEdits,
    /// The grid map as mobility classes 1 and up see it
    /// ([`SimConfig::mobility_classes`]), edited with class 0's.
    class_maps: Vec<Arc<crate::nav::WorldMap>>,
    /// The pool stages run in; `None`: one thread, no pool.
    pool: Option<Arc<ThreadPool>>,
    /// Whether `spatial` holds the units as they are (rebuilt at the end of
    /// the last tick, and no unit spawned, despawned or moved since).
    spatial_fresh: bool,
    /// Whether the engine took [`Sim::columns_mut`] since the last step:
    /// the next step checks the columns first.
    edited: bool,
    pub(crate) tick: u64,
    pub(crate) time_s: f64,
    /// The config's points of interest, bucketed.
    points_of_interest: PointsOfInterest,
}

impl Sim {
    /// A world with no units, stepped in the engine's pool
    /// ([`SimConfig::pool`]), on the stepping thread alone (`threads` 1), or
    /// in a pool of `threads` that takes in the calling thread when it can.
    ///
    /// `step` allocates nothing after warm-up when called from the thread
    /// that built the `Sim`, from inside its pool, or on any thread without
    /// a pool. From any other thread, rayon hands each step to the pool
    /// through its injector, which allocates a block every 63 steps.
    pub fn new(config: SimConfig) -> Result<Sim, ConfigError> {
        if config.threads == 0 && config.pool.is_none() {
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
        let (low, high) = (config.bounds.min, config.bounds.max);
        let inside = |point: glam::Vec2| point.is_finite() && point.cmpge(low).all() && point.cmple(high).all();
        if let Some(index) = config.points_of_interest.iter().position(|&point| !inside(point)) {
            let point = config.points_of_interest[index];
            return Err(ConfigError::BadPointOfInterest { index, point });
        }
        let cell_size = config.cell_size.unwrap_or(radius);
        let spatial = SpatialHash::new(config.bounds, cell_size)?;
        let separation = Separation::new(config.bounds, cell_size, config.separation_iterations)?;
        let class_maps = mobility::build_class_maps(&config)?;
        let pool = pool_for(&config)?;
        Ok(Sim {
            class_maps,
            instruments: Instruments::new(config.budgets),
            discs: vec![Disc::default(); config.bodies.len()],
            points_of_interest: PointsOfInterest::new(&config.points_of_interest),
            quality: QualityTotals::default(),
            events: EventLog::default(),
            group_planner: group_plan::GroupPlanner::default(),
            edits: world_edits::WorldEdits::new(&config.map),
            time_s: 0.0,
            config,
            vehicles: Vehicles::default(),
            spatial,
            paths: PathService::default(),
            platoons: Platoons::default(),
            formations: FormationStage::default(),
            steering: Steering::default(),
            separation,
            spatial_stage: SpatialStage::default(),
            pool,
            spatial_fresh: false,
            edited: false,
            tick: 0,
        })
    }

    /// The configuration it was built with.
    #[must_use]
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// Worker threads in the pool (1 without a pool).
    #[must_use]
    pub fn threads(&self) -> usize {
        self.pool.as_ref().map_or(1, |pool| pool.current_num_threads())
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

    /// Every vehicle column, bookkeeping included, for the workspace's
    /// benches (engines use [`Sim::columns_mut`]).
    #[cfg(feature = "internals")]
    #[doc(hidden)]
    pub fn vehicles_mut(&mut self) -> crate::data::vehicles::ColumnsMut<'_> {
        self.spatial_fresh = false;
        self.vehicles.columns_mut()
    }

    /// Adds a unit; every stage's scratch grows with it, outside the tick.
    /// On a map, a movable ground unit must start on an open cell of its
    /// mobility class's map ([`SpawnError::NotOnOpenGround`]; a class the
    /// world lacks is [`SpawnError::NoSuchMobilityClass`]): walls only stop
    /// units that stand on open ground, so one started inside a building
    /// would drive through walls until it got out.
    pub fn spawn(&mut self, spec: &UnitSpec) -> Result<UnitId, SpawnError> {
        spec.validate()?;
        self.check_footing(spec.kind, spec.inv_mass, spec.position, spec.mobility.0)?;
        let id = self.vehicles.spawn(spec)?;
        let row = self.vehicles.row_of(id).expect("just spawned");
        let state = orders::move_state_at(self.vehicles.columns(), row);
        self.vehicles.columns_mut().move_state[row] = state as u8;
        self.spatial_fresh = false;
        self.reserve(self.vehicles.len());
        Ok(id)
    }

    /// Removes a unit; its handle becomes stale. A platoon member leaves
    /// its platoon first (see [`Sim::leave_platoon`]).
    pub fn despawn(&mut self, id: UnitId) -> Result<(), StaleUnit> {
        self.leave_platoon(id).map_err(|_| StaleUnit(id))?;
        self.vehicles.despawn(id)?;
        self.spatial_fresh = false;
        Ok(())
    }

    /// Sizes every stage's scratch for `units`, so ticks never allocate.
    pub fn reserve(&mut self, units: usize) {
        self.spatial.reserve(units);
        let slots = self.vehicles.handle_parts().0.len();
        let threads = self.threads();
        let planner = planner(&self.config, &self.class_maps);
        let requests = units + self.platoons.records().len();
        self.paths.reserve(requests, slots.max(units), planner);
        let maps = ClassMaps::new(self.config.map.grid(), &self.class_maps);
        self.formations.reserve(maps, threads);
        let bridges = self
            .config
            .map
            .polygon()
            .map_or(0, PolygonNavigator::bridge_count);
        self.formations.reserve_bridges(bridges);
        self.steering.reserve(units);
        self.separation.reserve(units);
        self.events.reserve(units, self.platoons.records.len());
        self.spatial_stage.reserve(units);
    }

    /// Every unit's route, by handle slot (a unit's `route_len` column says
    /// how many points are in use), for the workspace's tests and renderer.
    #[cfg(feature = "internals")]
    #[doc(hidden)]
    #[must_use]
    pub fn routes(&self) -> &crate::data::routes::Routes {
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
    /// every stage in order. Values written through [`Sim::columns_mut`]
    /// since the last step that are out of range ([`StepError::BadEdit`])
    /// are put right first: one beyond its range becomes the end it
    /// passed; NaN, and a speed, acceleration or turn rate not above 0,
    /// what a unit of its kind spawned where the unit stood when last
    /// steered has (that place for a position, no velocity, the kind's
    /// altitude and limits). [`Sim::try_step`] refuses them instead.
    ///
    /// # Panics
    /// If `dt` is NaN, infinite or not positive; [`Sim::try_step`] returns
    /// an error instead.
    pub fn step(&mut self, dt: f32) {
        if !(dt.is_finite() && dt > 0.0) {
            panic!("{}", StepError::BadDt(dt));
        }
        if self.edited {
            self.put_edits_right();
        }
        self.run_tick(dt);
    }

    /// [`Sim::step`] for untrusted input: refused, with nothing changed,
    /// unless `dt` is a positive finite number of seconds and every value
    /// written through [`Sim::columns_mut`] since the last step lies in
    /// its range (the error names the first unit, by row, and field).
    pub fn try_step(&mut self, dt: f32) -> Result<(), StepError> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(StepError::BadDt(dt));
        }
        if self.edited {
            self.check_edits()?;
        }
        self.run_tick(dt);
        Ok(())
    }

    /// One tick of a checked `dt`, on columns in range.
    fn run_tick(&mut self, dt: f32) {
        self.edited = false;
        let dt = dt.min(self.config.max_dt);
        let reordered = match self.pool.clone() {
            Some(pool) => pool.install(|| self.run_stages(dt)),
            None => crate::parallel::sequentially(|| self.run_stages(dt)),
        };
        self.learn_of_removed_bridges();
        self.events
            .collect(&mut self.vehicles, &self.platoons, reordered);
        self.tick += 1;
        self.time_s += f64::from(dt);
    }

    /// What happened in the last tick (rows reordered, units displaced by
    /// a world edit before it, arrivals, paths not found, units stuck and
    /// free again, platoons arrived), the reorder first, then the
    /// displaced units, then in row order, then platoon order; replaced by
    /// every step.
    #[must_use]
    pub fn events(&self) -> &[Event] {
        self.events.events()
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

    /// Runs the stages; returns whether the rows were reordered.
    ///
    /// The spatial hash is rebuilt at the end of the tick, so gameplay
    /// queries see the tick's final positions and the next tick starts from
    /// it; only when units were spawned, despawned or moved by the engine
    /// since is it rebuilt at the start too.
    fn run_stages(&mut self, dt: f32) -> bool {
        let interval = u64::from(self.config.reorder_interval);
        let due = |tick: u64| interval > 0 && tick.is_multiple_of(interval);
        let (reorder_now, reorder_next) = (due(self.tick), due(self.tick + 1));
        let fresh = self.spatial_fresh;
        let mut reordered = false;
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
            spatial_stage,
            discs,
            quality,
            time_s,
            tick,
            points_of_interest,
            class_maps,
            ..
        } = self;
        let maps = ClassMaps::new(config.map.grid(), class_maps);
        for (disc, body) in discs.iter_mut().zip(&config.bodies) {
            *disc = body.disc_at(*time_s);
        }
        instruments.tick(|stages| {
            let started = Instant::now();
            if !fresh {
                reordered |= spatial_stage.run(spatial, vehicles, reorder_now).reordered;
            }
            let earlier = started.elapsed();
            let served = stages.run(Stage::Paths, || {
                paths.run(
                    vehicles,
                    platoons,
                    planner(config, class_maps),
                    maps,
                    config.max_path_nodes_per_tick,
                    config.max_path_requests_per_tick,
                    *tick,
                )
            });
            stages.stats.paths.fold(PathsFigures {
                served: served.served as f64,
                dropped: served.dropped as f64,
                unreachable: served.unreachable as f64,
                requested: served.requested as f64,
                expanded: served.expanded as f64,
                work_cells: served.work as f64,
                max_work_cells: served.work as f64,
                queue_len: served.waiting as f64,
                in_flight: served.in_flight as f64,
            });
            let moved = stages.run(Stage::Formations, || {
                let world = FormationWorld {
                    maps,
                    bridges: config.map.polygon(),
                    dt,
                    tick: *tick,
                    pace_groups: config.group_pace == GroupPace::Slowest,
                    points_of_interest,
                };
                formations.run(platoons, vehicles, world)
            });
            quality.formation.add(platoons);
            quality.platoons_arrived = moved.arrived;
            stages.stats.formations.fold(FormationsFigures {
                solo_units: moved.solo as f64,
                platoons: moved.platoons as f64,
                moving_platoons: moved.moving as f64,
                waiting_platoons: moved.waiting as f64,
                softened_slots: moved.softened as f64,
                platoons_at_bridge: moved.at_bridge as f64,
                platoons_arrived: moved.arrived as f64,
            });
            let mut columns = vehicles.columns_mut();
            let steered = stages.run(Stage::Steering, || {
                let world = SteerWorld {
                    spatial,
                    maps,
                    avoid_radius: config.neighbour_radius,
                    bodies: discs,
                    dt,
                    tick: *tick,
                    factions_share: config.faction_avoidance == FactionAvoidance::Shared,
                    walls: match &config.map {
                        Map::Grid(_) => maps,
                        Map::Open | Map::Polygon { .. } => ClassMaps::default(),
                    },
                };
                steering.run(&mut columns, world)
            });
            quality.last = steered;
            stages.stats.steering.fold(SteeringFigures {
                arrived_units: steered.arrived as f64,
                avoiding_units: steered.avoiding as f64,
                stopped_for_threat: steered.stopped as f64,
                stuck_units: steered.stuck as f64,
                most_candidates: steered.most_candidates as f64,
                cut_searches: steered.cut_searches as f64,
            });
            let integrated = stages.run(Stage::Integrate, || {
                dynamics::integrate_columns(&mut columns, maps, dt)
            });
            quality.driving_unit_ticks += integrated.driving as u64;
            quality.speed_fraction_sum += integrated.speed_fraction_sum;
            stages.stats.integrate.fold(IntegrateFigures {
                moving_units: integrated.moving as f64,
                stopped_at_walls: integrated.walled as f64,
            });
            let pass = stages.run(Stage::Separation, || {
                let input = SeparationInput {
                    altitude: columns.altitude,
                    heading: columns.heading,
                    shield: columns.shield,
                    inv_mass: columns.inv_mass,
                    spatial,
                    mobility: columns.mobility,
                    terrain: maps,
                };
                separation.pass(input, columns.position)
            });
            quality.collisions += pass.overlaps;
            quality.unit_ticks += columns.position.len() as u64;
            stages.stats.separation.fold(SeparationFigures {
                pairs_tested: pass.pairs_tested as f64,
                exact_tests: pass.exact_tests as f64,
                overlaps: pass.overlaps as f64,
                iterations: f64::from(pass.iterations),
                max_iterations: f64::from(pass.iterations),
                capped_ticks: f64::from(u8::from(pass.capped)),
                max_overlap_m: f64::from(pass.max_overlap_m),
                max_overlap_rel: f64::from(pass.max_overlap_rel),
                most_candidates: f64::from(pass.most_candidates),
                cut_searches: pass.cut_searches as f64,
            });
            let built = stages.run_adding(Stage::Spatial, earlier, || {
                spatial_stage.run(spatial, vehicles, reorder_next)
            });
            reordered |= built.reordered;
            stages.stats.spatial.fold(SpatialFigures {
                reorders: f64::from(u8::from(reordered)),
                max_cell_units: f64::from(built.max_cell_units),
                outside_bounds: f64::from(built.outside_bounds),
            });
            Gauges {
                units: vehicles.len(),
                open_path_requests: paths.waiting(),
            }
        });
        self.spatial_fresh = true;
        reordered
    }

    /// Every stage's typed figures since the last reset (the report's
    /// counters, as numbers).
    #[must_use]
    pub fn stage_stats(&self) -> StageStats {
        self.instruments.stats()
    }

    /// The traced ticks' stage times (see [`Sim::trace_ticks`]), oldest
    /// first: milliseconds of each stage in [`Stage::ALL`] order, then of
    /// the whole tick.
    #[must_use]
    pub fn trace(&self) -> &[TickTrace] {
        self.instruments.trace()
    }

    /// Keeps per-tick stage times for the next `ticks` ticks (see
    /// [`Sim::trace`]); allocates now, not in the ticks.
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

    /// Identifies the world a snapshot belongs to: a hash of the bounds,
    /// the spatial cell size, the grid map (or the polygon map's raster)
    /// as built, and the polygon map's graph size as built and bridges
    /// (which stand, and what each faction believes), and the mobility
    /// classes' costs. Cell edits and
    /// run-time obstacles are not part of it: snapshots carry them.
    #[must_use]
    pub fn map_identity(&self) -> u64 {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        hasher.update(bytemuck::bytes_of(&self.config.bounds.min));
        hasher.update(bytemuck::bytes_of(&self.config.bounds.max));
        hasher.update(&self.spatial.cell_size().to_le_bytes());
        if let Some(map) = self.config.map.grid() {
            // As built: cell edits and run-time obstacles are the
            // snapshot's own sections.
            hasher.update(&map.base_identity().to_le_bytes());
        }
        for mobility in &self.config.mobility_classes {
            let costs = [mobility.open, mobility.swamp, mobility.water];
            for cost in costs.map(|cost| cost.map_or(-1.0, f32::from)) {
                hasher.update(&cost.to_le_bytes());
            }
        }
        if let Some(nav) = self.config.map.polygon() {
            hasher.update(&(nav.identity_nodes() as u64).to_le_bytes());
            // Bridges removed or added at run time, and who knows: a
            // snapshot restores only into a world whose bridges match.
            nav.hash_bridges(&mut hasher);
        }
        hasher.digest()
    }

    /// Replaces this simulation's state with a snapshot's (the format:
    /// `docs/snapshots.md`). On any error nothing changes.
    pub fn restore(
        &mut self,
        reader: &mut impl std::io::Read,
    ) -> Result<(), snapshot::SnapshotError> {
        self.restore_checking(reader, snapshot::EditedColumns::Check)
    }

    /// [`Sim::restore`], checking the columns an engine writes or, for a
    /// copy of a `Sim` with edits not yet stepped, leaving them to the next
    /// step as the original does.
    fn restore_checking(
        &mut self,
        reader: &mut impl std::io::Read,
        engine: snapshot::EditedColumns,
    ) -> Result<(), snapshot::SnapshotError> {
        let state = snapshot::read(reader, self.map_identity(), engine)?;
        self.check_mobility(&state.vehicles)?;
        let edited = self
            .edits
            .replay(&state.edits)
            .map_err(snapshot::SnapshotError::Inconsistent)?;
        let polygon = self.replay_obstacles(state.obstacles)?;
        let class_maps = match &edited {
            Some(map) => Some(
                self.class_maps_on(map)
                    .map_err(snapshot::SnapshotError::Inconsistent)?,
            ),
            None => None,
        };
        let maps = ClassMaps::new(
            edited.as_deref().or(self.config.map.grid()),
            class_maps.as_deref().unwrap_or(&self.class_maps),
        );
        let flights = snapshot::rebuild_flights(&state.flights, maps)?;
        if let Some(map) = edited {
            self.config.map = Map::Grid(map);
        }
        if let Some(class_maps) = class_maps {
            self.class_maps = class_maps;
        }
        if let Some(map) = polygon {
            self.config.map = map;
        }
        self.edits.set_list(state.edits);
        self.reserve(state.vehicles.len());
        self.vehicles = state.vehicles;
        self.paths.queue = state.path_queue;
        self.paths.routes = state.routes;
        self.paths.flights = flights;
        self.platoons = state.platoons;
        let slots = self.vehicles.handle_parts().0.len();
        let planner = planner(&self.config, &self.class_maps);
        let requests = self.vehicles.len() + self.platoons.records().len();
        self.paths.reserve(requests, slots, planner);
        self.tick = state.tick;
        self.time_s = state.time_s;
        self.spatial_fresh = false;
        self.edited = engine == snapshot::EditedColumns::Unchecked;
        self.events = EventLog::default();
        self.events
            .reserve(self.vehicles.len(), self.platoons.records.len());
        self.events.remember_platoons(&self.platoons);
        self.reserve_groups();
        Ok(())
    }

    /// Writes the whole simulation state as a snapshot (the format:
    /// `docs/snapshots.md`): sections, each under a checksum.
    pub fn save(&self, writer: &mut impl std::io::Write) -> std::io::Result<()> {
        snapshot::write(self, writer)
    }

    /// Runs `work` (a rebuild between ticks) on this `Sim`'s threads: in
    /// its pool, or on the calling thread alone with one thread.
    pub(crate) fn on_own_threads<R: Send>(&self, work: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(pool) => pool.install(work),
            None => crate::parallel::sequentially(work),
        }
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

/// A copy that continues bit-identically (rollback): this `Sim`'s snapshot
/// restored into a new one that shares its pool and map. Instruments start
/// empty, and the copy's next tick may announce a reorder of rows already
/// in order. Edits through [`Sim::columns_mut`] not yet stepped are copied
/// unchecked, and the copy's next step checks them as the original's does.
impl Clone for Sim {
    fn clone(&self) -> Sim {
        let mut bytes = Vec::new();
        self.save(&mut bytes)
            .expect("writing a snapshot to memory cannot fail");
        let mut config = self.config.clone();
        config.pool.clone_from(&self.pool);
        // The copy starts from the map as built; the restore edits it.
        if let Some(original) = self.edits.original() {
            config.map = Map::Grid(Arc::clone(original));
        }
        let mut sim = Sim::new(config).expect("this configuration built a Sim already");
        sim.config.pool.clone_from(&self.config.pool);
        let engine = if self.edited {
            snapshot::EditedColumns::Unchecked
        } else {
            snapshot::EditedColumns::Check
        };
        sim.restore_checking(&mut bytes.as_slice(), engine)
            .expect("a Sim's own snapshot restores into its own world");
        sim
    }
}

/// The pool `config` asks for: the engine's, none for one thread, or a new
/// one of `threads`. A new pool takes the calling thread in as worker 0
/// when it can (rayon's `use_current_thread`), so `step` on this thread
/// hands work to the others without going through rayon's injector, which
/// allocates.
fn pool_for(config: &SimConfig) -> Result<Option<Arc<ThreadPool>>, ConfigError> {
    let pool = match &config.pool {
        Some(pool) => Arc::clone(pool),
        None if config.threads == 1 => return Ok(None),
        None => {
            let builder = || ThreadPoolBuilder::new().num_threads(config.threads);
            let pool = builder()
                .use_current_thread()
                .build()
                .or_else(|_already_in_a_pool| builder().build())?;
            Arc::new(pool)
        }
    };
    // A worker's first steal creates its crossbeam-epoch handle (an
    // allocation): make it here, not inside some later tick.
    pool.broadcast(|_| drop(crossbeam_epoch::pin()));
    Ok(Some(pool))
}

/// What the `paths` stage plans on under `config`, with the maps of
/// mobility classes 1 and up.
fn planner<'a>(config: &'a SimConfig, class_maps: &'a [Arc<crate::nav::WorldMap>]) -> Planner<'a> {
    match &config.map {
        Map::Polygon { navigator, .. } => Planner::Polygon(navigator),
        Map::Grid(map) => Planner::Grid(ClassMaps::new(Some(map), class_maps)),
        Map::Open => Planner::OpenField,
    }
}
