//! The rebuild: a counting sort of every unit's cell into one cell-ordered
//! index array, counted, summed and scattered in parallel ranges on large
//! worlds.

use glam::Vec2;
use rayon::prelude::*;

use crate::parallel;

use super::{CHUNK, LANES, MAX_PARTS, PARALLEL_MIN_CELLS, PARALLEL_MIN_UNITS, RebuildStats, SpatialHash};

impl SpatialHash {
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
        let outside_bounds = if !parallel::inline(units, PARALLEL_MIN_UNITS) {
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
            parallel::threads().min(MAX_PARTS)
        } else {
            1
        };
        let grid = &mut self.cell_start[self.pad..];
        let max_cell_units = count_and_sum(grid, &cell_of, parts);
        // Each cell's cursor (`grid[cell + 1]`) starts at its first place.
        let cells = (self.width * self.height) as u32;
        let splits = if !parallel::inline(units, PARALLEL_MIN_UNITS) {
            parallel::threads()
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
pub(super) fn count_and_sum(grid: &mut [u32], cell_of: &[u32], parts: usize) -> u32 {
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
