//! Group pace (`GroupPace::Slowest`): the members of one group order
//! travel together.
//!
//! A group moves at its slowest member's top speed (Company of Heroes'
//! squads and Force 21's platoons keep to the slowest vehicle). A member
//! that falls behind — by how far it has driven since the order against
//! the mean of the members still on their way — is let out toward its own
//! top speed, reaching it [`BAND_LENGTHS`] of the group's longest unit
//! behind, so faster kinds close gaps (Star Trek: Armada's rubber band).
//! Members ahead are not held back below the pace: on arena2, leaders
//! slowed to a quarter of it blocked the narrows for those behind (114 of
//! 150 ground members of a mixed group arrived in twice their slowest
//! kind's time, against 139 without). Members that arrived, are stuck or
//! found no path leave the mean, so a blocked member never holds the rest.

use crate::data::vehicles::{ARRIVE_RADIUS, NONE, PathState, STUCK_AFTER_S, Vehicles};

/// Group ids are below this ([`crate::GroupId`]).
pub const MAX_GROUPS: u32 = 1 << 20;
/// How far behind its group's mean a member drives at twice the pace (or
/// its own top speed, if lower), in lengths of the group's longest unit.
pub const BAND_LENGTHS: f32 = 4.0;

/// One group's sums over its members this tick.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    /// The slowest member's top speed.
    pace: f32,
    /// The longest member's length (twice its forward semi-axis).
    length: f32,
    /// Metres driven, summed over members on their way.
    driven: f32,
    /// Members on their way.
    moving: u32,
}

/// The stage's memory of groups: one tally per group id in use (resized
/// by orders and restores, never in the tick).
#[derive(Clone, Debug, Default)]
pub struct GroupPaces {
    tallies: Vec<Tally>,
}

impl GroupPaces {
    /// Room for group ids below `groups`.
    pub fn reserve(&mut self, groups: usize) {
        if self.tallies.len() < groups {
            self.tallies.resize(groups, Tally::default());
        }
    }

    /// Advances every grouped unit's odometer by its speed over `dt` and
    /// sets its speed limit (`cruise_speed`) from its group's pace. Units
    /// in a platoon, and group ids beyond the reserved ones, are left to
    /// the platoon or their own top speed.
    pub fn run(&mut self, vehicles: &mut Vehicles, dt: f32) {
        if self.tallies.is_empty() {
            return;
        }
        self.tallies.fill(Tally {
            pace: f32::INFINITY,
            ..Tally::default()
        });
        let columns = vehicles.columns_mut();
        for row in 0..columns.group.len() {
            let (group, platoon) = (columns.group[row], columns.platoon[row]);
            let Some(tally) = self.tallies.get_mut(group as usize).filter(|_| platoon == NONE) else {
                continue;
            };
            tally.pace = tally.pace.min(columns.max_speed[row]);
            tally.length = tally.length.max(2.0 * columns.shield[row].x);
            let on_way = columns.position[row].distance(columns.goal[row]) > ARRIVE_RADIUS
                && columns.route_pending[row] != PathState::NoPath as u8;
            if on_way {
                columns.group_odometer[row] += columns.velocity[row].length() * dt;
            }
            if on_way && columns.stalled_s[row] < STUCK_AFTER_S {
                tally.driven += columns.group_odometer[row];
                tally.moving += 1;
            }
        }
        for row in 0..columns.group.len() {
            let (group, platoon) = (columns.group[row], columns.platoon[row]);
            let Some(tally) = self.tallies.get(group as usize).filter(|_| platoon == NONE) else {
                continue;
            };
            let lead = match tally.moving {
                0 => 0.0,
                moving => columns.group_odometer[row] - tally.driven / moving as f32,
            };
            columns.cruise_speed[row] = banded_speed(tally.pace, tally.length, lead, columns.max_speed[row]);
        }
    }
}

/// A member's speed limit `lead` metres ahead of its group's mean (behind
/// when negative): the pace, more behind (up to its own `top_speed`).
fn banded_speed(pace: f32, length: f32, lead: f32, top_speed: f32) -> f32 {
    let band = (BAND_LENGTHS * length).max(ARRIVE_RADIUS);
    let factor = 1.0 + (-lead / band).max(0.0);
    (pace * factor).min(top_speed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_level_with_its_group_drives_at_the_pace() {
        assert_eq!(banded_speed(4.0, 6.0, 0.0, 10.0), 4.0);
    }

    #[test]
    fn a_member_ahead_keeps_the_pace() {
        assert_eq!(banded_speed(4.0, 6.0, 100.0, 10.0), 4.0);
    }

    #[test]
    fn a_member_behind_speeds_up_to_its_own_top_speed() {
        let (pace, length) = (4.0, 6.0);
        let band = BAND_LENGTHS * length;
        assert_eq!(banded_speed(pace, length, -band / 2.0, 10.0), 1.5 * pace);
        assert_eq!(banded_speed(pace, length, -10.0 * band, 10.0), 10.0);
    }
}
