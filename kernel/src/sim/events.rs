//! What happened in the last tick, for the engine: rows reordered, units
//! moved off cells a world edit walled (staged by the edit), units
//! that arrived, found no path, got stuck or free again, and platoons that
//! arrived.
//!
//! After every tick each unit's [`MoveState`] is compared with the one it
//! had after the tick before (the `move_state` column, which moves with
//! its row, and set at spawn); a change into `Arrived`, `NoPath` or `Stuck`, or out of
//! `Stuck`, is an event. A platoon's change into `Phase::Arrived` is one
//! too. The buffer is sized with the units and platoons (one reorder, at most
//! two events per unit and one per platoon a tick), so collecting never allocates; the engine reads it with
//! [`Sim::events`](super::Sim::events) until the next tick replaces it, as
//! DetourCrowd's agent states and landmass's `AgentState` are polled, but
//! without scanning every unit.

use crate::data::platoons::{Phase, PlatoonId, Platoons};
use crate::data::vehicles::{UnitId, Vehicles};

use super::orders::{MoveState, move_state_at};

/// One thing that happened in a tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The rows were reordered into spatial cell order this tick (always
    /// the tick's first event): map rows to units again, e.g. through the
    /// `unit_id` column. `SimConfig::reorder_interval` 0 turns it off.
    RowsReordered,
    /// The unit came within its arrival radius of its goal.
    Arrived(UnitId),
    /// The unit's path request found no path, or a world edit cut it off
    /// under `UnreachableGoals::Refuse`; it holds where it is.
    NoPath(UnitId),
    /// The unit stopped making progress toward its drive-to point.
    Stuck(UnitId),
    /// A stuck unit moves again (or got a new order).
    Unstuck(UnitId),
    /// Every member of the platoon stands on its destination spot.
    PlatoonArrived(PlatoonId),
    /// A world edit ([`Sim::set_cells`](super::Sim::set_cells)) made the
    /// unit's cell impassable: it was moved to the nearest passable cell
    /// (reported by the next step).
    Displaced(UnitId),
}

/// The last tick's events and what is needed to find the next.
#[derive(Clone, Debug, Default)]
pub(crate) struct EventLog {
    events: Vec<Event>,
    /// Each platoon record's (generation, phase) after the last tick.
    platoon_phases: Vec<(u32, u32)>,
    /// Events of calls between ticks, for the next tick's list.
    staged: Vec<Event>,
}

impl EventLog {
    /// Room for a tick of `units` units and `platoons` platoon records.
    pub fn reserve(&mut self, units: usize, platoons: usize) {
        let wanted = 1 + 2 * units + platoons;
        self.events
            .reserve(wanted.saturating_sub(self.events.len()));
        self.platoon_phases.resize(platoons.max(self.platoon_phases.len()), (u32::MAX, 0));
    }

    /// Takes the platoons' phases as they are, so a restored world reports
    /// only what changes from here.
    pub fn remember_platoons(&mut self, platoons: &Platoons) {
        for (seen, platoon) in self.platoon_phases.iter_mut().zip(&platoons.records) {
            *seen = (platoon.generation, platoon.phase);
        }
    }

    /// Keeps `event` (of a call between ticks) for the next tick's
    /// events, with room for it there.
    pub fn stage(&mut self, event: Event) {
        self.staged.push(event);
        let wanted = self.events.capacity() + 1;
        self.events.reserve_exact(wanted - self.events.len());
    }

    /// The events of the last tick.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Replaces the events with this tick's; `reordered`: whether the rows
    /// were reordered in it.
    pub fn collect(&mut self, vehicles: &mut Vehicles, platoons: &Platoons, reordered: bool) {
        self.events.clear();
        if reordered {
            self.push(Event::RowsReordered);
        }
        for index in 0..self.staged.len() {
            self.push(self.staged[index]);
        }
        self.staged.clear();
        for row in 0..vehicles.len() {
            let now = move_state_at(vehicles.columns(), row) as u8;
            let before = vehicles.columns().move_state()[row];
            if now == before {
                continue;
            }
            vehicles.columns_mut().move_state[row] = now;
            let Some(unit) = vehicles.id_at(row) else {
                continue;
            };
            if before == MoveState::Stuck as u8 {
                self.push(Event::Unstuck(unit));
            }
            match now {
                n if n == MoveState::Arrived as u8 => self.push(Event::Arrived(unit)),
                n if n == MoveState::NoPath as u8 => self.push(Event::NoPath(unit)),
                n if n == MoveState::Stuck as u8 => self.push(Event::Stuck(unit)),
                _ => {}
            }
        }
        for (index, platoon) in platoons.records.iter().enumerate() {
            let Some(seen) = self.platoon_phases.get_mut(index) else {
                continue;
            };
            let now = (platoon.generation, platoon.phase);
            let arrived = platoon.live == 1
                && platoon.phase() == Phase::Arrived
                && (seen.0 != platoon.generation || seen.1 != Phase::Arrived as u32);
            *seen = now;
            if arrived {
                let id = PlatoonId {
                    index: index as u32,
                    generation: platoon.generation,
                };
                self.push(Event::PlatoonArrived(id));
            }
        }
    }

    /// Appends `event` while there is room (there always is after
    /// [`EventLog::reserve`]: one reorder, two events per unit and one per
    /// platoon at most).
    fn push(&mut self, event: Event) {
        if self.events.len() < self.events.capacity() {
            self.events.push(event);
        }
    }
}
