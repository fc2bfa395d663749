//! The map a [`crate::Sim`] plans on, and the routes its units follow.
//!
//! A [`WorldMap`] places a grid ([`CostGrid`], ground mobility, with its HPA*
//! [`Hierarchy`]) in the world:
//! cell `(x, y)` covers `origin + (x, y) · cell_size` to one cell further, row
//! 0 at the origin's y. The `paths` stage answers move orders on it with grid
//! A* (one search context per search in flight) and stores each answer as a
//! short polyline: the cell path string-pulled
//! to its corners by line of sight (the last-visible-point smoothing of the
//! Armada paper's rubber-banding, step 2), at most [`ROUTE_POINTS`] of them.
//! A unit at the end of a truncated route asks again from where it stands.
//!
//! A cell is between [`MIN_CELL_SIZE`] and [`MAX_CELL_SIZE`] metres wide and
//! the whole map lies within [`MAX_COORDINATE`] metres of the origin on each
//! axis; [`WorldMap::new`] refuses anything else with a [`WorldMapError`].

use std::sync::Arc;

use glam::Vec2;

mod edit;

pub use edit::{EditError, segment_meets};
use thiserror::Error;

use super::MAX_COORDINATE;
use super::astar::Path;
use super::grid::{Cell, CostGrid, GridMap, Mobility, MobilityError};
use super::hierarchy::Hierarchy;
use super::polygon::raster::Ground;
use super::quadtree::supercover;
use crate::geometry::bounds::Bounds;

/// Corners kept per route; a longer route is cut and re-planned at its end.
pub const ROUTE_POINTS: usize = 16;

/// Narrowest cell a [`WorldMap`] accepts, metres.
pub const MIN_CELL_SIZE: f32 = 1e-3;
/// Widest cell a [`WorldMap`] accepts, metres.
pub const MAX_CELL_SIZE: f32 = 1e4;

/// Why a [`WorldMap`] cannot be built.
#[derive(Clone, Copy, Debug, PartialEq, Error)]
pub enum WorldMapError {
    /// The cell size is not a number of metres in the accepted range.
    #[error(
        "the map cell size must be between {MIN_CELL_SIZE} and {MAX_CELL_SIZE} metres, was {value}"
    )]
    CellSize {
        /// The refused cell size.
        value: f32,
    },
    /// The origin, or the map's far corner, is not within
    /// [`MAX_COORDINATE`] metres of the origin on each axis (or is NaN).
    #[error(
        "the map's corners must lie within {MAX_COORDINATE} m of (0, 0) on each axis, its origin was ({}, {}) and its far corner ({}, {})",
        origin.x,
        origin.y,
        far.x,
        far.y
    )]
    OutOfRange {
        /// Cell (0, 0)'s corner.
        origin: Vec2,
        /// The opposite corner of the map.
        far: Vec2,
    },
    /// The mobility's costs are invalid.
    #[error(transparent)]
    Mobility(#[from] MobilityError),
}

/// A grid placed in the world.
#[derive(Clone, Debug)]
pub struct WorldMap {
    /// The terrain, as edited ([`WorldMap::set_cells`]).
    terrain: GridMap,
    mobility: Mobility,
    grid: CostGrid,
    /// HPA*'s clusters over `grid`, built with it.
    hierarchy: Hierarchy,
    origin: Vec2,
    cell_size: f32,
    /// Width and height in cells.
    extent: Vec2,
    identity: u64,
    /// Impassable cells in the rectangle from cell (0, 0) to (x − 1, y − 1),
    /// at `y · (width + 1) + x` (a summed-area table): any rectangle's count
    /// in four reads, so a segment whose bounding cells are all passable is
    /// clear without walking it.
    blocked_before: Vec<u32>,
    /// Whether a road runs through each cell (row-major); empty until
    /// [`WorldMap::with_roads`].
    road: Vec<bool>,
    /// A rasterised polygon map's terrain without bridge decks.
    ground: Option<Arc<Ground>>,
}

