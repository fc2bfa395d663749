//! The answer to a threat, one unit at a time: Force 21's blend of swerve
//! and brake, its stop rule and its side-by-side rule. The scalar twin of
//! `respond_lanes`, and its oracle in the tests.

use super::*;

/// How a unit answers a threat.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Response {
    /// Nothing to avoid.
    Clear,
    /// Steer with this velocity.
    Avoid(Vec2),
    /// Its drive-to point is too close to the threat: stop.
    Stop,
}

/// Force 21's response to `threat` for a unit (`me`, with its current
/// velocity) that wants `steering`. `destination` is its drive-to point
/// when that is where it means to stop (its goal, not a route corner): the
/// paper's stop rule is for units whose destinations are intertwined, and
/// at a route corner it would deadlock two units at a chokepoint.
#[must_use]
#[cfg(any(test, feature = "internals"))]
pub fn respond(
    me: &Mover,
    steering: Vec2,
    destination: Option<Vec2>,
    max_speed: f32,
    threat: Option<Threat>,
) -> Response {
    let Some(Threat { time, other }) = threat else {
        return Response::Clear;
    };
    let reach = me.bounding_radius + other.bounding_radius;
    if destination.is_some_and(|point| point.distance_squared(other.position) < reach * reach) {
        return Response::Stop;
    }
    let predicted = 0.5 * (me.velocity + steering);
    let ahead = predicted.try_normalize().unwrap_or(me.axis);
    let left = ahead.perp();
    let offset = other.position - me.position;
    let distance = offset.length();
    let (my_speed, their_speed) = (me.speed, other.speed);
    let side_by_side = ahead.dot(other.axis) > SIDE_BY_SIDE_COS
        && (my_speed - their_speed).abs() <= SIDE_BY_SIDE_SPEED * my_speed.max(their_speed);
    if side_by_side && offset.dot(left) > 0.0 {
        // I am on the right: speed up so the other passes behind.
        return Response::Avoid(
            (steering + ahead * (SPEED_UP_FRACTION * max_speed)).clamp_length_max(max_speed),
        );
    }
    // Turn away from where the threat will be; dead ahead, keep right.
    let at_closest = offset + (other.velocity - predicted) * time;
    let away = if at_closest.dot(left) > 0.0 {
        -left
    } else {
        left
    };
    let bearing = if distance > 0.0 {
        (offset.dot(ahead) / distance).max(0.0)
    } else {
        1.0
    };
    let lateral = away * (max_speed * (0.5 + 0.5 * bearing));
    // Products, not quotients: a division waits on the threat's time.
    let closeness = (1.0 - time * HORIZON_S.recip()).clamp(0.0, 1.0);
    let forward = -ahead * (steering.length() * closeness);
    let blend = ((HORIZON_S - time) * BLEND_S.recip()).min(1.0);
    Response::Avoid((steering + blend * lateral + forward).clamp_length_max(max_speed))
}
