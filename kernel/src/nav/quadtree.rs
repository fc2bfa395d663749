//! Quadtree decomposition and planning with two-step rubber-banding, after
//! Davis, *Warp Speed: Path Planning for Star Trek: Armada* (AAAI Spring
//! Symposium 2000).
//!
//! - **Decomposition** ("The Quadtree"): the square of side the next power of
//!   two covering the map is split recursively until each cell has one cost
//!   multiplier (outside the map counts as impassable); four children of
//!   equal cost are merged back into their parent ("simplify the quadtree").
//!   Built bottom-up here, which gives the same tree as adding cost regions
//!   top-down and then merging.
//! - **Neighbour graph**: 4-connected; a leaf links to every passable leaf
//!   across each of its sides. Links go *out of* impassable leaves but never
//!   *into* them (the paper's footnote 2: physics may push a unit into an
//!   impassable cell, and it must be able to plan its way out).
//! - **A\*** over leaves, between leaf centres (the start leaf from the start
//!   point), cost = distance × mean multiplier of the two leaves.
//! - **Rubber-banding, step 1**: a second search over the corners of the
//!   shared edges along the leaf path; each edge offers its two extreme
//!   crossings, each linked only to the two of the next edge, so the search
//!   is a linear dynamic programme. Crossings are taken between the centres
//!   of the two grid cells facing each other across the edge, so every
//!   segment runs through the interior of one leaf.
//! - **Rubber-banding, step 2**: last-visible-point string pulling: keep the
//!   earliest point from which a straight line to the next point stays inside
//!   the leaves of the path, checked with an exact supercover walk (a line
//!   through a cell corner must have both side cells inside too).
//!
//! Paths are polylines through cell centres; lengths are Euclidean.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use thiserror::Error;

use super::astar::PathError;
use super::grid::{BLOCKED, Cell, CostGrid};

/// One undivided quadtree cell.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Leaf {
    /// Column of the top-left grid cell.
    pub x: u32,
    /// Row of the top-left grid cell.
    pub y: u32,
    /// Side in grid cells (a power of two).
    pub size: u32,
    /// Cost multiplier, `f32::INFINITY` where impassable.
    pub cost: f32,
}

impl Leaf {
    fn center(&self) -> [f64; 2] {
        let half = f64::from(self.size) * 0.5;
        [f64::from(self.x) + half, f64::from(self.y) + half]
    }

    fn passable(&self) -> bool {
        self.cost != BLOCKED
    }
}

/// A link to a neighbouring leaf across a shared edge. Crossing `k` (0 and
/// 1, the two ends of the shared edge) steps from grid cell `from[k]` in this
/// leaf to the facing cell `to[k]` in the neighbour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Link {
    leaf: u32,
    from: [Cell; 2],
    to: [Cell; 2],
}

/// Why a quadtree could not be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum QuadtreeError {
    /// More leaves than a `u32` indexes (cannot happen below
    /// [`MAX_CELLS`](super::grid::MAX_CELLS)).
    #[error("the quadtree has too many leaves")]
    TooManyLeaves,
}

/// The quadtree of one [`CostGrid`]: leaves, which leaf holds each grid
/// cell, and the neighbour graph. Built once per map and mobility.
#[derive(Clone, Debug)]
pub struct Quadtree {
    width: u32,
    height: u32,
    leaves: Vec<Leaf>,
    /// Leaf of each grid cell, row-major.
    leaf_of: Vec<u32>,
    /// Links of leaf `i` are `links[link_start[i]..link_start[i + 1]]`.
    link_start: Vec<u32>,
    links: Vec<Link>,
}

/// Result of building a square: one multiplier, or mixed (already emitted).
enum Square {
    Uniform(f32),
    Mixed,
}