impl WorldMap {
    /// `map` as `mobility` sees it, with its cell (0, 0) at `origin`, cells
    /// `cell_size` metres wide.
    ///
    /// # Errors
    /// [`WorldMapError`]: a cell size outside [`MIN_CELL_SIZE`] to
    /// [`MAX_CELL_SIZE`] (NaN included), a corner further than
    /// [`MAX_COORDINATE`] from the origin on an axis (NaN included), or
    /// invalid mobility costs. Nothing is built on refusal.
    pub fn new(
        map: &GridMap,
        mobility: Mobility,
        origin: Vec2,
        cell_size: f32,
    ) -> Result<WorldMap, WorldMapError> {
        if !(MIN_CELL_SIZE..=MAX_CELL_SIZE).contains(&cell_size) {
            return Err(WorldMapError::CellSize { value: cell_size });
        }
        let far = origin + Vec2::new(map.width() as f32, map.height() as f32) * cell_size;
        let limit = MAX_COORDINATE as f32;
        // Written so that NaN fails too.
        let within = |corner: Vec2| corner.x.abs() <= limit && corner.y.abs() <= limit;
        if !(within(origin) && within(far)) {
            return Err(WorldMapError::OutOfRange { origin, far });
        }
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        hasher.update(&map.width().to_le_bytes());
        hasher.update(&map.height().to_le_bytes());
        let terrain: Vec<u8> = map.cells().iter().map(|&cell| cell as u8).collect();
        hasher.update(&terrain);
        hasher.update(bytemuck::bytes_of(&origin));
        hasher.update(&cell_size.to_le_bytes());
        let grid = CostGrid::new(map, mobility)?;
        let blocked_before = summed_blocked(&grid);
        let hierarchy = Hierarchy::build(&grid);
        Ok(WorldMap {
            terrain: map.clone(),
            mobility,
            hierarchy,
            extent: Vec2::new(grid.width() as f32, grid.height() as f32),
            grid,
            origin,
            cell_size,
            identity: hasher.digest(),
            blocked_before,
            road: Vec::new(),
            ground: None,
        })
    }

    /// The same terrain, roads and placement as `mobility` sees them: its
    /// own costs, regions and HPA* clusters (a mobility class's map,
    /// [`crate::nav::ClassMaps`]). The identity stays the terrain's.
    ///
    /// # Errors
    /// [`WorldMapError::Mobility`] for invalid costs.
    pub fn for_mobility(&self, mobility: Mobility) -> Result<WorldMap, WorldMapError> {
        let mut map = WorldMap::new(&self.terrain, mobility, self.origin, self.cell_size)?;
        map.identity = self.identity;
        map.road.clone_from(&self.road);
        map.ground.clone_from(&self.ground);
        Ok(map)
    }

    /// The costs this map was built with.
    #[must_use]
    pub fn mobility(&self) -> Mobility {
        self.mobility
    }

    /// This map with its roads set to run through `cells` (replacing any
    /// before; cells off the map are ignored); the roads are part of its
    /// identity (call it once per map: the hash builds on the current one).
    #[must_use]
    pub fn with_roads(mut self, cells: impl IntoIterator<Item = Cell>) -> WorldMap {
        let mut road = vec![false; self.grid.width() as usize * self.grid.height() as usize];
        for cell in cells.into_iter().filter(|&cell| self.grid.contains(cell)) {
            road[self.row_major(cell)] = true;
        }
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        hasher.update(&self.identity.to_le_bytes());
        hasher.update(bytemuck::cast_slice(&road));
        self.identity = hasher.digest();
        self.road = road;
        self
    }

    /// Whether a road runs through the cell holding `position`.
    #[must_use]
    pub fn on_road(&self, position: Vec2) -> bool {
        self.cell_at(position)
            .is_some_and(|cell| self.road.get(self.row_major(cell)) == Some(&true))
    }

    fn row_major(&self, cell: Cell) -> usize {
        cell.y as usize * self.grid.width() as usize + cell.x as usize
    }

    /// This map, remembering `ground`: the terrain it was drawn from
    /// before the bridge decks were opened.
    pub(crate) fn with_ground(self, ground: Arc<Ground>) -> WorldMap {
        WorldMap {
            ground: Some(ground),
            ..self
        }
    }

    /// The terrain without bridge decks, on a rasterised polygon map.
    pub(crate) fn ground(&self) -> Option<&Arc<Ground>> {
        self.ground.as_ref()
    }

    /// The identity of the map as first built: a rasterised polygon map's
    /// ground as first drawn (the bridges that come and go and the
    /// obstacles added at run time change its cells, not this), else
    /// [`WorldMap::identity`].
    #[must_use]
    pub fn base_identity(&self) -> u64 {
        self.ground
            .as_ref()
            .map_or(self.identity, |ground| ground.identity())
    }

