//! What units and platoons do after the terrain changed under them
//! ([`Sim::set_cells`]), between ticks, as DetourCrowd's
//! `checkPathValidity` does after a tile-cache obstacle: only those the
//! change concerns replan, and the region labels say which.
//!
//! 1. The grid searches in flight began on the old map: each is abandoned
//!    and its request goes back to the front of the queue, in slot order.
//! 2. A ground unit standing on a cell that became impassable is moved to
//!    the centre of the nearest passable cell ([`Event::Displaced`]).
//! 3. A unit of its own replans when the edit changed a cell its route (or
//!    its straight line to its goal) still crosses, from where it stands
//!    (by the changed cells' bounding box), its goal's cell became
//!    impassable, or it was moved. A goal now out of reach moves to the
//!    nearest free open point of the unit's region: the destination-spot
//!    lattice of [`destination_spots`] about the goal, each point's
//!    footprint on open ground of that region and a spot's width from every
//!    other unit's goal and every platoon's reserved spot (under
//!    [`UnreachableGoals::Refuse`] the unit holds in `NoPath` instead). The
//!    goal as ordered is kept (`wanted_goal`). A platoon member drops its
//!    own path when that path crosses the edit.
//! 4. A unit whose goal as ordered was out of reach — it holds in `NoPath`,
//!    or heads for a substitute goal — and that the edit puts in reach (its
//!    cell and the goal's in one region, where they were not before) is
//!    sent there again.
//! 5. A platoon whose goal or one of whose reserved destination spots lies
//!    on a cell the edit made impassable gets its spots placed again by the
//!    platoon spot rules (`place_spots`), its goal first moved to the
//!    nearest open cell of its region when the goal itself is walled.
//! 6. A moving platoon whose route crosses the edit, or whose goal moved,
//!    replans.

use glam::Vec2;

use super::group_spots::destination_spots;
use super::orders::{SPOT_SPACING_LENGTHS, footprint_in_region};
use super::{Event, Sim, UnreachableGoals};
use crate::data::path_requests::PathRequest;
use crate::data::platoons::{Phase, PlatoonId, SPOT_GAP_M};
use crate::data::vehicles::{NONE, PathState, UnitId, VehicleKind};
use crate::geometry::bounds::Bounds;
use crate::nav::world::segment_meets;
use crate::nav::{CellRect, WorldMap};

impl Sim {
    /// The units of their own whose goal as ordered (`wanted_goal`) is out
    /// of reach on their class's map (before an edit), in handle order.
    pub(super) fn wanted_out_of_reach(&self) -> Vec<UnitId> {
        let columns = self.vehicles.columns();
        let mut units: Vec<UnitId> = (0..self.vehicles.len())
            .filter(|&row| {
                let wanted = columns.wanted_goal()[row];
                self.solo_ground(row)
                    && !wanted.is_nan()
                    && self
                        .map_of_row(row)
                        .is_some_and(|map| !same_region(map, columns.position()[row], wanted))
            })
            .map(|row| self.vehicles.id_at(row).expect("a live row"))
            .collect();
        units.sort_unstable();
        units
    }

    /// Steps 1 to 6 of the module docs, after the cells of `changed`
    /// changed; `out_of_reach` is [`Sim::wanted_out_of_reach`] before.
    pub(super) fn catch_up_with(&mut self, changed: CellRect, out_of_reach: &[UnitId]) {
        let base = std::sync::Arc::clone(self.config.map.grid_map().expect("a map was edited"));
        self.reserve(self.vehicles.len());
        self.paths.restart_searches();
        let area = base.rect_bounds(changed);
        let mut replan = Vec::new();
        for row in 0..self.vehicles.len() {
            let unit = self.vehicles.id_at(row).expect("a live row");
            let map = self.row_map(row);
            let moved = self.displace(&map, changed, row);
            let columns = self.vehicles.columns();
            let back_in_reach = out_of_reach.binary_search(&unit).is_ok()
                && same_region(&map, columns.position()[row], columns.wanted_goal()[row]);
            if back_in_reach || moved || self.route_cut(&map, area, changed, row) {
                replan.push((unit, back_in_reach));
            }
        }
        let mut sorted: Vec<UnitId> = replan.iter().map(|&(unit, _)| unit).collect();
        sorted.sort_unstable();
        self.paths.cancel(&sorted);
        for (unit, back_in_reach) in replan {
            let map = self.row_map(self.vehicles.row_of(unit).expect("a live row"));
            self.replan_unit(&map, unit, back_in_reach);
        }
        let moved_goals = self.move_blocked_platoon_spots(changed);
        self.replan_platoons(area, &moved_goals);
        self.spatial_fresh = false;
    }

