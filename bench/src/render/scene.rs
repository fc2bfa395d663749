//! What a picture is drawn from: a simulation between ticks (its columns,
//! read in place), a grid map with one path query, or both.

use convoy::Sim;
use convoy::glam::Vec2;
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
}

/// A grid map as one mobility sees it.
#[derive(Debug)]
pub struct MapScene {
    /// The terrain, as loaded.
    pub map: GridMap,
    /// The quadtree, when the quadtree backend or layer needs it.
    pub tree: Option<Quadtree>,
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
    /// The path's cells (grid: every cell; quadtree: the corners).
    pub points: Vec<Cell>,
    /// Its geometric length, in cells.
    pub length: f64,
    /// What the search reached.
    pub explored: Explored,
}

/// What a search reached, in its own units.
#[derive(Debug)]
pub enum Explored {
    /// Grid A*: cells opened or expanded.
    Cells(Vec<Cell>),
    /// Quadtree A*: leaf indices opened or expanded.
    Leaves(Vec<usize>),
}