    /// Whether every cell in the rectangle spanned by `a` and `b` is
    /// passable.
    #[must_use]
    #[inline]
    pub fn all_passable(&self, a: Cell, b: Cell) -> bool {
        let stride = self.grid.width() as usize + 1;
        let (x0, x1) = (a.x.min(b.x) as usize, a.x.max(b.x) as usize + 1);
        let (y0, y1) = (a.y.min(b.y) as usize, a.y.max(b.y) as usize + 1);
        let at = |x: usize, y: usize| self.blocked_before[y * stride + x];
        at(x1, y1) + at(x0, y0) == at(x0, y1) + at(x1, y0)
    }

    /// A hash of the terrain as built (before any [`WorldMap::set_cells`]:
    /// a snapshot lists the edits), origin and cell size: snapshots check
    /// it.
    #[must_use]
    pub fn identity(&self) -> u64 {
        self.identity
    }

    /// The cost grid.
    #[must_use]
    pub fn grid(&self) -> &CostGrid {
        &self.grid
    }

    /// The hierarchy over the cost grid, for HPA* queries.
    #[must_use]
    pub fn hierarchy(&self) -> &Hierarchy {
        &self.hierarchy
    }

    /// Cell edge, metres.
    #[must_use]
    pub fn cell_size(&self) -> f32 {
        self.cell_size
    }

    /// World position of cell (0, 0)'s corner.
    #[must_use]
    pub fn origin(&self) -> Vec2 {
        self.origin
    }

    /// The rectangle the map covers.
    #[must_use]
    pub fn bounds(&self) -> Bounds {
        let size = Vec2::new(self.grid.width() as f32, self.grid.height() as f32);
        Bounds::new(self.origin, self.origin + size * self.cell_size)
    }

    /// The cell holding `position`, or `None` off the map (or NaN).
    #[must_use]
    pub fn cell_at(&self, position: Vec2) -> Option<Cell> {
        let local = (position - self.origin) / self.cell_size;
        // Both comparisons are false for NaN. Inside, each coordinate is in
        // [0, extent), which an `i32` holds: that conversion is cheaper
        // than the saturating one to `u32`.
        let inside = local.cmpge(Vec2::ZERO).all() & local.cmplt(self.extent).all();
        inside.then(|| Cell::new(local.x as i32 as u32, local.y as i32 as u32))
    }

    /// The centre of `cell` in the world.
    #[must_use]
    pub fn centre_of(&self, cell: Cell) -> Vec2 {
        self.origin + (Vec2::new(cell.x as f32, cell.y as f32) + 0.5) * self.cell_size
    }

    /// Whether the straight line between the cells holding `from` and `to`
    /// crosses only passable cells (an exact supercover walk). Off the map
    /// is not clear.
    #[must_use]
    pub fn line_is_clear(&self, from: Vec2, to: Vec2) -> bool {
        match (self.cell_at(from), self.cell_at(to)) {
            (Some(a), Some(b)) => self.cells_see_each_other(a, b),
            _ => false,
        }
    }

    /// Whether the segment from `from` to `to` crosses only passable cells,
    /// walking every cell it touches (Amanatides and Woo's voxel traversal;
    /// passing exactly through a cell corner checks both side cells). Exact
    /// for any two points, unlike [`WorldMap::line_is_clear`], which walks
    /// between cell centres.
    #[must_use]
    pub fn segment_is_clear(&self, from: Vec2, to: Vec2) -> bool {
        let (Some(first), Some(last)) = (self.cell_at(from), self.cell_at(to)) else {
            return false;
        };
        // The walk never leaves the cells' bounding rectangle.
        if self.all_passable(first, last) {
            return true;
        }
        let (a, b) = (
            (from - self.origin) / self.cell_size,
            (to - self.origin) / self.cell_size,
        );
        let delta = b - a;
        let step = (delta.x.signum() as i64, delta.y.signum() as i64);
        let boundary = |position: f32, cell: u32, step: i64| {
            f32::from(u8::from(step > 0)) + cell as f32 - position
        };
        let crossing = |offset: f32, delta: f32| {
            if delta == 0.0 {
                f32::INFINITY
            } else {
                offset / delta
            }
        };
        let mut next_x = crossing(boundary(a.x, first.x, step.0), delta.x);
        let mut next_y = crossing(boundary(a.y, first.y, step.1), delta.y);
        let (every_x, every_y) = (crossing(1.0, delta.x.abs()), crossing(1.0, delta.y.abs()));
        let (mut x, mut y) = (i64::from(first.x), i64::from(first.y));
        let passable = |x: i64, y: i64| self.grid.passable(Cell::new(x as u32, y as u32));
        if !passable(x, y) {
            return false;
        }
        let steps = first.x.abs_diff(last.x) + first.y.abs_diff(last.y);
        for _ in 0..steps {
            if (x, y) == (i64::from(last.x), i64::from(last.y)) {
                break;
            }
            if (next_x - next_y).abs() <= 1e-6 {
                if !passable(x + step.0, y) || !passable(x, y + step.1) {
                    return false;
                }
                x += step.0;
                y += step.1;
                next_x += every_x;
                next_y += every_y;
            } else if next_x < next_y {
                x += step.0;
                next_x += every_x;
            } else {
                y += step.1;
                next_y += every_y;
            }
            if !passable(x, y) {
                return false;
            }
        }
        true
    }

