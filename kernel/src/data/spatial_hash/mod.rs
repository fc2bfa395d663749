//! Spatial hash buckets: uniform cells over the world, rebuilt every tick.
//!
//! This is the "geometric hashing" of the Armada paper (Davis, *Warp Speed*,
//! "Support Systems"): units are dropped into buckets by position so that a
//! neighbour query looks at a handful of nearby buckets instead of every unit.
//!
//! The buckets are a dense grid over fixed world bounds, filled by a counting
//! sort into one cell-ordered index array (`cell_start` prefix sums + `order`;
//! a grid of many cells is counted and summed in parallel ranges, and many
//! units are scattered in parallel parts, each a range of cells that reads
//! every unit's cell in unit order and writes only its own cells' places),
//! with a cell-ordered copy of the positions beside it so a query streams
//! through contiguous memory. Cells in one grid row are adjacent in that array,
//! so a query window of any width costs one range per row. A query about a
//! unit with a radius within a cell needs no window, only the 3 × 3 block of
//! cells about its own (each unit's cell is kept from the rebuild). Positions outside
//! the bounds (or NaN) are clamped into the border cells: clamping is monotone,
//! so a clamped window still contains every unit within the radius, and only
//! the stray units pay for the crowding. Nothing allocates once the buffers
//! have grown to the unit count.

mod rebuild;
mod windows;

use glam::{Vec2, Vec4};
use thiserror::Error;

pub use crate::geometry::bounds::Bounds;
use windows::SkippedRows;
pub(crate) use windows::{Skip, SweepSkips, WINDOW_RUNS, WindowRuns, nearest_places};
pub use windows::{MIN_RUN_CANDIDATES, run_candidates, window_columns};
use wide::{f32x8, i32x8};

/// Positions given their cells at once, one per SIMD lane.
const LANES: usize = 8;
/// Units per parallel chunk; below [`PARALLEL_MIN_UNITS`] passes run inline.
const CHUNK: usize = 4096;
/// A parallel call costs microseconds; smaller worlds run sequentially.
const PARALLEL_MIN_UNITS: usize = 16_384;
/// Grids of fewer cells (width × height) count and sum them on one thread.
const PARALLEL_MIN_CELLS: usize = 1 << 16;
/// The rebuild's count runs in as many ranges as threads, and its scatter in
/// as many parts as the next power of two of that (halving the cells), up
/// to this many: each reads every unit's cell.
const MAX_PARTS: usize = 8;
/// Upper bound on the number of cells, so bad bounds cannot exhaust memory.
pub const MAX_CELLS: usize = 1 << 26;
/// Upper bound on cells along one axis (f32 counts exactly up to here).
const MAX_AXIS_CELLS: f32 = (1 << 24) as f32;

/// A grid that cannot be built.
#[derive(Clone, Copy, Debug, PartialEq, Error)]
pub enum GridError {
    /// Cell size not a positive finite number.
    #[error("cell size must be a positive finite number of metres, was {0}")]
    BadCellSize(f32),
    /// Bounds not finite, or empty.
    #[error("world bounds must be finite with min < max, were {min:?}..{max:?}")]
    BadBounds {
        /// South-west corner given.
        min: Vec2,
        /// North-east corner given.
        max: Vec2,
    },
    /// More cells than [`MAX_CELLS`].
    #[error(
        "{width} × {height} cells is more than the {MAX_CELLS} allowed: use a larger cell size"
    )]
    TooManyCells {
        /// Cells across.
        width: usize,
        /// Cells down.
        height: usize,
    },
}

/// Spatial hash buckets over fixed bounds; see the module docs.
#[derive(Clone, Debug)]
pub struct SpatialHash {
    origin: Vec2,
    cell_size: f32,
    inv_cell_size: f32,
    width: usize,
    height: usize,
    /// Index of the last column and row, as floats for clamping.
    last_cell: Vec2,
    /// `cell_start[pad + c]..cell_start[pad + c + 1]` is cell `c`'s range
    /// in `order`; the `pad` entries before the grid's and those after are
    /// empty cells, so that the block about a cell of the bottom or top
    /// grid row needs no clipping.
    cell_start: Vec<u32>,
    /// A grid row and one cell more.
    pad: usize,
    /// Unit indices in cell order.
    order: Vec<u32>,
    /// Positions in cell order (`sorted_position[k]` is unit `order[k]`'s).
    sorted_position: Vec<Vec2>,
    /// Each unit's cell, and its place in `order`.
    cell_of: Vec<u32>,
    place_of: Vec<u32>,
}

