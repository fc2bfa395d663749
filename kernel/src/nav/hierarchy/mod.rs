//! HPA*: hierarchical path-finding over a grid of clusters (Botea, Müller
//! and Schaeffer, *Near Optimal Hierarchical Path-Finding*, Journal of Game
//! Development 1(1), 2004).
//!
//! # The abstract graph
//! [`Hierarchy::new`] cuts a [`CostGrid`] into square clusters of
//! `cluster_size` cells (16 by default; the last row and column of clusters
//! may be narrower). Along each border between two clusters an *entrance*
//! is a maximal run of cell pairs, one on each side, both passable; as in
//! the paper an entrance shorter than [`WIDE_ENTRANCE`] cells gets one
//! transition (the pair in its middle), a longer one two (the pairs at its
//! ends). Each transition cell is a node of the abstract graph. An
//! *inter-edge* joins the two cells of a transition (one straight step); an
//! *intra-edge* joins two nodes of one cluster at the cost of the cheapest
//! path between them inside the cluster, found by Dijkstra from each node
//! over its cluster (`cluster.rs`) with the cost model of
//! [`crate::nav::astar`] (8-connected, octile, no corner cutting, terrain
//! multipliers). Those paths are kept, so refining an abstract path only
//! copies cells; so is each node's Dijkstra tree (the cost from every cell
//! of its cluster and the first step toward the node), which links a
//! query's start and goal to the node without searching (the paper
//! searches the start's and goal's clusters at each query instead: a table
//! costs 5 bytes per cell per node, and saves two cluster searches a
//! query). The hierarchy is built once per cost grid (after a world edit,
//! only the clusters the edit touches are searched again: `update.rs`);
//! [`Hierarchy::heap_bytes`] is its memory.
//!
//! # A query
//! [`HierarchicalPlanner`] (`search.rs`) answers a query in phases, each
//! counted in the cells unit of [`crate::nav::GridPlanner::work`]:
//! 1. ends off the map, blocked or in different regions are refused at
//!    once (the region labels); ends within [`NEAR_CLUSTERS`] cluster
//!    widths of each other on both axes are searched directly by grid A*
//!    (so far ends always lie in different clusters);
//! 2. A* over the abstract graph with the octile heuristic, one unit per
//!    node expanded: the start node's neighbours are its cluster's nodes at
//!    their tables' costs, and a node of the goal's cluster reaches the
//!    goal at its table's cost;
//! 3. the abstract path is refined to cells (tables and stored paths) and
//!    smoothed (`smooth.rs`): one unit per cell, plus `SMOOTHING_PER_CELL`
//!    (1) per cell that smoothing may spend checking shortcuts. This work
//!    is known once the abstract path is, and is paid before it is done: a
//!    query that cannot pay it all in one call pays what it can and
//!    refines once paid in full.
//!
//! Every phase is suspendable, as [`crate::nav::GridPlanner::resume`] is: a
//! call does at most its allowance of work, and a query resumed in pieces
//! ends exactly as one run at once (same path, same work), so the `paths`
//! stage slices it by its budget like any grid search.
//!
//! # How near optimal
//! Abstract paths cross cluster borders at transition cells only, so a path
//! may be dearer than the optimum. Over every scenario of the Moving AI maps
//! arena2, 64room_000 and Berlin_0_256 (16-cell clusters, smoothed) the
//! worst path costs 1.138, 1.159 and 1.180 times grid A*'s optimum and the
//! mean 1.034, 1.017 and 1.027: every one is within [`COST_BOUND`] (1.20)
//! of it. On random grids of up to 48 × 48 cells, a quarter walls and an
//! eighth swamp, with 4-cell clusters, paths stay within
//! [`RANDOM_COST_BOUND`] (2). The test `hierarchical_paths_are_near_optimal`
//! holds both.

mod cluster;
mod search;
mod smooth;
mod update;

use thiserror::Error;

