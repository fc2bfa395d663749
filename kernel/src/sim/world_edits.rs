//! A changing world: [`Sim::set_cells`] gives a rectangle of a grid map's
//! cells one terrain (a building placed or destroyed, a crater, a wall
//! breached), as DetourCrowd's tile-cache obstacles with
//! `checkPathValidity` do for a navmesh.
//!
//! The map is edited in place ([`WorldMap::set_cells`]: costs, regions,
//! the blocked-cell table and the HPA* clusters the edit touches), and so
//! is every mobility class's map (`mobility.rs`), then the
//! units and platoons catch up, between ticks (`world_catch_up.rs`).
//!
//! The `Sim` keeps the map it was built on and the list of edits: a
//! snapshot carries the list, and a restore rebuilds the map from the
//! original and the snapshot's edits when they differ from its own.

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};

use super::{Map, Sim};
use crate::nav::{Cell, CellRect, EditError, Terrain, WorldMap};

/// One [`Sim::set_cells`] call as a snapshot stores it.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
pub(crate) struct CellEdit {
    min: [u32; 2],
    max: [u32; 2],
    /// [`Terrain`] as `u32`.
    terrain: u32,
}

impl CellEdit {
    fn new(rect: CellRect, terrain: Terrain) -> Self {
        Self {
            min: [rect.min.x, rect.min.y],
            max: [rect.max.x, rect.max.y],
            terrain: terrain as u32,
        }
    }

    /// The rectangle and terrain, if the terrain is one.
    fn parts(self) -> Option<(CellRect, Terrain)> {
        let terrain = match self.terrain {
            0 => Terrain::Blocked,
            1 => Terrain::Open,
            2 => Terrain::Swamp,
            3 => Terrain::Water,
            _ => return None,
        };
        let cell = |[x, y]: [u32; 2]| Cell::new(x, y);
        Some((CellRect::new(cell(self.min), cell(self.max)), terrain))
    }
}

/// The grid map as the `Sim` was built on it, and the edits since.
#[derive(Clone, Debug, Default)]
pub(crate) struct WorldEdits {
    original: Option<Arc<WorldMap>>,
    list: Vec<CellEdit>,
}

impl WorldEdits {
    /// No edits yet on `map`.
    pub(crate) fn new(map: &Map) -> Self {
        let original = match map {
            Map::Grid(grid) => Some(Arc::clone(grid)),
            Map::Open | Map::Polygon { .. } => None,
        };
        Self {
            original,
            list: Vec::new(),
        }
    }

    /// The edits, oldest first.
    pub(crate) fn list(&self) -> &[CellEdit] {
        &self.list
    }

    /// The map as built, before any edit.
    pub(crate) fn original(&self) -> Option<&Arc<WorldMap>> {
        self.original.as_ref()
    }

    /// The map `edits` make of the original one, or `None` when they are
    /// this `Sim`'s own (nothing to rebuild).
    ///
    /// # Errors
    /// An edit that is not a terrain, or not on the map, or edits in a
    /// world without a grid map, named by its index.
    pub(crate) fn replay(&self, edits: &[CellEdit]) -> Result<Option<Arc<WorldMap>>, String> {
        if edits == self.list.as_slice() {
            return Ok(None);
        }
        let Some(original) = &self.original else {
            return Err("cell edits in a world without a grid map".to_owned());
        };
        let mut map = WorldMap::clone(original);
        for (index, edit) in edits.iter().enumerate() {
            let (rect, terrain) = edit
                .parts()
                .ok_or_else(|| format!("edit {index}: terrain {} is not a terrain", edit.terrain))?;
            map.set_cells(rect, terrain)
                .map_err(|error| format!("edit {index}: {error}"))?;
        }
        Ok(Some(Arc::new(map)))
    }

    /// Takes the edits of a restored snapshot.
    pub(crate) fn set_list(&mut self, edits: Vec<CellEdit>) {
        self.list = edits;
    }
}

impl Sim {
    /// Gives every cell of `rect` (cell coordinates on the grid map, both
    /// corners included) the terrain `terrain`: a building placed or
    /// destroyed, a crater, a wall breached. Regions, the HPA* clusters the
    /// edit touches and every planner's data are updated; searches in
    /// flight start again; ground units on cells that became impassable
    /// are moved to the nearest passable cell ([`Event::Displaced`](super::Event::Displaced) in the
    /// next step's events); units and platoons whose route crosses a
    /// changed cell, or whose goal became unreachable, replan. Between
    /// steps (it allocates); snapshots carry the edit.
    ///
    /// # Errors
    /// [`EditError::NotAGridMap`] on an open field or a polygon map,
    /// [`EditError::OutsideMap`] for a rectangle off the map or with `min`
    /// past `max`. Nothing changes then.
    pub fn set_cells(&mut self, rect: CellRect, terrain: Terrain) -> Result<(), EditError> {
        let Map::Grid(map) = &self.config.map else {
            return Err(EditError::NotAGridMap);
        };
        // Checked before the map is copied (it is shared with the original).
        map.check_rect(rect)?;
        let out_of_reach = self.wanted_out_of_reach();
        let Map::Grid(map) = &mut self.config.map else {
            unreachable!("matched above");
        };
        let Some(changed) = Arc::make_mut(map).set_cells(rect, terrain)? else {
            return Ok(());
        };
        self.edit_class_maps(rect, terrain)?;
        self.edits.list.push(CellEdit::new(rect, terrain));
        self.catch_up_with(changed, &out_of_reach);
        Ok(())
    }

    /// The edits so far, as a snapshot stores them.
    pub(crate) fn cell_edits(&self) -> &[CellEdit] {
        self.edits.list()
    }
}
