//! Every unit as avoidance reads it, one column per field, so the threat
//! search ([`super::avoid::ThreatSearch::consider_run`]) tests four
//! neighbours at a time in SIMD lanes.
//!
//! The rows are in the spatial hash's place order, so a neighbour query's
//! candidates are consecutive rows. They are stored in blocks of
//! [`BLOCK_ROWS`] rows, each field a contiguous array within its block
//! (an array of structures of arrays), and every block also carries a copy
//! of the first [`LANES`]` − 1` rows of the next: four consecutive rows are
//! then one unaligned load per field wherever they start, and each block is
//! written by one task, so gathering runs in parallel without sharing.

use glam::{Vec2, Vec4};
use rayon::prelude::*;

use super::avoid::{Body, Mover};
use crate::parallel::PARALLEL_MIN_ROWS;

/// Rows tested at once.
pub const LANES: usize = 4;
/// Rows per block (a power of two, so a row's block is a shift away).
pub const BLOCK_ROWS: usize = 256;
/// A field's array in one block: its rows and the next block's first
/// `LANES - 1`.
const SPAN: usize = BLOCK_ROWS + LANES - 1;

/// One block of rows, field by field.
#[derive(Clone, Debug)]
pub(crate) struct MoverBlock {
    /// [`Mover::position`]: x…
    pub x: [f32; SPAN],
    /// … and y.
    pub y: [f32; SPAN],
    /// [`Mover::velocity`]: x…
    pub vx: [f32; SPAN],
    /// … and y.
    pub vy: [f32; SPAN],
    /// [`Mover::axis`]: x…
    pub axis_x: [f32; SPAN],
    /// … and y.
    pub axis_y: [f32; SPAN],
    /// [`Mover::speed`].
    pub speed: [f32; SPAN],
    /// [`Mover::half_core`].
    pub half_core: [f32; SPAN],
    /// [`Mover::bounding_radius`].
    pub bounding_radius: [f32; SPAN],
    /// [`Mover::half_width`].
    pub half_width: [f32; SPAN],
    /// [`Mover::altitude`].
    pub altitude: [f32; SPAN],
    /// [`Mover::half_height`].
    pub half_height: [f32; SPAN],
}

impl MoverBlock {
    const EMPTY: MoverBlock = MoverBlock {
        x: [0.0; SPAN],
        y: [0.0; SPAN],
        vx: [0.0; SPAN],
        vy: [0.0; SPAN],
        axis_x: [0.0; SPAN],
        axis_y: [0.0; SPAN],
        speed: [0.0; SPAN],
        half_core: [0.0; SPAN],
        bounding_radius: [0.0; SPAN],
        half_width: [0.0; SPAN],
        altitude: [0.0; SPAN],
        half_height: [0.0; SPAN],
    };

    /// Writes `mover` at `slot` of the block.
    #[inline]
    fn set(&mut self, slot: usize, mover: &Mover) {
        self.x[slot] = mover.position.x;
        self.y[slot] = mover.position.y;
        self.vx[slot] = mover.velocity.x;
        self.vy[slot] = mover.velocity.y;
        self.axis_x[slot] = mover.axis.x;
        self.axis_y[slot] = mover.axis.y;
        self.speed[slot] = mover.speed;
        self.half_core[slot] = mover.half_core;
        self.bounding_radius[slot] = mover.bounding_radius;
        self.half_width[slot] = mover.half_width;
        self.altitude[slot] = mover.altitude;
        self.half_height[slot] = mover.half_height;
    }

    /// The mover at `slot`.
    #[inline]
    fn get(&self, slot: usize) -> Mover {
        Mover {
            position: Vec2::new(self.x[slot], self.y[slot]),
            velocity: Vec2::new(self.vx[slot], self.vy[slot]),
            axis: Vec2::new(self.axis_x[slot], self.axis_y[slot]),
            speed: self.speed[slot],
            half_core: self.half_core[slot],
            bounding_radius: self.bounding_radius[slot],
            half_width: self.half_width[slot],
            altitude: self.altitude[slot],
            half_height: self.half_height[slot],
        }
    }
}

/// Four consecutive rows of one field.
#[inline]
pub(crate) fn lanes(field: &[f32; SPAN], slot: usize) -> Vec4 {
    Vec4::from_slice(&field[slot..slot + LANES])
}

