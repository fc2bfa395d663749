//! Seek with arrival (Reynolds, "Steering Behaviors For Autonomous
//! Characters", GDC 1999): head straight for the drive-to point at top speed,
//! slowing so the unit can still stop there with its own acceleration.

use glam::Vec2;

use super::ARRIVE_RADIUS;
use crate::parallel::{count_rows, for_each_chunk};
use crate::vehicles::ColumnsMut;

/// The columns seek reads.
#[derive(Clone, Copy, Debug)]
pub struct SeekInput<'a> {
    /// Unit positions.
    pub position: &'a [Vec2],
    /// This tick's targets.
    pub drive_to: &'a [Vec2],
    /// Top speeds.
    pub max_speed: &'a [f32],
    /// Acceleration (and braking) limits.
    pub max_accel: &'a [f32],
}

/// The velocity one unit wants: toward `target`, no faster than it can stop.
#[must_use]
#[inline]
pub fn seek_velocity(position: Vec2, target: Vec2, max_speed: f32, max_accel: f32) -> Vec2 {
    let offset = target - position;
    let distance = offset.length();
    if distance <= ARRIVE_RADIUS {
        return Vec2::ZERO;
    }
    // v² = 2·a·d: the fastest speed from which braking stops at the target.
    let stopping_speed = (2.0 * max_accel * (distance - ARRIVE_RADIUS)).sqrt();
    offset * (max_speed.min(stopping_speed) / distance)
}

/// Writes every unit's desired velocity; returns how many have arrived.
pub fn seek(input: SeekInput<'_>, desired_velocity: &mut [Vec2]) -> usize {
    assert_eq!(
        input.position.len(),
        desired_velocity.len(),
        "column lengths differ"
    );
    for_each_chunk(desired_velocity, |first, rows| {
        for (offset, desired) in rows.iter_mut().enumerate() {
            let unit = first + offset;
            *desired = seek_velocity(
                input.position[unit],
                input.drive_to[unit],
                input.max_speed[unit],
                input.max_accel[unit],
            );
        }
    });
    count_rows(desired_velocity.len(), |unit| {
        desired_velocity[unit] == Vec2::ZERO
    })
}

/// [`seek`] over the vehicle columns it reads and writes: the `steering`
/// stage as `Sim::step` runs it.
pub fn seek_columns(columns: &mut ColumnsMut<'_>) -> usize {
    let input = SeekInput {
        position: columns.position,
        drive_to: columns.drive_to,
        max_speed: columns.max_speed,
        max_accel: columns.max_accel,
    };
    seek(input, columns.desired_velocity)
}
