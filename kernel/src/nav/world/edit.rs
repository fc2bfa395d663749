//! Changing a map's cells at run time — a building placed or destroyed, a
//! crater, a wall breached: [`WorldMap::set_cells`] gives a rectangle of
//! cells one terrain and brings everything derived from the terrain up to
//! date, so the map answers as one built from the edited terrain would.
//!
//! - the cost grid's cells in the rectangle, and its region labels (a
//!   flood fill of the whole map, [`crate::nav::regions`]);
//! - the summed-area table of blocked cells (one pass over the map);
//! - the HPA* hierarchy: only the clusters the changed cells touch, and
//!   those whose transitions moved, are searched again
//!   ([`crate::nav::hierarchy`], `update.rs`).

use glam::Vec2;
use thiserror::Error;

use super::{WorldMap, summed_blocked};
use crate::geometry::bounds::Bounds;
use crate::nav::grid::{Cell, CellRect, GridMap, Terrain};

/// Why a world edit was refused; nothing was changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error)]
pub enum EditError {
    /// The rectangle is not on the map, or its `min` exceeds its `max`.
    #[error(
        "`rect` from ({}, {}) to ({}, {}) must lie on the {width} x {height} cell map, min <= max",
        rect.min.x,
        rect.min.y,
        rect.max.x,
        rect.max.y
    )]
    OutsideMap {
        /// The refused rectangle.
        rect: CellRect,
        /// The map's columns.
        width: u32,
        /// The map's rows.
        height: u32,
    },
    /// The world is not a grid map ([`crate::Map::Grid`]): an open field
    /// or a polygon map has no cells to set.
    #[error("`set_cells` needs a grid map (Map::Grid); this world has none")]
    NotAGridMap,
}

impl WorldMap {
    /// Gives every cell of `rect` the terrain `terrain`, and updates the
    /// costs, region labels, blocked-cell table and HPA* hierarchy to
    /// match. Returns the smallest rectangle holding every cell whose
    /// terrain changed (`None`: none did, and nothing was touched).
    ///
    /// # Errors
    /// [`EditError::OutsideMap`] when `rect` does not lie on the map (or
    /// its `min` exceeds its `max`); nothing changes then.
    pub fn set_cells(
        &mut self,
        rect: CellRect,
        terrain: Terrain,
    ) -> Result<Option<CellRect>, EditError> {
        self.check_rect(rect)?;
        Ok(self.repaint(rect, |_| terrain))
    }

    /// Gives every cell of `rect` (on the map) its terrain in `from` (a map
    /// of the same size) and updates as [`WorldMap::set_cells`] does;
    /// returns the changed cells' rectangle.
    pub(crate) fn copy_cells(&mut self, rect: CellRect, from: &GridMap) -> Option<CellRect> {
        self.repaint(rect, |cell| from.terrain(cell).unwrap_or(Terrain::Blocked))
    }

    /// Gives every cell of `rect` (on the map) the terrain `terrain_of`
    /// says and brings the derived data up to date; returns the smallest
    /// rectangle holding every changed cell.
    fn repaint(
        &mut self,
        rect: CellRect,
        terrain_of: impl Fn(Cell) -> Terrain,
    ) -> Option<CellRect> {
        let mut changed: Option<CellRect> = None;
        for cell in rect.cells() {
            let terrain = terrain_of(cell);
            if self.terrain.terrain(cell) == Some(terrain) {
                continue;
            }
            self.terrain.set(cell, terrain);
            changed = Some(changed.map_or(CellRect::new(cell, cell), |seen| {
                CellRect::new(
                    Cell::new(seen.min.x.min(cell.x), seen.min.y.min(cell.y)),
                    Cell::new(seen.max.x.max(cell.x), seen.max.y.max(cell.y)),
                )
            }));
        }
        let changed = changed?;
        self.grid.repaint(&self.terrain, self.mobility, changed);
        self.blocked_before = summed_blocked(&self.grid);
        self.hierarchy = self.hierarchy.rebuilt(&self.grid, changed);
        Some(changed)
    }

    /// Whether `rect` lies on the map with `min` ≤ `max`.
    ///
    /// # Errors
    /// [`EditError::OutsideMap`] when it does not.
    pub fn check_rect(&self, rect: CellRect) -> Result<(), EditError> {
        let (width, height) = (self.terrain.width(), self.terrain.height());
        let fits = rect.min.x <= rect.max.x
            && rect.min.y <= rect.max.y
            && rect.max.x < width
            && rect.max.y < height;
        if fits {
            Ok(())
        } else {
            Err(EditError::OutsideMap {
                rect,
                width,
                height,
            })
        }
    }

    /// The terrain as edited.
    #[must_use]
    pub fn terrain(&self) -> &GridMap {
        &self.terrain
    }

    /// The world rectangle the cells of `rect` cover.
    #[must_use]
    pub fn rect_bounds(&self, rect: CellRect) -> Bounds {
        let corner = |x: u32, y: u32| self.origin + Vec2::new(x as f32, y as f32) * self.cell_size;
        Bounds::new(
            corner(rect.min.x, rect.min.y),
            corner(rect.max.x + 1, rect.max.y + 1),
        )
    }
}

/// Whether the segment from `from` to `to` meets the closed box `bounds`
/// (the slab test).
#[must_use]
pub fn segment_meets(bounds: Bounds, from: Vec2, to: Vec2) -> bool {
    let delta = to - from;
    let (mut enter, mut leave) = (0.0f32, 1.0f32);
    for axis in 0..2 {
        let (start, step) = (from[axis], delta[axis]);
        let (low, high) = (bounds.min[axis], bounds.max[axis]);
        if step == 0.0 {
            if start < low || start > high {
                return false;
            }
            continue;
        }
        let (a, b) = ((low - start) / step, (high - start) / step);
        enter = enter.max(a.min(b));
        leave = leave.min(a.max(b));
    }
    enter <= leave
}
