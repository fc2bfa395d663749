//! The graph's nodes bucketed in a uniform grid, so that a query seeds only
//! the nodes that can matter to it.
//!
//! Exact insertion queues every node the start may see at a lower bound of
//! its cost, `f = |s − p| + h·|p − g|`; only nodes whose bound is below the
//! answer's cost are ever popped — those in an ellipse round start and
//! goal (a disc round the start when `h` < 1: Dijkstra, roads). The search therefore seeds in stages of growing bound (see
//! [`search`](super::search)), and a stage visits only the cells whose
//! rectangle's own lower bound is within it: far nodes are never touched.

use glam::DVec2;

/// Nodes per cell, on average.
const NODES_PER_CELL: f64 = 4.0;

/// Cells per side at most.
const MAX_CELLS: usize = 256;

/// A uniform grid over the nodes; cell `c` lists its nodes in increasing
/// order (CSR).
#[derive(Clone, Debug, Default)]
pub(super) struct NodeGrid {
    origin: DVec2,
    cell: f64,
    cols: usize,
    rows: usize,
    starts: Vec<u32>,
    nodes: Vec<u32>,
}

impl NodeGrid {
    /// Buckets `positions` (node `i` at `positions[i]`).
    pub(super) fn new(positions: &[DVec2]) -> Self {
        let (min, max) = positions.iter().fold(
            (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY)),
            |(lo, hi), &p| (lo.min(p), hi.max(p)),
        );
        if positions.is_empty() {
            return Self::default();
        }
        let extent = (max - min).max(DVec2::splat(1e-9));
        let cells = (positions.len() as f64 / NODES_PER_CELL).max(1.0);
        let cell = (extent.x * extent.y / cells)
            .sqrt()
            .max(extent.max_element() / MAX_CELLS as f64);
        let cols = ((extent.x / cell).ceil() as usize).clamp(1, MAX_CELLS);
        let rows = ((extent.y / cell).ceil() as usize).clamp(1, MAX_CELLS);
        let mut grid = Self {
            origin: min,
            cell,
            cols,
            rows,
            starts: vec![0; cols * rows + 1],
            nodes: vec![0; positions.len()],
        };
        for &p in positions {
            let c = grid.cell_of(p);
            grid.starts[c + 1] += 1;
        }
        for c in 0..cols * rows {
            grid.starts[c + 1] += grid.starts[c];
        }
        let mut cursor = grid.starts.clone();
        for (node, &p) in positions.iter().enumerate() {
            let c = grid.cell_of(p);
            grid.nodes[cursor[c] as usize] = node as u32;
            cursor[c] += 1;
        }
        grid
    }

    fn cell_of(&self, p: DVec2) -> usize {
        let [c, r] = self.column_row(p);
        r * self.cols + c
    }

    /// The column and row holding `p` (clamped to the grid).
    fn column_row(&self, p: DVec2) -> [usize; 2] {
        // The cast truncates: the floor of the non-negative values, 0 for
        // the negative ones (and NaN).
        let index = |v: f64, o: f64, n: usize| (((v - o) / self.cell) as usize).min(n - 1);
        [
            index(p.x, self.origin.x, self.cols),
            index(p.y, self.origin.y, self.rows),
        ]
    }

    /// The lowest and highest corners of the nodes' box.
    pub(super) fn bounds(&self) -> (DVec2, DVec2) {
        let size = DVec2::new(self.cols as f64, self.rows as f64) * self.cell;
        (self.origin, self.origin + size)
    }

    /// Calls `visit` with every node of every cell that meets the box from
    /// `low` to `high` and for which `keep` (given the cell's lowest and
    /// highest corners, padded so that every node bucketed there lies
    /// inside) holds.
    pub(super) fn visit(
        &self,
        (low, high): (DVec2, DVec2),
        mut keep: impl FnMut(DVec2, DVec2) -> bool,
        mut visit: impl FnMut(u32),
    ) {
        if self.nodes.is_empty() {
            return;
        }
        let pad = DVec2::splat(self.cell * 1e-6);
        let ([c0, r0], [c1, r1]) = (self.column_row(low - pad), self.column_row(high + pad));
        for r in r0..=r1 {
            for c in c0..=c1 {
                let low = self.origin + DVec2::new(c as f64, r as f64) * self.cell;
                let high = low + self.cell;
                // Edge cells also hold the nodes clamped into them.
                let low = DVec2::new(
                    if c == 0 { f64::NEG_INFINITY } else { low.x },
                    if r == 0 { f64::NEG_INFINITY } else { low.y },
                ) - pad;
                let high = DVec2::new(
                    if c + 1 == self.cols {
                        f64::INFINITY
                    } else {
                        high.x
                    },
                    if r + 1 == self.rows {
                        f64::INFINITY
                    } else {
                        high.y
                    },
                ) + pad;
                if !keep(low, high) {
                    continue;
                }
                let cell = r * self.cols + c;
                let range = self.starts[cell] as usize..self.starts[cell + 1] as usize;
                for &node in &self.nodes[range] {
                    visit(node);
                }
            }
        }
    }
}

/// A box holding every point `p` with `|s − p| + h·|p − g| ≤ bound`
/// (`0 ≤ h ≤ 1`): the ellipse's box when `h` is 1, else the disc round `s`
/// of radius `(bound + h·|s − g|) / (1 + h)` (as `|p − g| ≥ |s − p| − |s − g|`).
pub(super) fn reach_box(s: DVec2, g: DVec2, h: f64, bound: f64) -> (DVec2, DVec2) {
    let d = s.distance(g);
    if !bound.is_finite() {
        return (DVec2::splat(f64::NEG_INFINITY), DVec2::splat(f64::INFINITY));
    }
    let half = if h == 1.0 && d > 0.0 {
        let (a, c) = (0.5 * bound, 0.5 * d);
        let b2 = (a * a - c * c).max(0.0);
        let dir = (g - s) / d;
        let (cos2, sin2) = (dir.x * dir.x, dir.y * dir.y);
        DVec2::new(
            (a * a * cos2 + b2 * sin2).sqrt(),
            (a * a * sin2 + b2 * cos2).sqrt(),
        )
    } else {
        DVec2::splat((bound + h * d) / (1.0 + h))
    };
    let centre = if h == 1.0 { 0.5 * (s + g) } else { s };
    // A hair larger, for rounding.
    let half = half * (1.0 + 1e-9) + 1e-9;
    (centre - half, centre + half)
}

/// The distance from `p` to the box from `low` to `high` (0 inside).
pub(super) fn distance_to_box(p: DVec2, low: DVec2, high: DVec2) -> f64 {
    let nearest = p.clamp(low, high);
    p.distance(nearest)
}