use self::cluster::{ClusterDijkstra, NEIGHBOURS, ROOT, Rect};
use self::update::Reuse;
use super::grid::{BLOCKED, CostGrid};

pub use search::HierarchicalPlanner;

/// Cluster edge, cells, of [`Hierarchy::build`].
pub const DEFAULT_CLUSTER_SIZE: u32 = 16;
/// Narrowest cluster [`Hierarchy::new`] accepts, cells.
pub const MIN_CLUSTER_SIZE: u32 = 4;
/// Widest cluster [`Hierarchy::new`] accepts, cells.
pub const MAX_CLUSTER_SIZE: u32 = 128;
/// An entrance this long or longer gets two transitions, a shorter one one
/// (the paper's constant).
pub const WIDE_ENTRANCE: u32 = 6;
/// Ends nearer than this many cluster widths (octile distance) are searched
/// directly by grid A*.
pub const NEAR_CLUSTERS: u32 = 2;
/// A hierarchical path costs at most this many times the optimum on the
/// measured maps (module docs).
pub const COST_BOUND: f64 = 1.20;
/// A hierarchical path costs at most this many times the optimum on the
/// random grids of the module docs.
pub const RANDOM_COST_BOUND: f64 = 2.0;

/// Marks an inter-edge (no stored path).
const STEP: u32 = u32::MAX;

/// Why a [`Hierarchy`] cannot be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum HierarchyError {
    /// The cluster size is outside the accepted range.
    #[error(
        "the cluster size must be between {MIN_CLUSTER_SIZE} and {MAX_CLUSTER_SIZE} cells, was {value}"
    )]
    ClusterSize {
        /// The refused size.
        value: u32,
    },
}

/// An edge of the abstract graph.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Edge {
    to: u32,
    /// The stored path (intra-edge), or [`STEP`] (inter-edge).
    path: u32,
    /// Whether the stored path runs from `to` to this edge's node.
    reversed: bool,
    cost: f64,
}

/// The abstract graph of a cost grid: clusters, transition nodes, edges and
/// the intra-cluster paths. Read-only once built (a world edit builds the
/// next one from it, `update.rs`); any number of planners share it.
#[derive(Clone, Debug, PartialEq)]
pub struct Hierarchy {
    cluster_size: u32,
    clusters_x: u32,
    clusters_y: u32,
    width: u32,
    height: u32,
    padded_len: usize,
    /// Padded index of each node's cell; a cluster's nodes are consecutive.
    cells: Vec<u32>,
    /// Padded coordinates of each node's cell.
    xy: Vec<[u32; 2]>,
    /// First node of each cluster, and the node count at the end.
    cluster_first: Vec<u32>,
    /// First edge of each node, and the edge count at the end.
    edge_first: Vec<u32>,
    edges: Vec<Edge>,
    /// First cell of each stored path, and the cell count at the end.
    path_first: Vec<u32>,
    path_cells: Vec<u32>,
    /// Each node's table over its cluster (local order), from `table_first`:
    /// the cost from every cell to the node inside the cluster (infinite
    /// where it cannot get there), and the first step of that way (an
    /// index into `NEIGHBOURS`, `ROOT` at the node and where unreached).
    table_first: Vec<u32>,
    dist: Vec<f32>,
    toward: Vec<u8>,
}

impl Hierarchy {
    /// The hierarchy of `grid` with [`DEFAULT_CLUSTER_SIZE`] clusters.
    #[must_use]
    pub fn build(grid: &CostGrid) -> Self {
        Self::with_clusters(grid, DEFAULT_CLUSTER_SIZE)
    }

