//! The hierarchical query: link the ends to their clusters, A* over the
//! abstract graph, refine to cells; suspendable between any two units of
//! work (see [`super`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::f64::consts::SQRT_2;

use super::smooth::{WINDOW, smooth};
use super::{Edge, Hierarchy, NEAR_CLUSTERS, STEP};
use crate::nav::astar::{GridPlanner, Path, PathError, Progress};
use crate::nav::grid::{Cell, CostGrid};

/// `via` of a node reached from the start's Dijkstra.
const FROM_START: u32 = u32::MAX;
/// `via` of the goal reached through the goal's Dijkstra.
const TO_GOAL: u32 = u32::MAX - 1;

/// Cells smoothing may check per cell of the refined path (paid with the
/// refinement, so the query's work is known once the abstract path is).
const SMOOTHING_PER_CELL: u32 = 1;

/// Where a query stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// Near ends: grid A* in `direct`.
    Direct,
    /// A* over the abstract graph.
    Abstract,
    /// Paying for the refinement, `cost` cells in all; it runs once paid.
    Refine { paid: u32, cost: u32 },
}

/// A query begun and not ended.
#[derive(Clone, Copy, Debug)]
struct Query {
    start: usize,
    goal: usize,
    start_cluster: u32,
    goal_cluster: u32,
    /// The goal's padded coordinates, for the heuristic.
    goal_xy: [u32; 2],
    phase: Phase,
    /// The padded cell count of the grid it searches.
    cells: usize,
}

/// A reusable HPA* search context (one per thread, or per search in
/// flight): the grid A* context for near ends and the abstract search's
/// records. Nothing is allocated once it is
/// sized for a hierarchy ([`HierarchicalPlanner::reserve`]).
#[derive(Clone, Debug, Default)]
pub struct HierarchicalPlanner {
    direct: GridPlanner,
    g: Vec<f64>,
    parent: Vec<u32>,
    /// The edge (index into the hierarchy's edges) a node was reached by,
    /// or [`FROM_START`] / [`TO_GOAL`] (the nodes' tables).
    via: Vec<u32>,
    stamp: Vec<u32>,
    generation: u32,
    open: BinaryHeap<Reverse<(u64, u32, u32)>>,
    /// The abstract path, goal first.
    route: Vec<u32>,
    chain: Vec<u32>,
    /// Smoothing's scratch: the path being rebuilt and a trial line.
    kept: Vec<Cell>,
    line: Vec<Cell>,
    query: Option<Query>,
    /// Whether the current or last query searched directly.
    direct_last: bool,
    expanded: u32,
    work: u32,
}

impl HierarchicalPlanner {
    /// An empty context; it grows to the first hierarchy it searches.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Grows every array to `hierarchy` and `grid`.
    pub fn reserve(&mut self, hierarchy: &Hierarchy, grid: &CostGrid) {
        self.direct.reserve(grid);
        let cluster = (hierarchy.cluster_size * hierarchy.cluster_size) as usize;
        let nodes = hierarchy.node_count() + 2;
        if self.g.len() < nodes {
            self.g.resize(nodes, 0.0);
            self.parent.resize(nodes, 0);
            self.via.resize(nodes, 0);
            self.stamp.resize(nodes, 0);
        }
        let pushes = hierarchy.edge_count() + 2 * nodes;
        self.open.reserve(pushes.saturating_sub(self.open.len()));
        self.route.reserve(nodes.saturating_sub(self.route.len()));
        self.chain.reserve(cluster.saturating_sub(self.chain.len()));
        let cells = grid.cell_count();
        self.kept.reserve(cells.saturating_sub(self.kept.len()));
        self.line.reserve(WINDOW.saturating_sub(self.line.len()));
    }

    /// Nodes expanded by the last query, or so far by the query in
    /// progress: abstract nodes (grid A*'s expansions for near ends).
    #[must_use]
    pub fn expanded(&self) -> u32 {
        if self.direct_last {
            self.direct.expanded()
        } else {
            self.expanded
        }
    }

