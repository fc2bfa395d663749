//! What a picture is drawn from: a simulation between ticks (its columns,
//! read in place), a grid map with one path query, a polygon map with its
//! visibility graph and one path query, or a simulation and a grid map.

use convoy::Sim;
use convoy::glam::{DVec2, Vec2};
use convoy::nav::polygon::PolygonMap;
use convoy::nav::visgraph::{PathCost, PolygonNavigator};
use convoy::nav::{Cell, GridMap, Quadtree};

/// The data the layers read; a layer whose part is absent draws nothing.
#[derive(Debug, Default)]
pub struct Scene<'a> {
    /// A simulation, read between ticks.
    pub sim: Option<&'a Sim>,
    /// Per row of `sim`: where each unit stood when the last tick's
    /// steering ran (the positions before that tick moved it); `None`
    /// before the first tick.
    pub steered_from: Option<Vec<Vec2>>,
    /// A map and maybe a path query on it.
    pub map: Option<MapScene>,
    /// A polygon map, its planner and maybe a path query on it.
    pub polygon: Option<PolygonScene>,
}

/// A polygon map (JSON or Polyanya `.mesh`) as one clearance sees it.
#[derive(Debug)]
pub struct PolygonScene {
    /// The map, as loaded.
    pub map: PolygonMap,
    /// Its visibility graph (built with the scene's clearance) and bridges;
    /// the graph's boundary is the inflated free space.
    pub nav: PolygonNavigator,
    /// One answered query.
    pub query: Option<PolygonQuery>,
}

/// One visibility-graph path, as faction 0 plans it.
#[derive(Debug)]
pub struct PolygonQuery {
    /// The start asked for.
    pub start: DVec2,
    /// The goal asked for.
    pub goal: DVec2,
    /// The waypoints, start and goal included (moved out of obstacles if
    /// they were in one).
    pub waypoints: Vec<Vec2>,
    /// Its cost, length and expanded-node count.
    pub cost: PathCost,
}

/// A grid map as one mobility sees it.
#[derive(Debug)]
pub struct MapScene {
    /// The terrain, as loaded.
    pub map: GridMap,
    /// The quadtree, when the quadtree backend or layer needs it.
    pub tree: Option<Quadtree>,
    /// The visibility graph over the passable cells traced to polygons,
    /// for the visgraph backend.
    pub nav: Option<PolygonNavigator>,
    /// One answered query.
    pub query: Option<Query>,
}

/// One planned path and what the search touched.
#[derive(Debug)]
pub struct Query {
    /// Start cell.
    pub start: Cell,
    /// Goal cell.
    pub goal: Cell,
    /// The path, in cells (grid: every cell's centre; quadtree: the
    /// corners' centres; visgraph: the waypoints).
    pub points: Vec<[f64; 2]>,
    /// Its geometric length, in cells.
    pub length: f64,
    /// What the search reached, when the planner tells.
    pub explored: Option<Explored>,
}

/// What a search reached, in its own units.
#[derive(Debug)]
pub enum Explored {
    /// Grid A*: cells opened or expanded.
    Cells(Vec<Cell>),
    /// Quadtree A*: leaf indices opened or expanded.
    Leaves(Vec<usize>),
}
