//! The `integrate` step ([`super::dynamics::drive`]) for eight units at a
//! time, one per SIMD lane.
//!
//! Every one of Force 21's four cases is worked out in every lane and each
//! lane keeps its own without a branch: a unit's kind and case are as
//! unpredictable, row to row, as its neighbours. The arithmetic is `drive`'s
//! lane for lane, so the results are the same bits (a test checks). A group
//! with an angle `drive` would hand to libm or to `rem_euclid` — a heading
//! beyond [`REDUCTION_LIMIT`](super::angles::REDUCTION_LIMIT), an ordered
//! final heading beyond it, a difference of angles beyond ±3π — is refused,
//! and its units are driven one at a time.

use std::f32::consts::{PI, TAU};

use wide::f32x8;

use crate::geometry::angles::{atan2_lanes, direction_lanes};
use super::motion::{
    KEEP_BACKING_COS, REVERSE_SPEED_FRACTION, SHORT_REVERSE_FRACTION, SQUARE_OFF_COS,
    STOPPED_SPEED, TURN_FIRST_ANGLE,
};

/// Eight units' motion ([`super::dynamics::Motion`]), field by field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct MotionLanes {
    pub x: f32x8,
    pub y: f32x8,
    pub vx: f32x8,
    pub vy: f32x8,
    pub heading: f32x8,
}

/// Eight units' limits ([`super::dynamics::Limits`]), field by field.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LimitLanes {
    pub turns_in_place: f32x8,
    pub reverses: f32x8,
    pub flies: f32x8,
    pub max_speed: f32x8,
    pub max_accel: f32x8,
    pub max_brake: f32x8,
    pub turn_rate: f32x8,
    pub turn_radius: f32x8,
}

/// `f32::min` in lanes: the other operand where one is NaN.
#[inline]
fn min(a: f32x8, b: f32x8) -> f32x8 {
    (a.simd_lt(b) | b.is_nan()).select(a, b)
}

/// `f32::max` in lanes: the other operand where one is NaN.
#[inline]
fn max(a: f32x8, b: f32x8) -> f32x8 {
    (a.simd_gt(b) | b.is_nan()).select(a, b)
}

/// `f32::clamp` in lanes (for bounds in order).
#[inline]
fn clamp(value: f32x8, low: f32x8, high: f32x8) -> f32x8 {
    let raised = value.simd_lt(low).select(low, value);
    raised.simd_gt(high).select(high, raised)
}

/// [`super::dynamics::wrap_angle`] in lanes, for angles in `[−3π, 3π)`
/// (and NaN); `None` if a lane is outside.
#[inline]
fn wrap(angle: f32x8) -> Option<f32x8> {
    if angle.abs().simd_ge(f32x8::splat(3.0 * PI)).any() {
        return None;
    }
    let high = (angle.simd_ge(f32x8::splat(PI))).select(angle - TAU, angle);
    Some((angle.simd_lt(f32x8::splat(-PI))).select(angle + TAU, high))
}

/// What eight units aim for: signed speeds along headings.
struct AimLanes {
    speed: f32x8,
    heading: f32x8,
}