    /// The last query's work in cells (or so far, the query in
    /// progress's): abstract nodes expanded and cells of refinement and
    /// smoothing ([`GridPlanner::work`] for near ends).
    #[must_use]
    pub fn work(&self) -> u32 {
        if self.direct_last {
            self.direct.work()
        } else {
            self.work
        }
    }

    /// Whether a query was begun and has not ended.
    #[must_use]
    pub fn in_progress(&self) -> bool {
        self.query.is_some()
    }

    /// Whether the current or last query was searched by grid A* (its ends
    /// were near, or the hierarchy does not fit the grid).
    #[must_use]
    pub fn searched_directly(&self) -> bool {
        self.direct_last
    }

    /// A path from `start` to `goal` within the hierarchy's bound of the
    /// optimum, into `out` (whose storage is reused). On error `out` is
    /// left empty.
    pub fn find_path_into(
        &mut self,
        hierarchy: &Hierarchy,
        grid: &CostGrid,
        (start, goal): (Cell, Cell),
        out: &mut Path,
    ) -> Result<(), PathError> {
        out.cells.clear();
        (out.length, out.cost) = (0.0, 0.0);
        self.begin(hierarchy, grid, start, goal)?;
        let progress = self.resume(hierarchy, grid, u32::MAX, out);
        debug_assert_eq!(progress, Progress::Done { reached_goal: true });
        Ok(())
    }

    /// Begins a resumable query (abandoning any in progress): checks the
    /// ends as [`GridPlanner::begin`] does, without searching.
    pub fn begin(
        &mut self,
        hierarchy: &Hierarchy,
        grid: &CostGrid,
        start: Cell,
        goal: Cell,
    ) -> Result<(), PathError> {
        self.query = None;
        (self.expanded, self.work) = (0, 0);
        let reach = hierarchy.cluster_size * NEAR_CLUSTERS;
        let near = start.x.abs_diff(goal.x).max(start.y.abs_diff(goal.y)) <= reach;
        self.direct_last = near || !hierarchy.fits(grid);
        self.direct.begin(grid, start, goal, u32::MAX)?;
        let (s, t) = (grid.index(start), grid.index(goal));
        let stride = grid.stride();
        let mut query = Query {
            start: s,
            goal: t,
            start_cluster: 0,
            goal_cluster: 0,
            goal_xy: [(t % stride) as u32, (t / stride) as u32],
            phase: Phase::Direct,
            cells: grid.padded_len(),
        };
        if !self.direct_last {
            (query.start_cluster, query.goal_cluster) =
                (hierarchy.cluster_of(s), hierarchy.cluster_of(t));
            // Far ends lie in different clusters.
            debug_assert_ne!(query.start_cluster, query.goal_cluster);
            self.reserve(hierarchy, grid);
            self.open_abstract(hierarchy, grid, &query);
            query.phase = Phase::Abstract;
        }
        self.query = Some(query);
        Ok(())
    }

    /// Continues the query for at most `allowance` more units of
    /// [`HierarchicalPlanner::work`] (`u32::MAX`: no limit), as
    /// [`GridPlanner::resume`] does: a query resumed in pieces ends as one
    /// run at once. When it ends the path is written into `out`.
    pub fn resume(
        &mut self,
        hierarchy: &Hierarchy,
        grid: &CostGrid,
        allowance: u32,
        out: &mut Path,
    ) -> Progress {
        let Some(mut query) = self.query.take() else {
            return Progress::Idle;
        };
        if query.cells != grid.padded_len() {
            return Progress::Idle;
        }
        if query.phase == Phase::Direct {
            let progress = self.direct.resume(grid, allowance, out);
            if progress == Progress::Suspended {
                self.query = Some(query);
            }
            return progress;
        }
        let mut left = if allowance == u32::MAX {
            u64::MAX
        } else {
            u64::from(allowance)
        };
        loop {
            let (before, phase) = (left, query.phase);
            let done = match phase {
                Phase::Direct => unreachable!("handled above"),
                Phase::Abstract => self.search(hierarchy, grid, &mut query, &mut left),
                Phase::Refine { paid, cost } => {
                    let pay = left.min(u64::from(cost - paid)) as u32;
                    left -= u64::from(pay);
                    query.phase = Phase::Refine {
                        paid: paid + pay,
                        cost,
                    };
                    paid + pay == cost
                }
            };
            let spent = (before - left) as u32;
            self.work += spent;
            let refining = matches!(phase, Phase::Refine { .. });
            if !refining {
                self.expanded += spent;
            }
            if !done {
                self.query = Some(query);
                return Progress::Suspended;
            }
            if refining {
                let reached_goal = self.refine(hierarchy, grid, &query, out);
                return Progress::Done { reached_goal };
            }
        }
    }

