//! What a [`Sim`](super::Sim) is built from: [`SimConfig`], with its one
//! [`Map`] choice, and the errors [`Sim::new`](super::Sim::new) gives.

use glam::Vec2;
use std::sync::Arc;

use thiserror::Error;

use crate::data::spatial_hash::{Bounds, GridError};
use crate::instrument::Budgets;
use crate::nav::{Mobility, PolygonNavigator, WorldMap};
use crate::stages::steering::field::OrbitingBody;

use super::UnreachableGoals;

/// Everything a [`Sim`](super::Sim) is built from, checked by [`Sim::new`](super::Sim::new).
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// Worker threads (≥ 1), including the thread that builds the `Sim`;
    /// 1 runs every stage on the thread that steps, with no rayon pool at
    /// all. Ignored when `pool` is set.
    pub threads: usize,
    /// An engine's own rayon pool to step in, instead of a pool of
    /// `threads` the `Sim` builds. Results are the same bits either way.
    pub pool: Option<Arc<rayon::ThreadPool>>,
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
    /// deterministic budget: lockstep peers serve the same requests).
    pub max_path_nodes_per_tick: u64,
    /// Most separation pushes per tick: the pass repeats until no two
    /// shields overlap by more than a 1e-4 of the smaller shield's smallest
    /// semi-axis, and stops here (a safety cap; 0 only measures overlap).
    pub separation_iterations: u32,
    /// Every this many ticks the vehicle rows are reordered into spatial
    /// cell order, so neighbours sit together in memory (announced by
    /// [`Event::RowsReordered`](super::Event::RowsReordered)); 0 never does.
    pub reorder_interval: u32,
    /// Longest step, seconds: a longer `dt` is clamped to it (a stalled
    /// frame must not teleport units through each other).
    pub max_dt: f32,
    /// Round bodies moving along ellipses that potential-field units steer
    /// around (planets, patrols).
    pub bodies: Vec<OrbitingBody>,
    /// The ground units move on and routes are planned over.
    pub map: Map,
    /// More ways to see a grid map (the per-unit path filter): a unit of
    /// [`MobilityClass`](crate::MobilityClass)`(k)` plans, steers and is
    /// kept off walls on the map as `mobility_classes[k - 1]` sees it;
    /// class 0 sees it with the map's own costs. Only on [`Map::Grid`];
    /// at most 255.
    pub mobility_classes: Vec<Mobility>,
    /// What a move order does with a goal its unit cannot reach.
    pub unreachable_goals: UnreachableGoals,
    /// How reciprocal avoidance shares the work between units of
    /// different factions.
    pub faction_avoidance: FactionAvoidance,
    /// How fast the members of a group order travel.
    pub group_pace: GroupPace,
    /// Cover and other spots platoons' element leaders leapfrog to
    /// ([`PlatoonSpec::leapfrog_m`](crate::PlatoonSpec::leapfrog_m)),
    /// within the world bounds.
    pub points_of_interest: Vec<Vec2>,
}

/// How fast the members of a group order
/// ([`Sim::order_group`](super::Sim::order_group)) travel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GroupPace {
    /// Each at its own top speed: a mixed group strings out, fastest
    /// first, which thins its crowd at narrows. Large mixed groups arrive
    /// soonest this way (on arena2, at least 98 % of 150 ground members in
    /// twice their slowest kind's time alone).
    #[default]
    OwnSpeed,
    /// At the slowest member's top speed, a member that falls behind
    /// catching up as fast as it can (Company of Heroes, Force 21): the
    /// group travels as one body and arrives with its slowest kind. On
    /// open ground, a block of 16 tanks and trucks 36 m deep keeps within
    /// 44 m (130 m at their own speeds) and arrives in 1.1× a lone tank's
    /// time; on arena2, 139 of 150 mixed ground members arrive in twice
    /// their slowest kind's time (the denser crowd jams more at corners).
    Slowest,
}