/// Figures from one rebuild, for the stage report.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RebuildStats {
    /// Units in the largest cell.
    pub max_cell_units: u32,
    /// Units clamped in from outside the bounds.
    pub outside_bounds: u32,
}

/// Rows a window of [`SpatialHash::window_runs_outside`] spans at most.
impl SpatialHash {
    /// Cells of `cell_size` metres covering `bounds`.
    pub fn new(bounds: Bounds, cell_size: f32) -> Result<SpatialHash, GridError> {
        if !(cell_size.is_finite() && cell_size > 0.0) {
            return Err(GridError::BadCellSize(cell_size));
        }
        let size = bounds.size();
        if !(bounds.min.is_finite() && bounds.max.is_finite() && size.x > 0.0 && size.y > 0.0) {
            return Err(GridError::BadBounds {
                min: bounds.min,
                max: bounds.max,
            });
        }
        let cells_along = |extent: f32| (extent / cell_size).ceil().max(1.0);
        let (width, height) = (cells_along(size.x), cells_along(size.y));
        // Also keeps each axis under 2^24 cells, where f32 counts exactly.
        if width * height > MAX_CELLS as f32 || width.max(height) > MAX_AXIS_CELLS {
            return Err(GridError::TooManyCells {
                width: width as usize,
                height: height as usize,
            });
        }
        let (width, height) = (width as usize, height as usize);
        let cells = width * height + 2 * (width + 1) + 2;
        Ok(SpatialHash {
            origin: bounds.min,
            cell_size,
            inv_cell_size: cell_size.recip(),
            width,
            height,
            last_cell: Vec2::new((width - 1) as f32, (height - 1) as f32),
            cell_start: vec![0; cells],
            pad: width + 1,
            order: Vec::new(),
            sorted_position: Vec::new(),
            cell_of: Vec::new(),
            place_of: Vec::new(),
        })
    }

    /// Edge length of a cell, metres.
    #[must_use]
    pub fn cell_size(&self) -> f32 {
        self.cell_size
    }

    /// Cells across and down.
    #[must_use]
    #[cfg(any(test, feature = "internals"))]
    pub fn dimensions(&self) -> (usize, usize) {
        (self.width, self.height)
    }