    /// Opens the abstract search at the start node.
    fn open_abstract(&mut self, hierarchy: &Hierarchy, grid: &CostGrid, query: &Query) {
        self.generation = self.generation.wrapping_add(2);
        if self.generation == 0 {
            self.stamp.fill(0);
            self.generation = 2;
        }
        self.open.clear();
        let start = hierarchy.node_count() as u32;
        let stride = grid.stride();
        let xy = [(query.start % stride) as u32, (query.start / stride) as u32];
        let h = heuristic(grid, query, xy);
        self.offer(start, start, FROM_START, 0.0, h);
    }

    /// A* over the abstract graph from the start node to the goal node,
    /// one unit per node expanded; then prices the refinement.
    fn search(
        &mut self,
        hierarchy: &Hierarchy,
        grid: &CostGrid,
        query: &mut Query,
        left: &mut u64,
    ) -> bool {
        let closed = self.generation + 1;
        let (start, goal) = (
            hierarchy.node_count() as u32,
            hierarchy.node_count() as u32 + 1,
        );
        let goal_nodes = hierarchy.nodes_of(query.goal_cluster);
        loop {
            if *left == 0 {
                return false;
            }
            let Some(Reverse((_, _, node))) = self.open.pop() else {
                break;
            };
            let k = node as usize;
            if self.stamp[k] == closed {
                continue;
            }
            self.stamp[k] = closed;
            *left -= 1;
            if node == goal {
                break;
            }
            let g = self.g[k];
            if node == start {
                for n in hierarchy.nodes_of(query.start_cluster) {
                    if let Some(d) = hierarchy.link(n, query.start) {
                        self.relax(
                            grid,
                            query,
                            hierarchy.xy[n],
                            (n as u32, node, FROM_START),
                            d,
                        );
                    }
                }
                continue;
            }
            let first = hierarchy.edge_first[k];
            for (e, edge) in hierarchy.edges_of(node).iter().enumerate() {
                let to = (edge.to, node, first + e as u32);
                self.relax(
                    grid,
                    query,
                    hierarchy.xy[edge.to as usize],
                    to,
                    g + edge.cost,
                );
            }
            if goal_nodes.contains(&k)
                && let Some(d) = hierarchy.link(k, query.goal)
            {
                self.relax(grid, query, query.goal_xy, (goal, node, TO_GOAL), g + d);
            }
        }
        let cost = self.price(hierarchy, query);
        query.phase = Phase::Refine { paid: 0, cost };
        true
    }

    /// Offers `node` (reached from `parent` by `via`) at cost `g` if that is
    /// its cheapest so far; `xy` is its cell's, for the heuristic.
    fn relax(
        &mut self,
        grid: &CostGrid,
        query: &Query,
        xy: [u32; 2],
        (node, parent, via): (u32, u32, u32),
        g: f64,
    ) {
        let k = node as usize;
        let seen = self.stamp[k] == self.generation || self.stamp[k] == self.generation + 1;
        if seen && self.g[k] <= g {
            return;
        }
        self.offer(node, parent, via, g, heuristic(grid, query, xy));
    }

    fn offer(&mut self, node: u32, parent: u32, via: u32, g: f64, h: f64) {
        let k = node as usize;
        (self.g[k], self.parent[k], self.via[k]) = (g, parent, via);
        self.stamp[k] = self.generation;
        // `f` quantised as grid A*'s open list does; ties to the deeper node.
        let f = ((g + h) * (1u64 << 24) as f64 + 0.5) as u64;
        let tie = !((g.to_bits() >> 32) as u32);
        self.open.push(Reverse((f, tie, node)));
    }