    /// Whether `position` lies on a passable cell of the map.
    #[must_use]
    #[inline]
    pub fn is_open(&self, position: Vec2) -> bool {
        self.cell_at(position)
            .is_some_and(|cell| self.grid.passable(cell))
    }

    /// The part of `step` a ground unit at `from` may take: all of it if it
    /// crosses only open cells (or the unit already stands on a blocked
    /// one, so it can get out), else its part along x or along y alone
    /// (sliding along the wall), else none.
    #[must_use]
    pub fn step_on_open_ground(&self, from: Vec2, step: Vec2) -> Vec2 {
        if !self.is_open(from) {
            return step;
        }
        [step, Vec2::new(step.x, 0.0), Vec2::new(0.0, step.y)]
            .into_iter()
            .find(|&part| self.segment_is_clear(from, from + part))
            .unwrap_or(Vec2::ZERO)
    }

    /// The centre of the open cell of `region` nearest `point` (by the
    /// distance between `point` and cell centres), searched in square rings
    /// about `point`'s cell until no nearer cell can remain; `None` if the
    /// region has no cell (or `point` is NaN).
    #[must_use]
    pub fn nearest_open_in_region(&self, point: Vec2, region: u32) -> Option<Vec2> {
        self.nearest_cell_where(point, |cell| self.grid.region(cell) == Some(region))
    }

    /// The centre of the passable cell nearest `point` (as
    /// [`WorldMap::nearest_open_in_region`], in any region); `None` if no
    /// cell is passable (or `point` is NaN).
    #[must_use]
    pub fn nearest_open(&self, point: Vec2) -> Option<Vec2> {
        self.nearest_cell_where(point, |cell| self.grid.passable(cell))
    }

    /// The centre of the cell nearest `point` that `wanted` accepts.
    fn nearest_cell_where(&self, point: Vec2, wanted: impl Fn(Cell) -> bool) -> Option<Vec2> {
        let local = ((point - self.origin) / self.cell_size).floor();
        if !local.is_finite() {
            return None;
        }
        let (width, height) = (self.grid.width() as i64, self.grid.height() as i64);
        let centre = (
            (local.x as i64).clamp(0, width - 1),
            (local.y as i64).clamp(0, height - 1),
        );
        let mut best: Option<(f32, Vec2)> = None;
        for ring in 0..width.max(height) {
            // Every cell of a later ring is at least `ring - 1` cells away.
            let nearest_possible = (ring as f32 - 1.0).max(0.0) * self.cell_size;
            if best.is_some_and(|(distance, _)| distance < nearest_possible) {
                break;
            }
            for (x, y) in square_ring(centre, ring) {
                if x < 0 || y < 0 || x >= width || y >= height {
                    continue;
                }
                let cell = Cell::new(x as u32, y as u32);
                if !wanted(cell) {
                    continue;
                }
                let at = self.centre_of(cell);
                let distance = at.distance(point);
                if best.is_none_or(|(nearest, _)| distance < nearest) {
                    best = Some((distance, at));
                }
            }
        }
        best.map(|(_, at)| at)
    }

    fn cells_see_each_other(&self, a: Cell, b: Cell) -> bool {
        self.all_passable(a, b) || supercover(a, b, |cell| self.grid.passable(cell))
    }

