//! Platoons and formations: the `formations` stage.
//!
//! A unit in no platoon drives straight at its own goal. Platoon movement
//! (Force 21 §4, Company of Heroes squad formations) writes formation slots
//! here; until it lands every unit is its own leader.

use glam::Vec2;

use crate::parallel::for_each_chunk;
use crate::vehicles::NONE;

/// Writes each unit's drive-to point for this tick; returns how many units
/// are in no platoon.
pub fn assign_drive_to(goal: &[Vec2], platoon: &[u32], drive_to: &mut [Vec2]) -> usize {
    assert_eq!(
        goal.len(),
        drive_to.len(),
        "goal and drive_to columns differ in length"
    );
    for_each_chunk(drive_to, |first, rows| {
        let goals = &goal[first..first + rows.len()];
        let platoons = &platoon[first..first + rows.len()];
        for ((target, &goal), &platoon) in rows.iter_mut().zip(goals).zip(platoons) {
            if platoon == NONE {
                *target = goal;
            }
        }
    });
    platoon.iter().filter(|&&p| p == NONE).count()
}