impl Quadtree {
    /// Decomposes `grid`.
    pub fn new(grid: &CostGrid) -> Result<Self, QuadtreeError> {
        let (width, height) = (grid.width(), grid.height());
        let side = width.max(height).next_power_of_two();
        let mut tree = Self {
            width,
            height,
            leaves: Vec::new(),
            leaf_of: vec![0; grid.cell_count()],
            link_start: Vec::new(),
            links: Vec::new(),
        };
        if let Square::Uniform(cost) = tree.build(grid, 0, 0, side) {
            tree.emit(0, 0, side, cost);
        }
        u32::try_from(tree.leaves.len()).map_err(|_| QuadtreeError::TooManyLeaves)?;
        for (i, leaf) in tree.leaves.iter().enumerate() {
            for y in leaf.y..(leaf.y + leaf.size).min(height) {
                for x in leaf.x..(leaf.x + leaf.size).min(width) {
                    tree.leaf_of[(y * width + x) as usize] = i as u32;
                }
            }
        }
        tree.extract_links();
        Ok(tree)
    }

    fn build(&mut self, grid: &CostGrid, x: u32, y: u32, size: u32) -> Square {
        if x >= self.width || y >= self.height {
            return Square::Uniform(BLOCKED);
        }
        if size == 1 {
            return Square::Uniform(grid.cost(Cell::new(x, y)).unwrap_or(BLOCKED));
        }
        let h = size / 2;
        let quarters = [(x, y), (x + h, y), (x, y + h), (x + h, y + h)];
        let children = quarters.map(|(cx, cy)| self.build(grid, cx, cy, h));
        if let [
            Square::Uniform(a),
            Square::Uniform(b),
            Square::Uniform(c),
            Square::Uniform(d),
        ] = children
            && a == b
            && a == c
            && a == d
        {
            return Square::Uniform(a);
        }
        for ((cx, cy), child) in quarters.into_iter().zip(children) {
            if let Square::Uniform(cost) = child {
                self.emit(cx, cy, h, cost);
            }
        }
        Square::Mixed
    }

    fn emit(&mut self, x: u32, y: u32, size: u32, cost: f32) {
        if x < self.width && y < self.height {
            self.leaves.push(Leaf { x, y, size, cost });
        }
    }

    fn leaf_at(&self, x: u32, y: u32) -> u32 {
        self.leaf_of[(y * self.width + x) as usize]
    }

    /// Walks each side of each leaf and links to the passable leaves across.
    fn extract_links(&mut self) {
        let mut links = Vec::new();
        let mut link_start = Vec::with_capacity(self.leaves.len() + 1);
        for leaf in &self.leaves {
            link_start.push(links.len() as u32);
            let x_end = (leaf.x + leaf.size).min(self.width);
            let y_end = (leaf.y + leaf.size).min(self.height);
            // (inside cells along the side, outside cell of each)
            let mut sides: Vec<Vec<(Cell, Cell)>> = Vec::with_capacity(4);
            if leaf.y > 0 {
                sides.push(
                    (leaf.x..x_end)
                        .map(|x| (Cell::new(x, leaf.y), Cell::new(x, leaf.y - 1)))
                        .collect(),
                );
            }
            if y_end < self.height {
                sides.push(
                    (leaf.x..x_end)
                        .map(|x| (Cell::new(x, y_end - 1), Cell::new(x, y_end)))
                        .collect(),
                );
            }
            if leaf.x > 0 {
                sides.push(
                    (leaf.y..y_end)
                        .map(|y| (Cell::new(leaf.x, y), Cell::new(leaf.x - 1, y)))
                        .collect(),
                );
            }
            if x_end < self.width {
                sides.push(
                    (leaf.y..y_end)
                        .map(|y| (Cell::new(x_end - 1, y), Cell::new(x_end, y)))
                        .collect(),
                );
            }
            for side in sides {
                let mut run_start = 0;
                for k in 1..=side.len() {
                    let here = self.leaf_at(side[run_start].1.x, side[run_start].1.y);
                    let same = k < side.len() && self.leaf_at(side[k].1.x, side[k].1.y) == here;
                    if same {
                        continue;
                    }
                    if self.leaves[here as usize].passable() {
                        let (first, last) = (side[run_start], side[k - 1]);
                        links.push(Link {
                            leaf: here,
                            from: [first.0, last.0],
                            to: [first.1, last.1],
                        });
                    }
                    run_start = k;
                }
            }
        }
        link_start.push(links.len() as u32);
        self.links = links;
        self.link_start = link_start;
    }

    /// The leaves.
    #[must_use]
    pub fn leaves(&self) -> &[Leaf] {
        &self.leaves
    }

