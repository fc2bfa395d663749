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

use glam::{Vec2, Vec4};
use rayon::prelude::*;
use thiserror::Error;
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

/// An axis-aligned rectangle in the ground plane.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Bounds {
    /// South-west corner.
    pub min: Vec2,
    /// North-east corner.
    pub max: Vec2,
}

impl Bounds {
    /// The rectangle from `min` to `max`.
    #[must_use]
    pub fn new(min: Vec2, max: Vec2) -> Bounds {
        Bounds { min, max }
    }

    /// Width and height.
    #[must_use]
    pub fn size(&self) -> Vec2 {
        self.max - self.min
    }
}

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
pub(crate) const WINDOW_RUNS: usize = 3;

/// A window's runs of places, one a row: `(first place, length)`, some
/// empty.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WindowRuns([(usize, usize); WINDOW_RUNS]);

impl WindowRuns {
    /// How many places the runs hold.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.0.iter().map(|run| run.1).sum()
    }

    /// How many runs hold places.
    #[inline]
    pub(crate) fn non_empty(&self) -> usize {
        self.0.iter().map(|run| usize::from(run.1 > 0)).sum()
    }

    /// The place of the `k`-th of [`WindowRuns::len`] places, without a
    /// branch on which run holds it.
    #[inline]
    pub(crate) fn place(&self, k: usize) -> usize {
        let [(a, a_len), (b, b_len), (c, _)] = self.0;
        let shift = [a, b.wrapping_sub(a_len), c.wrapping_sub(a_len + b_len)];
        let run = usize::from(k >= a_len) + usize::from(k >= a_len + b_len);
        k.wrapping_add(shift[run])
    }
}

/// The grid rows of the first and last places a window search leaves out.
/// The rows strictly between them hold only left-out places (a row's
/// places come after every place of the rows before it).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct SkippedRows {
    first: usize,
    last: usize,
}

impl SkippedRows {
    /// The first row at or after `row` not wholly inside the left-out
    /// places.
    #[inline]
    fn outside(self, row: usize) -> usize {
        if row > self.first && row < self.last {
            self.last
        } else {
            row
        }
    }
}

/// Places a window search leaves out
/// ([`SpatialHash::for_each_row_range_outside`]), with the grid rows of the
/// first and last of them: made by [`SpatialHash::skip`], or, for a sweep,
/// by [`SweepSkips`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Skip {
    places: std::ops::Range<usize>,
    /// `None` when `places` holds no place of the hash.
    rows: Option<SkippedRows>,
}

/// The [`Skip`]s of a sweep that visits places in increasing order and
/// leaves out, for each, the places from a fixed first one through its own
/// (or its own alone). The rows of those places are walked from one place
/// to the next along the grid rows' first places (a row's places come
/// after every place of the rows before it), not found again from each
/// place's position.
#[derive(Clone, Debug)]
pub(crate) struct SweepSkips<'a> {
    hash: &'a SpatialHash,
    first: usize,
    first_row: usize,
    /// The row of the last place asked for, and the first place of the
    /// next row.
    row: usize,
    next_row_start: usize,
}

