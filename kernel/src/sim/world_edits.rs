//! A changing world: [`Sim::set_cells`] gives a rectangle of a grid map's
//! cells one terrain (a building placed or destroyed, a crater, a wall
//! breached), as DetourCrowd's tile-cache obstacles with
//! `checkPathValidity` do for a navmesh.
//!
//! The map is edited in place ([`WorldMap::set_cells`]: costs, regions,
//! the blocked-cell table and the HPA* clusters the edit touches), then the
//! units catch up, between ticks:
//! 1. the grid searches in flight began on the old map: each is abandoned
//!    and its request goes back to the front of the queue, in slot order;
//! 2. a ground unit standing on a cell that became impassable is moved to
//!    the centre of the nearest passable cell ([`Event::Displaced`]);
//! 3. a unit of its own replans — only if the edit changed a cell its
//!    route (or its straight line to its goal) still crosses, from where
//!    it stands (by the changed cells' bounding box), its goal's cell became impassable or unreachable (the
//!    goal moves to the nearest open cell of its region), or it was moved;
//!    a platoon member drops its own path when that path crosses the edit;
//! 4. a moving platoon whose route crosses the edit replans.
//!
//! The `Sim` keeps the map it was built on and the list of edits: a
//! snapshot carries the list, and a restore rebuilds the map from the
//! original and the snapshot's edits when they differ from its own.

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use glam::Vec2;

