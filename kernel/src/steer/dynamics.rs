//! Kinematic integration with speed and acceleration limits (semi-implicit
//! Euler: velocity first, then position with the new velocity).

use glam::Vec2;

use crate::parallel::{count_rows, for_each_chunk3};
use crate::vehicles::ColumnsMut;

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
    for_each_chunk3(
        position,
        velocity,
        heading,
        |first, positions, velocities, headings| {
            let rows = first..first + positions.len();
            let limits = input.desired_velocity[rows.clone()]
                .iter()
                .zip(&input.max_speed[rows.clone()])
                .zip(&input.max_accel[rows]);
            let state = positions
                .iter_mut()
                .zip(velocities.iter_mut())
                .zip(headings.iter_mut());
            for (((position, velocity), heading), ((&desired, &max_speed), &max_accel)) in
                state.zip(limits)
            {
                let new_velocity = limited_velocity(*velocity, desired, max_speed, max_accel, dt);
                // atan2 is the costliest line here: skip it while cruising.
                if new_velocity != *velocity
                    && new_velocity.length_squared() > HEADING_MIN_SPEED * HEADING_MIN_SPEED
                {
                    *heading = new_velocity.y.atan2(new_velocity.x);
                }
                *velocity = new_velocity;
                *position += new_velocity * dt;
            }
        },
    );
    count_rows(velocity.len(), |unit| velocity[unit] != Vec2::ZERO)
}

/// [`integrate`] over the vehicle columns it reads and writes: the
/// `integrate` stage as `Sim::step` runs it.
pub fn integrate_columns(columns: &mut ColumnsMut<'_>, dt: f32) -> usize {
    let input = DynamicsInput {
        desired_velocity: columns.desired_velocity,
        max_speed: columns.max_speed,
        max_accel: columns.max_accel,
    };
    let state = DynamicsState {
        position: columns.position,
        velocity: columns.velocity,
        heading: columns.heading,
    };
    integrate(input, state, dt)
}