impl SweepSkips<'_> {
    /// The grid row of `place`, which is at or after the last one asked
    /// for.
    #[inline]
    fn row_through(&mut self, place: usize) -> usize {
        debug_assert!(place < self.hash.len(), "place {place} is past the hash");
        while place >= self.next_row_start {
            self.row += 1;
            self.next_row_start = self.hash.row_start(self.row + 1);
        }
        self.row
    }

    /// The places from the first through `place` (at or after the last one
    /// asked for).
    #[inline]
    pub(crate) fn through(&mut self, place: usize) -> Skip {
        let last = self.row_through(place);
        Skip {
            places: self.first..place + 1,
            rows: Some(SkippedRows {
                first: self.first_row,
                last,
            }),
        }
    }

    /// `place` (at or after the last one asked for) alone.
    #[inline]
    pub(crate) fn only(&mut self, place: usize) -> Skip {
        let row = self.row_through(place);
        Skip {
            places: place..place + 1,
            rows: Some(SkippedRows {
                first: row,
                last: row,
            }),
        }
    }
}

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

    /// Re-buckets every unit by a counting sort of its cell (stable: units in
    /// one cell keep index order, so the result never depends on threads).
    pub fn rebuild(&mut self, positions: &[Vec2]) -> RebuildStats {
        let units = positions.len();
        assert!(
            units < u32::MAX as usize,
            "spatial hash holds at most 2^32-2 units, got {units}"
        );
        self.cell_of.resize(units, 0);
        self.place_of.resize(units, 0);
        self.order.resize(units, 0);
        self.sorted_position.resize(units, Vec2::ZERO);

        let mut cell_of = std::mem::take(&mut self.cell_of);
        let this = &*self;
        // Each chunk's cells, and how many of its units lie outside.
        let assign = |(chunk, cells): (usize, &mut [u32])| {
            let first = chunk * CHUNK;
            let positions = &positions[first..first + cells.len()];
            let mut outside = 0;
            let mut eights = cells.chunks_exact_mut(LANES);
            for (cells, positions) in (&mut eights).zip(positions.chunks_exact(LANES)) {
                let (lanes, lanes_outside) = this.cell_indices(positions);
                cells.copy_from_slice(&lanes);
                outside += lanes_outside;
            }
            let rest = eights.into_remainder();
            let rest_positions = &positions[positions.len() - rest.len()..];
            for (cell, position) in rest.iter_mut().zip(rest_positions) {
                *cell = this.cell_index(*position);
                outside += u32::from(this.is_outside(*position));
            }
            outside
        };
        let outside_bounds = if units >= PARALLEL_MIN_UNITS {
            cell_of
                .par_chunks_mut(CHUNK)
                .enumerate()
                .map(assign)
                .reduce(|| 0, |a, b| a + b)
        } else {
            cell_of.chunks_mut(CHUNK).enumerate().map(assign).sum()
        };

        // Counts land two places up so that, after the prefix sum and the
        // scatter (which advances each cell's cursor), cell_start[pad + c]
        // is the start of cell c and cell_start[pad + c + 1] its end. The
        // entries before `pad` stay 0.
        let parts = if self.width * self.height >= PARALLEL_MIN_CELLS {
            rayon::current_num_threads().min(MAX_PARTS)
        } else {
            1
        };
        let grid = &mut self.cell_start[self.pad..];
        let max_cell_units = count_and_sum(grid, &cell_of, parts);
        // Each cell's cursor (`grid[cell + 1]`) starts at its first place.
        let cells = (self.width * self.height) as u32;
        let splits = if units >= PARALLEL_MIN_UNITS {
            rayon::current_num_threads()
                .min(MAX_PARTS)
                .next_power_of_two()
                .trailing_zeros()
        } else {
            0
        };
        let columns = ScatterColumns {
            cell_of: &cell_of,
            positions,
        };
        let part = ScatterPart {
            cells: 0..cells,
            cursors: &mut grid[1..cells as usize + 1],
            first_place: 0,
            order: &mut self.order,
            sorted_position: &mut self.sorted_position,
        };
        part.scatter(&columns, splits);
        for (place, &unit) in self.order.iter().enumerate() {
            self.place_of[unit as usize] = place as u32;
        }
        self.cell_of = cell_of;
        RebuildStats {
            max_cell_units,
            outside_bounds,
        }
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
    pub fn for_each_within(&self, point: Vec2, radius: f32, mut visit: impl FnMut(u32, Vec2)) {
        self.for_each_place_within(point, radius, |place, position| {
            visit(self.order[place], position)
        });
    }

    /// Visits every other unit within `radius` of unit `unit`'s rebuilt
    /// position, as `(neighbour index, its position)`.
    #[inline]
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

/// What every part of the rebuild's scatter reads: each unit's cell and
/// position.
struct ScatterColumns<'a> {
    cell_of: &'a [u32],
    positions: &'a [Vec2],
}

