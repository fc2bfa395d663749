//! Obstacles added and removed at run time — a building placed or razed,
//! a wreck, a crater's rim — on a polygon map, as the seed paper's forests
//! and buildings "added after load" (Pottinger 1999, section 3), and as
//! DetourCrowd's tile-cache obstacles do for a navmesh.
//!
//! The navigator keeps the map it was built from (without its bridges) and
//! the obstacles added since, by ascending id. A change rebuilds the
//! derived data from that map plus the added obstacles, as
//! [`PolygonNavigator::build`] would: the free space (the obstacles are
//! unioned and offset by the clearance together, so a new obstacle changes
//! the inflated outline of every obstacle it comes near, and may split a
//! piece of free space) and the visibility graph over it. The graph is not
//! patched in place: a new outline renumbers the corners, and the build's
//! rows are the cost (measured by `bench/examples/obstacle_cost.rs`:
//! docs/polygon-maps.md). The bridges are added again in their order with
//! what stands and what each faction believes, so the result equals a
//! navigator built from scratch with the obstacle in its map and the same
//! bridge history. Everything derived depends only on the set of obstacles,
//! not on the order of the edits that made it.

use std::sync::Arc;

use glam::DVec2;
use thiserror::Error;

use super::navigator::PolygonNavigator;
use super::{BuildError, FactionId, VisGraph};
use crate::nav::polygon::{PolygonMap, PolygonMapError, Ring, check_ring, check_simple};

/// A run-time obstacle's handle; ids are never reused by one navigator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObstacleId(pub u32);

/// Why an obstacle was refused; nothing was changed.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum ObstacleError {
    /// The polygon is no simple ring (element `polygon`): a point NaN,
    /// infinite or further than
    /// [`MAX_COORDINATE`](crate::nav::MAX_COORDINATE) from 0, fewer than
    /// three points or no area, or two edges that cross or touch.
    #[error(transparent)]
    Polygon(#[from] PolygonMapError),
    /// A point lies off the map: outside its containers' bounding box.
    #[error(
        "`polygon` point {index} ({x}, {y}) lies off the map, which spans ({}, {}) to ({}, {})",
        min.x,
        min.y,
        max.x,
        max.y
    )]
    OffMap {
        /// Index of the point.
        index: usize,
        /// Its x coordinate.
        x: f64,
        /// Its y coordinate.
        y: f64,
        /// The map's lowest corner.
        min: DVec2,
        /// The map's highest corner.
        max: DVec2,
    },
    /// No obstacle added at run time has this id.
    #[error("`id`: obstacle {} does not exist", .0.0)]
    Unknown(ObstacleId),
    /// The navigator was made from a graph, without the map it came from.
    #[error("obstacles need a navigator built from its polygon map (PolygonNavigator::build)")]
    NoSourceMap,
    /// The world has no polygon map ([`crate::Map::Polygon`]).
    #[error("obstacles need a polygon map (Map::Polygon); this world has none")]
    NotAPolygonMap,
    /// The map with the obstacle cannot be built (it covers all free space).
    #[error("`polygon`: {0}")]
    Rebuild(BuildError),
}

impl PolygonNavigator {
    /// Checks `polygon` as an obstacle of this map: finite, at least three
    /// points with some area, simple, and within the containers' bounding
    /// box.
    ///
    /// # Errors
    /// [`ObstacleError`] naming the point or edges.
    pub fn check_obstacle(&self, polygon: &[DVec2]) -> Result<(), ObstacleError> {
        let source = self.source.as_ref().ok_or(ObstacleError::NoSourceMap)?;
        check_ring("polygon", polygon)?;
        check_simple("polygon", polygon)?;
        let (min, max) = containers_box(source);
        match polygon
            .iter()
            .position(|p| p.cmplt(min).any() || p.cmpgt(max).any())
        {
            Some(index) => Err(ObstacleError::OffMap {
                index,
                x: polygon[index].x,
                y: polygon[index].y,
                min,
                max,
            }),
            None => Ok(()),
        }
    }

    /// Adds the obstacle `polygon` and rebuilds the free space and the
    /// graph (see the module docs); returns its id.
    ///
    /// # Errors
    /// [`ObstacleError`]: a bad polygon, a navigator without its map, or a
    /// map the obstacle leaves no free space in. Nothing changes then.
    pub fn add_obstacle(&mut self, polygon: Ring) -> Result<ObstacleId, ObstacleError> {
        self.check_obstacle(&polygon)?;
        let id = ObstacleId(self.next_obstacle);
        let mut added = self.added.clone();
        added.push((id, polygon));
        *self = self.rebuilt(added, self.next_obstacle + 1)?;
        Ok(id)
    }

