//! Kinematic integration with speed and acceleration limits (semi-implicit
//! Euler: velocity first, then position with the new velocity).

use glam::Vec2;

use crate::parallel::{count_rows, for_each_chunk};

/// Below this speed a unit keeps its heading (no facing jitter at rest).
const HEADING_MIN_SPEED: f32 = 1e-3;

/// The columns integrate reads.
#[derive(Clone, Copy, Debug)]
pub struct DynamicsInput<'a> {
    /// Steering's output.
    pub desired_velocity: &'a [Vec2],
    /// Top speeds.
    pub max_speed: &'a [f32],
    /// Acceleration limits.
    pub max_accel: &'a [f32],
}

/// The columns integrate writes.
#[derive(Debug)]
pub struct DynamicsState<'a> {
    /// Ground-plane positions.
    pub position: &'a mut [Vec2],
    /// Ground-plane velocities.
    pub velocity: &'a mut [Vec2],
    /// Facings.
    pub heading: &'a mut [f32],
}

/// One unit's new velocity: toward `desired`, changed by at most
/// `max_accel · dt`, no faster than `max_speed`.
#[must_use]
#[inline]
pub fn limited_velocity(
    velocity: Vec2,
    desired: Vec2,
    max_speed: f32,
    max_accel: f32,
    dt: f32,
) -> Vec2 {
    let change = (desired - velocity).clamp_length_max(max_accel * dt);
    (velocity + change).clamp_length_max(max_speed)
}

/// Advances every unit by `dt` seconds; returns how many are moving.
pub fn integrate(input: DynamicsInput<'_>, state: DynamicsState<'_>, dt: f32) -> usize {
    let DynamicsState {
        position,
        velocity,
        heading,
    } = state;
    assert!(
        dt > 0.0 && dt.is_finite(),
        "dt must be positive and finite, was {dt}"
    );
    assert_eq!(position.len(), velocity.len(), "column lengths differ");
    for_each_chunk(velocity, |first, rows| {
        for (offset, velocity) in rows.iter_mut().enumerate() {
            let unit = first + offset;
            *velocity = limited_velocity(
                *velocity,
                input.desired_velocity[unit],
                input.max_speed[unit],
                input.max_accel[unit],
                dt,
            );
        }
    });
    let velocity = &*velocity;
    for_each_chunk(position, |first, rows| {
        for (offset, position) in rows.iter_mut().enumerate() {
            *position += velocity[first + offset] * dt;
        }
    });
    for_each_chunk(heading, |first, rows| {
        for (offset, heading) in rows.iter_mut().enumerate() {
            let v = velocity[first + offset];
            if v.length_squared() > HEADING_MIN_SPEED * HEADING_MIN_SPEED {
                *heading = v.y.atan2(v.x);
            }
        }
    });
    count_rows(velocity.len(), |unit| velocity[unit] != Vec2::ZERO)
}