    /// Number of units in the last rebuild.
    #[must_use]
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// The last rebuild had no units.
    #[must_use]
    #[cfg(any(test, feature = "internals"))]
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }

    /// Unit indices in cell order (neighbours are near each other here).
    #[must_use]
    pub fn order(&self) -> &[u32] {
        &self.order
    }

    /// Grows every buffer to hold `units` so later rebuilds never allocate.
    pub fn reserve(&mut self, units: usize) {
        for buffer in [&mut self.order, &mut self.cell_of, &mut self.place_of] {
            buffer.reserve(units.saturating_sub(buffer.len()));
        }
        let have = self.sorted_position.len();
        self.sorted_position.reserve(units.saturating_sub(have));
    }

    /// The clamped cell column or row of coordinate `value` along an axis
    /// whose last cell is `last`.
    #[inline]
    fn axis_cell(&self, value: f32, origin: f32, last: f32) -> usize {
        // Clamp in float space, then truncate: below zero, where truncation
        // and `floor` differ, everything clamps to cell 0 anyway (and `floor`
        // is a libm call on baseline x86-64). `max` returns its other operand
        // for NaN, so any float lands in 0..=last, below 2^24: the cast goes
        // through `i32`, whose saturating conversion is a few instructions
        // shorter than `usize`'s.
        ((value - origin) * self.inv_cell_size).max(0.0).min(last) as i32 as usize
    }

    /// [`SpatialHash::cell_index`] of eight positions, in SIMD lanes: the
    /// same arithmetic, so the same cells (`max` with 0 gives 0 for NaN, as
    /// `f32::max` does, on every backend `wide` has); and how many of them
    /// lie outside the grid ([`SpatialHash::is_outside`], the same tests).
    #[inline]
    fn cell_indices(&self, positions: &[Vec2]) -> ([u32; LANES], u32) {
        let lane =
            |axis: fn(&Vec2) -> f32| f32x8::new(std::array::from_fn(|k| axis(&positions[k])));
        let (x, y) = (lane(|p| p.x) - self.origin.x, lane(|p| p.y) - self.origin.y);
        let axis_cells = |local: f32x8, last: f32| {
            (local * self.inv_cell_size)
                .max(f32x8::ZERO)
                .min(f32x8::splat(last))
                .fast_trunc_int()
        };
        let column = axis_cells(x, self.last_cell.x);
        let row = axis_cells(y, self.last_cell.y);
        // Below 2^26 cells (`MAX_CELLS`): no overflow in i32.
        let cell = row * i32x8::splat(self.width as i32) + column;
        let size = self.grid_size();
        // NaN compares false: outside.
        let inside = x.simd_ge(f32x8::ZERO)
            & y.simd_ge(f32x8::ZERO)
            & x.simd_lt(f32x8::splat(size.x))
            & y.simd_lt(f32x8::splat(size.y));
        let outside = LANES as u32 - inside.to_bitmask().count_ones();
        (cell.to_array().map(|cell| cell as u32), outside)
    }

    #[inline]
    fn cell_index(&self, position: Vec2) -> u32 {
        let column = self.axis_cell(position.x, self.origin.x, self.last_cell.x);
        let row = self.axis_cell(position.y, self.origin.y, self.last_cell.y);
        (row * self.width + column) as u32
    }

    /// The grid's extent, metres.
    fn grid_size(&self) -> Vec2 {
        Vec2::new(self.width as f32, self.height as f32) * self.cell_size
    }

    /// Whether `position` lies outside the grid (clamped into a border
    /// cell); NaN positions do.
    fn is_outside(&self, position: Vec2) -> bool {
        let (local, size) = (position - self.origin, self.grid_size());
        !(local.x >= 0.0 && local.y >= 0.0 && local.x < size.x && local.y < size.y)
    }

    /// Records that the units themselves were just reordered into this
    /// hash's cell order (unit `k` is now the one at place `k`).
    pub(crate) fn renumber_in_cell_order(&mut self) {
        for (place, (unit, place_of)) in self.order.iter_mut().zip(&mut self.place_of).enumerate() {
            *unit = place as u32;
            *place_of = place as u32;
        }
        // Unit k is in the cell whose range holds place k.
        let cells = &self.cell_start[self.pad..];
        for (cell, range) in cells.windows(2).enumerate() {
            self.cell_of[range[0] as usize..range[1] as usize].fill(cell as u32);
        }
    }

    /// Each unit's place in [`SpatialHash::order`] (the inverse permutation).
    pub(crate) fn places(&self) -> &[u32] {
        &self.place_of
    }

    /// The positions at rebuild, in place order.
    pub(crate) fn sorted_positions(&self) -> &[Vec2] {
        &self.sorted_position
    }

    /// Each unit's cell.
    pub(crate) fn cells(&self) -> &[u32] {
        &self.cell_of
    }

    /// Whether the block of cells about a unit's cell
    /// ([`SpatialHash::for_each_block_run`]) holds every unit within
    /// `radius` of it: a radius no longer than a cell's edge, on a grid at
    /// least three cells wide. Not for a negative or NaN radius, for which
    /// the window has no units.
    pub(crate) fn block_covers(&self, radius: f32) -> bool {
        (0.0..=self.cell_size).contains(&radius) && self.width >= 3
    }

    /// Calls `visit` with three runs of places, bottom first: the cells
    /// `cell − 1 ..= cell + 1` and those a grid row below and above. For a
    /// radius the block covers ([`SpatialHash::block_covers`]) they hold
    /// every unit within the radius of any point of `cell`, in the order
    /// [`SpatialHash::for_each_row_range`]'s window about it visits them:
    /// a point in column `c` is at least `c` cells' width from the origin,
    /// so the window's first column is `c − 1` or more, and likewise its
    /// last `c + 1` or less (up to the rounding of a point exactly on a
    /// cell's edge, where either may take in a neighbour the other leaves
    /// out). Nothing is clipped: below the bottom grid row and above the
    /// top one the cells are empty, and a block about the first or last
    /// column takes in a cell at the far end of the grid row beside it,
    /// whose units are more than a cell away. Integer arithmetic only,
    /// the same for every unit of the cell.
    #[inline]
    pub(crate) fn for_each_block_run(
        &self,
        cell: u32,
        mut visit: impl FnMut(std::ops::Range<usize>),
    ) {
        let (centre, width) = (self.pad + cell as usize, self.width);
        // A loop, not three calls: `visit` is inlined once.
        let mut first = centre - width - 1;
        while first < centre + width {
            visit(self.cell_start[first] as usize..self.cell_start[first + 3] as usize);
            first += width;
        }
    }

    /// Calls `visit` with the places of each grid row's run of cells that the
    /// square of half-side `radius` about `point` touches, bottom row first:
    /// a superset of the units within `radius` of `point`. Cells of a grid
    /// row are contiguous places, so a run is one range.
    #[inline]
    pub(crate) fn for_each_row_range(
        &self,
        point: Vec2,
        radius: f32,
        mut visit: impl FnMut(std::ops::Range<usize>),
    ) {
        // Also refuses NaN and negative radii, whose windows would be inverted.
        if self.order.is_empty() || radius.is_nan() || radius < 0.0 {
            return;
        }
        let [first_column, first_row, last_column, last_row] = self.window_cells(point, radius);
        for row in first_row..=last_row {
            let row_start = row * self.width;
            let begin = self.cell_start[self.pad + row_start + first_column] as usize;
            let end = self.cell_start[self.pad + row_start + last_column + 1] as usize;
            visit(begin..end);
        }
    }

    /// Calls `visit(unit, position at rebuild)` for every unit in the cells
    /// that the square of half-side `radius` about `point` touches: a
    /// superset of the units within `radius` of `point`.
    pub(crate) fn for_each_in_square(&self, point: Vec2, radius: f32, mut visit: impl FnMut(u32, Vec2)) {
        self.for_each_row_range(point, radius, |places| {
            for place in places {
                visit(self.order[place], self.sorted_position[place]);
            }
        });
    }

    /// Whether the square of half-side `radius` about `point` takes in every
    /// cell (so every unit, strays clamped into border cells included).
    pub(crate) fn square_covers_grid(&self, point: Vec2, radius: f32) -> bool {
        let far = self.origin + self.grid_size();
        point.x - radius <= self.origin.x
            && point.y - radius <= self.origin.y
            && point.x + radius >= far.x
            && point.y + radius >= far.y
    }

    /// [`SpatialHash::for_each_row_range`] without the places in `skip`:
    /// each row's run is visited whole, in its parts outside `skip`, or (a
    /// row wholly inside `skip`) not at all.
    ///
    /// The grid rows strictly between those of `skip`'s first and last
    /// places are wholly inside it (a row's places come after every place
    /// of the rows before it), so they are not looked up: a sweep that skips
    /// the places before a unit's own (in its chunk, or all) starts its
    /// window at the unit's own row.
    #[inline]
    pub(crate) fn for_each_row_range_outside(
        &self,
        point: Vec2,
        radius: f32,
        skip: &Skip,
        mut visit: impl FnMut(std::ops::Range<usize>),
    ) {
        // Also refuses NaN and negative radii, whose windows would be inverted.
        if self.order.is_empty() || radius.is_nan() || radius < 0.0 {
            return;
        }
        let [first_column, first_row, last_column, last_row] = self.window_cells(point, radius);
        // No row is wholly inside `skip` when it holds no place.
        let skipped = skip.rows.unwrap_or_default();
        let skip = &skip.places;
        let mut row = skipped.outside(first_row);
        while row <= last_row {
            let row_start = self.pad + row * self.width;
            let begin = self.cell_start[row_start + first_column] as usize;
            let end = self.cell_start[row_start + last_column + 1] as usize;
            // The run's parts before and after `skip`, either or both
            // empty. One call site in a loop, so that `visit` is inlined
            // (three call sites kept it out of line: a call per row); the
            // loop carries only the part, not an array of both.
            let mut part = begin..end.min(skip.start);
            loop {
                if !part.is_empty() {
                    visit(part.clone());
                }
                // Done after the part after `skip`, which ends at `end`,
                // or when the part before it already reaches `end` (then
                // `skip` starts at or after `end` and nothing follows it).
                if part.end >= end {
                    break;
                }
                part = begin.max(skip.end)..end;
            }
            row = skipped.outside(row + 1);
        }
    }

    /// [`SpatialHash::for_each_row_range_outside`]'s runs, when they lie in
    /// at most [`WINDOW_RUNS`] rows all after the row of `skip`'s first
    /// place (so no row holds places before `skip`): one run a row, in row
    /// order, the rows past the window's last left empty. `None` for other
    /// windows (a unit near the top of its chunk, a search reaching far).
    #[inline]
    pub(crate) fn window_runs_outside(
        &self,
        point: Vec2,
        radius: f32,
        skip: &Skip,
    ) -> Option<WindowRuns> {
        if radius.is_nan() || radius < 0.0 {
            return None;
        }
        let skipped = skip.rows?;
        let skip = &skip.places;
        let [first_column, first_row, last_column, last_row] = self.window_cells(point, radius);
        let row = skipped.outside(first_row);
        if row <= skipped.first || last_row >= row + WINDOW_RUNS {
            return None;
        }
        let run = |k: usize| {
            let (row_k, past) = ((row + k).min(last_row), row + k > last_row);
            let row_start = self.pad + row_k * self.width;
            let begin = (self.cell_start[row_start + first_column] as usize).max(skip.end);
            let end = self.cell_start[row_start + last_column + 1] as usize;
            // Multiplied rather than chosen: a branch here mispredicts.
            (begin, end.saturating_sub(begin) * usize::from(!past))
        };
        Some(WindowRuns(std::array::from_fn(run)))
    }

    /// The places `places` for window searches to leave out
    /// ([`SpatialHash::for_each_row_range_outside`]).
    pub(crate) fn skip(&self, places: std::ops::Range<usize>) -> Skip {
        debug_assert!(places.start <= places.end, "skip {places:?} is reversed");
        let end = places.end.min(self.order.len());
        let rows = (places.start < end).then(|| SkippedRows {
            first: self.row_of(places.start),
            last: self.row_of(end - 1),
        });
        Skip { places, rows }
    }

    /// The skips of a sweep that leaves out, for each place from `from` on
    /// (in increasing order), the places from `first` through it, or it
    /// alone ([`SweepSkips`]); `first` and `from` are places of the hash.
    pub(crate) fn sweep_skips(&self, first: usize, from: usize) -> SweepSkips<'_> {
        debug_assert!(first <= from && from < self.len(), "places {first}, {from}");
        let row = self.row_of(from);
        SweepSkips {
            hash: self,
            first,
            first_row: self.row_of(first),
            row,
            next_row_start: self.row_start(row + 1),
        }
    }

    /// The first place of grid row `row` (the number of places, for the row
    /// after the last).
    #[inline]
    fn row_start(&self, row: usize) -> usize {
        self.cell_start[self.pad + row * self.width] as usize
    }

    /// The grid row of place `place`'s cell: the arithmetic of
    /// [`SpatialHash::cell_index`] on its position at the rebuild.
    #[inline]
    fn row_of(&self, place: usize) -> usize {
        let y = self.sorted_position[place].y;
        self.axis_cell(y, self.origin.y, self.last_cell.y)
    }

    /// The clamped first column and row, and last column and row, of the
    /// square of half-side `radius` about `point`: [`SpatialHash::axis_cell`]
    /// for its four sides at once, in SIMD lanes (the same values).
    #[inline]
    fn window_cells(&self, point: Vec2, radius: f32) -> [usize; 4] {
        let (origin, last) = (self.origin, self.last_cell);
        let sides = Vec4::new(
            point.x - radius,
            point.y - radius,
            point.x + radius,
            point.y + radius,
        );
        let origin = Vec4::new(origin.x, origin.y, origin.x, origin.y);
        let last = Vec4::new(last.x, last.y, last.x, last.y);
        // `max` gives 0 for a NaN lane, as `f32::max` does.
        let cells = ((sides - origin) * self.inv_cell_size)
            .max(Vec4::ZERO)
            .min(last);
        // Every lane is in `0..=last`, below 2^24: one truncating
        // conversion of all four (`cvttps2dq`) gives what `as i32` gives
        // each, without its saturation checks.
        let cells: wide::f32x4 = bytemuck::cast(cells);
        cells.fast_trunc_int().to_array().map(|cell| cell as usize)
    }

    /// Visits every unit within `radius` of `point` (inclusive), as
    /// `(unit index, position at rebuild)`, in cell order.
    #[inline]
    #[cfg(any(test, feature = "internals"))]
    pub fn for_each_within(&self, point: Vec2, radius: f32, mut visit: impl FnMut(u32, Vec2)) {
        self.for_each_place_within(point, radius, |place, position| {
            visit(self.order[place], position)
        });
    }

    /// Visits every other unit within `radius` of unit `unit`'s rebuilt
    /// position, as `(neighbour index, its position)`.
    #[inline]
    #[cfg(any(test, feature = "internals"))]
    pub fn for_each_neighbour(&self, unit: u32, radius: f32, mut visit: impl FnMut(u32, Vec2)) {
        let own_place = self.place_of[unit as usize] as usize;
        let point = self.sorted_position[own_place];
        self.for_each_place_within(point, radius, |place, position| {
            if place != own_place {
                visit(self.order[place], position);
            }
        });
    }

    #[inline]
    #[cfg(any(test, feature = "internals"))]
    fn for_each_place_within(&self, point: Vec2, radius: f32, mut visit: impl FnMut(usize, Vec2)) {
        let radius_squared = radius * radius;
        self.for_each_row_range(point, radius, |places| {
            let begin = places.start;
            for (offset, position) in self.sorted_position[places].iter().enumerate() {
                if point.distance_squared(*position) <= radius_squared {
                    visit(begin + offset, *position);
                }
            }
        });
    }
}

#[cfg(test)]
mod tests;