    /// The corners of `path` by line of sight, as world points from its
    /// first cell after the start to `goal`, at most [`ROUTE_POINTS`] of
    /// them, into `out`. Returns whether the route reaches `goal` (else it
    /// was cut and ends at a corner).
    pub fn corners_into(&self, path: &Path, goal: Vec2, out: &mut Vec<Vec2>) -> bool {
        out.clear();
        let cells = &path.cells;
        let Some(&last) = cells.last() else {
            return false;
        };
        let mut anchor = cells[0];
        let mut index = 1;
        while index < cells.len() {
            // Walk as far as the anchor still sees; that cell is a corner.
            let mut visible = index;
            while visible + 1 < cells.len() && self.cells_see_each_other(anchor, cells[visible + 1])
            {
                visible += 1;
            }
            let corner = cells[visible];
            if corner == last {
                // The cells see each other, centre to centre; the goal is
                // a point of its cell, which the anchor may not see past a
                // wall's corner: then the route goes by the cell's centre.
                if !self.segment_is_clear(self.centre_of(anchor), goal) {
                    out.push(self.centre_of(last));
                    if out.len() == ROUTE_POINTS {
                        return false;
                    }
                }
                out.push(goal);
                return true;
            }
            if out.len() + 1 == ROUTE_POINTS {
                out.push(self.centre_of(corner));
                return false;
            }
            out.push(self.centre_of(corner));
            anchor = corner;
            index = visible + 1;
        }
        out.push(goal);
        true
    }
}

/// The summed-area table of `grid`'s impassable cells (see
/// [`WorldMap::all_passable`]).
fn summed_blocked(grid: &CostGrid) -> Vec<u32> {
    let (width, height) = (grid.width() as usize, grid.height() as usize);
    let stride = width + 1;
    let mut table = vec![0u32; stride * (height + 1)];
    for y in 0..height {
        let mut row = 0;
        for x in 0..width {
            row += u32::from(!grid.passable(Cell::new(x as u32, y as u32)));
            table[(y + 1) * stride + x + 1] = table[y * stride + x + 1] + row;
        }
    }
    table
}
/// The cells at Chebyshev distance `ring` from `centre`, row by row.
fn square_ring((cx, cy): (i64, i64), ring: i64) -> impl Iterator<Item = (i64, i64)> {
    (cy - ring..=cy + ring).flat_map(move |y| {
        let edge_row = y == cy - ring || y == cy + ring;
        let step = if edge_row || ring == 0 { 1 } else { 2 * ring };
        (cx - ring..=cx + ring)
            .step_by(step as usize)
            .map(move |x| (x, y))
    })
}