    /// Number of leaves (the paper's "cells": 2,191 against 16,384 grid
    /// cells on its first mission).
    #[must_use]
    pub fn leaf_count(&self) -> usize {
        self.leaves.len()
    }

    /// Number of grid cells on the map, for comparison.
    #[must_use]
    pub fn grid_cell_count(&self) -> usize {
        self.width as usize * self.height as usize
    }

    /// Number of directed neighbour links.
    #[must_use]
    pub fn link_count(&self) -> usize {
        self.links.len()
    }

    /// The leaf holding `cell`, if it is on the map.
    #[must_use]
    pub fn leaf_of(&self, cell: Cell) -> Option<usize> {
        (cell.x < self.width && cell.y < self.height).then(|| self.leaf_at(cell.x, cell.y) as usize)
    }

    fn links_of(&self, leaf: usize) -> &[Link] {
        &self.links[self.link_start[leaf] as usize..self.link_start[leaf + 1] as usize]
    }
}

/// A polyline path from the quadtree planner.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuadPath {
    /// Corner cells of the path, start and goal included; the path runs
    /// straight between their centres.
    pub points: Vec<Cell>,
    /// Euclidean length of the polyline.
    pub length: f64,
    /// Leaves on the A* leaf path.
    pub leaves: usize,
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Open {
    f: f64,
    leaf: u32,
}

impl Eq for Open {}

impl Ord for Open {
    fn cmp(&self, other: &Self) -> Ordering {
        other.f.total_cmp(&self.f).then(other.leaf.cmp(&self.leaf))
    }
}

impl PartialOrd for Open {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct LeafNode {
    g: f64,
    parent: u32,
    /// Index into the parent's links of the link used to get here.
    link: u32,
    stamp: u32,
    closed: bool,
    on_path: u32,
}

fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

fn centre(c: Cell) -> [f64; 2] {
    [f64::from(c.x) + 0.5, f64::from(c.y) + 0.5]
}

/// Calls `visit` on every cell an exact supercover walk of the segment
/// between the centres of `a` and `b` touches; a corner crossing visits both
/// side cells. Stops early when `visit` returns `false`; returns whether it
/// ran to the end.
pub fn supercover(a: Cell, b: Cell, mut visit: impl FnMut(Cell) -> bool) -> bool {
    let (mut x, mut y) = (i64::from(a.x), i64::from(a.y));
    let (dx, dy) = (i64::from(b.x) - x, i64::from(b.y) - y);
    let (nx, ny) = (dx.abs(), dy.abs());
    let (sx, sy) = (dx.signum(), dy.signum());
    let cell = |x: i64, y: i64| Cell::new(x as u32, y as u32);
    if !visit(cell(x, y)) {
        return false;
    }
    let (mut ix, mut iy) = (0i64, 0i64);
    while ix < nx || iy < ny {
        let decision = (1 + 2 * ix) * ny - (1 + 2 * iy) * nx;
        if decision == 0 {
            if !visit(cell(x + sx, y)) || !visit(cell(x, y + sy)) {
                return false;
            }
            x += sx;
            y += sy;
            ix += 1;
            iy += 1;
        } else if decision < 0 {
            x += sx;
            ix += 1;
        } else {
            y += sy;
            iy += 1;
        }
        if !visit(cell(x, y)) {
            return false;
        }
    }
    true
}

/// A reusable quadtree search context (leaf A* and the rubber-band
/// scratch); keep one per thread.
#[derive(Clone, Debug, Default)]
pub struct QuadPlanner {
    nodes: Vec<LeafNode>,
    generation: u32,
    open: BinaryHeap<Open>,
    leaf_path: Vec<u32>,
    crossings: Vec<[Cell; 4]>,
    dp: Vec<[(f64, u8); 2]>,
    points: Vec<Cell>,
    expanded: u32,
}

impl QuadPlanner {
    /// An empty context.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Leaves expanded by the last query.
    #[must_use]
    pub fn expanded(&self) -> u32 {
        self.expanded
    }

    /// Indices of the leaves the last leaf A* reached (opened or
    /// expanded), ascending — what a visual tool draws as "explored".
    pub fn reached_leaves(&self) -> impl Iterator<Item = usize> + '_ {
        let generation = self.generation;
        self.nodes
            .iter()
            .enumerate()
            .filter(move |(_, node)| generation != 0 && node.stamp == generation)
            .map(|(index, _)| index)
    }

