//! The Force 21 visibility graph (Pottinger, *Implementing Coordinated
//! Movement*, 1999, section 3, after O'Rourke's *Computational Geometry in
//! C*): nodes at the convex corners of the inflated obstacles, at swamp
//! vertices and at road vertices; an edge wherever two nodes see each other.
//!
//! - Only convex obstacle corners are nodes (a shortest path never bends at
//!   a reflex one), and an edge is kept only if its line is tangent to the
//!   obstacle at each corner end (Lee and Preparata's reduced visibility
//!   graph): a cheap test that discards most pairs before any visibility
//!   query.
//! - Visibility queries walk a uniform grid of boundary edges
//!   (`boundary`), so the build costs far less than the naive O(n³). Rows
//!   are built in parallel, one edge-stamp scratch per worker, and merged in
//!   node order: the graph is the same whatever the thread count (inside
//!   `parallel::sequentially`, on the calling thread alone).
//! - Swamps weight each edge by the length it runs through them
//!   (`swamps`); road segments are edges of cost `road_cost_factor` times
//!   their length (half by default, as in the paper) in the same graph, so
//!   one search weighs roads, swamps and open ground together.
//! - [`VisGraph::save`] / [`VisGraph::load`] keep a built graph as a binary
//!   blob (`file`).
//!
//! The search over it, with start/goal insertion, bridges and factions, is
//! `navigator`; `batch` answers many queries across the rayon pool;
//! `obstacles` adds and removes obstacles at run time.

mod batch;
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod boundary;
#[cfg(not(feature = "internals"))]
mod boundary;
mod file;
mod navigator;
mod nodes;
mod obstacles;
mod search;
mod swamps;

use std::collections::HashMap;

use glam::DVec2;
use rayon::prelude::*;
use thiserror::Error;

use self::boundary::{Boundary, EdgeStamps};
use self::nodes::NodeGrid;
use self::swamps::Swamps;
use super::clearance::{ClearanceError, FreeSpace, free_space};
use super::polygon::{PolygonMap, PolygonMapError, Swamp};

pub use batch::{VisAnswer, VisBatchPlanner, VisQuery};
pub use file::GraphFileError;
pub use navigator::{
    BridgeError, BridgeTraffic, FactionId, NavError, PathCost, PolygonNavigator, QueryOptions,
    SearchAlgorithm, StartInsertion,
};
pub use obstacles::{ObstacleError, ObstacleId};
pub use search::VisSearch;

/// `corner_vertex` of a node that is not an obstacle corner.
pub const NO_VERTEX: u32 = u32::MAX;

/// How to build a graph.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GraphConfig {
    /// The vehicle's clearance radius: obstacles grow and containers shrink
    /// by it.
    pub clearance: f64,
    /// Cost of a road edge per unit length (the paper: one half).
    pub road_cost_factor: f64,
}

impl Default for GraphConfig {
    fn default() -> Self {
        Self {
            clearance: 0.0,
            road_cost_factor: 0.5,
        }
    }
}

