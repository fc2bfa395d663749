//! Navigation: maps, planners and the path-request queue of the `paths` stage.
//!
//! Until the grid, quadtree and visibility-graph planners land, the only map
//! is the open field, where the straight line is the shortest path; the queue
//! machinery (time-slicing against the stage budget, carrying unfinished
//! requests to the next tick) is already the real one.

pub mod queue;

pub use queue::{PathQueue, PathRequest, ServeStats};