    /// Removes the obstacle `id` added at run time and rebuilds; returns
    /// its polygon.
    ///
    /// # Errors
    /// [`ObstacleError::Unknown`]. Nothing changes then.
    pub fn remove_obstacle(&mut self, id: ObstacleId) -> Result<Ring, ObstacleError> {
        let at = self
            .added
            .iter()
            .position(|&(known, _)| known == id)
            .ok_or(ObstacleError::Unknown(id))?;
        let mut added = self.added.clone();
        let (_, polygon) = added.remove(at);
        *self = self.rebuilt(added, self.next_obstacle)?;
        Ok(polygon)
    }

    /// The obstacles added at run time, by ascending id.
    #[must_use]
    pub fn added_obstacles(&self) -> &[(ObstacleId, Ring)] {
        &self.added
    }

    /// The id the next added obstacle gets.
    #[must_use]
    pub fn next_obstacle_id(&self) -> ObstacleId {
        ObstacleId(self.next_obstacle)
    }

    /// This navigator with exactly the run-time obstacles `added` (by
    /// ascending id, each checked) and `next` as the next id: a snapshot's
    /// obstacles.
    ///
    /// # Errors
    /// [`ObstacleError`]: a bad polygon, ids out of order or not below
    /// `next` ([`ObstacleError::Unknown`] names the first), no source map.
    pub fn with_obstacles(
        &self,
        added: Vec<(ObstacleId, Ring)>,
        next: ObstacleId,
    ) -> Result<PolygonNavigator, ObstacleError> {
        for (k, (id, polygon)) in added.iter().enumerate() {
            let ordered = k == 0 || added[k - 1].0 < *id;
            if !ordered || *id >= next {
                return Err(ObstacleError::Unknown(*id));
            }
            self.check_obstacle(polygon)?;
        }
        self.rebuilt(added, next.0)
    }

    /// The map as built plus the run-time obstacles (without bridges):
    /// what a navigator built from scratch would be given.
    #[must_use]
    pub fn edited_map(&self) -> Option<PolygonMap> {
        let source = self.source.as_ref()?;
        Some(with_obstacles(source, &self.added))
    }

    /// A navigator built from the source map with `added`, the bridges
    /// added again as they stand and are believed.
    fn rebuilt(
        &self,
        added: Vec<(ObstacleId, Ring)>,
        next: u32,
    ) -> Result<PolygonNavigator, ObstacleError> {
        let source = self.source.as_ref().ok_or(ObstacleError::NoSourceMap)?;
        let map = with_obstacles(source, &added);
        let graph = VisGraph::build(&map, self.graph.config()).map_err(ObstacleError::Rebuild)?;
        let factions = self.factions();
        let mut nav = PolygonNavigator::from_graph(graph, factions);
        nav.options = self.options;
        for (slot, bridge) in self.bridges.iter().enumerate() {
            let believers: Vec<FactionId> = (0..factions)
                .filter(|&f| self.beliefs[usize::from(f)][slot])
                .map(FactionId)
                .collect();
            nav.add_bridge(bridge.spec, &believers)
                .map_err(|error| ObstacleError::Rebuild(error.into()))?;
            nav.bridges[slot].in_world = bridge.in_world;
        }
        nav.update_components();
        nav.source = Some(Arc::clone(source));
        nav.added = added;
        nav.next_obstacle = next;
        nav.built_nodes = self.built_nodes;
        Ok(nav)
    }
}

/// `source` with the `added` obstacles after its own.
fn with_obstacles(source: &PolygonMap, added: &[(ObstacleId, Ring)]) -> PolygonMap {
    let mut map = source.clone();
    map.obstacles
        .extend(added.iter().map(|(_, polygon)| polygon.clone()));
    map
}

/// The lowest and highest corners of `map`'s containers.
fn containers_box(map: &PolygonMap) -> (DVec2, DVec2) {
    let points = map.containers.iter().flatten();
    let min = points
        .clone()
        .fold(DVec2::splat(f64::INFINITY), |a, &p| a.min(p));
    let max = points.fold(DVec2::splat(f64::NEG_INFINITY), |a, &p| a.max(p));
    (min, max)
}
