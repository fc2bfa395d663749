//! Group ids: which group order each unit moves under (the `group`
//! column), for the group's pace (the `formations` stage's `group_pace`)
//! and its arrival event.

use super::Sim;
use crate::data::vehicles::{GroupId, NONE, StaleUnit, UnitId};
use crate::stages::formations::group_pace::MAX_GROUPS;

impl Sim {
    /// The group order `unit` moves under: set by
    /// [`Sim::order_group`] for groups of two or more, cleared by
    /// [`Sim::order_move`], [`Sim::stop`] and joining a platoon.
    pub fn group_of(&self, unit: UnitId) -> Result<Option<GroupId>, StaleUnit> {
        let row = self.vehicles.row_of(unit).ok_or(StaleUnit(unit))?;
        let group = self.vehicles.columns().group()[row];
        Ok((group != NONE).then_some(GroupId(group)))
    }

    /// Puts the units in `rows` under a group id no other live unit
    /// holds (the smallest), their odometers at zero; fewer than two
    /// units, or no free id below [`MAX_GROUPS`], take none.
    pub(super) fn enter_new_group(&mut self, rows: &[usize]) {
        let mut used: Vec<u32> = self.vehicles.columns().group().to_vec();
        for &row in rows {
            used[row] = NONE;
        }
        used.sort_unstable();
        used.dedup();
        let free = (0..MAX_GROUPS).zip(&used).find(|&(id, &taken)| id != taken);
        let id = free.map_or(used.len() as u32, |(id, _)| id);
        let id = if rows.len() >= 2 && id < MAX_GROUPS { id } else { NONE };
        let columns = self.vehicles.columns_mut();
        for &row in rows {
            columns.group[row] = id;
            columns.group_odometer[row] = 0.0;
        }
        self.reserve_groups();
    }

    /// Takes the unit in `row` out of its group.
    pub(super) fn leave_group(&mut self, row: usize) {
        self.vehicles.columns_mut().group[row] = NONE;
    }

    /// Sizes the group tallies and the events for every group id in use.
    pub(super) fn reserve_groups(&mut self) {
        let groups = self
            .vehicles
            .columns()
            .group()
            .iter()
            .filter(|&&group| group < MAX_GROUPS)
            .max()
            .map_or(0, |&group| group as usize + 1);
        self.formations.reserve_groups(groups);
        self.events.reserve_groups(groups);
    }
}