    /// Collects the abstract path (goal first) into `route` and returns the
    /// work of refining and smoothing it: its cell count, and
    /// [`SMOOTHING_PER_CELL`] cells of smoothing per cell (0 when the goal
    /// was not reached).
    fn price(&mut self, hierarchy: &Hierarchy, query: &Query) -> u32 {
        self.route.clear();
        let (start, goal) = (
            hierarchy.node_count() as u32,
            hierarchy.node_count() as u32 + 1,
        );
        if self.stamp[goal as usize] != self.generation + 1 {
            return 0;
        }
        let mut cells = 1;
        let mut node = goal;
        while node != start {
            self.route.push(node);
            let (parent, via) = (self.parent[node as usize], self.via[node as usize]);
            cells += match via {
                FROM_START => {
                    self.chain.clear();
                    hierarchy.walk_into(node as usize, query.start, &mut self.chain);
                    self.chain.len() as u32 - 1
                }
                TO_GOAL => {
                    self.chain.clear();
                    hierarchy.walk_into(parent as usize, query.goal, &mut self.chain);
                    self.chain.len() as u32 - 1
                }
                e => match hierarchy.edges[e as usize] {
                    Edge { path: STEP, .. } => 1,
                    Edge { path, .. } => hierarchy.path(path).len() as u32 - 1,
                },
            };
            node = parent;
        }
        self.route.push(start);
        cells * (1 + SMOOTHING_PER_CELL)
    }

    /// Writes the cells of the abstract path in `route` into `out`;
    /// returns whether there was one.
    fn refine(
        &mut self,
        hierarchy: &Hierarchy,
        grid: &CostGrid,
        query: &Query,
        out: &mut Path,
    ) -> bool {
        out.cells.clear();
        (out.length, out.cost) = (0.0, 0.0);
        if self.route.is_empty() {
            return false;
        }
        out.cells.push(grid.cell(query.start));
        for k in (0..self.route.len() - 1).rev() {
            let (from, to) = (self.route[k + 1], self.route[k]);
            self.chain.clear();
            match self.via[to as usize] {
                FROM_START => hierarchy.walk_into(to as usize, query.start, &mut self.chain),
                TO_GOAL => {
                    hierarchy.walk_into(from as usize, query.goal, &mut self.chain);
                    self.chain.reverse();
                }
                e => {
                    let edge = hierarchy.edges[e as usize];
                    if edge.path == STEP {
                        self.chain.push(hierarchy.cells[from as usize]);
                        self.chain.push(hierarchy.cells[to as usize]);
                    } else {
                        self.chain.extend_from_slice(hierarchy.path(edge.path));
                        if edge.reversed {
                            self.chain.reverse();
                        }
                    }
                }
            }
            out.cells
                .extend(self.chain.iter().skip(1).map(|&i| grid.cell(i as usize)));
        }
        let allowance = out.cells.len() as u32 * SMOOTHING_PER_CELL;
        smooth(
            grid,
            &mut out.cells,
            &mut self.kept,
            &mut self.line,
            allowance,
        );
        measure(grid, out);
        true
    }
}

/// The octile distance from padded coordinates `xy` to the goal, times the
/// cheapest multiplier (1, or the uniform one).
fn heuristic(grid: &CostGrid, query: &Query, xy: [u32; 2]) -> f64 {
    let dx = f64::from(xy[0].abs_diff(query.goal_xy[0]));
    let dy = f64::from(xy[1].abs_diff(query.goal_xy[1]));
    let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
    let multiplier = grid.uniform_cost().map_or(1.0, f64::from);
    multiplier * (hi + (SQRT_2 - 1.0) * lo)
}

/// Sets `path`'s length and cost from its cells.
fn measure(grid: &CostGrid, path: &mut Path) {
    let (mut length, mut cost) = (0.0, 0.0);
    for pair in path.cells.windows(2) {
        let diagonal = pair[0].x != pair[1].x && pair[0].y != pair[1].y;
        length += if diagonal { SQRT_2 } else { 1.0 };
        cost += grid.step_cost(pair[0], pair[1]).unwrap_or(f64::INFINITY);
    }
    (path.length, path.cost) = (length, cost);
}
