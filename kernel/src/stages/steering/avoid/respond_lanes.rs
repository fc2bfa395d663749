//! The answer to a threat for four units at once, in SIMD lanes: the same
//! arithmetic as `respond`, lane by lane.

use super::*;

/// One unit's [`respond`](fn@super::respond::respond) arguments.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Question {
    /// The unit, with its current velocity.
    pub me: Mover,
    /// The velocity it wants.
    pub steering: Vec2,
    /// Its drive-to point when it means to stop there.
    pub destination: Option<Vec2>,
    /// Its top speed.
    pub max_speed: f32,
    /// What it must answer.
    pub threat: Threat,
}

/// `glam`'s `clamp_length_max` in lanes.
#[inline]
pub(super) fn clamp_length_max((x, y): (Vec4, Vec4), max: Vec4) -> (Vec4, Vec4) {
    let length_sq = x * x + y * y;
    let over = length_sq.cmpgt(max * max);
    let length = length_sq.sqrt();
    (
        Vec4::select(over, max * (x / length), x),
        Vec4::select(over, max * (y / length), y),
    )
}

/// [`respond`](fn@super::respond::respond) for the first `count` (up to four) of `questions`, one per
/// SIMD lane, lane for lane the same arithmetic (the same answers; a test
/// checks): the square roots and divisions of four units overlap instead
/// of waiting on each other.
#[must_use]
pub fn respond_lanes(questions: &[Question; LANES], count: usize) -> [Response; LANES] {
    let lanes =
        |field: fn(&Question) -> f32| Vec4::from_array(questions.map(|question| field(&question)));
    let dot = |a: (Vec4, Vec4), b: (Vec4, Vec4)| a.0 * b.0 + a.1 * b.1;
    let (time, max_speed) = (lanes(|q| q.threat.time), lanes(|q| q.max_speed));
    let my_position = (lanes(|q| q.me.position.x), lanes(|q| q.me.position.y));
    let my_velocity = (lanes(|q| q.me.velocity.x), lanes(|q| q.me.velocity.y));
    let my_axis = (lanes(|q| q.me.axis.x), lanes(|q| q.me.axis.y));
    let their_position = (
        lanes(|q| q.threat.other.position.x),
        lanes(|q| q.threat.other.position.y),
    );
    let their_velocity = (
        lanes(|q| q.threat.other.velocity.x),
        lanes(|q| q.threat.other.velocity.y),
    );
    let their_axis = (
        lanes(|q| q.threat.other.axis.x),
        lanes(|q| q.threat.other.axis.y),
    );
    let steering = (lanes(|q| q.steering.x), lanes(|q| q.steering.y));
    // The stop rule (a NaN destination where there is none never passes).
    let reach = lanes(|q| q.me.bounding_radius) + lanes(|q| q.threat.other.bounding_radius);
    let destination = (
        lanes(|q| q.destination.map_or(f32::NAN, |point| point.x)),
        lanes(|q| q.destination.map_or(f32::NAN, |point| point.y)),
    );
    let to_destination = (
        destination.0 - their_position.0,
        destination.1 - their_position.1,
    );
    let stop = dot(to_destination, to_destination).cmplt(reach * reach);
    let predicted = (
        0.5 * (my_velocity.0 + steering.0),
        0.5 * (my_velocity.1 + steering.1),
    );
    // `try_normalize`, or the hull axis.
    let rcp = 1.0 / dot(predicted, predicted).sqrt();
    let normal = rcp.is_finite_mask() & rcp.cmpgt(Vec4::ZERO);
    let ahead = (
        Vec4::select(normal, predicted.0 * rcp, my_axis.0),
        Vec4::select(normal, predicted.1 * rcp, my_axis.1),
    );
    let left = (-ahead.1, ahead.0);
    let offset = (
        their_position.0 - my_position.0,
        their_position.1 - my_position.1,
    );
    let distance = dot(offset, offset).sqrt();
    let (my_speed, their_speed) = (lanes(|q| q.me.speed), lanes(|q| q.threat.other.speed));
    // `f32::max`: the other operand for NaN.
    let faster = Vec4::select(
        my_speed.cmpgt(their_speed) | their_speed.is_nan_mask(),
        my_speed,
        their_speed,
    );
    let side_by_side = dot(ahead, their_axis).cmpgt(Vec4::splat(SIDE_BY_SIDE_COS))
        & (my_speed - their_speed)
            .abs()
            .cmple(SIDE_BY_SIDE_SPEED * faster);
    let speed_up = side_by_side & dot(offset, left).cmpgt(Vec4::ZERO);
    let boost = SPEED_UP_FRACTION * max_speed;
    let faster_velocity = clamp_length_max(
        (steering.0 + ahead.0 * boost, steering.1 + ahead.1 * boost),
        max_speed,
    );
    let at_closest = (
        offset.0 + (their_velocity.0 - predicted.0) * time,
        offset.1 + (their_velocity.1 - predicted.1) * time,
    );
    let threat_left = dot(at_closest, left).cmpgt(Vec4::ZERO);
    let away = (
        Vec4::select(threat_left, -left.0, left.0),
        Vec4::select(threat_left, -left.1, left.1),
    );
    let cos_bearing = dot(offset, ahead) / distance;
    let bearing = Vec4::select(
        distance.cmpgt(Vec4::ZERO),
        Vec4::select(cos_bearing.cmpgt(Vec4::ZERO), cos_bearing, Vec4::ZERO),
        Vec4::ONE,
    );
    let sideways = max_speed * (0.5 + 0.5 * bearing);
    let lateral = (away.0 * sideways, away.1 * sideways);
    let closeness = (1.0 - time * HORIZON_S.recip()).clamp(Vec4::ZERO, Vec4::ONE);
    let braking = dot(steering, steering).sqrt() * closeness;
    let forward = (-ahead.0 * braking, -ahead.1 * braking);
    let blend = (HORIZON_S - time) * BLEND_S.recip();
    // `f32::min(blend, 1.0)`: 1 for NaN.
    let blend = Vec4::select(blend.cmplt(Vec4::ONE), blend, Vec4::ONE);
    let swerve = clamp_length_max(
        (
            steering.0 + blend * lateral.0 + forward.0,
            steering.1 + blend * lateral.1 + forward.1,
        ),
        max_speed,
    );
    let stop = stop.bitmask();
    let speed_up = speed_up.bitmask();
    let (faster_x, faster_y) = (faster_velocity.0.to_array(), faster_velocity.1.to_array());
    let (swerve_x, swerve_y) = (swerve.0.to_array(), swerve.1.to_array());
    std::array::from_fn(|lane| {
        if lane >= count {
            Response::Clear
        } else if stop & (1 << lane) != 0 {
            Response::Stop
        } else if speed_up & (1 << lane) != 0 {
            Response::Avoid(Vec2::new(faster_x[lane], faster_y[lane]))
        } else {
            Response::Avoid(Vec2::new(swerve_x[lane], swerve_y[lane]))
        }
    })
}