/// `dynamics::aim` in lanes; `forward` is `(cos, sin)` of the headings.
#[inline]
fn aim(
    motion: &MotionLanes,
    forward: (f32x8, f32x8),
    desired: (f32x8, f32x8),
    final_heading: f32x8,
    limits: &LimitLanes,
) -> Option<AimLanes> {
    let want_speed = (desired.0 * desired.0 + desired.1 * desired.1).sqrt();
    let stop = want_speed.is_nan() | want_speed.simd_le(f32x8::splat(STOPPED_SPEED));
    // Arrived (or told to stop): stop, then turn-in-place kinds face the
    // ordered final heading.
    let speed_now = (motion.vx * motion.vx + motion.vy * motion.vy).sqrt();
    let final_known = final_heading.is_finite();
    let face_final =
        limits.turns_in_place & speed_now.simd_lt(f32x8::splat(STOPPED_SPEED)) & final_known;
    let stop_heading = face_final.select(final_heading, motion.heading);
    let want_heading = atan2_lanes(desired.1, desired.0);
    // Cases 1 and 4 (goal ahead, outside a car's turning circle): forward,
    // slowing for sharp turns.
    let along = desired.0 * forward.0 + desired.1 * forward.1;
    let cos_off = along / want_speed;
    let sideways = (desired.0 * forward.1 - desired.1 * forward.0).abs();
    let backing = (motion.vx * forward.0 + motion.vy * forward.1).simd_lt(f32x8::ZERO);
    let square_off = backing.select(f32x8::splat(KEEP_BACKING_COS), f32x8::splat(SQUARE_OFF_COS));
    let inside_turning_circle = !limits.turns_in_place
        & limits.reverses
        & cos_off.simd_lt(square_off)
        & (desired.0 * desired.0 + desired.1 * desired.1).simd_lt(limits.turn_radius * sideways);
    let ahead = along.simd_ge(f32x8::ZERO) & !inside_turning_circle;
    let turn_first = limits.turns_in_place & cos_off.simd_lt(f32x8::splat(TURN_FIRST_ANGLE.cos()));
    let least_cos = limits
        .turns_in_place
        .select(f32x8::ZERO, f32x8::splat(SQUARE_OFF_COS));
    let ahead_speed = turn_first.select(f32x8::ZERO, want_speed * max(cos_off, least_cos));
    // Case 3, close goal nearly behind, facing kept on the heading backing
    // ends with: back straight up to it.
    let reverse_top = limits.max_speed * REVERSE_SPEED_FRACTION;
    let back_heading = wrap(want_heading + PI)?;
    let back = direction_lanes(back_heading)?;
    let facing = direction_lanes(final_known.select(final_heading, f32x8::ZERO))?;
    let facing_kept = final_known & (facing.0 * back.0 + facing.1 * back.1).simd_ge(f32x8::ZERO);
    let nearly_behind = limits.flies
        | (back.0 * forward.0 + back.1 * forward.1).simd_ge(f32x8::splat(TURN_FIRST_ANGLE.cos()));
    let back_up = limits.reverses
        & want_speed.simd_lt(SHORT_REVERSE_FRACTION * limits.max_speed)
        & nearly_behind
        & facing_kept;
    let off = wrap(back_heading - motion.heading)?;
    let off_cos = direction_lanes(off)?.0;
    let back_speed = -min(want_speed, reverse_top) * max(off_cos, f32x8::ZERO);
    // Case 2, and case 3 far away: turn toward the goal — in place, in a
    // three-point turn, or in a wide forward arc.
    let turn_speed = limits.turns_in_place.select(
        f32x8::ZERO,
        limits.reverses.select(-reverse_top, 0.5 * want_speed),
    );
    let moving_speed = ahead.select(ahead_speed, back_up.select(back_speed, turn_speed));
    let moving_heading = (!ahead & back_up).select(back_heading, want_heading);
    Some(AimLanes {
        speed: stop.select(f32x8::ZERO, moving_speed),
        heading: stop.select(stop_heading, moving_heading),
    })
}

/// [`super::dynamics::drive`] for eight units: the same bits, or `None` for
/// a group it must drive one at a time (see the module docs).
#[inline]
pub(crate) fn drive_lanes(
    motion: &MotionLanes,
    desired: (f32x8, f32x8),
    final_heading: f32x8,
    limits: &LimitLanes,
    dt: f32,
) -> Option<MotionLanes> {
    let forward = direction_lanes(motion.heading)?;
    let aim = aim(motion, forward, desired, final_heading, limits)?;
    let speed = motion.vx * forward.0 + motion.vy * forward.1;
    let target = clamp(
        aim.speed,
        -limits.max_speed * REVERSE_SPEED_FRACTION,
        limits.max_speed,
    );
    let speeding_up = target.abs().simd_gt(speed.abs()) & (target * speed).simd_ge(f32x8::ZERO);
    let rate = speeding_up.select(limits.max_accel, limits.max_brake);
    let new_speed = speed + clamp(target - speed, -rate * dt, rate * dt);
    let radius_bound = !limits.turns_in_place & limits.turn_radius.simd_gt(f32x8::ZERO);
    let yaw_limit = radius_bound.select(
        min(limits.turn_rate, new_speed.abs() / limits.turn_radius),
        limits.turn_rate,
    );
    let turn = clamp(
        wrap(aim.heading - motion.heading)?,
        -yaw_limit * dt,
        yaw_limit * dt,
    );
    let heading = wrap(motion.heading + turn)?;
    // Cruising straight keeps the direction it has.
    let turned = direction_lanes(heading)?;
    let straight = turn.simd_eq(f32x8::ZERO);
    let vx = straight.select(forward.0, turned.0) * new_speed;
    let vy = straight.select(forward.1, turned.1) * new_speed;
    Some(MotionLanes {
        x: motion.x + vx * dt,
        y: motion.y + vy * dt,
        vx,
        vy,
        heading,
    })
}

#[cfg(test)]
mod tests {
    use glam::Vec2;
    use proptest::prelude::*;

    use super::*;
    use crate::stages::integrate::dynamics::drive;
    use crate::stages::integrate::motion::{Limits, Motion};
    use crate::data::vehicles::VehicleKind;

    /// One unit's inputs: motion, desired velocity, final heading, limits.
    type Unit = (Motion, Vec2, f32, Limits);