    /// Plans from `start` to `goal` on `tree` (built from `grid`): leaf A*,
    /// then both rubber-banding steps. The start may lie in an impassable
    /// cell (links lead out of those); the goal must be passable and in the
    /// start's region.
    pub fn find_path(
        &mut self,
        grid: &CostGrid,
        tree: &Quadtree,
        start: Cell,
        goal: Cell,
    ) -> Result<QuadPath, PathError> {
        let mut out = QuadPath::default();
        self.find_path_into(grid, tree, start, goal, &mut out)?;
        Ok(out)
    }

    /// [`QuadPlanner::find_path`] writing into `out`.
    pub fn find_path_into(
        &mut self,
        grid: &CostGrid,
        tree: &Quadtree,
        start: Cell,
        goal: Cell,
        out: &mut QuadPath,
    ) -> Result<(), PathError> {
        out.points.clear();
        out.length = 0.0;
        out.leaves = 0;
        self.expanded = 0;
        for (which, cell) in [("start", start), ("goal", goal)] {
            if !grid.contains(cell) || tree.leaf_of(cell).is_none() {
                return Err(PathError::OffMap { which, cell });
            }
        }
        if !grid.passable(goal) {
            return Err(PathError::Blocked {
                which: "goal",
                cell: goal,
            });
        }
        if grid.passable(start) && !grid.connected(start, goal) {
            return Err(PathError::Unreachable);
        }
        if !self.leaf_astar(tree, start, goal) {
            return Err(PathError::Unreachable);
        }
        self.band_step_one(tree, start, goal);
        self.band_step_two(tree);
        out.points.extend_from_slice(&self.points);
        out.length = out
            .points
            .windows(2)
            .map(|w| dist(centre(w[0]), centre(w[1])))
            .sum();
        out.leaves = self.leaf_path.len();
        Ok(())
    }

    fn next_generation(&mut self, leaves: usize) -> u32 {
        if self.nodes.len() < leaves {
            self.nodes.resize(leaves, LeafNode::default());
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.nodes.iter_mut().for_each(|n| {
                n.stamp = 0;
                n.on_path = 0;
            });
            self.generation = 1;
        }
        self.generation
    }

    /// A* over leaves; fills `leaf_path` (start leaf first). False if the goal
    /// leaf is not reached.
    fn leaf_astar(&mut self, tree: &Quadtree, start: Cell, goal: Cell) -> bool {
        let generation = self.next_generation(tree.leaves.len());
        let (Some(s), Some(t)) = (tree.leaf_of(start), tree.leaf_of(goal)) else {
            return false;
        };
        let goal_point = centre(goal);
        self.open.clear();
        self.nodes[s] = LeafNode {
            g: 0.0,
            parent: s as u32,
            link: 0,
            stamp: generation,
            closed: false,
            on_path: self.nodes[s].on_path,
        };
        self.open.push(Open {
            f: dist(centre(start), goal_point),
            leaf: s as u32,
        });
        let mut reached = false;
        while let Some(Open { leaf, .. }) = self.open.pop() {
            let i = leaf as usize;
            if self.nodes[i].closed {
                continue;
            }
            self.nodes[i].closed = true;
            self.expanded += 1;
            if i == t {
                reached = true;
                break;
            }
            let here = if i == s {
                centre(start)
            } else {
                tree.leaves[i].center()
            };
            let ci = tree.leaves[i].cost;
            for (k, link) in tree.links_of(i).iter().enumerate() {
                let n = link.leaf as usize;
                let next = &tree.leaves[n];
                let mult = if ci == BLOCKED {
                    f64::from(next.cost)
                } else {
                    0.5 * f64::from(ci + next.cost)
                };
                let there = if n == t { goal_point } else { next.center() };
                let g = self.nodes[i].g + dist(here, there) * mult;
                let node = &mut self.nodes[n];
                if node.stamp == generation && (node.closed || node.g <= g) {
                    continue;
                }
                *node = LeafNode {
                    g,
                    parent: i as u32,
                    link: k as u32,
                    stamp: generation,
                    closed: false,
                    on_path: node.on_path,
                };
                self.open.push(Open {
                    f: g + dist(there, goal_point),
                    leaf: n as u32,
                });
            }
        }
        if !reached {
            return false;
        }
        self.leaf_path.clear();
        let mut i = t;
        loop {
            self.leaf_path.push(i as u32);
            let parent = self.nodes[i].parent as usize;
            if parent == i {
                break;
            }
            i = parent;
        }
        self.leaf_path.reverse();
        for &leaf in &self.leaf_path {
            self.nodes[leaf as usize].on_path = generation;
        }
        true
    }

