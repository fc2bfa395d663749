//! A changing world through the C ABI: [`convoy_set_cells`] gives a
//! rectangle of a grid map's cells one terrain (a building placed or
//! destroyed, a crater, a wall breached), and [`convoy_cell_at`] finds the
//! cell under a point. Both refuse an open field or a polygon map with
//! `CONVOY_NOT_A_GRID_MAP`.

use convoy::glam::Vec2;
use convoy::nav::{Cell, CellRect, EditError, Terrain};

use crate::status::{ConvoyStatus, Failure};
use crate::{ConvoySim, with_sim, with_sim_mut};

/// Terrain: nobody passes.
pub const CONVOY_TERRAIN_BLOCKED: u8 = 0;
/// Terrain: open ground.
pub const CONVOY_TERRAIN_OPEN: u8 = 1;
/// Terrain: slow ground.
pub const CONVOY_TERRAIN_SWAMP: u8 = 2;
/// Terrain: water (ground units do not enter it).
pub const CONVOY_TERRAIN_WATER: u8 = 3;

/// The refusal of a world without a grid map.
fn not_a_grid_map() -> Failure {
    Failure::new(
        ConvoyStatus::ConvoyNotAGridMap,
        EditError::NotAGridMap.to_string(),
    )
}

/// Gives every cell from column `min_x`, row `min_y` to column `max_x`, row
/// `max_y` (both corners included) the terrain `terrain` (a
/// `CONVOY_TERRAIN_*`). Regions and planners are updated, searches in
/// flight restart, ground units on cells that became impassable move to the
/// nearest passable cell (`CONVOY_EVENT_DISPLACED` in the next step's
/// events), and units and platoons whose route crosses a changed cell
/// replan. Between steps; it allocates (the map is edited in place).
/// Snapshots carry the edit.
///
/// # Safety
/// `sim` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_set_cells(
    sim: *mut ConvoySim,
    min_x: u32,
    min_y: u32,
    max_x: u32,
    max_y: u32,
    terrain: u8,
) -> ConvoyStatus {
    with_sim_mut(unsafe { sim.as_mut() }, |handle| {
        let terrain = match terrain {
            CONVOY_TERRAIN_BLOCKED => Terrain::Blocked,
            CONVOY_TERRAIN_OPEN => Terrain::Open,
            CONVOY_TERRAIN_SWAMP => Terrain::Swamp,
            CONVOY_TERRAIN_WATER => Terrain::Water,
            other => {
                return Err(Failure::bad(format!(
                    "`terrain` must be 0 to 3, was {other}"
                )));
            }
        };
        let rect = CellRect::new(Cell::new(min_x, min_y), Cell::new(max_x, max_y));
        handle
            .sim
            .set_cells(rect, terrain)
            .map_err(|error| match error {
                EditError::NotAGridMap => not_a_grid_map(),
                other => Failure::bad(other),
            })
    })
}

/// Writes the column and row of the grid map's cell under (`x`, `y`) to
/// `*cell_x` and `*cell_y`; a point off the map is `CONVOY_BAD_ARGUMENT`.
///
/// # Safety
/// `sim` is NULL or live; `cell_x` and `cell_y` are NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_cell_at(
    sim: *const ConvoySim,
    x: f32,
    y: f32,
    cell_x: *mut u32,
    cell_y: *mut u32,
) -> ConvoyStatus {
    with_sim(unsafe { sim.as_ref() }, |handle| {
        let cell_x = unsafe { cell_x.as_mut() }.ok_or_else(|| Failure::null("cell_x"))?;
        let cell_y = unsafe { cell_y.as_mut() }.ok_or_else(|| Failure::null("cell_y"))?;
        let map = handle.sim.config().map.grid().ok_or_else(not_a_grid_map)?;
        let cell = map
            .cell_at(Vec2::new(x, y))
            .ok_or_else(|| Failure::bad(format!("point ({x}, {y}) is off the grid map")))?;
        (*cell_x, *cell_y) = (cell.x, cell.y);
        Ok(())
    })
}