    /// The hierarchy of `grid` with clusters of `cluster_size` cells.
    ///
    /// # Errors
    /// [`HierarchyError::ClusterSize`] outside [`MIN_CLUSTER_SIZE`] to
    /// [`MAX_CLUSTER_SIZE`].
    pub fn new(grid: &CostGrid, cluster_size: u32) -> Result<Self, HierarchyError> {
        if !(MIN_CLUSTER_SIZE..=MAX_CLUSTER_SIZE).contains(&cluster_size) {
            return Err(HierarchyError::ClusterSize {
                value: cluster_size,
            });
        }
        Ok(Self::with_clusters(grid, cluster_size))
    }

    fn with_clusters(grid: &CostGrid, cluster_size: u32) -> Self {
        Self::assemble(grid, cluster_size, None)
    }

    /// The hierarchy of `grid`, taking from `reuse` the clusters it can
    /// (see `update.rs`) instead of searching them again.
    fn assemble(grid: &CostGrid, cluster_size: u32, reuse: Option<Reuse<'_>>) -> Self {
        let mut hierarchy = Self {
            cluster_size,
            clusters_x: grid.width().div_ceil(cluster_size),
            clusters_y: grid.height().div_ceil(cluster_size),
            width: grid.width(),
            height: grid.height(),
            padded_len: grid.padded_len(),
            cells: Vec::new(),
            xy: Vec::new(),
            cluster_first: Vec::new(),
            edge_first: Vec::new(),
            edges: Vec::new(),
            path_first: vec![0],
            path_cells: Vec::new(),
            table_first: vec![0],
            dist: Vec::new(),
            toward: Vec::new(),
        };
        let transitions = hierarchy.transitions(grid);
        let mut adjacency = hierarchy.place_nodes(&transitions);
        for &(a, b, cost) in &transitions {
            let (na, nb) = (hierarchy.node_at(a), hierarchy.node_at(b));
            adjacency[na as usize].push(Edge {
                to: nb,
                path: STEP,
                reversed: false,
                cost,
            });
            adjacency[nb as usize].push(Edge {
                to: na,
                path: STEP,
                reversed: false,
                cost,
            });
        }
        hierarchy.link_clusters(grid, &mut adjacency, reuse);
        hierarchy.edge_first = Vec::with_capacity(adjacency.len() + 1);
        for edges in adjacency {
            hierarchy.edge_first.push(hierarchy.edges.len() as u32);
            hierarchy.edges.extend(edges);
        }
        hierarchy.edge_first.push(hierarchy.edges.len() as u32);
        hierarchy
    }

    /// Every transition on every border: its two padded cells (the first in
    /// the cluster above or to the left) and the inter-edge's cost.
    fn transitions(&self, grid: &CostGrid) -> Vec<(u32, u32, f64)> {
        let (c, stride) = (self.cluster_size, grid.stride());
        let mut out = Vec::new();
        let mut run = Vec::new();
        for cy in 0..self.clusters_y {
            for cx in 0..self.clusters_x {
                let rect = self.rect(cx + cy * self.clusters_x);
                if cx + 1 < self.clusters_x {
                    // The east border: column x0 + c − 1 against x0 + c.
                    let x = (rect.x0 + c - 1) as usize;
                    let pairs = (rect.y0..rect.y0 + rect.h).map(|y| {
                        let a = y as usize * stride + x;
                        (a, a + 1)
                    });
                    entrances(grid, pairs, &mut run, &mut out);
                }
                if cy + 1 < self.clusters_y {
                    let y = (rect.y0 + c - 1) as usize;
                    let pairs = (rect.x0..rect.x0 + rect.w).map(|x| {
                        let a = y * stride + x as usize;
                        (a, a + stride)
                    });
                    entrances(grid, pairs, &mut run, &mut out);
                }
            }
        }
        out
    }