/// The cells `cells` of a rebuild's scatter and what it writes for them:
/// their cursors (`cursors[k]` is cell `cells.start + k`'s next place) and
/// their places, `first_place..first_place + order.len()`, of `order` and
/// `sorted_position`.
struct ScatterPart<'a> {
    cells: std::ops::Range<u32>,
    cursors: &'a mut [u32],
    first_place: usize,
    order: &'a mut [u32],
    sorted_position: &'a mut [Vec2],
}

impl ScatterPart<'_> {
    /// Places the units of this part's cells, each cell's in unit order
    /// (so the result is the same however the cells are split), split
    /// `splits` times in two parts of about as many places, run in
    /// parallel. Every part reads every unit's cell; it writes only its
    /// own cells' cursors and places, so the parts need no locks.
    fn scatter(self, columns: &ScatterColumns<'_>, splits: u32) {
        if splits == 0 || self.cursors.len() < 2 {
            self.scatter_here(columns);
            return;
        }
        let (low, high) = self.split();
        rayon::join(
            || low.scatter(columns, splits - 1),
            || high.scatter(columns, splits - 1),
        );
    }

    /// The part's cells in two, at the first cell (but not the first of
    /// all) whose places start at or after the middle one.
    fn split(self) -> (Self, Self) {
        let middle = (self.first_place + self.order.len() / 2) as u32;
        let at = self
            .cursors
            .partition_point(|&start| start < middle)
            .clamp(1, self.cursors.len() - 1);
        let (low_cursors, high_cursors) = self.cursors.split_at_mut(at);
        let high_first_place = high_cursors[0] as usize;
        let low_places = high_first_place - self.first_place;
        let (low_order, high_order) = self.order.split_at_mut(low_places);
        let (low_sorted, high_sorted) = self.sorted_position.split_at_mut(low_places);
        let middle_cell = self.cells.start + at as u32;
        (
            ScatterPart {
                cells: self.cells.start..middle_cell,
                cursors: low_cursors,
                first_place: self.first_place,
                order: low_order,
                sorted_position: low_sorted,
            },
            ScatterPart {
                cells: middle_cell..self.cells.end,
                cursors: high_cursors,
                first_place: high_first_place,
                order: high_order,
                sorted_position: high_sorted,
            },
        )
    }

    /// Places the units of this part's cells on this thread: every unit's
    /// cell is read, in unit order, and the part's own are placed.
    fn scatter_here(self, columns: &ScatterColumns<'_>) {
        let (first_cell, cell_count) = (self.cells.start, self.cells.len() as u32);
        for (unit, &cell) in columns.cell_of.iter().enumerate() {
            // One compare: cells below the part's wrap to large offsets.
            let offset = cell.wrapping_sub(first_cell);
            if offset < cell_count {
                let cursor = &mut self.cursors[offset as usize];
                let place = *cursor as usize - self.first_place;
                *cursor += 1;
                self.order[place] = unit as u32;
                self.sorted_position[place] = columns.positions[unit];
            }
        }
    }
}