/// Who takes how much of reciprocal avoidance ([`SteerMode::Reciprocal`]
/// units, ORCA), by faction.
///
/// ORCA splits the avoidance of a pair half and half, trusting the other
/// unit to take its half; from an immovable unit a unit takes all of it.
/// RVO2's successors let an engine move that split: `dodgy_2d`'s
/// `avoidance_responsibility` (landmass gives the characters it does not
/// control none of it), Unreal's avoidance weight and avoidance groups,
/// Godot's avoidance priority. Here the split follows the units' factions
/// ([`UnitSpec::faction`](crate::UnitSpec::faction)).
///
/// [`SteerMode::Reciprocal`]: crate::SteerMode::Reciprocal
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FactionAvoidance {
    /// Every movable neighbour takes half, whatever its faction (RVO2).
    #[default]
    Shared,
    /// A unit shares avoidance half and half with its own faction only;
    /// from another faction's unit it takes all of it, as from an
    /// immovable one: it counts on no enemy to make way for it.
    OwnFactionOnly,
}

impl SimConfig {
    /// Defaults for a world covering `bounds`.
    #[must_use]
    pub fn new(bounds: Bounds) -> SimConfig {
        SimConfig {
            threads: std::thread::available_parallelism().map_or(1, usize::from),
            pool: None,
            bounds,
            cell_size: None,
            neighbour_radius: 8.0,
            budgets: Budgets::default(),
            max_path_requests_per_tick: 1024,
            max_path_nodes_per_tick: 20_000,
            separation_iterations: 64,
            reorder_interval: 32,
            max_dt: 0.25,
            bodies: Vec::new(),
            map: Map::Open,
            mobility_classes: Vec::new(),
            unreachable_goals: UnreachableGoals::MoveToNearest,
            faction_avoidance: FactionAvoidance::Shared,
            group_pace: GroupPace::OwnSpeed,
            points_of_interest: Vec::new(),
        }
    }
}

/// A configuration [`Sim::new`](super::Sim::new) refuses.
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
    /// A point of interest is not finite or lies outside the bounds.
    #[error("point of interest {index} at {point:?} is not a finite point within the world bounds")]
    BadPointOfInterest {
        /// Its position in the list.
        index: usize,
        /// The point.
        point: Vec2,
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
    /// Mobility classes on a map other than [`Map::Grid`], too many of
    /// them, or one with invalid costs.
    #[error("mobility_classes[{index}]: {reason}")]
    BadMobilityClass {
        /// Its position in the list.
        index: usize,
        /// What is wrong.
        reason: String,
    },
    /// The polygon map cannot be loaded or its graph built (the message
    /// names the file and the element).
    #[error("polygon map: {0}")]
    Polygon(String),
}

/// The ground a [`Sim`](super::Sim) moves units on: one choice, so a map and
/// its planner can never be set half.
#[derive(Clone, Debug, Default)]
pub enum Map {
    /// An open field: every route is the straight line to the goal.
    #[default]
    Open,
    /// A grid map: routes are planned on it by grid A*, and the tick's local
    /// checks read it (line of sight in route following, the bad-position
    /// check, formation slots, swamp slowdown, walls).
    Grid(Arc<WorldMap>),
    /// A polygon map: routes are planned on its visibility graph (Force 21);
    /// `raster` is the same map as a grid
    /// ([`crate::nav::polygon::rasterize`]) for the tick's local checks.
    Polygon {
        /// The visibility graph routes are planned on.
        navigator: Arc<PolygonNavigator>,
        /// The map's raster, for the local checks.
        raster: Arc<WorldMap>,
    },
}

impl Map {
    /// The grid the tick's local checks read: the grid map, or the polygon
    /// map's raster; `None` on an open field.
    #[must_use]
    pub fn grid(&self) -> Option<&WorldMap> {
        self.grid_map().map(Arc::as_ref)
    }

    /// The polygon map's visibility graph, if the terrain is one.
    #[must_use]
    pub fn polygon(&self) -> Option<&PolygonNavigator> {
        match self {
            Map::Polygon { navigator, .. } => Some(navigator),
            Map::Open | Map::Grid(_) => None,
        }
    }

    /// The grid the local checks read, shared (see [`Map::grid`]).
    #[must_use]
    pub fn grid_map(&self) -> Option<&Arc<WorldMap>> {
        match self {
            Map::Open => None,
            Map::Grid(map) | Map::Polygon { raster: map, .. } => Some(map),
        }
    }

    /// The polygon map's navigator and raster, to change bridges.
    pub(crate) fn polygon_mut(&mut self) -> Option<(&mut Arc<PolygonNavigator>, &mut Arc<WorldMap>)> {
        match self {
            Map::Polygon { navigator, raster } => Some((navigator, raster)),
            Map::Open | Map::Grid(_) => None,
        }
    }
}
