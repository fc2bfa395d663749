//! Runs of places a query window covers, and the rows a sweep skips; and
//! the places of a run a dense crowd's neighbour search keeps
//! ([`nearest_places`]).

use std::ops::Range;

use super::SpatialHash;

/// Places of a run of cells that a neighbour search examines at least
/// ([`run_candidates`]).
pub const MIN_RUN_CANDIDATES: usize = 96;

/// Units a square metre of a run's cells may hold before a neighbour
/// search examines only the nearest ([`run_candidates`]): more than a
/// crowd of the kernel's smallest shield holds without overlap (infantry,
/// 0.4 m: 1.8 a square metre packed), so that only units piled on one
/// another reach it.
pub const RUN_CANDIDATES_PER_M2: f32 = 2.0;

/// Places a neighbour search examines at most of a run of `cells` cells of
/// edge `cell_size` (`nearest_places`): `RUN_CANDIDATES_PER_M2` for
/// each square metre of the run, and at least [`MIN_RUN_CANDIDATES`]. The
/// cap grows with the window: a search reaching across more cells, or
/// larger ones, meets more units of a crowd that is not piled up.
#[must_use]
pub fn run_candidates(cells: usize, cell_size: f32) -> usize {
    let area = cells as f32 * cell_size * cell_size;
    // `as` saturates: runs of huge cells are kept whole.
    ((area * RUN_CANDIDATES_PER_M2).ceil() as usize).max(MIN_RUN_CANDIDATES)
}

/// Columns of cells of edge `cell_size` that a square window of half-side
/// `half_side` touches at most: the window's width in cells, plus one for
/// a window not aligned with the cells and one for rounding.
#[must_use]
pub fn window_columns(half_side: f32, cell_size: f32) -> usize {
    (2.0 * half_side / cell_size).ceil() as usize + 2
}

/// The at most `cap` places of `run` that a neighbour search about the unit
/// at place `own` examines: the whole run when it holds no more; else those
/// nearest `own` in a run holding or touching it (the unit's own cells,
/// whose places come just before and after its own), or nearest the run's
/// middle (the cells straight below or above the unit's). Units on one
/// point share one cell; this keeps each one's search, and so the tick,
/// linear in the units however many share it, and the same whatever the
/// thread count.
#[inline]
#[must_use]
pub(crate) fn nearest_places(run: Range<usize>, own: usize, cap: usize) -> Range<usize> {
    if run.len() <= cap {
        return run;
    }
    let touches = own.saturating_add(1) >= run.start && own <= run.end;
    let anchor = if touches { own } else { run.start + run.len() / 2 };
    let start = anchor.saturating_sub(cap / 2).clamp(run.start, run.end - cap);
    start..start + cap
}

pub(crate) const WINDOW_RUNS: usize = 3;

/// A window's runs of places, one a row: `(first place, length)`, some
/// empty.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WindowRuns(pub(super) [(usize, usize); WINDOW_RUNS]);

impl WindowRuns {
    /// Each run cut to its [`nearest_places`] about the unit at `own`.
    #[inline]
    #[must_use]
    pub(crate) fn nearest(self, own: usize, cap: usize) -> WindowRuns {
        WindowRuns(self.0.map(|(first, len)| {
            let kept = nearest_places(first..first + len, own, cap);
            (kept.start, kept.len())
        }))
    }

    /// How many places the longest run holds.
    #[inline]
    pub(crate) fn longest(&self) -> usize {
        self.0.iter().map(|run| run.1).max().unwrap_or(0)
    }

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
pub(super) struct SkippedRows {
    pub(super) first: usize,
    pub(super) last: usize,
}

impl SkippedRows {
    /// The first row at or after `row` not wholly inside the left-out
    /// places.
    #[inline]
    pub(super) fn outside(self, row: usize) -> usize {
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
    pub(super) places: Range<usize>,
    /// `None` when `places` holds no place of the hash.
    pub(super) rows: Option<SkippedRows>,
}

/// The [`Skip`]s of a sweep that visits places in increasing order and
/// leaves out, for each, the places from a fixed first one through its own
/// (or its own alone). The rows of those places are walked from one place
/// to the next along the grid rows' first places (a row's places come
/// after every place of the rows before it), not found again from each
/// place's position.
#[derive(Clone, Debug)]
pub(crate) struct SweepSkips<'a> {
    pub(super) hash: &'a SpatialHash,
    pub(super) first: usize,
    pub(super) first_row: usize,
    /// The row of the last place asked for, and the first place of the
    /// next row.
    pub(super) row: usize,
    pub(super) next_row_start: usize,
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

