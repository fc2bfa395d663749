//! What `integrate` knows of a unit's motion: its state ([`Motion`]), its
//! kind's limits ([`Limits`]) and the thresholds of the Force 21 heading
//! cases.

use std::f32::consts::FRAC_PI_4;

use glam::Vec2;

use crate::data::vehicles::Handling;

/// Reverse gear's top speed as a fraction of the forward one.
pub const REVERSE_SPEED_FRACTION: f32 = 1.0 / 3.0;
/// A turn-in-place kind first turns on the spot when the goal is this far
/// off its heading (radians).
pub(crate) const TURN_FIRST_ANGLE: f32 = FRAC_PI_4;
/// The cosine of 75°: a car whose goal is at least that far off its
/// heading and inside its turning circle backs up (forward it would move
/// at the cosine of the angle, too slowly to turn, and never reach the
/// goal), and one driving forward never asks for less than this fraction
/// of its wish. A literal, not `cos()`: the same bits on every platform.
pub(crate) const SQUARE_OFF_COS: f32 = 0.258_819_04;
/// The cosine of 60°: a car backing away from a goal inside its turning
/// circle keeps backing until the goal is within 60° of its heading.
pub(crate) const KEEP_BACKING_COS: f32 = 0.5;
/// Below this speed a unit counts as stopped, m/s.
pub const STOPPED_SPEED: f32 = 0.05;
/// Case 3 backs straight up only when the desired speed is below this
/// fraction of top speed, i.e. when the goal is within about a second.
pub(crate) const SHORT_REVERSE_FRACTION: f32 = 0.5;
/// One unit's motion state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Motion {
    /// Ground-plane position, metres.
    pub position: Vec2,
    /// Ground-plane velocity, metres per second (always along the heading,
    /// or against it when reversing).
    pub velocity: Vec2,
    /// Facing, radians from +x.
    pub heading: f32,
}

/// One unit's limits, from its columns and kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// What the kind can do.
    pub handling: Handling,
    /// Top forward speed, m/s.
    pub max_speed: f32,
    /// Largest speed gain, m/s².
    pub max_accel: f32,
    /// Largest speed loss, m/s².
    pub max_brake: f32,
    /// Largest yaw rate, rad/s.
    pub turn_rate: f32,
    /// Minimum turn radius for kinds that cannot turn in place, metres.
    pub turn_radius: f32,
}
