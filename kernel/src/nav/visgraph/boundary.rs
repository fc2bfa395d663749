//! The free space's boundary with a uniform grid of its edges: segment
//! visibility, point location (which piece, or the nearest free point) and
//! the corner tests of the visibility graph.
//!
//! Every edge has the free side on its left. A segment is visible when it
//! stays in the closed free space: it properly crosses no edge, every
//! boundary vertex it passes through has both of the segment's directions
//! inside the vertex's free sector (so it may graze a corner or run along an
//! edge, but never slip between two obstacles touching at a point), and an
//! end lying inside an edge leaves toward the free side. A query walks only
//! the grid cells the segment crosses, testing each edge once (generation
//! stamps), so it costs the edges near the segment rather than all of them.
//! Predicates are plain `f64` orientations.

use glam::DVec2;

use crate::nav::clearance::FreeSpace;
use crate::nav::polygon::orient;

/// Edge-visit stamps of one query (one per thread): reused, so a query
/// allocates nothing once sized.
#[derive(Clone, Debug, Default)]
pub struct EdgeStamps {
    stamps: Vec<u32>,
    generation: u32,
}

impl EdgeStamps {
    /// Room for a boundary of `edges` edges, so no query grows it.
    pub(super) fn reserve(&mut self, edges: usize) {
        if self.stamps.len() < edges {
            self.stamps.resize(edges, 0);
        }
    }

    fn begin(&mut self, edges: usize) {
        if self.stamps.len() < edges {
            self.stamps.resize(edges, 0);
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.stamps.fill(0);
            self.generation = 1;
        }
    }

    #[inline]
    fn first_visit(&mut self, edge: u32) -> bool {
        let slot = &mut self.stamps[edge as usize];
        let first = *slot != self.generation;
        *slot = self.generation;
        first
    }
}

/// A uniform grid; each cell lists the edges that may pass through it.
#[derive(Clone, Debug, Default)]
struct EdgeGrid {
    origin: DVec2,
    cell: f64,
    cols: usize,
    rows: usize,
    /// CSR: cell `c`'s edges are `items[starts[c]..starts[c + 1]]`.
    starts: Vec<u32>,
    items: Vec<u32>,
}

impl EdgeGrid {
    /// The column holding `x`, clamped to the grid. The cast truncates,
    /// which is the floor for the non-negative values and clamps negative
    /// ones (and NaN) to 0: no call to `floor` (not an instruction on
    /// baseline x86-64) in the cell walk.
    #[inline]
    fn col(&self, x: f64) -> usize {
        (((x - self.origin.x) / self.cell) as usize).min(self.cols - 1)
    }

    /// The row holding `y`, as [`col`](Self::col).
    #[inline]
    fn row(&self, y: f64) -> usize {
        (((y - self.origin.y) / self.cell) as usize).min(self.rows - 1)
    }

    /// Calls `visit` with every cell the closed segment `pq` may touch (a
    /// slight superset) until it returns `false`; returns whether it never
    /// did.
    fn cells_on_segment(&self, p: DVec2, q: DVec2, mut visit: impl FnMut(usize) -> bool) -> bool {
        let (a, b) = if p.x <= q.x { (p, q) } else { (q, p) };
        let pad = self.cell * 1e-9;
        let (c0, c1) = (self.col(a.x), self.col(b.x));
        for c in c0..=c1 {
            let x0 = self.origin.x + c as f64 * self.cell;
            let lo = if c == c0 { a.x } else { x0 };
            let hi = if c == c1 { b.x } else { x0 + self.cell };
            let (y_lo, y_hi) = if b.x == a.x {
                (a.y, b.y)
            } else {
                let slope = (b.y - a.y) / (b.x - a.x);
                (a.y + slope * (lo - a.x), a.y + slope * (hi - a.x))
            };
            let (y_lo, y_hi) = (y_lo.min(y_hi) - pad, y_lo.max(y_hi) + pad);
            for r in self.row(y_lo)..=self.row(y_hi) {
                if !visit(r * self.cols + c) {
                    return false;
                }
            }
        }
        true
    }

