//! Grid maps as polygon maps: the passable cells of a [`CostGrid`] traced
//! into the free space's contours, so the visibility-graph planner runs on
//! the same Moving AI maps as the grid planners.
//!
//! Every side between a passable cell and a blocked (or off-map) one is a
//! boundary edge, oriented with the passable cell on its left; the edges are
//! chained into loops as the mesh loader does (at a vertex where blocked
//! cells touch only at a corner, the loop takes the first turn clockwise
//! from the way back, so the two free corners stay on separate sectors and
//! no path slips diagonally between the blocked cells), and collinear runs
//! are merged. Cell `(x, y)` covers `[x, x + 1] × [y, y + 1]`, so a
//! scenario's cell centre is `(x + 0.5, y + 0.5)`. Pieces are the 4-connected
//! components of passable cells.

use std::collections::HashMap;

use glam::DVec2;

use super::mesh::trace_loop;
use crate::nav::clearance::FreeSpace;
use crate::nav::grid::{Cell, CostGrid};

/// The free space of `grid`'s passable cells.
#[must_use]
pub fn trace_grid(grid: &CostGrid) -> FreeSpace {
    let (w, h) = (grid.width() as usize, grid.height() as usize);
    let corner = |x: usize, y: usize| y * (w + 1) + x;
    let vertices: Vec<DVec2> = (0..=h)
        .flat_map(|y| (0..=w).map(move |x| DVec2::new(x as f64, y as f64)))
        .collect();
    let free = |x: isize, y: isize| {
        x >= 0
            && y >= 0
            && (x as usize) < w
            && (y as usize) < h
            && grid.passable(Cell::new(x as u32, y as u32))
    };
    let mut edges = Vec::new();
    for y in 0..h {
        for x in 0..w {
            let (xi, yi) = (x as isize, y as isize);
            if !free(xi, yi) {
                continue;
            }
            let sides = [
                (free(xi, yi - 1), corner(x, y), corner(x + 1, y)),
                (free(xi + 1, yi), corner(x + 1, y), corner(x + 1, y + 1)),
                (free(xi, yi + 1), corner(x + 1, y + 1), corner(x, y + 1)),
                (free(xi - 1, yi), corner(x, y + 1), corner(x, y)),
            ];
            edges.extend(sides.iter().filter(|s| !s.0).map(|s| (s.1, s.2)));
        }
    }
    let mut outgoing: HashMap<usize, Vec<usize>> = HashMap::new();
    for &(a, b) in &edges {
        outgoing.entry(a).or_default().push(b);
    }
    let pieces = piece_labels(grid);
    let mut space = FreeSpace::default();
    for &(first, second) in &edges {
        // Closed loops of a grid's boundary never dangle.
        let Ok(Some(ring)) = trace_loop(&vertices, &mut outgoing, first, second) else {
            continue;
        };
        let ring = merge_collinear(ring.iter().map(|&v| vertices[v]).collect());
        let (a, b) = (vertices[first], vertices[second]);
        let inside = (a + b) / 2.0 + (b - a).perp() * 0.5;
        let piece = pieces[inside.y as usize * w + inside.x as usize];
        space
            .contours
            .push([space.points.len() as u32, ring.len() as u32]);
        space.contour_piece.push(piece);
        space.points.extend(ring);
    }
    space.pieces = pieces
        .iter()
        .copied()
        .filter(|&p| p != u32::MAX)
        .max()
        .map_or(0, |p| p + 1);
    space
}

/// Drops vertices where the loop goes straight on.
fn merge_collinear(ring: Vec<DVec2>) -> Vec<DVec2> {
    let n = ring.len();
    (0..n)
        .filter(|&i| {
            let (prev, at, next) = (ring[(i + n - 1) % n], ring[i], ring[(i + 1) % n]);
            (at - prev).perp_dot(next - at) != 0.0 || (at - prev).dot(next - at) < 0.0
        })
        .map(|i| ring[i])
        .collect()
}

/// 4-connected component of every passable cell (`u32::MAX` if blocked).
fn piece_labels(grid: &CostGrid) -> Vec<u32> {
    let (w, h) = (grid.width() as usize, grid.height() as usize);
    let mut label = vec![u32::MAX; w * h];
    let mut next = 0;
    let mut stack = Vec::new();
    for seed in 0..w * h {
        if label[seed] != u32::MAX
            || !grid.passable(Cell::new((seed % w) as u32, (seed / w) as u32))
        {
            continue;
        }
        label[seed] = next;
        stack.push(seed);
        while let Some(i) = stack.pop() {
            let (x, y) = (i % w, i / w);
            let around = [
                (x.wrapping_sub(1), y),
                (x + 1, y),
                (x, y.wrapping_sub(1)),
                (x, y + 1),
            ];
            for (nx, ny) in around {
                let j = ny.wrapping_mul(w).wrapping_add(nx);
                if nx < w
                    && ny < h
                    && label[j] == u32::MAX
                    && grid.passable(Cell::new(nx as u32, ny as u32))
                {
                    label[j] = next;
                    stack.push(j);
                }
            }
        }
        next += 1;
    }
    label
}

/// Whether segment `pq` passes through the inside of a blocked cell of
/// `grid` (running along a blocked cell's side or through its corner does
/// not count): the validity test of an any-angle path on a grid.
#[must_use]
pub fn crosses_blocked_cell(grid: &CostGrid, p: DVec2, q: DVec2) -> bool {
    let (lo, hi) = (p.min(q).floor().max(DVec2::ZERO), p.max(q).floor());
    let (x1, y1) = (
        hi.x.min(f64::from(grid.width()) - 1.0),
        hi.y.min(f64::from(grid.height()) - 1.0),
    );
    (lo.y as u32..=y1 as u32).any(|y| {
        (lo.x as u32..=x1 as u32)
            .any(|x| !grid.passable(Cell::new(x, y)) && meets_open_cell(p, q, x, y))
    })
}

/// Whether segment `pq` meets the open unit square of cell `(x, y)`
/// (Liang–Barsky clipping).
fn meets_open_cell(p: DVec2, q: DVec2, x: u32, y: u32) -> bool {
    let lo = DVec2::new(f64::from(x), f64::from(y));
    let hi = lo + DVec2::ONE;
    let d = q - p;
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for axis in 0..2 {
        if d[axis] == 0.0 {
            if p[axis] <= lo[axis] || p[axis] >= hi[axis] {
                return false;
            }
        } else {
            let (a, b) = (
                (lo[axis] - p[axis]) / d[axis],
                (hi[axis] - p[axis]) / d[axis],
            );
            t0 = t0.max(a.min(b));
            t1 = t1.min(a.max(b));
        }
    }
    t1 - t0 > 1e-9
}