/// How much the ground under `position` slows a unit: its cell's cost
/// multiplier (swamp, nebula), at least 1; 1 off the map or with none.
#[inline]
#[must_use]
pub fn terrain_slowdown(map: Option<&WorldMap>, position: Vec2) -> f32 {
    map.and_then(|map| map.grid().cost(map.cell_at(position)?))
        .map_or(1.0, |cost| cost.max(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nav::{GridPlanner, Terrain};

    /// A 10 × 10 map with a wall across x = 5 from y = 0 to 7.
    fn walled() -> WorldMap {
        let mut map = GridMap::open(10, 10).expect("valid size");
        for y in 0..8 {
            map.set(Cell::new(5, y), Terrain::Blocked);
        }
        WorldMap::new(&map, Mobility::GROUND, Vec2::new(-20.0, 100.0), 4.0).expect("valid")
    }

    #[test]
    fn positions_and_cells_round_trip() {
        let world = walled();
        let cell = Cell::new(3, 7);
        assert_eq!(world.cell_at(world.centre_of(cell)), Some(cell));
        assert_eq!(world.cell_at(Vec2::new(-20.1, 100.0)), None);
        assert_eq!(world.cell_at(Vec2::new(20.0, 100.0)), None);
        assert_eq!(world.cell_at(Vec2::NAN), None);
    }

    #[test]
    fn cell_sizes_out_of_range_and_non_finite_corners_are_refused() {
        let map = GridMap::open(10, 10).expect("valid size");
        let new = |origin, cell_size| WorldMap::new(&map, Mobility::GROUND, origin, cell_size);
        for size in [
            0.0,
            -0.0,
            -1.0,
            f32::NAN,
            f32::INFINITY,
            1e-45,
            1e-4,
            2e4,
            1e30,
        ] {
            match new(Vec2::ZERO, size) {
                Err(error @ WorldMapError::CellSize { .. }) => {
                    assert!(
                        error.to_string().contains("between 0.001 and 10000"),
                        "{error}"
                    );
                }
                other => panic!("cell size {size}: {other:?}"),
            }
        }
        for origin in [
            Vec2::new(f32::NAN, 0.0),
            Vec2::new(0.0, f32::MAX),
            Vec2::INFINITY,
            Vec2::new(-1e8, 0.0),
            Vec2::new(0.0, 1e7 - 10.0),
        ] {
            assert!(
                matches!(new(origin, 4.0), Err(WorldMapError::OutOfRange { .. })),
                "origin {origin}"
            );
        }
        assert!(new(Vec2::ZERO, MIN_CELL_SIZE).is_ok());
        assert!(new(Vec2::ZERO, MAX_CELL_SIZE).is_ok());
    }

    #[test]
    fn the_wall_blocks_the_line_and_the_gap_does_not() {
        let world = walled();
        let west = world.centre_of(Cell::new(1, 2));
        let east = world.centre_of(Cell::new(8, 2));
        assert!(!world.line_is_clear(west, east));
        let west_gap = world.centre_of(Cell::new(1, 9));
        let east_gap = world.centre_of(Cell::new(8, 9));
        assert!(world.line_is_clear(west_gap, east_gap));
    }

    /// Brute force: dense samples along the segment, each in a passable
    /// cell.
    fn sampled_clear(world: &WorldMap, from: Vec2, to: Vec2) -> bool {
        (0..=4000).all(|i| {
            let point = from.lerp(to, i as f32 / 4000.0);
            world
                .cell_at(point)
                .is_some_and(|cell| world.grid().passable(cell))
        })
    }

    #[test]
    fn exact_segments_agree_with_dense_sampling() {
        let world = walled();
        let bounds = world.bounds();
        let mut disagreements = 0;
        for i in 0..2000u64 {
            let draw = |stream| crate::random::unit_f32(3, stream, i);
            let point = |sx, sy| {
                bounds.min + Vec2::new(draw(sx), draw(sy)) * (bounds.max - bounds.min) * 0.999
            };
            let (from, to) = (point(0, 1), point(2, 3));
            let exact = world.segment_is_clear(from, to);
            let sampled = sampled_clear(&world, from, to);
            // Sampling can miss a cell only clipped at a corner; the exact
            // walk must never call a blocked line clear.
            assert!(!exact || sampled, "{from} to {to} crosses a wall");
            disagreements += usize::from(exact != sampled);
        }
        assert!(disagreements < 20, "{disagreements} disagreements");
    }

    /// The summed-area table against counting every cell of every
    /// rectangle, on a random map.
    #[test]
    fn passable_rectangles_agree_with_counting_cells() {
        let mut map = GridMap::open(23, 17).expect("valid size");
        for index in 0..(23 * 17) {
            if crate::random::unit_f32(9, 0, index) < 0.15 {
                map.set(
                    Cell::new(index as u32 % 23, index as u32 / 23),
                    Terrain::Blocked,
                );
            }
        }
        let world = WorldMap::new(&map, Mobility::GROUND, Vec2::ZERO, 1.0).expect("valid");
        let mut clear = 0;
        for i in 0..3000u64 {
            let draw = |stream, size| (crate::random::unit_f32(4, stream, i) * size as f32) as u32;
            let (a, b) = (
                Cell::new(draw(0, 23), draw(1, 17)),
                Cell::new(draw(2, 23), draw(3, 17)),
            );
            let counted = (a.x.min(b.x)..=a.x.max(b.x)).all(|x| {
                (a.y.min(b.y)..=a.y.max(b.y)).all(|y| world.grid().passable(Cell::new(x, y)))
            });
            assert_eq!(world.all_passable(a, b), counted, "{a:?} {b:?}");
            clear += usize::from(counted);
        }
        assert!(clear > 100, "both answers occur: {clear} clear");
    }

    #[test]
    fn corners_see_each_other_and_end_at_the_goal() {
        let world = walled();
        let (start, goal) = (Cell::new(1, 2), Cell::new(8, 2));
        let path = GridPlanner::new()
            .find_path(world.grid(), start, goal)
            .expect("a way round the wall");
        let goal_point = world.centre_of(goal) + Vec2::new(0.3, -0.2);
        let mut corners = Vec::new();
        assert!(world.corners_into(&path, goal_point, &mut corners));
        assert_eq!(*corners.last().expect("not empty"), goal_point);
        // Far fewer points than cells, and each leg is clear.
        assert!(corners.len() < path.cells.len() / 2, "{corners:?}");
        let mut from = world.centre_of(start);
        for &corner in &corners {
            assert!(world.line_is_clear(from, corner), "{from} to {corner}");
            from = corner;
        }
    }
}