use super::{Event, Map, Sim};
use crate::data::path_requests::PathRequest;
use crate::data::platoons::{Phase, PlatoonId};
use crate::data::vehicles::{NONE, PathState, VehicleKind};
use crate::geometry::bounds::Bounds;
use crate::nav::world::segment_meets;
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
    /// are moved to the nearest passable cell ([`Event::Displaced`] in the
    /// next step's events); units and platoons whose route crosses a
    /// changed cell, or whose goal became unreachable, replan. Between
    /// steps (it allocates); snapshots carry the edit.
    ///
    /// # Errors
    /// [`EditError::NotAGridMap`] on an open field or a polygon map,
    /// [`EditError::OutsideMap`] for a rectangle off the map or with `min`
    /// past `max`. Nothing changes then.
    pub fn set_cells(&mut self, rect: CellRect, terrain: Terrain) -> Result<(), EditError> {
        let Map::Grid(map) = &mut self.config.map else {
            return Err(EditError::NotAGridMap);
        };
        // Checked before the map is copied (it is shared with the original).
        map.check_rect(rect)?;
        let Some(changed) = Arc::make_mut(map).set_cells(rect, terrain)? else {
            return Ok(());
        };
        self.edits.list.push(CellEdit::new(rect, terrain));
        self.catch_up_with(changed);
        Ok(())
    }

    /// The edits so far, as a snapshot stores them.
    pub(crate) fn cell_edits(&self) -> &[CellEdit] {
        self.edits.list()
    }

    /// Steps 1 to 4 of the module docs, after the cells of `changed`
    /// changed.
    fn catch_up_with(&mut self, changed: CellRect) {
        let map = Arc::clone(self.config.map.grid_map().expect("a grid map was edited"));
        self.reserve(self.vehicles.len());
        self.paths.restart_searches();
        let area = map.rect_bounds(changed);
        let mut replan = Vec::new();
        for row in 0..self.vehicles.len() {
            let moved = self.displace(&map, changed, row);
            if moved || self.route_cut(&map, area, changed, row) {
                replan.push(self.vehicles.id_at(row).expect("a live row"));
            }
        }
        let mut sorted = replan.clone();
        sorted.sort_unstable();
        self.paths.cancel(&sorted);
        for unit in replan {
            let row = self.vehicles.row_of(unit).expect("a live row");
            let columns = self.vehicles.columns();
            let (here, goal) = (columns.position()[row], columns.goal()[row]);
            let region = map.cell_at(here).and_then(|cell| map.grid().region(cell));
            let reachable = map.cell_at(goal).and_then(|cell| map.grid().region(cell)) == region;
            let goal = match region {
                Some(region) if !reachable => map.nearest_open_in_region(goal, region).unwrap_or(goal),
                _ => goal,
            };
            self.vehicles.set_goal(unit, goal).expect("a live row");
            let columns = self.vehicles.columns_mut();
            columns.route_len[row] = 0;
            columns.route_next[row] = 0;
            self.queue_move(unit, goal);
        }
        self.replan_platoons(area);
        self.spatial_fresh = false;
    }

    /// Moves the ground unit in `row` off a cell of `changed` that is now
    /// impassable, to the nearest passable cell's centre; returns whether
    /// it moved.
    fn displace(&mut self, map: &WorldMap, changed: CellRect, row: usize) -> bool {
        let columns = self.vehicles.columns();
        let flies = VehicleKind::from_u8(columns.kind()[row]).is_some_and(|kind| kind.handling().flies);
        let here = columns.position()[row];
        let walled = map
            .cell_at(here)
            .is_some_and(|cell| changed.contains(cell) && !map.grid().passable(cell));
        if flies || columns.inv_mass()[row] <= 0.0 || !walled {
            return false;
        }
        let Some(open) = map.nearest_open(here) else {
            return false;
        };
        let unit = self.vehicles.id_at(row).expect("a live row");
        let columns = self.vehicles.columns_mut();
        columns.position[row] = open;
        columns.velocity[row] = Vec2::ZERO;
        columns.drive_to[row] = open;
        self.events.stage(Event::Displaced(unit));
        true
    }

    /// Whether the unit in `row` must replan: its own route (or, without
    /// one, its straight line to its goal) crosses `area` (the changed
    /// cells' box) from where it stands, or its goal's
    /// cell in `changed` became impassable. A platoon member's own path
    /// that crosses is dropped instead (it drives for its slot).
    fn route_cut(&mut self, map: &WorldMap, area: Bounds, changed: CellRect, row: usize) -> bool {
        let columns = self.vehicles.columns();
        let flies = VehicleKind::from_u8(columns.kind()[row]).is_some_and(|kind| kind.handling().flies);
        if flies || columns.route_pending()[row] == PathState::NoPath as u8 {
            return false;
        }
        let (len, next) = (columns.route_len()[row], columns.route_next()[row]);
        let (member, goal) = (columns.platoon()[row] != NONE, columns.goal()[row]);
        let route = self.paths.routes.of(columns.handle_slot()[row]);
        let mut from = columns.position()[row];
        let mut crosses = false;
        for &corner in route.iter().take(len as usize).skip(next as usize) {
            crosses |= segment_meets(area, from, corner);
            from = corner;
        }
        // Without a route a unit of its own drives straight at its goal.
        crosses |= len == 0 && !member && segment_meets(area, from, goal);
        if member {
            if crosses {
                self.vehicles.columns_mut().route_len[row] = 0;
            }
            return false;
        }
        let goal_blocked = map
            .cell_at(goal)
            .is_some_and(|cell| changed.contains(cell) && !map.grid().passable(cell));
        crosses || goal_blocked
    }

    /// Step 4: every moving platoon whose route crosses `area` asks again.
    fn replan_platoons(&mut self, area: Bounds) {
        for index in 0..self.platoons.records.len() {
            let platoon = &self.platoons.records[index];
            if platoon.live != 1 || platoon.phase() != Phase::Moving {
                continue;
            }
            let route = self.platoons.routes().of(index as u32);
            let mut from = platoon.path_start;
            let mut crosses = false;
            for &corner in route.iter().take(platoon.route_len as usize) {
                crosses |= segment_meets(area, from, corner);
                from = corner;
            }
            if !crosses {
                continue;
            }
            let platoon = &mut self.platoons.records[index];
            platoon.phase = Phase::Planning as u32;
            let id = PlatoonId {
                index: index as u32,
                generation: platoon.generation,
            };
            let goal = platoon.goal;
            if platoon.route_pending == 0 {
                platoon.route_pending = 1;
                self.paths.push(PathRequest::for_platoon(id, goal));
            }
        }
    }
}