    /// Whether the unit in `row` is a movable ground unit in no platoon.
    fn solo_ground(&self, row: usize) -> bool {
        let columns = self.vehicles.columns();
        let flies = VehicleKind::from_u8(columns.kind()[row]).is_some_and(|kind| kind.handling().flies);
        !flies && columns.inv_mass()[row] > 0.0 && columns.platoon()[row] == NONE
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
    /// cells' box) from where it stands, or its goal's cell in `changed`
    /// became impassable. A platoon member's own path that crosses is
    /// dropped instead (it drives for its slot).
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

    /// Steps 3 and 4 for `unit`: asks for a path to its goal as ordered
    /// when the edit put it back in reach, else to its goal, moved to the
    /// nearest free open point of its region when out of reach (or holds
    /// in `NoPath` under [`UnreachableGoals::Refuse`]).
    fn replan_unit(&mut self, map: &WorldMap, unit: UnitId, back_in_reach: bool) {
        let row = self.vehicles.row_of(unit).expect("a live row");
        let columns = self.vehicles.columns();
        let (here, goal, wanted) = (
            columns.position()[row],
            columns.goal()[row],
            columns.wanted_goal()[row],
        );
        let region = map.cell_at(here).and_then(|cell| map.grid().region(cell));
        let (target, wanted) = match region {
            _ if back_in_reach => (wanted, Vec2::NAN),
            // Standing off open ground, or the goal in reach: as it is.
            None => (goal, wanted),
            Some(_) if same_region(map, here, goal) => (goal, wanted),
            Some(region) => {
                let wanted = if wanted.is_nan() { goal } else { wanted };
                if self.config.unreachable_goals == UnreachableGoals::Refuse {
                    return self.hold_without_path(unit, wanted);
                }
                let spot = self
                    .free_spot(map, row, goal, region)
                    .or_else(|| map.nearest_open_in_region(goal, region));
                (spot.unwrap_or(goal), wanted)
            }
        };
        self.vehicles.set_goal(unit, target).expect("a live row");
        let columns = self.vehicles.columns_mut();
        columns.route_len[row] = 0;
        columns.route_next[row] = 0;
        columns.wanted_goal[row] = wanted;
        self.queue_move(unit, target);
    }

    /// `unit` holds where it stands in `NoPath`, remembering `wanted`, as
    /// when a search finds no path.
    fn hold_without_path(&mut self, unit: UnitId, wanted: Vec2) {
        let row = self.vehicles.row_of(unit).expect("a live row");
        let here = self.vehicles.columns().position()[row];
        self.vehicles.set_goal(unit, here).expect("a live row");
        let columns = self.vehicles.columns_mut();
        columns.drive_to[row] = here;
        columns.route_len[row] = 0;
        columns.route_next[row] = 0;
        columns.route_pending[row] = PathState::NoPath as u8;
        columns.wanted_goal[row] = wanted;
    }

    /// The free open point nearest `goal` for the unit in `row`: a lattice
    /// point of [`destination_spots`] (a block of one spot), spaced as a
    /// group order spaces its spots, whose footprint lies on open ground of
    /// `region`, a spacing from every other unit's goal and every reserved
    /// platoon spot; `None` when none is within the lattice's reach.
    fn free_spot(&self, map: &WorldMap, row: usize, goal: Vec2, region: u32) -> Option<Vec2> {
        let columns = self.vehicles.columns();
        let shield = columns.shield()[row];
        let spacing = SPOT_SPACING_LENGTHS * 2.0 * shield.x.max(shield.y);
        let here = columns.position()[row];
        let heading = columns.final_heading()[row];
        let facing = if heading.is_finite() {
            Vec2::from_angle(heading)
        } else {
            (goal - here).normalize_or(Vec2::X)
        };
        // A block of one spot looks 24 lattice steps out on each axis.
        let reach = 35.0 * spacing;
        let taken: Vec<Vec2> = (0..self.vehicles.len())
            .filter(|&other| other != row && columns.altitude()[other] <= 0.0)
            .map(|other| columns.goal()[other])
            .filter(|other| other.distance(goal) <= reach)
            .collect();
        let gap = spacing.min(2.0 * SPOT_GAP_M);
        let open = |spot: Vec2| {
            footprint_in_region(map, spot, 0.5 * spacing, region)
                && taken.iter().all(|other| other.distance(spot) >= 0.999 * spacing)
                && self.platoons.spot_is_free(spot, gap)
        };
        let spot = destination_spots(1, goal, facing, spacing, open)[0];
        open(spot).then_some(spot)
    }

    /// The map of the unit in `row`'s mobility class, shared.
    fn row_map(&self, row: usize) -> std::sync::Arc<WorldMap> {
        let class = self.vehicles.columns().mobility()[row];
        self.class_map(class).expect("a map was edited")
    }

    /// Step 5: every ordered platoon with its goal or a reserved spot on a
    /// cell of `changed` now impassable (on its members' class's map) gets
    /// its spots placed again (its goal moved first when walled). Returns
    /// the platoons whose goal moved.
    fn move_blocked_platoon_spots(&mut self, changed: CellRect) -> Vec<usize> {
        let mut moved_goals = Vec::new();
        for index in 0..self.platoons.records.len() {
            let platoon = self.platoons.records[index];
            if platoon.live != 1 || platoon.phase() == Phase::Holding {
                continue;
            }
            let map = self.platoon_map(&platoon).expect("a map was edited");
            let walled = |point: Vec2| {
                map.cell_at(point)
                    .is_some_and(|cell| changed.contains(cell) && !map.grid().passable(cell))
            };
            let goal_walled = walled(platoon.goal);
            let spot_walled = platoon
                .occupied()
                .any(|(slot, _)| walled(platoon.spots[slot]));
            if !(goal_walled || spot_walled) {
                continue;
            }
            if goal_walled {
                let region = map
                    .cell_at(platoon.position)
                    .and_then(|cell| map.grid().region(cell));
                let goal = match region {
                    Some(region) => map.nearest_open_in_region(platoon.goal, region),
                    None => map.nearest_open(platoon.goal),
                };
                self.platoons.records[index].goal = goal.unwrap_or(platoon.goal);
                moved_goals.push(index);
            }
            let id = PlatoonId {
                index: index as u32,
                generation: platoon.generation,
            };
            self.place_spots(id, false);
        }
        moved_goals
    }

    /// Step 6: every moving or planning platoon whose route crosses `area`,
    /// or whose goal moved (`moved_goals`), asks again.
    fn replan_platoons(&mut self, area: Bounds, moved_goals: &[usize]) {
        for index in 0..self.platoons.records.len() {
            let platoon = &self.platoons.records[index];
            let moving = platoon.phase() == Phase::Moving;
            let goal_moved = moved_goals.contains(&index)
                && matches!(platoon.phase(), Phase::Moving | Phase::Planning);
            if platoon.live != 1 || !(moving || goal_moved) {
                continue;
            }
            let route = self.platoons.routes().of(index as u32);
            let mut from = platoon.path_start;
            let mut crosses = false;
            for &corner in route.iter().take(platoon.route_len as usize) {
                crosses |= segment_meets(area, from, corner);
                from = corner;
            }
            if !(crosses || goal_moved) {
                continue;
            }
            let platoon = &mut self.platoons.records[index];
            platoon.phase = Phase::Planning as u32;
            let id = PlatoonId {
                index: index as u32,
                generation: platoon.generation,
            };
            let goal = platoon.goal;
            if goal_moved {
                // Its request (if any) leads to the old goal.
                self.paths.cancel_platoon(id);
                self.platoons.records[index].route_pending = 0;
            }
            let platoon = &mut self.platoons.records[index];
            if platoon.route_pending == 0 {
                platoon.route_pending = 1;
                self.paths.push(PathRequest::for_platoon(id, goal));
            }
        }
    }
}

/// Whether `a` and `b` lie on open cells of one region of `map`.
fn same_region(map: &WorldMap, a: Vec2, b: Vec2) -> bool {
    match (map.cell_at(a), map.cell_at(b)) {
        (Some(a), Some(b)) => map.grid().connected(a, b),
        _ => false,
    }
}