    fn unit() -> impl Strategy<Value = Unit> {
        let kind = prop::sample::select(VehicleKind::ALL.to_vec());
        (
            (-500.0f32..500.0, -500.0f32..500.0),
            (-PI..PI, -30.0f32..30.0),
            prop_oneof![
                (-40.0f32..40.0, -40.0f32..40.0).prop_map(|(x, y)| Vec2::new(x, y)),
                Just(Vec2::ZERO),
                (-0.05f32..0.05).prop_map(|x| Vec2::new(x, 0.0)),
            ],
            prop_oneof![2 => Just(f32::NAN), 6 => -PI..PI, 1 => -20.0f32..20.0],
            kind,
            (
                1.0f32..80.0,
                1.0f32..10.0,
                1.0f32..12.0,
                0.2f32..6.0,
                0.0f32..40.0,
            ),
        )
            .prop_map(
                |((x, y), (heading, speed), desired, final_heading, kind, limits)| {
                    let (max_speed, max_accel, max_brake, turn_rate, turn_radius) = limits;
                    // A unit moves along its heading, sometimes backwards,
                    // sometimes not at all.
                    let speed = if speed.abs() < 5.0 { 0.0 } else { speed };
                    let motion = Motion {
                        position: Vec2::new(x, y),
                        velocity: Vec2::from_angle(heading) * speed,
                        heading,
                    };
                    let limits = Limits {
                        handling: kind.handling(),
                        max_speed,
                        max_accel,
                        max_brake,
                        turn_rate,
                        turn_radius,
                    };
                    (motion, desired, final_heading, limits)
                },
            )
    }

    fn same_bits(a: f32, b: f32) -> bool {
        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
    }

    proptest! {
        /// Eight units in lanes end exactly where `drive` puts each, every
        /// kind in every case; headings within a turn are never refused (final
        /// headings of several turns may be).
        #[test]
        fn lanes_drive_each_unit_as_drive_does(units in prop::array::uniform8(unit())) {
            let dt = 1.0 / 60.0;
            let lanes = |field: fn(&Unit) -> f32| f32x8::new(units.map(|unit| field(&unit)));
            let flags = |flag: fn(&Limits) -> bool| {
                f32x8::new(units.map(|unit| if flag(&unit.3) { 1.0 } else { 0.0 }))
                    .simd_ne(f32x8::ZERO)
            };
            let motion = MotionLanes {
                x: lanes(|unit| unit.0.position.x),
                y: lanes(|unit| unit.0.position.y),
                vx: lanes(|unit| unit.0.velocity.x),
                vy: lanes(|unit| unit.0.velocity.y),
                heading: lanes(|unit| unit.0.heading),
            };
            let limits = LimitLanes {
                turns_in_place: flags(|limits| limits.handling.turns_in_place),
                reverses: flags(|limits| limits.handling.reverses),
                flies: flags(|limits| limits.handling.flies),
                max_speed: lanes(|unit| unit.3.max_speed),
                max_accel: lanes(|unit| unit.3.max_accel),
                max_brake: lanes(|unit| unit.3.max_brake),
                turn_rate: lanes(|unit| unit.3.turn_rate),
                turn_radius: lanes(|unit| unit.3.turn_radius),
            };
            let desired = (lanes(|unit| unit.1.x), lanes(|unit| unit.1.y));
            let next = drive_lanes(&motion, desired, lanes(|unit| unit.2), &limits, dt);
            let wound = units.iter().any(|unit| unit.2.abs() > PI);
            prop_assert!(next.is_some() || wound, "headings within a turn are driven in lanes");
            let Some(next) = next else {
                return Ok(());
            };
            let [x, y, vx, vy, heading] = [next.x, next.y, next.vx, next.vy, next.heading].map(f32x8::to_array);
            for (lane, (motion, desired, final_heading, limits)) in units.into_iter().enumerate() {
                let expected = drive(motion, desired, final_heading, &limits, dt);
                prop_assert!(same_bits(x[lane], expected.position.x), "lane {lane}: x {} vs {expected:?}", x[lane]);
                prop_assert!(same_bits(y[lane], expected.position.y), "lane {lane}: y {} vs {expected:?}", y[lane]);
                prop_assert!(same_bits(vx[lane], expected.velocity.x), "lane {lane}: vx {} vs {expected:?}", vx[lane]);
                prop_assert!(same_bits(vy[lane], expected.velocity.y), "lane {lane}: vy {} vs {expected:?}", vy[lane]);
                prop_assert!(same_bits(heading[lane], expected.heading), "lane {lane}: heading {} vs {expected:?}", heading[lane]);
            }
        }
    }

    #[test]
    fn a_heading_beyond_the_reduction_range_is_refused() {
        let motion = MotionLanes {
            x: f32x8::ZERO,
            y: f32x8::ZERO,
            vx: f32x8::ZERO,
            vy: f32x8::ZERO,
            heading: f32x8::new([0.0, 1.0, 1e6, 2.0, 0.5, -1.0, 3.0, 0.0]),
        };
        let every_lane = f32x8::ZERO.simd_eq(f32x8::ZERO);
        let limits = LimitLanes {
            turns_in_place: every_lane,
            reverses: every_lane,
            flies: every_lane,
            max_speed: f32x8::splat(10.0),
            max_accel: f32x8::splat(3.0),
            max_brake: f32x8::splat(6.0),
            turn_rate: f32x8::ONE,
            turn_radius: f32x8::ZERO,
        };
        let desired = (f32x8::ONE, f32x8::ONE);
        let refused = drive_lanes(&motion, desired, f32x8::splat(f32::NAN), &limits, 0.1);
        assert_eq!(refused, None);
    }
}