    fn items(&self, cell: usize) -> &[u32] {
        &self.items[self.starts[cell] as usize..self.starts[cell + 1] as usize]
    }
}

/// Where a query point lies in the free space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Located {
    /// The point itself when free, else the nearest free point (nudged a
    /// hair off the boundary).
    pub point: DVec2,
    /// The connected piece of free space it is in.
    pub piece: u32,
    /// Whether it had to be moved.
    pub moved: bool,
}

/// The free space's contours with their edge grid.
#[derive(Clone, Debug, Default)]
pub struct Boundary {
    space: FreeSpace,
    next: Vec<u32>,
    prev: Vec<u32>,
    vertex_piece: Vec<u32>,
    grid: EdgeGrid,
    /// Size of the free space's bounding box, for tolerances.
    scale: f64,
}

impl Boundary {
    /// Indexes `space`'s edges in a grid of about two edges per cell.
    #[must_use]
    pub fn new(space: FreeSpace) -> Self {
        let n = space.points.len();
        let (mut next, mut prev, mut vertex_piece) = (vec![0; n], vec![0; n], vec![0; n]);
        for (k, &[start, len]) in space.contours.iter().enumerate() {
            for i in 0..len {
                let v = (start + i) as usize;
                next[v] = start + (i + 1) % len;
                prev[v] = start + (i + len - 1) % len;
                vertex_piece[v] = space.contour_piece[k];
            }
        }
        let (min, max) = space.points.iter().fold(
            (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY)),
            |(lo, hi), &p| (lo.min(p), hi.max(p)),
        );
        let extent = (max - min).max(DVec2::splat(1e-9));
        let cell = (extent.x * extent.y / (n.max(1) as f64 * 2.0))
            .sqrt()
            .max(extent.max_element() / 1024.0);
        let cols = ((extent.x / cell).ceil() as usize).clamp(1, 1024);
        let rows = ((extent.y / cell).ceil() as usize).clamp(1, 1024);
        let mut boundary = Self {
            space,
            next,
            prev,
            vertex_piece,
            grid: EdgeGrid {
                origin: min,
                cell,
                cols,
                rows,
                starts: Vec::new(),
                items: Vec::new(),
            },
            scale: extent.max_element(),
        };
        boundary.fill_grid();
        boundary
    }

    fn fill_grid(&mut self) {
        let cells = self.grid.cols * self.grid.rows;
        let mut counts = vec![0u32; cells + 1];
        for e in 0..self.space.points.len() {
            let (a, b) = self.edge(e as u32);
            self.grid.cells_on_segment(a, b, |c| {
                counts[c + 1] += 1;
                true
            });
        }
        for c in 0..cells {
            counts[c + 1] += counts[c];
        }
        let mut cursor = counts.clone();
        let mut items = vec![0u32; counts[cells] as usize];
        for e in 0..self.space.points.len() {
            let (a, b) = self.edge(e as u32);
            self.grid.cells_on_segment(a, b, |c| {
                items[cursor[c] as usize] = e as u32;
                cursor[c] += 1;
                true
            });
        }
        self.grid.starts = counts;
        self.grid.items = items;
    }

    /// The free space.
    #[must_use]
    pub fn space(&self) -> &FreeSpace {
        &self.space
    }

    /// Number of boundary edges (= vertices).
    #[must_use]
    pub fn edge_count(&self) -> usize {
        self.space.points.len()
    }

    /// Vertex `v`'s position.
    #[inline]
    #[must_use]
    pub fn vertex(&self, v: u32) -> DVec2 {
        self.space.points[v as usize]
    }

    /// The next vertex along `v`'s contour (free side on the left).
    #[inline]
    #[must_use]
    pub fn next(&self, v: u32) -> u32 {
        self.next[v as usize]
    }

    /// The previous vertex along `v`'s contour.
    #[inline]
    #[must_use]
    pub fn prev(&self, v: u32) -> u32 {
        self.prev[v as usize]
    }

    /// Edge `e` runs from vertex `e` to the next one.
    #[inline]
    fn edge(&self, e: u32) -> (DVec2, DVec2) {
        (self.vertex(e), self.vertex(self.next(e)))
    }

    /// Whether vertex `v` is a convex corner of an obstacle: its free
    /// sector is wider than a half-turn. Only these can be bends of a
    /// shortest path.
    #[must_use]
    pub fn is_corner(&self, v: u32) -> bool {
        let (u, w) = self.sector(v);
        u.perp_dot(w) < 0.0
    }

    /// The free sector at `v`: from `u` counter-clockwise to `w`.
    #[inline]
    pub(super) fn sector(&self, v: u32) -> (DVec2, DVec2) {
        let at = self.vertex(v);
        (
            self.vertex(self.next(v)) - at,
            self.vertex(self.prev(v)) - at,
        )
    }

    /// Whether direction `d` from vertex `v` lies in its closed free sector.
    #[must_use]
    pub fn in_free_sector(&self, v: u32, d: DVec2) -> bool {
        let (u, w) = self.sector(v);
        let turn = u.perp_dot(w);
        if turn > 0.0 {
            u.perp_dot(d) >= 0.0 && d.perp_dot(w) >= 0.0
        } else if turn < 0.0 {
            !(w.perp_dot(d) > 0.0 && d.perp_dot(u) > 0.0)
        } else if u.dot(w) < 0.0 {
            u.perp_dot(d) >= 0.0
        } else {
            true
        }
    }

    /// Whether segment `pq` stays in the closed free space (see the module
    /// docs).
    pub fn visible(&self, p: DVec2, q: DVec2, stamps: &mut EdgeStamps) -> bool {
        stamps.begin(self.edge_count());
        self.grid.cells_on_segment(p, q, |cell| {
            self.grid
                .items(cell)
                .iter()
                .all(|&e| !stamps.first_visit(e) || !self.edge_blocks(e, p, q))
        })
    }

    /// Whether edge `e` stops segment `pq`.
    fn edge_blocks(&self, e: u32, p: DVec2, q: DVec2) -> bool {
        let (a, b) = self.edge(e);
        let (oa, ob) = (orient(p, q, a), orient(p, q, b));
        if (oa > 0.0 && ob > 0.0) || (oa < 0.0 && ob < 0.0) {
            return false;
        }
        let (op, oq) = (orient(a, b, p), orient(a, b, q));
        if (op > 0.0 && oq > 0.0) || (op < 0.0 && oq < 0.0) {
            return false;
        }
        if oa != 0.0 && ob != 0.0 && op != 0.0 && oq != 0.0 {
            return true;
        }
        if ob == 0.0 && in_box(p, q, b) {
            let v = self.next(e);
            if (b != p && !self.in_free_sector(v, p - b))
                || (b != q && !self.in_free_sector(v, q - b))
            {
                return true;
            }
        }
        (op == 0.0 && inside_edge(a, b, p) && oq < 0.0)
            || (oq == 0.0 && inside_edge(a, b, q) && op < 0.0)
    }

    /// The first boundary edge met walking from `p` toward `q` and a point
    /// just before it (the Force 21 heuristic's "first intersection"), or
    /// `None` when nothing blocks the segment.
    pub fn first_hit(&self, p: DVec2, q: DVec2, stamps: &mut EdgeStamps) -> Option<(u32, DVec2)> {
        stamps.begin(self.edge_count());
        let mut best: Option<(f64, u32)> = None;
        let d = q - p;
        self.grid.cells_on_segment(p, q, |cell| {
            for &e in self.grid.items(cell) {
                if !stamps.first_visit(e) {
                    continue;
                }
                let (a, b) = self.edge(e);
                let denom = d.perp_dot(b - a);
                if denom == 0.0 || !self.edge_blocks(e, p, q) {
                    continue;
                }
                let t = (a - p).perp_dot(b - a) / denom;
                if best.is_none_or(|(bt, be)| (t, e) < (bt, be)) {
                    best = Some((t, e));
                }
            }
            true
        });
        // Step back a hair so the point is on the free side, not rounded
        // into the obstacle.
        let back = self.scale.max(1.0) * 1e-7 / d.length().max(f64::MIN_POSITIVE);
        best.map(|(t, e)| (e, p + d * (t - back).clamp(0.0, 1.0)))
    }

    /// Locates `p`: its piece, moving it to the nearest free point when it
    /// lies inside an obstacle or outside every container. `None` only for
    /// an empty boundary.
    #[must_use]
    pub fn locate(&self, p: DVec2) -> Option<Located> {
        let nearest = self.nearest_feature(p)?;
        if nearest.free {
            return Some(Located {
                point: p,
                piece: nearest.piece,
                moved: false,
            });
        }
        let nudge = self.scale.max(1.0) * 1e-7;
        let point = nearest.point + nearest.inward * nudge;
        Some(Located {
            point,
            piece: nearest.piece,
            moved: true,
        })
    }

    /// The boundary feature nearest `p`: a ring search over grid cells.
    fn nearest_feature(&self, p: DVec2) -> Option<Nearest> {
        if self.space.points.is_empty() {
            return None;
        }
        let g = &self.grid;
        let (cx, cy) = (g.col(p.x) as isize, g.row(p.y) as isize);
        let mut best: Option<Nearest> = None;
        for ring in 0..=(g.cols.max(g.rows) as isize) {
            for r in (cy - ring).max(0)..=(cy + ring).min(g.rows as isize - 1) {
                let on_edge_row = (r - cy).abs() == ring;
                let step = if on_edge_row { 1 } else { (2 * ring).max(1) };
                let mut c = cx - ring;
                while c <= cx + ring {
                    if (0..g.cols as isize).contains(&c) {
                        for &e in g.items(r as usize * g.cols + c as usize) {
                            self.offer(e, p, &mut best);
                        }
                    }
                    c += step;
                }
            }
            if best.is_some_and(|b| b.distance <= ring as f64 * g.cell) {
                break;
            }
        }
        best
    }

    /// Folds edge `e` into the nearest-feature search.
    fn offer(&self, e: u32, p: DVec2, best: &mut Option<Nearest>) {
        let (a, b) = self.edge(e);
        let ab = b - a;
        let t = ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0);
        let (point, free, inward) = if t <= 0.0 || t >= 1.0 {
            let v = if t <= 0.0 { e } else { self.next(e) };
            let at = self.vertex(v);
            (at, self.in_free_sector(v, p - at), self.sector_bisector(v))
        } else {
            let point = a + ab * t;
            (point, orient(a, b, p) >= 0.0, ab.perp().normalize())
        };
        let distance = (p - point).length();
        let candidate = Nearest {
            distance,
            point,
            free,
            inward,
            piece: self.vertex_piece[e as usize],
        };
        match best {
            Some(b) if distance > b.distance => {}
            Some(b) if distance == b.distance => {
                if free && !b.free {
                    *b = candidate;
                }
            }
            _ => *best = Some(candidate),
        }
    }

    /// A unit vector into vertex `v`'s free sector.
    fn sector_bisector(&self, v: u32) -> DVec2 {
        let (u, w) = self.sector(v);
        let (u, w) = (u.normalize(), w.normalize());
        let sum = u + w;
        if u.perp_dot(w) < 0.0 {
            -sum.normalize_or(u.perp())
        } else {
            sum.normalize_or(u.perp())
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Nearest {
    distance: f64,
    point: DVec2,
    free: bool,
    inward: DVec2,
    piece: u32,
}

/// Whether `r` (collinear with `p` and `q`) lies on the closed segment.
#[inline]
fn in_box(p: DVec2, q: DVec2, r: DVec2) -> bool {
    r.x >= p.x.min(q.x) && r.x <= p.x.max(q.x) && r.y >= p.y.min(q.y) && r.y <= p.y.max(q.y)
}

/// Whether `r` (collinear with `a` and `b`) lies strictly inside the edge.
#[inline]
fn inside_edge(a: DVec2, b: DVec2, r: DVec2) -> bool {
    r != a && r != b && in_box(a, b, r)
}