/// Why a graph could not be built.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum BuildError {
    /// The map is invalid.
    #[error(transparent)]
    Map(#[from] PolygonMapError),
    /// No free space could be made.
    #[error(transparent)]
    Clearance(#[from] ClearanceError),
    /// The road factor is not positive and finite.
    #[error("road cost factor must be finite and greater than 0, was {0}")]
    BadRoadFactor(f64),
    /// A bridge of the map could not be added.
    #[error(transparent)]
    Bridge(#[from] BridgeError),
}

/// A built visibility graph over a map's free space.
#[derive(Clone, Debug, Default)]
pub struct VisGraph {
    boundary: Boundary,
    swamps: Swamps,
    positions: Vec<DVec2>,
    /// Per node: its boundary vertex when it is an obstacle corner, else
    /// [`NO_VERTEX`].
    corner_vertex: Vec<u32>,
    /// Per node: its corner's free sector `[u, w]` (the directions to its
    /// contour neighbours), zero for a node that is not a corner — so the
    /// tangent test, asked of every node by every query, reads one entry
    /// instead of five scattered ones.
    sectors: Vec<[DVec2; 2]>,
    /// The nodes bucketed in a grid, for seeding queries in stages.
    node_grid: NodeGrid,
    /// CSR adjacency: node `i`'s edges are `offsets[i]..offsets[i + 1]`.
    offsets: Vec<u32>,
    targets: Vec<u32>,
    /// What an edge costs a search: `plain_costs`, or the road cost when
    /// that is lower.
    costs: Vec<f64>,
    plain_costs: Vec<f64>,
    lengths: Vec<f64>,
    road: Vec<bool>,
    /// Whether some road edge is cheaper than its length (set with the
    /// costs: every query asks, so it is not recounted each time).
    fast_edges: bool,
    config: GraphConfig,
}

/// One row of the build: node `i`'s edges to higher nodes.
type Row = Vec<(u32, f64, f64)>;

impl VisGraph {
    /// Builds the graph of `map` (validated first).
    ///
    /// # Errors
    /// [`BuildError`].
    pub fn build(map: &PolygonMap, config: GraphConfig) -> Result<Self, BuildError> {
        map.validate()?;
        if !(config.road_cost_factor.is_finite() && config.road_cost_factor > 0.0) {
            return Err(BuildError::BadRoadFactor(config.road_cost_factor));
        }
        let space = free_space(map, config.clearance)?;
        Ok(Self::build_on(space, &map.swamps, &map.roads, config))
    }

    /// Builds the graph over a free space made elsewhere (e.g. a traced
    /// grid, [`trace_grid`](crate::nav::polygon::trace_grid)); `swamps` and
    /// `roads` as in a [`PolygonMap`] (assumed valid), `config.clearance`
    /// is not applied again.
    #[must_use]
    pub fn build_on(
        space: FreeSpace,
        swamps: &[Swamp],
        roads: &[Vec<DVec2>],
        config: GraphConfig,
    ) -> Self {
        let mut graph = Self {
            boundary: Boundary::new(space),
            swamps: Swamps::new(swamps.to_vec()),
            config,
            ..Self::default()
        };
        graph.add_corner_nodes();
        for swamp in swamps {
            for &p in &swamp.ring {
                graph.add_free_node(p);
            }
        }
        let road_pairs = graph.add_road_nodes(roads);
        graph.bake_node_caches();
        let rows = graph.build_rows();
        graph.fill_edges(&rows, &road_pairs);
        graph
    }

    fn add_corner_nodes(&mut self) {
        for v in 0..self.boundary.edge_count() as u32 {
            if self.boundary.is_corner(v) {
                self.positions.push(self.boundary.vertex(v));
                self.corner_vertex.push(v);
            }
        }
    }

    /// Adds a node at `p` if `p` is in the free space; returns its index.
    fn add_free_node(&mut self, p: DVec2) -> Option<u32> {
        let located = self.boundary.locate(p)?;
        if located.moved {
            return None;
        }
        self.positions.push(p);
        self.corner_vertex.push(NO_VERTEX);
        Some(self.positions.len() as u32 - 1)
    }

    /// Adds one node per distinct free road vertex; returns the node pairs
    /// of the road segments.
    fn add_road_nodes(&mut self, roads: &[Vec<DVec2>]) -> Vec<(u32, u32)> {
        let mut index: HashMap<[u64; 2], Option<u32>> = HashMap::new();
        let mut pairs = Vec::new();
        for road in roads {
            let mut previous: Option<u32> = None;
            for &p in road {
                let key = [p.x.to_bits(), p.y.to_bits()];
                let node = match index.get(&key) {
                    Some(&node) => node,
                    None => {
                        let node = self.add_free_node(p);
                        index.insert(key, node);
                        node
                    }
                };
                if let (Some(a), Some(b)) = (previous, node) {
                    pairs.push((a.min(b), a.max(b)));
                }
                previous = node;
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        pairs
    }

    /// Every node's edges to higher-numbered nodes, in parallel.
    fn build_rows(&self) -> Vec<Row> {
        let n = self.positions.len() as u32;
        let row = |(stamps, cuts): &mut (EdgeStamps, Vec<f64>), i: u32| -> Row {
            (i + 1..n)
                .filter_map(|j| {
                    let (p, q) = (self.positions[i as usize], self.positions[j as usize]);
                    let useful = p != q && self.tangent_at(i, q) && self.tangent_at(j, p);
                    (useful && self.boundary.visible(p, q, stamps))
                        .then(|| (j, p.distance(q), self.swamps.segment_cost(p, q, cuts)))
                })
                .collect()
        };
        // Inside `parallel::sequentially` (a one-thread `Sim` rebuilding
        // after an obstacle) on the calling thread: rayon's global pool is
        // never started.
        if crate::parallel::sequential() {
            let mut scratch = (EdgeStamps::default(), Vec::new());
            return (0..n).map(|i| row(&mut scratch, i)).collect();
        }
        (0..n)
            .into_par_iter()
            .map_init(|| (EdgeStamps::default(), Vec::new()), row)
            .collect()
    }

    /// Caches every node's free sector (see `sectors`) and buckets the
    /// nodes in their grid.
    fn bake_node_caches(&mut self) {
        self.sectors = self
            .corner_vertex
            .iter()
            .map(|&v| {
                if v == NO_VERTEX {
                    [DVec2::ZERO; 2]
                } else {
                    let (u, w) = self.boundary.sector(v);
                    [u, w]
                }
            })
            .collect();
        self.node_grid = NodeGrid::new(&self.positions);
    }

    /// The nodes' grid.
    fn node_grid(&self) -> &NodeGrid {
        &self.node_grid
    }

    /// Whether a shortest path may bend at `node` toward or from `other`:
    /// the line through the corner from `other` has both of its contour
    /// neighbours on one side (it is tangent to the obstacle there); always
    /// at a node that is not a corner (its zero sector makes both sides
    /// zero).
    #[inline]
    fn tangent_at(&self, node: u32, other: DVec2) -> bool {
        let [u, w] = self.sectors[node as usize];
        let d = other - self.positions[node as usize];
        d.perp_dot(u) * d.perp_dot(w) >= 0.0
    }

    /// Mirrors the rows into the CSR arrays (rows ascending, so every
    /// node's edges end up sorted by target).
    fn fill_edges(&mut self, rows: &[Row], road_pairs: &[(u32, u32)]) {
        let n = self.positions.len();
        let mut degree = vec![0u32; n + 1];
        for (i, row) in rows.iter().enumerate() {
            degree[i + 1] += row.len() as u32;
            for &(j, ..) in row {
                degree[j as usize + 1] += 1;
            }
        }
        for i in 0..n {
            degree[i + 1] += degree[i];
        }
        let total = degree[n] as usize;
        let mut cursor = degree.clone();
        self.targets = vec![0; total];
        self.plain_costs = vec![0.0; total];
        self.lengths = vec![0.0; total];
        self.road = vec![false; total];
        for (i, row) in rows.iter().enumerate() {
            for &(j, length, cost) in row {
                for (from, to) in [(i, j as usize), (j as usize, i)] {
                    let slot = cursor[from] as usize;
                    cursor[from] += 1;
                    self.targets[slot] = to as u32;
                    self.lengths[slot] = length;
                    self.plain_costs[slot] = cost;
                    self.road[slot] = road_pairs.binary_search(&(i as u32, j)).is_ok();
                }
            }
        }
        self.offsets = degree;
        self.bake_costs();
    }

    fn bake_costs(&mut self) {
        let factor = self.config.road_cost_factor;
        self.fast_edges = factor < 1.0 && self.road.iter().any(|&r| r);
        self.costs = (0..self.targets.len())
            .map(|e| {
                let plain = self.plain_costs[e];
                if self.road[e] {
                    plain.min(factor * self.lengths[e])
                } else {
                    plain
                }
            })
            .collect();
    }

    /// Changes the road cost factor (a profile setting) without rebuilding.
    ///
    /// # Errors
    /// [`BuildError::BadRoadFactor`].
    pub fn set_road_cost_factor(&mut self, factor: f64) -> Result<(), BuildError> {
        if !(factor.is_finite() && factor > 0.0) {
            return Err(BuildError::BadRoadFactor(factor));
        }
        self.config.road_cost_factor = factor;
        self.bake_costs();
        Ok(())
    }

    /// The build settings.
    #[must_use]
    pub fn config(&self) -> GraphConfig {
        self.config
    }

    /// The free space's boundary.
    #[must_use]
    pub fn boundary(&self) -> &Boundary {
        &self.boundary
    }

    /// The swamps.
    #[must_use]
    pub fn swamps(&self) -> &Swamps {
        &self.swamps
    }

    /// Number of nodes.
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.positions.len()
    }

    /// Number of undirected edges.
    #[must_use]
    pub fn edge_count(&self) -> usize {
        self.targets.len() / 2
    }

    /// Node positions.
    #[must_use]
    pub fn positions(&self) -> &[DVec2] {
        &self.positions
    }

    /// Node `i`'s neighbours and the cost of reaching each.
    #[inline]
    pub fn neighbours(&self, i: u32) -> impl Iterator<Item = (u32, f64)> + '_ {
        let range = self.offsets[i as usize] as usize..self.offsets[i as usize + 1] as usize;
        self.targets[range.clone()]
            .iter()
            .copied()
            .zip(self.costs[range].iter().copied())
    }

    /// Whether some edge is cheaper than its length (a road cheaper than
    /// open ground), which makes the straight line no longer a lower bound.
    #[must_use]
    pub fn has_fast_edges(&self) -> bool {
        self.fast_edges
    }

    /// The smallest cost per unit length of any edge: the factor that keeps
    /// the straight-line heuristic admissible.
    #[must_use]
    pub fn min_cost_factor(&self) -> f64 {
        if self.has_fast_edges() {
            self.config.road_cost_factor
        } else {
            1.0
        }
    }

    /// Whether node `i` may connect to point `p` (tangent test at corners).
    #[inline]
    #[must_use]
    pub fn may_connect(&self, node: u32, p: DVec2) -> bool {
        self.tangent_at(node, p)
    }
}