    /// Step 1: choose one of the two extreme crossings of each shared edge,
    /// minimising the weighted length (a linear dynamic programme: each
    /// crossing links only to the two of the next edge). Fills `points`.
    fn band_step_one(&mut self, tree: &Quadtree, start: Cell, goal: Cell) {
        self.crossings.clear();
        for w in self.leaf_path.windows(2) {
            let (a, b) = (w[0] as usize, w[1]);
            // The link used is the one to `b` recorded on `b`'s node.
            let k = self.nodes[b as usize].link as usize;
            let link = tree.links_of(a)[k];
            debug_assert_eq!(link.leaf, b);
            self.crossings
                .push([link.from[0], link.to[0], link.from[1], link.to[1]]);
        }
        let cost = |leaf: u32| {
            let c = tree.leaves[leaf as usize].cost;
            if c == BLOCKED { 1.0 } else { f64::from(c) }
        };
        self.dp.clear();
        let mut prev: [Cell; 2] = [start, start];
        let mut prev_cost = [0.0, 0.0];
        for (e, cr) in self.crossings.iter().enumerate() {
            let inside = cost(self.leaf_path[e]);
            let across = 0.5 * (inside + cost(self.leaf_path[e + 1]));
            let mut layer = [(0.0, 0u8); 2];
            for j in 0..2 {
                let from = cr[2 * j];
                let options = (0..2).map(|p| {
                    let d = prev_cost[p] + dist(centre(prev[p]), centre(from)) * inside + across;
                    (d, p as u8)
                });
                layer[j] = options
                    .min_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)))
                    .unwrap_or((f64::INFINITY, 0));
            }
            self.dp.push(layer);
            prev = [cr[1], cr[3]];
            prev_cost = [layer[0].0, layer[1].0];
        }
        let last = cost(*self.leaf_path.last().unwrap_or(&0));
        let finish = |p: usize| prev_cost[p] + dist(centre(prev[p]), centre(goal)) * last;
        let mut j = usize::from(finish(1) < finish(0));
        // Walk back, collecting (from, to) crossings in reverse.
        self.points.clear();
        self.points.push(goal);
        for e in (0..self.crossings.len()).rev() {
            let cr = self.crossings[e];
            self.points.push(cr[2 * j + 1]);
            self.points.push(cr[2 * j]);
            j = usize::from(self.dp[e][j].1);
        }
        self.points.push(start);
        self.points.reverse();
        self.points.dedup();
    }

    /// Step 2: last-visible-point string pulling, never leaving the leaves of
    /// the path.
    fn band_step_two(&mut self, tree: &Quadtree) {
        let n = self.points.len();
        if n <= 2 {
            return;
        }
        let on_path = |c: Cell| {
            tree.leaf_of(c)
                .is_some_and(|leaf| self.nodes[leaf].on_path == self.generation)
        };
        let mut kept = 1; // points[..kept] is the pulled path so far
        let mut anchor = self.points[0];
        let mut i = 1;
        while i + 1 < n {
            let next = self.points[i + 1];
            if supercover(anchor, next, on_path) {
                i += 1;
                continue;
            }
            // The point before the first invisible one becomes the LVP.
            anchor = self.points[i];
            self.points[kept] = anchor;
            kept += 1;
            i += 1;
        }
        self.points[kept] = self.points[n - 1];
        self.points.truncate(kept + 1);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::nav::grid::{GridMap, Mobility, Terrain};

    #[test]
    fn an_open_square_map_is_one_leaf() {
        let grid = CostGrid::new(&GridMap::open(8, 8).unwrap(), Mobility::GROUND).unwrap();
        let tree = Quadtree::new(&grid).unwrap();
        assert_eq!(tree.leaf_count(), 1);
        let p = QuadPlanner::new()
            .find_path(&grid, &tree, Cell::new(0, 0), Cell::new(7, 5))
            .unwrap();
        assert_eq!(p.points, vec![Cell::new(0, 0), Cell::new(7, 5)]);
    }

    #[test]
    fn reached_leaves_hold_the_start_and_goal_leaves() {
        let mut map = GridMap::open(16, 16).unwrap();
        for y in 0..12 {
            map.set(Cell::new(7, y), Terrain::Blocked);
        }
        let grid = CostGrid::new(&map, Mobility::GROUND).unwrap();
        let tree = Quadtree::new(&grid).unwrap();
        let mut planner = QuadPlanner::new();
        let (start, goal) = (Cell::new(1, 1), Cell::new(14, 1));
        planner.find_path(&grid, &tree, start, goal).unwrap();
        let reached: Vec<usize> = planner.reached_leaves().collect();
        for cell in [start, goal] {
            assert!(reached.contains(&tree.leaf_of(cell).unwrap()));
        }
        assert!(reached.len() as u32 >= planner.expanded());
        assert!(reached.len() < tree.leaf_count() + 1);
    }

    #[test]
    fn leaves_tile_the_map_exactly_once() {
        let mut map = GridMap::open(13, 9).unwrap();
        map.set(Cell::new(5, 4), Terrain::Blocked);
        map.set(Cell::new(2, 7), Terrain::Swamp);
        let grid = CostGrid::new(&map, Mobility::GROUND).unwrap();
        let tree = Quadtree::new(&grid).unwrap();
        let mut covered = vec![0; 13 * 9];
        for leaf in tree.leaves() {
            for y in leaf.y..(leaf.y + leaf.size).min(9) {
                for x in leaf.x..(leaf.x + leaf.size).min(13) {
                    covered[(y * 13 + x) as usize] += 1;
                    let expected = grid.cost(Cell::new(x, y)).unwrap_or(BLOCKED);
                    assert_eq!(leaf.cost, expected, "leaf {leaf:?} at ({x}, {y})");
                }
            }
        }
        assert!(covered.iter().all(|&c| c == 1));
        assert!(tree.leaf_count() < 13 * 9 / 2);
    }

    #[test]
    fn a_unit_inside_an_impassable_cell_plans_its_way_out_but_nobody_plans_in() {
        let mut map = GridMap::open(8, 8).unwrap();
        for y in 0..4 {
            for x in 0..4 {
                map.set(Cell::new(x, y), Terrain::Blocked);
            }
        }
        let grid = CostGrid::new(&map, Mobility::GROUND).unwrap();
        let tree = Quadtree::new(&grid).unwrap();
        let blocked = tree.leaf_of(Cell::new(1, 1)).unwrap();
        assert!(!tree.leaves()[blocked].passable());
        assert!(!tree.links_of(blocked).is_empty(), "links lead out");
        for leaf in 0..tree.leaf_count() {
            assert!(
                tree.links_of(leaf)
                    .iter()
                    .all(|l| l.leaf as usize != blocked),
                "no link leads in"
            );
        }
        let mut planner = QuadPlanner::new();
        let out = planner
            .find_path(&grid, &tree, Cell::new(1, 1), Cell::new(6, 6))
            .unwrap();
        assert_eq!(out.points.last(), Some(&Cell::new(6, 6)));
        assert_eq!(
            planner.find_path(&grid, &tree, Cell::new(6, 6), Cell::new(1, 1)),
            Err(PathError::Blocked {
                which: "goal",
                cell: Cell::new(1, 1)
            })
        );
    }

    #[test]
    fn supercover_visits_both_sides_of_a_corner_crossing() {
        let mut seen = Vec::new();
        supercover(Cell::new(0, 0), Cell::new(1, 1), |c| {
            seen.push(c);
            true
        });
        assert_eq!(
            seen,
            vec![
                Cell::new(0, 0),
                Cell::new(1, 0),
                Cell::new(0, 1),
                Cell::new(1, 1)
            ]
        );
    }
}
