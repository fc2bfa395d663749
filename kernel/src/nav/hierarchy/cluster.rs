//! Dijkstra inside one cluster, from each transition cell when the
//! hierarchy is built: the intra-cluster edges, and each transition cell's
//! table of distances and first steps to every cell of its cluster (which
//! link a query's start and goal to it without searching).
//!
//! The moves and costs are those of [`crate::nav::astar`]: 8-connected,
//! straight steps 1 and diagonal steps √2 times the mean of the two cells'
//! multipliers, no corner cutting. Both side cells of a diagonal between two
//! cells of a rectangle lie in that rectangle, so the search never looks
//! outside its cluster. Costs are symmetric, so the distances from a root are
//! also the distances to it.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::f64::consts::SQRT_2;

use crate::nav::grid::{BLOCKED, CostGrid};

/// A cluster's cells: columns `x0..x0 + w`, rows `y0..y0 + h`, in padded
/// coordinates (the grid's blocked border is row and column 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Rect {
    pub x0: u32,
    pub y0: u32,
    pub w: u32,
    pub h: u32,
}

impl Rect {
    /// The local index of padded index `index` (which lies in the rectangle).
    pub fn local(&self, index: usize, stride: usize) -> usize {
        let (x, y) = ((index % stride) as u32, (index / stride) as u32);
        ((y - self.y0) * self.w + (x - self.x0)) as usize
    }

    /// The padded index of local index `local`.
    fn padded(&self, local: usize, stride: usize) -> usize {
        let local = local as u32;
        (self.y0 + local / self.w) as usize * stride + (self.x0 + local % self.w) as usize
    }
}

/// A reusable Dijkstra context for one cluster at a time.
#[derive(Clone, Debug, Default)]
pub(super) struct ClusterDijkstra {
    rect: Rect,
    stride: usize,
    dist: Vec<f64>,
    parent: Vec<u32>,
    /// `generation`: reached; `generation + 1`: settled.
    stamp: Vec<u32>,
    generation: u32,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
}

impl ClusterDijkstra {
    /// Grows the per-cell arrays for clusters of `cells` cells.
    pub fn reserve(&mut self, cells: usize) {
        if self.dist.len() < cells {
            self.dist.resize(cells, 0.0);
            self.parent.resize(cells, 0);
            self.stamp.resize(cells, 0);
        }
        // A cell is pushed at most once per neighbour.
        self.heap
            .reserve((8 * cells).saturating_sub(self.heap.len()));
    }

    /// Settles every cell of `rect` reachable from padded index `root`
    /// inside it.
    pub fn run(&mut self, grid: &CostGrid, rect: Rect, root: usize) {
        self.rect = rect;
        self.stride = grid.stride();
        self.reserve((rect.w * rect.h) as usize);
        self.generation = self.generation.wrapping_add(2);
        if self.generation == 0 {
            self.stamp.fill(0);
            self.generation = 2;
        }
        self.heap.clear();
        let local = rect.local(root, self.stride);
        self.dist[local] = 0.0;
        self.parent[local] = local as u32;
        self.stamp[local] = self.generation;
        self.heap.push(Reverse((0, local as u32)));
        let (reached, settled) = (self.generation, self.generation + 1);
        let cost = grid.costs();
        let (rect, stride) = (self.rect, self.stride);
        while let Some(Reverse((_, local))) = self.heap.pop() {
            let local = local as usize;
            if self.stamp[local] == settled {
                continue;
            }
            self.stamp[local] = settled;
            let (lx, ly) = (local as u32 % rect.w, local as u32 / rect.w);
            let i = (rect.y0 + ly) as usize * stride + (rect.x0 + lx) as usize;
            let (g, ci) = (self.dist[local], f64::from(cost[i]));
            for (dx, dy) in NEIGHBOURS {
                let (nx, ny) = (lx.wrapping_add_signed(dx), ly.wrapping_add_signed(dy));
                if nx >= rect.w || ny >= rect.h {
                    continue;
                }
                let n = i.wrapping_add_signed(dy as isize * stride as isize + dx as isize);
                if cost[n] == BLOCKED {
                    continue;
                }
                let diagonal = dx != 0 && dy != 0;
                let side_x = i.wrapping_add_signed(dx as isize);
                let side_y = i.wrapping_add_signed(dy as isize * stride as isize);
                if diagonal && (cost[side_x] == BLOCKED || cost[side_y] == BLOCKED) {
                    continue;
                }
                let len = if diagonal { SQRT_2 } else { 1.0 };
                let ng = g + len * (ci + f64::from(cost[n])) * 0.5;
                let m = (ny * rect.w + nx) as usize;
                let seen = self.stamp[m] == reached || self.stamp[m] == settled;
                if seen && self.dist[m] <= ng {
                    continue;
                }
                self.dist[m] = ng;
                self.parent[m] = local as u32;
                self.stamp[m] = reached;
                self.heap.push(Reverse((ng.to_bits(), m as u32)));
            }
        }
    }

    /// The distance from the root to padded index `index`, if settled.
    pub fn settled(&self, index: usize) -> Option<f64> {
        let local = self.rect.local(index, self.stride);
        (self.stamp[local] == self.generation + 1).then(|| self.dist[local])
    }

    /// Appends the rectangle's distances from the root (infinite where not
    /// reached) and first steps toward it (an index into [`NEIGHBOURS`],
    /// [`ROOT`] at the root), in local order.
    pub fn export(&self, dist: &mut Vec<f32>, toward: &mut Vec<u8>) {
        let (rect, settled) = (self.rect, self.generation + 1);
        for local in 0..(rect.w * rect.h) as usize {
            if self.stamp[local] != settled {
                dist.push(f32::INFINITY);
                toward.push(ROOT);
                continue;
            }
            dist.push(self.dist[local] as f32);
            let parent = self.parent[local];
            let step = |at: u32| (at % rect.w, at / rect.w);
            let ((x, y), (px, py)) = (step(local as u32), step(parent));
            let delta = (px as i32 - x as i32, py as i32 - y as i32);
            let k = NEIGHBOURS.iter().position(|&d| d == delta);
            toward.push(k.map_or(ROOT, |k| k as u8));
        }
    }

    /// The settled padded index `index` and its parents up to the root, as
    /// padded indices, into `out`.
    pub fn chain_into(&self, index: usize, out: &mut Vec<u32>) {
        let mut local = self.rect.local(index, self.stride);
        loop {
            out.push(self.rect.padded(local, self.stride) as u32);
            let parent = self.parent[local] as usize;
            if parent == local {
                return;
            }
            local = parent;
        }
    }
}

/// `toward` of a root, or of a cell its root does not reach.
pub(super) const ROOT: u8 = 8;

/// The eight moves, straight first.
pub(super) const NEIGHBOURS: [(i32, i32); 8] = [
    (0, -1),
    (0, 1),
    (-1, 0),
    (1, 0),
    (-1, -1),
    (1, -1),
    (-1, 1),
    (1, 1),
];