/// Movers in rows, field by field; see the module docs. Reuse it across
/// ticks: it grows to the largest count it held and never shrinks.
#[derive(Clone, Debug, Default)]
pub struct MoverColumns {
    rows: usize,
    blocks: Vec<MoverBlock>,
}

impl MoverColumns {
    /// Number of rows.
    #[must_use]
    pub fn len(&self) -> usize {
        self.rows
    }

    /// No rows.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Grows the storage to hold `rows`, so refilling never allocates.
    pub fn reserve(&mut self, rows: usize) {
        let blocks = rows.div_ceil(BLOCK_ROWS);
        if self.blocks.len() < blocks {
            self.blocks.resize(blocks, MoverBlock::EMPTY);
        }
    }

    /// Holds `rows` rows from now on, row `index` the mover `row(index)`;
    /// blocks are written in parallel for many rows.
    pub fn fill(&mut self, rows: usize, row: impl Fn(usize) -> Mover + Sync) {
        self.reserve(rows);
        self.rows = rows;
        let blocks = &mut self.blocks[..rows.div_ceil(BLOCK_ROWS)];
        let write = |(index, block): (usize, &mut MoverBlock)| {
            let first = index * BLOCK_ROWS;
            for slot in 0..SPAN.min(rows - first) {
                block.set(slot, &row(first + slot));
            }
        };
        if rows < PARALLEL_MIN_ROWS {
            blocks.iter_mut().enumerate().for_each(write);
        } else {
            blocks.par_iter_mut().enumerate().for_each(write);
        }
    }

    /// Holds `movers`.
    pub fn fill_from(&mut self, movers: &[Mover]) {
        self.fill(movers.len(), |row| movers[row]);
    }

    /// The mover in row `row`.
    #[must_use]
    #[inline]
    pub fn get(&self, row: usize) -> Mover {
        assert!(row < self.rows, "row {row} of {} movers", self.rows);
        self.blocks[row / BLOCK_ROWS].get(row % BLOCK_ROWS)
    }

    /// The block holding `row` and the row's slot in it: rows `row..row +
    /// LANES` are `slot..slot + LANES` of that block's fields (rows past
    /// the end hold stale values).
    #[inline]
    pub(crate) fn block_of(&self, row: usize) -> (&MoverBlock, usize) {
        (&self.blocks[row / BLOCK_ROWS], row % BLOCK_ROWS)
    }
}

/// The rows of the units' movers (`bodies(unit)`) in the spatial hash's
/// place order (`order`).
pub(crate) fn gather(
    movers: &mut MoverColumns,
    bodies: impl Fn(usize) -> Body + Sync,
    order: &[u32],
) {
    movers.fill(order.len(), |place| bodies(order[place] as usize).mover());
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;

    fn mover(index: usize) -> Mover {
        let f = index as f32;
        Body {
            position: Vec2::new(f, -f),
            velocity: Vec2::new(1.0 + f, 0.5),
            heading: 0.1 * f,
            altitude: f % 3.0,
            shield: Vec3::new(4.0, 2.0 + f % 2.0, 1.5),
        }
        .mover()
    }

    /// Every row reads back, including rows that are another block's
    /// copy, and four rows from any start are the next four rows.
    #[test]
    fn every_row_reads_back_and_every_group_of_four_is_consecutive() {
        let rows = 3 * BLOCK_ROWS + 7;
        let all: Vec<Mover> = (0..rows).map(mover).collect();
        let mut columns = MoverColumns::default();
        columns.fill_from(&all);
        assert_eq!(columns.len(), rows);
        for (row, expected) in all.iter().enumerate() {
            assert_eq!(columns.get(row), *expected);
        }
        for start in 0..rows - LANES {
            let (block, slot) = columns.block_of(start);
            let xs = lanes(&block.x, slot).to_array();
            for (lane, x) in xs.into_iter().enumerate() {
                assert_eq!(x, all[start + lane].position.x, "row {start} lane {lane}");
            }
        }
    }

    #[test]
    fn refilling_with_fewer_rows_forgets_the_rest() {
        let mut columns = MoverColumns::default();
        columns.fill_from(&(0..600).map(mover).collect::<Vec<_>>());
        columns.fill_from(&[mover(7)]);
        assert_eq!(columns.len(), 1);
        assert_eq!(columns.get(0), mover(7));
    }
}