    /// Numbers the transition cells cluster by cluster (by padded index
    /// within a cluster) and returns an empty edge list per node.
    fn place_nodes(&mut self, transitions: &[(u32, u32, f64)]) -> Vec<Vec<Edge>> {
        let mut keyed: Vec<(u32, u32)> = transitions
            .iter()
            .flat_map(|&(a, b, _)| [a, b])
            .map(|cell| (self.cluster_of(cell as usize), cell))
            .collect();
        keyed.sort_unstable();
        keyed.dedup();
        let clusters = (self.clusters_x * self.clusters_y) as usize;
        self.cluster_first = vec![0; clusters + 1];
        for &(cluster, _) in &keyed {
            self.cluster_first[cluster as usize + 1] += 1;
        }
        for k in 0..clusters {
            self.cluster_first[k + 1] += self.cluster_first[k];
        }
        self.cells = keyed.into_iter().map(|(_, cell)| cell).collect();
        let stride = self.width + 2;
        self.xy = self
            .cells
            .iter()
            .map(|&i| [i % stride, i / stride])
            .collect();
        vec![Vec::new(); self.cells.len()]
    }

    /// Intra-edges and tables: Dijkstra from each node inside its cluster,
    /// one stored path per pair of nodes that meet there.
    fn link_clusters(
        &mut self,
        grid: &CostGrid,
        adjacency: &mut [Vec<Edge>],
        reuse: Option<Reuse<'_>>,
    ) {
        let mut dijkstra = ClusterDijkstra::default();
        let mut chain = Vec::new();
        for cluster in 0..self.clusters_x * self.clusters_y {
            if let Some(old) = reuse.and_then(|reuse| reuse.source_of(self, cluster)) {
                self.copy_cluster(old, cluster, adjacency);
                continue;
            }
            let nodes = self.nodes_of(cluster);
            let rect = self.rect(cluster);
            for i in nodes.clone() {
                dijkstra.run(grid, rect, self.cells[i] as usize);
                dijkstra.export(&mut self.dist, &mut self.toward);
                self.table_first.push(self.dist.len() as u32);
                for j in i + 1..nodes.end {
                    let Some(cost) = dijkstra.settled(self.cells[j] as usize) else {
                        continue;
                    };
                    chain.clear();
                    dijkstra.chain_into(self.cells[j] as usize, &mut chain);
                    let path = self.path_first.len() as u32 - 1;
                    self.path_cells.extend(chain.iter().rev());
                    self.path_first.push(self.path_cells.len() as u32);
                    let edge = |to: usize, reversed| Edge {
                        to: to as u32,
                        path,
                        reversed,
                        cost,
                    };
                    adjacency[i].push(edge(j, false));
                    adjacency[j].push(edge(i, true));
                }
            }
        }
    }

    /// The cost from padded index `cell` of `node`'s cluster to `node`,
    /// inside the cluster, if it can get there.
    fn link(&self, node: usize, cell: usize) -> Option<f64> {
        let rect = self.rect(self.cluster_of(self.cells[node] as usize));
        let at = self.table_first[node] as usize + rect.local(cell, self.width as usize + 2);
        let dist = self.dist[at];
        dist.is_finite().then_some(f64::from(dist))
    }

    /// Appends padded index `cell` of `node`'s cluster and the cells of its
    /// cheapest way inside the cluster to `node` (linked, [`Self::link`]).
    fn walk_into(&self, node: usize, mut cell: usize, out: &mut Vec<u32>) {
        let stride = self.width as usize + 2;
        let rect = self.rect(self.cluster_of(self.cells[node] as usize));
        let table = self.table_first[node] as usize;
        let mut local = rect.local(cell, stride);
        loop {
            out.push(cell as u32);
            let toward = self.toward[table + local];
            if toward == ROOT {
                return;
            }
            let (dx, dy) = NEIGHBOURS[toward as usize];
            cell = cell.wrapping_add_signed(dy as isize * stride as isize + dx as isize);
            local = local.wrapping_add_signed(dy as isize * rect.w as isize + dx as isize);
        }
    }

