//! Navigation: maps, planners and the path-request queue of the `paths` stage.
//!
//! - [`grid`]: terrain maps ([`GridMap`]) and what one movement mode sees of
//!   them ([`CostGrid`]: per-cell cost multipliers and connected regions).
//! - [`movingai`]: loaders for the Moving AI `.map` and `.scen` benchmark
//!   formats, with typed errors naming file and line.
//! - [`astar`]: grid A* (8-connected, octile, no corner cutting, terrain
//!   costs), plain and expansion-bounded, with a reusable search context.
//! - [`batch`]: many grid queries across the rayon pool, one search context
//!   per worker, answers in request order whatever the thread count.
//! - [`quadtree`]: the Armada quadtree (Davis 2000): decomposition, neighbour
//!   graph, leaf A* and two-step rubber-banding.
//! - [`regions`]: connected-region labels, so unreachable goals cost nothing.
//! - [`queue`]: the path-request queue.
//! - [`flights`]: the `paths` stage's grid searches in flight, suspended
//!   when the tick's work budget runs out and resumed the next tick.
//! - [`world`]: the grid placed in the world ([`WorldMap`]) and the units'
//!   routes ([`Routes`]): string-pulled corners of the A* path.
//! - [`service`]: the `paths` stage: time-sliced, batched planning of the
//!   queue on the map, route following, the bad-position check.
//! - [`polygon`]: polygon maps (containers, obstacles, swamps, roads,
//!   bridges) with the JSON and Polyanya `.mesh` loaders.
//! - [`clearance`]: free space for a vehicle radius (`i_overlay` unions,
//!   differences and offsets).
//! - [`visgraph`]: the Force 21 visibility graph, its search with start and
//!   goal insertion, bridges per faction and bridge traffic.

pub mod astar;
pub mod batch;
pub mod clearance;
pub mod flights;
pub mod grid;
pub mod movingai;
pub mod polygon;
pub mod quadtree;
pub mod queue;
pub mod regions;
pub mod service;
pub mod visgraph;
pub mod world;

pub use astar::{BoundedPath, GridPlanner, Path, PathError, Progress};
pub use batch::{BatchPlanner, GridAnswer, GridQuery, plan_batch};
pub use grid::{Cell, CostGrid, GridError, GridMap, Mobility, MobilityError, Terrain};
pub use movingai::{
    MapError, MapParseError, ScenError, ScenParseError, Scenario, check_scenarios, load_map,
    load_scen, parse_map, parse_scen,
};
pub use quadtree::{Leaf, QuadPath, QuadPlanner, Quadtree, QuadtreeError, supercover};
pub use queue::{PathQueue, PathRequest};
pub use regions::RegionLabels;
pub use service::{PathService, ServeStats};
pub use visgraph::{
    BridgeTraffic, FactionId, GraphConfig, NavError, PathCost, PolygonNavigator, QueryOptions,
    SearchAlgorithm, StartInsertion, VisGraph, VisSearch,
};
pub use world::{ROUTE_POINTS, Routes, WorldMap};
