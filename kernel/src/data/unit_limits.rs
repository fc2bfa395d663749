//! The ranges a unit's values must lie in, checked once at the boundary:
//! by [`UnitSpec::validate`](super::vehicles::UnitSpec::validate) when a
//! unit is spawned (and `UnitParams::validate` when its parameters change), and row by row when a
//! snapshot is restored (`sim::snapshot_values`), so a restored unit meets
//! the rules a spawned one does.
//!
//! Inside the ranges the tick's arithmetic stays finite: squared speeds,
//! distances across the map and yaw steps keep far from `f32::MAX`
//! (`kernel/tests/hostile_api_values.rs` runs any accepted spawn and order
//! for 60 ticks and checks every column).

use glam::Vec2;

use super::vehicles::SpawnError;

/// Positions, goals and altitudes lie within this many metres of 0 on each
/// axis (the maps' bound, [`crate::nav::MAX_COORDINATE`]).
pub const MAX_COORDINATE: f32 = crate::nav::MAX_COORDINATE as f32;
/// Largest top speed, metres per second.
pub const MAX_SPEED: f32 = 1.0e3;
/// Largest acceleration and braking, metres per second squared.
pub const MAX_ACCEL: f32 = 1.0e4;
/// Largest yaw rate, radians per second.
pub const MAX_TURN_RATE: f32 = 1.0e2;
/// Largest turning radius and shield semi-axis, metres.
pub const MAX_SIZE: f32 = 1.0e4;
/// Largest inverse mass.
pub const MAX_INV_MASS: f32 = 1.0e6;

/// The sign a field's value must have.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sign {
    /// Greater than 0.
    Positive,
    /// 0 or more.
    NotNegative,
    /// Either.
    Any,
}

/// `value` is finite.
pub(crate) fn finite(field: &'static str, value: f32) -> Result<(), SpawnError> {
    if value.is_finite() {
        Ok(())
    } else {
        Err(SpawnError::NotFinite { field, value })
    }
}

/// `value` is finite, has `sign` and a magnitude of at most `max`.
pub(crate) fn in_range(
    field: &'static str,
    value: f32,
    sign: Sign,
    max: f32,
) -> Result<(), SpawnError> {
    finite(field, value)?;
    if sign == Sign::Positive && value <= 0.0 {
        return Err(SpawnError::NotPositive { field, value });
    }
    if sign == Sign::NotNegative && value < 0.0 {
        return Err(SpawnError::Negative { field, value });
    }
    if value.abs() <= max {
        Ok(())
    } else {
        Err(SpawnError::TooLarge { field, value, max })
    }
}

/// Both coordinates of `point` within [`MAX_COORDINATE`] of 0; the error
/// names the axis's field, `fields[0]` (x) or `fields[1]` (y).
pub(crate) fn within_map(fields: [&'static str; 2], point: Vec2) -> Result<(), SpawnError> {
    in_range(fields[0], point.x, Sign::Any, MAX_COORDINATE)?;
    in_range(fields[1], point.y, Sign::Any, MAX_COORDINATE)
}

/// Whether `point` lies within [`MAX_COORDINATE`] of 0 on each axis (NaN
/// does not).
#[must_use]
pub(crate) fn on_map(point: Vec2) -> bool {
    point.abs().max_element() <= MAX_COORDINATE && point.is_finite()
}

/// The point of the map (within [`MAX_COORDINATE`] of 0 on each axis)
/// nearest `point`, a finite one.
#[must_use]
pub(crate) fn clamp_to_map(point: Vec2) -> Vec2 {
    point.clamp(Vec2::splat(-MAX_COORDINATE), Vec2::splat(MAX_COORDINATE))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::vehicles::{UnitSpec, VehicleKind};

    #[test]
    fn each_range_names_its_field_and_bounds() {
        let mut spec = UnitSpec::new(VehicleKind::Wheeled, Vec2::ZERO);
        spec.max_speed = 1e30;
        assert_eq!(
            spec.validate(),
            Err(SpawnError::TooLarge {
                field: "max_speed",
                value: 1e30,
                max: MAX_SPEED
            })
        );
        spec.max_speed = MAX_SPEED;
        assert_eq!(spec.validate(), Ok(()));
        spec.position.y = -2.0 * MAX_COORDINATE;
        let Err(SpawnError::TooLarge { field, .. }) = spec.validate() else {
            panic!("a position beyond MAX_COORDINATE is refused");
        };
        assert_eq!(field, "position.y");
        spec.position.y = 0.0;
        spec.turn_rate = -1.0;
        assert!(matches!(
            spec.validate(),
            Err(SpawnError::NotPositive {
                field: "turn_rate",
                ..
            })
        ));
        spec.turn_rate = 1.0;
        spec.inv_mass = -1.0;
        assert!(matches!(
            spec.validate(),
            Err(SpawnError::Negative {
                field: "inv_mass",
                ..
            })
        ));
    }

    #[test]
    fn on_map_refuses_nan_and_far_points() {
        assert!(on_map(Vec2::splat(MAX_COORDINATE)));
        assert!(!on_map(Vec2::new(f32::NAN, 0.0)));
        assert!(!on_map(Vec2::new(0.0, f32::MAX)));
    }
}