/// Counts the units of each cell (`cell_of`) two places up in `grid`
/// (cell `c`'s at `grid[c + 2]`, every other entry 0), replaces the counts
/// by their running sums, and returns the largest count. In `parts` ranges
/// of `grid` (at most [`MAX_PARTS`]), in parallel when more than one: each
/// clears its range, counts the units whose count lands in it (reading
/// every unit's cell) and sums it; then each adds the total of the ranges
/// before it. Integer sums: the same with any number of parts.
fn count_and_sum(grid: &mut [u32], cell_of: &[u32], parts: usize) -> u32 {
    let range_len = grid.len().div_ceil(parts.clamp(1, MAX_PARTS));
    let count_range = |(part, range): (usize, &mut [u32])| {
        range.fill(0);
        let first = part * range_len;
        for &cell in cell_of {
            // One compare: entries below the range wrap to large offsets.
            let at = (cell as usize + 2).wrapping_sub(first);
            if at < range.len() {
                range[at] += 1;
            }
        }
        let (mut running, mut largest) = (0, 0);
        for count in range {
            largest = largest.max(*count);
            running += *count;
            *count = running;
        }
        (running, largest)
    };
    if parts <= 1 {
        return count_range((0, grid)).1;
    }
    let mut totals = [(0, 0); MAX_PARTS];
    grid.par_chunks_mut(range_len)
        .enumerate()
        .zip(totals.par_iter_mut())
        .for_each(|(range, total)| *total = count_range(range));
    let (mut before, mut largest) = (0, 0);
    for total in &mut totals {
        let (sum, range_largest) = *total;
        largest = largest.max(range_largest);
        *total = (before, 0);
        before += sum;
    }
    // The first range has nothing before it. (Not `skip(1)`: rayon's
    // allocates.)
    let (_, later) = grid.split_at_mut(range_len.min(grid.len()));
    later
        .par_chunks_mut(range_len)
        .zip(totals[1..].par_iter())
        .for_each(|(range, &(before, _))| range.iter_mut().for_each(|sum| *sum += before));
    largest
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// The places within `radius` of `point` among those `runs` visits,
    /// in visit order.
    fn within(
        hash: &SpatialHash,
        point: Vec2,
        radius: f32,
        runs: impl FnOnce(&mut dyn FnMut(std::ops::Range<usize>)),
    ) -> Vec<usize> {
        let mut found = Vec::new();
        runs(&mut |run: std::ops::Range<usize>| {
            found.extend(run.filter(|&place| {
                hash.sorted_position[place].distance_squared(point) <= radius * radius
            }));
        });
        found
    }

    /// Points on a 2 m lattice (many exactly on cell edges), free points,
    /// and points far outside the bounds.
    fn point() -> impl Strategy<Value = Vec2> {
        prop_oneof![
            4 => (-50i32..50, -50i32..50).prop_map(|(x, y)| Vec2::new(x as f32 * 2.0, y as f32 * 2.0)),
            4 => (-100f32..100.0, -100f32..100.0).prop_map(|(x, y)| Vec2::new(x, y)),
            1 => (-1e7f32..1e7, -1e7f32..1e7).prop_map(|(x, y)| Vec2::new(x, y)),
        ]
    }

    proptest! {
        /// Counting and summing in parallel ranges gives the one-range
        /// counts' running sums and largest count, from 1 to 8 ranges,
        /// whichever range the tallest cell falls in.
        #[test]
        fn counts_summed_in_ranges_are_the_running_sums(
            mut cell_of in prop::collection::vec(0u32..5_000, 0..20_000),
            (tallest, height) in (any::<prop::sample::Index>(), 0usize..400),
            cells in 5_000usize..6_000,
            parts in 1usize..=8,
        ) {
            let tallest = tallest.index(5_000) as u32;
            cell_of.extend(std::iter::repeat_n(tallest, height));
            let mut expected = vec![0u32; cells + 3];
            for &cell in &cell_of {
                expected[cell as usize + 2] += 1;
            }
            let largest = expected.iter().copied().max().unwrap_or(0);
            let mut running = 0;
            for count in &mut expected {
                running += *count;
                *count = running;
            }
            let mut grid = vec![7u32; cells + 3];
            let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("thread pool");
            let got = pool.install(|| count_and_sum(&mut grid, &cell_of, parts));
            prop_assert_eq!(got, largest);
            prop_assert_eq!(grid, expected);
        }
    }

    proptest! {
        /// Eight positions' cells in lanes are their cells one at a time,
        /// and the lanes count as many outside the grid: on cell edges, off
        /// the grid, infinite and NaN.
        #[test]
        fn cells_in_lanes_are_the_cells_one_at_a_time(
            points in prop::collection::vec(
                prop_oneof![
                    8 => point(),
                    1 => prop::sample::select(vec![f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0])
                        .prop_flat_map(|odd| (Just(odd), point()))
                        .prop_map(|(odd, p)| Vec2::new(odd, p.y)),
                ],
                LANES,
            ),
            cell in prop_oneof![Just(4.0f32), 0.5f32..20.0],
        ) {
            let bounds = Bounds::new(Vec2::new(-60.0, -50.0), Vec2::new(70.0, 60.0));
            let hash = SpatialHash::new(bounds, cell).expect("valid grid");
            let one_at_a_time: Vec<u32> = points.iter().map(|&p| hash.cell_index(p)).collect();
            let swapped: Vec<Vec2> = points.iter().map(|p| Vec2::new(p.y, p.x)).collect();
            let swapped_one_at_a_time: Vec<u32> = swapped.iter().map(|&p| hash.cell_index(p)).collect();
            let outside = |points: &[Vec2]| points.iter().filter(|&&p| hash.is_outside(p)).count() as u32;
            let (cells, lanes_outside) = hash.cell_indices(&points);
            prop_assert_eq!(cells.to_vec(), one_at_a_time);
            prop_assert_eq!(lanes_outside, outside(&points));
            let (cells, lanes_outside) = hash.cell_indices(&swapped);
            prop_assert_eq!(cells.to_vec(), swapped_one_at_a_time);
            prop_assert_eq!(lanes_outside, outside(&swapped));
        }
    }

    proptest! {
        /// Leaving out a range of places visits exactly the window's other
        /// places, in the window's order, in runs that are never empty.
        #[test]
        fn a_window_outside_a_range_visits_the_rest_in_order(
            points in prop::collection::vec(point(), 1..300),
            centre in point(),
            radius in prop_oneof![Just(0.0f32), 0.0f32..40.0],
            (start, len) in (any::<prop::sample::Index>(), prop_oneof![0usize..4, 0usize..300]),
        ) {
            let bounds = Bounds::new(Vec2::new(-60.0, -50.0), Vec2::new(70.0, 60.0));
            let mut hash = SpatialHash::new(bounds, 6.0).expect("valid grid");
            hash.rebuild(&points);
            // Mostly a few places from anywhere, often inside a run.
            let start = start.index(points.len() + 1);
            let skip = start..start + len;
            let mut expected = Vec::new();
            hash.for_each_row_range(centre, radius, |run| {
                expected.extend(run.filter(|place| !skip.contains(place)));
            });
            let mut visited = Vec::new();
            let (mut runs, mut empty_runs) = (0, 0);
            let skip = hash.skip(skip);
            hash.for_each_row_range_outside(centre, radius, &skip, |run| {
                runs += 1;
                empty_runs += usize::from(run.is_empty());
                visited.extend(run);
            });
            prop_assert_eq!(empty_runs, 0);
            prop_assert_eq!(&visited, &expected);
            if let Some(window) = hash.window_runs_outside(centre, radius, &skip) {
                let places: Vec<usize> = (0..window.len()).map(|k| window.place(k)).collect();
                prop_assert_eq!(places, visited);
                prop_assert_eq!(window.non_empty(), runs);
            }
        }
    }

    /// A sweep's windows (each place leaving out the places from its
    /// chunk's first, or from the first of all, to itself) in at most three
    /// runs: those runs hold the places
    /// [`SpatialHash::for_each_row_range_outside`] visits, in its order,
    /// over as many runs that hold any; and most windows are such, so the
    /// sweeps take them. The sweep's skips, their rows walked from
    /// place to place ([`SweepSkips`]), are those looked up from the
    /// places' positions ([`SpatialHash::skip`]). Crowds of three
    /// densities, chunks of 150 places, windows of half a cell to one and
    /// a half.
    #[test]
    fn a_sweeps_windows_in_three_runs_hold_the_places_of_its_rows() {
        let draw = |stream: u64, unit: usize| crate::random::unit_f32(21, stream, unit as u64);
        let bounds = Bounds::new(Vec2::ZERO, Vec2::splat(120.0));
        let mut hash = SpatialHash::new(bounds, 3.0).expect("valid grid");
        for side in [60.0, 90.0, 120.0] {
            let points: Vec<Vec2> = (0..600)
                .map(|u| Vec2::new(draw(1, u), draw(2, u)) * side)
                .collect();
            hash.rebuild(&points);
            let (mut windows, mut in_runs) = (0, 0);
            let mut alone = hash.sweep_skips(0, 0);
            let mut chunk = hash.sweep_skips(0, 0);
            for place in 0..points.len() {
                // Every other chunk leaves out every earlier place, as the
                // measuring sweep does.
                let first = if place / 150 % 2 == 1 {
                    0
                } else {
                    place - place % 150
                };
                if place % 150 == 0 {
                    chunk = hash.sweep_skips(first, place);
                }
                let skip = hash.skip(first..place + 1);
                assert_eq!(chunk.through(place), skip, "side {side}, place {place}");
                // Asked for every 37th place alone, as a sweep from the
                // active units jumps over the inactive ones' rows.
                if place % 37 == 0 {
                    let only = hash.skip(place..place + 1);
                    assert_eq!(alone.only(place), only, "side {side}, place {place}");
                }
                let radius = 1.5 + 3.0 * draw(3, place);
                let centre = hash.sorted_positions()[place];
                let (mut visited, mut runs) = (Vec::new(), 0);
                hash.for_each_row_range_outside(centre, radius, &skip, |run| {
                    runs += 1;
                    visited.extend(run);
                });
                windows += 1;
                let Some(window) = hash.window_runs_outside(centre, radius, &skip) else {
                    continue;
                };
                in_runs += 1;
                let places: Vec<usize> = (0..window.len()).map(|k| window.place(k)).collect();
                assert_eq!(places, visited, "side {side}, place {place}");
                assert_eq!(window.non_empty(), runs, "side {side}, place {place}");
            }
            assert!(
                2 * in_runs > windows,
                "side {side}: {in_runs} of {windows} in runs"
            );
        }
    }

    /// A rebuild large enough to scatter in parallel parts gives, with 1, 2,
    /// 3 and 8 threads, the oracle's buckets: the units sorted by cell, in
    /// unit order within a cell (a stable sort), each cell's range, every
    /// unit's place and the largest cell's count; on a grid counted on one
    /// thread and on one counted in parts. The crowds: units spread over
    /// the grid, units crowded into a few cells (so most parts split at
    /// cells with no units), and every unit in one cell.
    #[test]
    fn a_parallel_rebuild_is_a_stable_sort_by_cell() {
        let units = 2 * PARALLEL_MIN_UNITS + 77;
        let draw = |stream: u64, unit: usize| crate::random::unit_f32(9, stream, unit as u64);
        let spread: Vec<Vec2> = (0..units)
            .map(|u| Vec2::new(draw(1, u), draw(2, u)) * 400.0 - 20.0)
            .collect();
        let crowded: Vec<Vec2> = (0..units)
            .map(|u| Vec2::new((draw(1, u) * 4.0).floor(), (draw(2, u) * 3.0).floor()) * 50.0)
            .collect();
        let one_cell = vec![Vec2::new(5.0, 5.0); units];
        let bounds = Bounds::new(Vec2::ZERO, Vec2::splat(360.0));
        // 14,400 cells, counted on one thread; 129,600, counted in parts.
        let grids = [3.0, 1.0].map(|cell| SpatialHash::new(bounds, cell).expect("valid grid"));
        for (points, mut hash) in [spread, crowded, one_cell]
            .into_iter()
            .flat_map(|points| grids.clone().map(move |hash| (points.clone(), hash)))
        {
            let cells: Vec<u32> = points.iter().map(|&p| hash.cell_index(p)).collect();
            let mut oracle: Vec<u32> = (0..units as u32).collect();
            oracle.sort_by_key(|&unit| cells[unit as usize]);
            let mut per_cell = std::collections::HashMap::new();
            for &cell in &cells {
                *per_cell.entry(cell).or_insert(0) += 1;
            }
            let largest = per_cell.values().copied().max();
            for threads in [1, 2, 3, 8] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .expect("thread pool");
                let stats = pool.install(|| hash.rebuild(&points));
                let hash = &hash;
                assert_eq!(Some(stats.max_cell_units), largest, "{threads} threads");
                assert_eq!(hash.order(), &oracle[..], "{threads} threads");
                for (place, &unit) in hash.order().iter().enumerate() {
                    let cell = cells[unit as usize] as usize;
                    let range =
                        hash.cell_start[hash.pad + cell]..hash.cell_start[hash.pad + cell + 1];
                    assert!(
                        range.contains(&(place as u32)),
                        "{threads} threads, place {place}"
                    );
                    assert_eq!(hash.places()[unit as usize], place as u32);
                    assert_eq!(hash.sorted_positions()[place], points[unit as usize]);
                }
            }
        }
    }

    /// After the units are renumbered in cell order, each unit's cell is
    /// still the one it was hashed into.
    #[test]
    fn renumbered_units_keep_their_cells() {
        let points: Vec<Vec2> = (0..500)
            .map(|i| Vec2::new((i * 37 % 101) as f32 - 40.0, (i * 53 % 89) as f32 - 30.0))
            .collect();
        let bounds = Bounds::new(Vec2::splat(-50.0), Vec2::splat(60.0));
        let mut hash = SpatialHash::new(bounds, 7.0).expect("valid grid");
        hash.rebuild(&points);
        let sorted: Vec<Vec2> = hash
            .order()
            .iter()
            .map(|&unit| points[unit as usize])
            .collect();
        hash.renumber_in_cell_order();
        for (unit, point) in sorted.iter().enumerate() {
            assert_eq!(hash.cells()[unit], hash.cell_index(*point), "unit {unit}");
        }
    }

    proptest! {
        /// About every unit, for a radius up to a cell's edge, the block of
        /// cells about its cell finds the units its window finds, in the
        /// same order (so steering, which reads either, finds the same
        /// threats).
        #[test]
        fn a_cells_block_finds_what_its_units_windows_find(
            points in prop::collection::vec(point(), 1..400),
            cell in prop_oneof![Just(4.0f32), Just(8.0), 0.5f32..20.0],
            share in prop_oneof![Just(1.0f32), 0.05f32..1.0],
        ) {
            let radius = cell * share;
            let bounds = Bounds::new(Vec2::new(-60.0, -50.0), Vec2::new(70.0, 60.0));
            let mut hash = SpatialHash::new(bounds, cell).expect("valid grid");
            hash.rebuild(&points);
            prop_assert!(hash.block_covers(radius));
            prop_assert!(!hash.block_covers(-radius.max(f32::MIN_POSITIVE)) && !hash.block_covers(f32::NAN));
            for place in 0..points.len() {
                let point = hash.sorted_position[place];
                let by_window = within(&hash, point, radius, |visit| {
                    hash.for_each_row_range(point, radius, visit);
                });
                let by_block = within(&hash, point, radius, |visit| {
                    hash.for_each_block_run(hash.cells()[hash.order[place] as usize], visit);
                });
                prop_assert_eq!(by_block, by_window, "place {} at {}", place, point);
            }
        }
    }
}
