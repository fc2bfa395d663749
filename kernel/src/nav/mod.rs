//! Navigation: maps and standalone planners. Nothing here knows the `Sim`
//! or its stages; the `paths` stage calls these planners.
//!
//! - [`grid`]: terrain maps ([`GridMap`]) and what one movement mode sees of
//!   them ([`CostGrid`]: per-cell cost multipliers and connected regions).
//! - [`movingai`]: loaders for the Moving AI `.map` and `.scen` benchmark
//!   formats, with typed errors naming file and line.
//! - [`astar`]: grid A* (8-connected, octile, no corner cutting, terrain
//!   costs), plain and expansion-bounded, with a reusable search context.
//! - [`flow_field`]: a cost-to-goal field (backward Dijkstra) whose links
//!   give every member of a group its optimal path from one search.
//! - [`batch`]: many grid queries across the rayon pool, one search context
//!   per worker, answers in request order whatever the thread count.
//! - [`hierarchy`]: HPA* (Botea, Müller and Schaeffer 2004): clusters,
//!   transition cells and intra-cluster paths built once per cost grid, and
//!   suspendable near-optimal queries over them.
//! - [`quadtree`]: the Armada quadtree (Davis 2000): decomposition, neighbour
//!   graph, leaf A* and two-step rubber-banding.
//! - [`regions`]: connected-region labels, so unreachable goals cost nothing.
//! - [`class_maps`]: the grid map as each mobility class sees it (the
//!   per-unit path filter).
//! - [`world`]: the grid placed in the world ([`WorldMap`]), line of sight
//!   on it, and string-pulling of A* paths into short routes.
//! - [`polygon`]: polygon maps (containers, obstacles, swamps, roads,
//!   bridges) with the JSON and Polyanya `.mesh` loaders.
//! - [`clearance`]: free space for a vehicle radius (`i_overlay` unions,
//!   differences and offsets).
//! - [`visgraph`]: the Force 21 visibility graph, its search with start and
//!   goal insertion, bridges per faction and bridge traffic.
//!
//! Every map lies within [`MAX_COORDINATE`] metres of the origin on each
//! axis; the loaders and [`WorldMap::new`] refuse anything further out.

pub mod astar;
pub mod batch;
pub mod class_maps;
pub mod clearance;
pub mod flow_field;
pub mod grid;
pub mod hierarchy;
pub mod movingai;
pub mod polygon;
pub mod quadtree;
pub mod regions;
pub mod visgraph;
pub mod world;

pub use crate::geometry::turning;
pub use astar::{BoundedPath, GridPlanner, Path, PathError, Progress};
pub use batch::{BatchPlanner, GridAnswer, GridQuery, plan_batch};
pub use class_maps::{ClassMaps, MAX_MOBILITY_CLASSES, MobilityClass};
pub use flow_field::FlowField;
pub use grid::{Cell, CellRect, CostGrid, GridError, GridMap, Mobility, MobilityError, Terrain};
pub use hierarchy::{HierarchicalPlanner, Hierarchy, HierarchyError};
pub use movingai::{
    MapError, MapParseError, ScenError, ScenParseError, Scenario, check_scenarios, load_map,
    load_scen, parse_map, parse_scen,
};
pub use quadtree::{Leaf, QuadPath, QuadPlanner, Quadtree, QuadtreeError, supercover};
pub use regions::RegionLabels;
pub use visgraph::{
    BridgeTraffic, FactionId, GraphConfig, NavError, ObstacleError, ObstacleId, PathCost,
    PolygonNavigator, QueryOptions, SearchAlgorithm, StartInsertion, VisGraph, VisSearch,
};
pub use world::{EditError, WorldMap, WorldMapError};

/// Largest magnitude of a map coordinate, metres: far enough for any
/// battlefield, near enough that `f32` positions stay within a metre and
/// the clearance offsets (`i_overlay`, integer coordinates) cannot overflow.
pub const MAX_COORDINATE: f64 = 1e7;
