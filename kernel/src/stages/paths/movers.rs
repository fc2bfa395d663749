//! Where the `paths` stage's answers go: a planned request becomes its
//! unit's or platoon's route, or, with no path, a unit holds (a flier flies
//! straight).

use glam::Vec2;

use super::ServeStats;
use crate::data::path_requests::{PathRequest, Requester};
use crate::data::platoons::{Phase, PlatoonId, Platoons};
use crate::data::routes::Routes;
use crate::data::vehicles::{NONE, PathState, UnitId, VehicleKind, Vehicles};
use crate::nav::visgraph::FactionId;

/// Everything a planned request may move: the units, the platoons, the
/// units' routes and the tick's counts.
pub(super) struct Movers<'a> {
    pub(super) vehicles: &'a mut Vehicles,
    pub(super) platoons: &'a mut Platoons,
    pub(super) routes: &'a mut Routes,
    pub(super) stats: &'a mut ServeStats,
}

impl Movers<'_> {
    /// Where the requester stands, if it still exists.
    pub(super) fn start_of(&self, request: &PathRequest) -> Option<Vec2> {
        match request.requester() {
            Requester::Unit(unit) => {
                let row = self.vehicles.row_of(unit)?;
                Some(self.vehicles.columns().position()[row])
            }
            Requester::Platoon(id) => self.platoons.get(id).map(|platoon| platoon.position),
        }
    }

    /// The requester's mobility class: a unit's own, a platoon's members'
    /// (they share one; 0 for a platoon without live members).
    pub(super) fn mobility_of(&self, request: &PathRequest) -> u8 {
        let unit = match request.requester() {
            Requester::Unit(unit) => Some(unit),
            Requester::Platoon(id) => self.platoons.get(id).and_then(|platoon| {
                platoon.members.iter().copied().find(|&member| self.vehicles.row_of(member).is_some())
            }),
        };
        unit.and_then(|unit| self.vehicles.row_of(unit))
            .map_or(0, |row| self.vehicles.columns().mobility()[row])
    }

    /// Whether the requester is a flying unit: no wall stops it, so its
    /// route is the straight line.
    pub(super) fn flies(&self, request: &PathRequest) -> bool {
        let Requester::Unit(unit) = request.requester() else {
            return false;
        };
        self.vehicles.row_of(unit).is_some_and(|row| {
            VehicleKind::from_u8(self.vehicles.columns().kind()[row])
                .is_some_and(|kind| kind.handling().flies)
        })
    }

    /// Whether the requester is a wheeled unit: a cell centre within its
    /// turning circle is no corner it can drive to.
    pub(super) fn is_wheeled(&self, request: &PathRequest) -> bool {
        let Requester::Unit(unit) = request.requester() else {
            return false;
        };
        self.vehicles
            .row_of(unit)
            .is_some_and(|row| self.vehicles.columns().kind()[row] == VehicleKind::Wheeled as u8)
    }

    /// Gives the requester `route` (its corners after the start), or the
    /// straight line to its goal when there is no path (`None`). Counts
    /// served, unreachable and dropped requests.
    pub(super) fn accept(&mut self, request: &PathRequest, route: Option<&[Vec2]>) {
        let stored = match request.requester() {
            Requester::Unit(unit) => self.accept_for_unit(unit, request.goal, route),
            Requester::Platoon(id) => self.accept_for_platoon(id, request.goal, route),
        };
        if stored {
            self.stats.served += 1;
            self.stats.unreachable += usize::from(route.is_none());
        } else {
            self.stats.dropped += 1;
        }
    }

    pub(super) fn accept_for_unit(&mut self, unit: UnitId, goal: Vec2, route: Option<&[Vec2]>) -> bool {
        let Some(row) = self.vehicles.row_of(unit) else {
            return false;
        };
        // A platoon member's own path (the bad-position check) leads to its
        // slot; its goal stays its destination spot. A ground unit of its
        // own that no path serves holds where it is, and asks no more (a
        // flier flies straight).
        let columns = self.vehicles.columns();
        let solo = columns.platoon()[row] == NONE;
        let here = columns.position()[row];
        let flies = VehicleKind::from_u8(columns.kind()[row]).is_some_and(|kind| kind.handling().flies);
        let state = match (solo && !flies, route) {
            (true, None) => PathState::NoPath,
            _ => PathState::Settled,
        };
        if state == PathState::NoPath && columns.wanted_goal()[row].is_nan() {
            // Kept, so a world edit that opens a way sends the unit on.
            self.vehicles.columns_mut().wanted_goal[row] = goal;
        }
        let goal = if state == PathState::NoPath { here } else { goal };
        if solo {
            self.vehicles.set_goal(unit, goal).expect("row_of found it");
        }
        let route = route.unwrap_or(&[]);
        let slot = self.vehicles.columns().handle_slot()[row];
        self.routes.store(slot, route);
        let columns = self.vehicles.columns_mut();
        // On the open field the goal is the whole route: no route needed.
        columns.route_len[row] = if route == [goal] {
            0
        } else {
            route.len() as u32
        };
        columns.route_next[row] = 0;
        columns.route_start[row] = columns.position[row];
        columns.route_pending[row] = state as u8;
        true
    }

    /// The faction the requester plans as: a platoon's own (also for a
    /// member's own path), else 0.
    pub(super) fn faction_of(&self, request: &PathRequest) -> FactionId {
        let index = match request.requester() {
            Requester::Platoon(id) => Some(id.index),
            Requester::Unit(unit) => self
                .vehicles
                .row_of(unit)
                .map(|row| self.vehicles.columns().platoon()[row])
                .filter(|&index| index != NONE),
        };
        let record = index.and_then(|index| self.platoons.records.get(index as usize));
        FactionId(record.map_or(0, |platoon| platoon.faction as u16))
    }

    /// Platoon `id`'s new route crosses `bridge` between corners `span`.
    pub(super) fn mark_bridge(&mut self, id: PlatoonId, bridge: u32, span: [usize; 2]) {
        if self.platoons.get(id).is_some() {
            self.platoons.mark_bridge(id.index, bridge, span);
        }
    }

    pub(super) fn accept_for_platoon(&mut self, id: PlatoonId, goal: Vec2, route: Option<&[Vec2]>) -> bool {
        // No path: the platoon goes straight (its members still avoid walls
        // by the softening and their own bad-position checks).
        let route = route.unwrap_or(std::slice::from_ref(&goal));
        let Ok(platoon) = self.platoons.get_mut(id) else {
            return false;
        };
        platoon.route_pending = 0;
        platoon.phase = Phase::Moving as u32;
        self.platoons.store_route(id.index, route);
        true
    }
}
