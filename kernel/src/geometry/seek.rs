//! Drive-to: Force 21's modified seek (Van Verth et al., "Formation-Based
//! Pathfinding With Real-World Vehicles", §5 "Drive-to position", after
//! Reynolds, "Steering Behaviors For Autonomous Characters", GDC 1999).
//!
//! The vector to the drive-to point gives the direction and the base speed
//! (its length). Within [`ARRIVE_RADIUS`] the vehicle has arrived; closer
//! than its top speed it brakes, and the speed is halved; otherwise the
//! speed is clamped to the top speed. One addition: the speed never exceeds
//! what the unit's own brakes can stop from before the arrival radius, so
//! slow-braking vehicles do not overshoot; nor, outside the radius, falls
//! below [`CREEP_SPEED`], so a unit does not stop a hair short of it.

use glam::Vec2;

/// Within this distance of its drive-to point a vehicle has arrived
/// (Force 21 §5: 2.5 m).
pub const ARRIVE_RADIUS: f32 = 2.5;

/// The slowest speed asked for outside the arrival radius, m/s: braking
/// to stop on the radius asks for less than `integrate` moves at (it
/// stops a unit asked for under 0.05 m/s) in the last fraction of a
/// millimetre, where a unit would otherwise stop for good.
pub const CREEP_SPEED: f32 = 0.2;

/// The velocity one unit wants toward `target`.
#[must_use]
#[inline]
pub fn drive_to_velocity(position: Vec2, target: Vec2, max_speed: f32, max_brake: f32) -> Vec2 {
    drive_to_velocity_within(position, target, max_speed, max_brake, ARRIVE_RADIUS)
}

/// [`drive_to_velocity`] for a unit that has arrived within `arrive_radius`.
#[must_use]
#[inline]
pub fn drive_to_velocity_within(
    position: Vec2,
    target: Vec2,
    max_speed: f32,
    max_brake: f32,
    arrive_radius: f32,
) -> Vec2 {
    let offset = target - position;
    let distance = offset.length();
    if distance.is_nan() || distance <= arrive_radius {
        return Vec2::ZERO;
    }
    let base = if distance < max_speed {
        0.5 * distance
    } else {
        max_speed
    };
    // v² = 2·b·d: the fastest speed from which braking stops in time.
    let stoppable = (2.0 * max_brake * (distance - arrive_radius)).sqrt();
    offset * (base.min(stoppable).max(base.min(CREEP_SPEED)) / distance)
}

/// How far ahead to put a drive-to point so that [`drive_to_velocity`] asks
/// for `speed` (m/s, below `max_speed`): the inverse of its speed rule. Where
/// the rule has no such distance — between half the top speed and the
/// fastest braking-limited speed beyond it — the distance for half the top
/// speed: a follower brakes early rather than late.
#[must_use]
#[inline]
pub fn distance_for_speed(speed: f32, max_speed: f32, max_brake: f32) -> f32 {
    // Braking-limited beyond the top speed: v² = 2·b·(d − arrival radius).
    let braking = speed * speed / (2.0 * max_brake) + ARRIVE_RADIUS;
    if braking >= max_speed {
        return braking;
    }
    // Halved below the top speed (never inside the arrival radius).
    (2.0 * speed)
        .min(max_speed * (1.0 - f32::EPSILON.sqrt()))
        .max(2.0 * ARRIVE_RADIUS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The distance gives the speed asked for where the rule can, and never
    /// more than asked (above the arrival radius's floor).
    #[test]
    fn the_distance_for_a_speed_inverts_the_speed_rule() {
        let (max_speed, max_brake) = (22.0, 8.0);
        for tenth in 26..220 {
            let speed = tenth as f32 / 10.0;
            let distance = distance_for_speed(speed, max_speed, max_brake);
            let got = drive_to_velocity(Vec2::ZERO, Vec2::new(distance, 0.0), max_speed, max_brake)
                .length();
            assert!(got <= speed * 1.001, "{speed} m/s asked, {got} given");
            let reachable = speed < 0.5 * max_speed || speed >= 17.7;
            if reachable {
                assert!(got >= speed * 0.999, "{speed} m/s asked, {got} given");
            } else {
                assert!(got >= 0.49 * max_speed, "{speed} m/s asked, {got} given");
            }
        }
    }

    #[test]
    fn far_targets_get_top_speed_near_ones_half_their_distance() {
        let far = drive_to_velocity(Vec2::ZERO, Vec2::new(100.0, 0.0), 10.0, 1e6);
        assert_eq!(far, Vec2::new(10.0, 0.0));
        let near = drive_to_velocity(Vec2::ZERO, Vec2::new(0.0, 8.0), 10.0, 1e6);
        assert!((near - Vec2::new(0.0, 4.0)).length() < 1e-5, "{near}");
    }

    #[test]
    fn within_the_arrival_radius_the_unit_has_arrived() {
        let there = drive_to_velocity(Vec2::ONE, Vec2::ONE + Vec2::splat(1.7), 10.0, 5.0);
        assert_eq!(there, Vec2::ZERO);
        assert_eq!(
            drive_to_velocity(Vec2::ONE, Vec2::ONE, 10.0, 5.0),
            Vec2::ZERO
        );
    }

    /// Just outside the radius braking alone asks for less than a unit
    /// moves at; the creep speed gets it in, never above its top speed.
    #[test]
    fn a_hair_outside_the_radius_a_unit_still_creeps_in() {
        let hair = Vec2::new(ARRIVE_RADIUS + 1e-4, 0.0);
        let wanted = drive_to_velocity(Vec2::ZERO, hair, 22.0, 8.0);
        assert!((wanted.length() - CREEP_SPEED).abs() < 1e-6, "{wanted}");
        let held = drive_to_velocity(Vec2::ZERO, hair, 0.0, 8.0);
        assert_eq!(held, Vec2::ZERO, "a unit held at 0 m/s does not creep");
        let slow = drive_to_velocity(Vec2::ZERO, hair, 0.1, 8.0);
        assert!(slow.length() <= 0.1, "{slow}");
    }

    #[test]
    fn speed_is_capped_by_the_braking_distance() {
        // 8 m from the arrival circle with 1 m/s² brakes: at most 4 m/s.
        let wanted = drive_to_velocity(Vec2::ZERO, Vec2::new(10.5, 0.0), 20.0, 1.0);
        assert!((wanted.length() - 4.0).abs() < 1e-5, "{wanted}");
    }
}