    /// The node whose cell is padded index `cell` (a transition cell).
    fn node_at(&self, cell: u32) -> u32 {
        let nodes = self.nodes_of(self.cluster_of(cell as usize));
        let within = self.cells[nodes.clone()]
            .binary_search(&cell)
            .expect("every transition cell is a node");
        (nodes.start + within) as u32
    }

    /// The cluster holding padded index `index`.
    fn cluster_of(&self, index: usize) -> u32 {
        let stride = self.width as usize + 2;
        let (x, y) = ((index % stride - 1) as u32, (index / stride - 1) as u32);
        x / self.cluster_size + y / self.cluster_size * self.clusters_x
    }

    /// The cells of `cluster`.
    fn rect(&self, cluster: u32) -> Rect {
        let c = self.cluster_size;
        let (cx, cy) = (cluster % self.clusters_x, cluster / self.clusters_x);
        Rect {
            x0: cx * c + 1,
            y0: cy * c + 1,
            w: c.min(self.width - cx * c),
            h: c.min(self.height - cy * c),
        }
    }

    /// The nodes of `cluster`.
    fn nodes_of(&self, cluster: u32) -> std::ops::Range<usize> {
        let k = cluster as usize;
        self.cluster_first[k] as usize..self.cluster_first[k + 1] as usize
    }

    /// The edges of `node`.
    fn edges_of(&self, node: u32) -> &[Edge] {
        let k = node as usize;
        &self.edges[self.edge_first[k] as usize..self.edge_first[k + 1] as usize]
    }

    /// The cells of stored path `path`.
    fn path(&self, path: u32) -> &[u32] {
        let k = path as usize;
        &self.path_cells[self.path_first[k] as usize..self.path_first[k + 1] as usize]
    }

    /// Whether this hierarchy was built for a grid of `grid`'s size.
    fn fits(&self, grid: &CostGrid) -> bool {
        (self.width, self.height, self.padded_len)
            == (grid.width(), grid.height(), grid.padded_len())
    }

    /// Cluster edge, cells.
    #[must_use]
    pub fn cluster_size(&self) -> u32 {
        self.cluster_size
    }

    /// Nodes of the abstract graph (transition cells).
    #[must_use]
    pub fn node_count(&self) -> usize {
        self.cells.len()
    }

    /// Directed edges of the abstract graph.
    #[must_use]
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }

    /// Bytes the hierarchy holds on the heap.
    #[must_use]
    pub fn heap_bytes(&self) -> usize {
        let words = self.cells.capacity()
            + 2 * self.xy.capacity()
            + self.cluster_first.capacity()
            + self.edge_first.capacity()
            + self.path_first.capacity()
            + self.path_cells.capacity()
            + self.table_first.capacity()
            + self.dist.capacity();
        words * 4 + self.toward.capacity() + self.edges.capacity() * size_of::<Edge>()
    }
}

/// Appends the transitions of one border, given as its pairs of padded
/// cells in order along it: each maximal run of passable pairs is an
/// entrance.
fn entrances(
    grid: &CostGrid,
    pairs: impl Iterator<Item = (usize, usize)>,
    run: &mut Vec<(usize, usize)>,
    out: &mut Vec<(u32, u32, f64)>,
) {
    let cost = grid.costs();
    let mut close = |run: &mut Vec<(usize, usize)>| {
        let len = run.len();
        let picks: &[usize] = match len {
            0 => &[],
            _ if (len as u32) < WIDE_ENTRANCE => &[(len - 1) / 2],
            _ => &[0, len - 1],
        };
        for &(a, b) in picks.iter().map(|&k| &run[k]) {
            let step = (f64::from(cost[a]) + f64::from(cost[b])) * 0.5;
            out.push((a as u32, b as u32, step));
        }
        run.clear();
    };
    for (a, b) in pairs {
        if cost[a] == BLOCKED || cost[b] == BLOCKED {
            close(run);
        } else {
            run.push((a, b));
        }
    }
    close(run);
}

#[cfg(test)]
mod tests;
