//! Vehicle avoidance (Force 21 §5 "Avoid other vehicles", after Reynolds'
//! unaligned collision avoidance, "Steering Behaviors For Autonomous
//! Characters", GDC 1999).
//!
//! For the neighbours within a radius (from the spatial hash) compute the
//! time of nearest approach; of those closer in time than
//! [`HORIZON_S`] that would collide then, keep the soonest. The paper's
//! changes to Reynolds are all here:
//!
//! - the unit's own predicted velocity is the average of its current and
//!   desired velocity;
//! - bounding spheres cull, and swept spheres — each vehicle a capsule along
//!   its heading, radius its lateral half-width — decide;
//! - if the drive-to point is too close to the threat, the unit stops;
//! - (ours) a pair already moving apart is no threat: its nearest approach
//!   is past;
//! - two units side by side, same speed and heading: the one on the right
//!   speeds up so the other can pass behind;
//! - the blend `t = min((10 − minTime) / 5, 1)`,
//!   `steering += t · lateral + forward`, so units turn a little at a
//!   distance and more as the collision nears.
//!
//! Flying units and ground units at different heights ignore each other.

use glam::{Vec2, Vec3};

/// Threats further ahead in time than this are ignored, seconds (the
/// paper's 10 in its blend formula).
pub const HORIZON_S: f32 = 10.0;
/// The blend reaches full lateral avoidance this many seconds before
/// impact (the paper's divisor 5).
const BLEND_S: f32 = 5.0;
/// Side by side: headings within this cosine (about 15°)…
const SIDE_BY_SIDE_COS: f32 = 0.966;
/// …and speeds within this fraction of the faster one.
const SIDE_BY_SIDE_SPEED: f32 = 0.2;
/// The unit on the right speeds up by this fraction of its top speed.
const SPEED_UP_FRACTION: f32 = 0.25;
/// Capsules closer than this at nearest approach count as colliding, metres:
/// a margin for the turn and braking limits that delay the answer.
pub const CLEARANCE_M: f32 = 1.0;
/// Relative speed above which a pair moving apart is no threat, m/s.
const SEPARATING_SPEED: f32 = 0.1;

/// One vehicle as avoidance sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body {
    /// Ground-plane position.
    pub position: Vec2,
    /// Velocity used to predict where it goes.
    pub velocity: Vec2,
    /// Facing, radians (the hull axis when the unit stands still).
    pub heading: f32,
    /// Height above the ground.
    pub altitude: f32,
    /// Shield semi-axes (forward, lateral, vertical): the body's size.
    pub shield: Vec3,
}

impl Body {
    /// Unit vector along the hull. Vehicles move along their heading (or
    /// against it, reversing), and a capsule is symmetric, so a moving
    /// unit's axis is its velocity's direction: no trigonometry unless it
    /// stands still.
    #[must_use]
    #[inline]
    pub fn axis(&self) -> Vec2 {
        self.velocity
            .try_normalize()
            .unwrap_or_else(|| Vec2::from_angle(self.heading))
    }

    /// The body with its sizes and axis worked out, as the neighbour loop
    /// reads it.
    #[must_use]
    #[inline]
    pub fn mover(&self) -> Mover {
        Mover {
            position: self.position,
            velocity: self.velocity,
            axis: self.axis(),
            half_core: (self.shield.x - self.shield.y).max(0.0),
            bounding_radius: self.shield.x.max(self.shield.y),
            half_width: self.shield.y,
            altitude: self.altitude,
            half_height: self.shield.z,
        }
    }
}

/// A [`Body`] prepared once per tick for every test against it: the hull
/// axis (a square root, or a sine and cosine when standing still) and the
/// sizes derived from the shield.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Mover {
    /// Ground-plane position.
    pub position: Vec2,
    /// Velocity used to predict where it goes.
    pub velocity: Vec2,
    /// Unit vector along the hull ([`Body::axis`]).
    pub axis: Vec2,
    /// Half the capsule's core segment: forward minus lateral semi-axis,
    /// at least 0.
    pub half_core: f32,
    /// Radius of the culling sphere: the larger ground semi-axis.
    pub bounding_radius: f32,
    /// The capsule's radius: the lateral semi-axis.
    pub half_width: f32,
    /// Height above the ground.
    pub altitude: f32,
    /// The vertical semi-axis.
    pub half_height: f32,
}

impl Mover {
    /// Half the capsule's core segment, along the hull.
    #[inline]
    fn half_axis(&self) -> Vec2 {
        self.axis * self.half_core
    }

    /// Whether the two can meet at all: ground units never meet flyers.
    #[inline]
    fn shares_height_with(&self, other: &Mover) -> bool {
        (self.altitude - other.altitude).abs() < self.half_height + other.half_height
    }
}

/// The soonest predicted collision.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Threat<'a> {
    /// Time of nearest approach, seconds from now.
    pub time: f32,
    /// The other vehicle.
    pub other: &'a Mover,
}

/// Keeps the soonest colliding neighbour of `me` (whose `velocity` is the
/// predicted one) among those offered to [`ThreatSearch::consider`].
#[derive(Clone, Copy, Debug)]
pub struct ThreatSearch<'a> {
    me: Mover,
    my_half_axis: Vec2,
    /// The soonest threat's time, or [`HORIZON_S`] while there is none.
    soonest_time: f32,
    soonest: Option<&'a Mover>,
}

impl<'a> ThreatSearch<'a> {
    /// A search for `me`, predicted with the average of its current and
    /// desired velocity (Force 21's predictor).
    #[must_use]
    #[inline]
    pub fn new(me: &Mover, desired: Vec2) -> ThreatSearch<'a> {
        let mut me = *me;
        let my_half_axis = me.half_axis();
        me.velocity = 0.5 * (me.velocity + desired);
        ThreatSearch {
            me,
            my_half_axis,
            soonest_time: HORIZON_S,
            soonest: None,
        }
    }

    /// Tests one neighbour: the cheap tests first (time of nearest
    /// approach, bounding spheres, height), the capsules last.
    #[inline]
    pub fn consider(&mut self, other: &'a Mover) {
        let me = &self.me;
        let offset = other.position - me.position;
        let closing = other.velocity - me.velocity;
        let closing_sq = closing.length_squared();
        let approach = -offset.dot(closing);
        // Already moving apart: the nearest approach is behind them, so
        // this pair is no threat, however close (answering it would turn
        // the unit back toward the other, and the two would dither on the
        // edge of the capsule test for ever). Pairs keeping pace (side by
        // side) are still tested where they stand.
        if approach <= 0.0 && closing_sq > SEPARATING_SPEED * SEPARATING_SPEED {
            return;
        }
        let time = if closing_sq > 1e-12 {
            (approach / closing_sq).max(0.0)
        } else {
            0.0
        };
        if time >= self.soonest_time {
            return;
        }
        let reach = me.bounding_radius + other.bounding_radius + CLEARANCE_M;
        if (offset + closing * time).length_squared() > reach * reach
            || !me.shares_height_with(other)
        {
            return;
        }
        let mine = me.position + me.velocity * time;
        let theirs = other.position + other.velocity * time;
        let (my_half, their_half) = (self.my_half_axis, other.half_axis());
        let gap = segment_distance(
            (mine - my_half, mine + my_half),
            (theirs - their_half, theirs + their_half),
        );
        // The margin is for units closing in; neighbours keeping their
        // distance (nearest approach now) threaten only by touching.
        let margin = if time > 0.0 { CLEARANCE_M } else { 0.0 };
        if gap < me.half_width + other.half_width + margin {
            self.soonest_time = time;
            self.soonest = Some(other);
        }
    }

    /// The soonest threat found.
    #[must_use]
    #[inline]
    pub fn threat(&self) -> Option<Threat<'a>> {
        self.soonest.map(|other| Threat {
            time: self.soonest_time,
            other,
        })
    }
}

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
pub fn respond(
    me: &Mover,
    steering: Vec2,
    destination: Option<Vec2>,
    max_speed: f32,
    threat: Option<Threat<'_>>,
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
    let (my_speed, their_speed) = (me.velocity.length(), other.velocity.length());
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
    let closeness = (1.0 - time / HORIZON_S).clamp(0.0, 1.0);
    let forward = -ahead * (steering.length() * closeness);
    let blend = ((HORIZON_S - time) / BLEND_S).min(1.0);
    Response::Avoid((steering + blend * lateral + forward).clamp_length_max(max_speed))
}

/// The shortest distance between two segments in the plane: 0 if they
/// cross, else the shortest of the four distances from an end of one to the
/// other (in the plane the closest pair of two disjoint segments always
/// includes an end). Unlike the closed form for 3D (Ericson, *Real-Time
/// Collision Detection*, §5.1.9), this has no near-parallel case where
/// `f32` cancellation puts the closest point millimetres off.
#[must_use]
#[inline]
pub fn segment_distance(first: (Vec2, Vec2), second: (Vec2, Vec2)) -> f32 {
    if segments_cross(first, second) {
        return 0.0;
    }
    point_segment_distance(first.0, second)
        .min(point_segment_distance(first.1, second))
        .min(point_segment_distance(second.0, first))
        .min(point_segment_distance(second.1, first))
}

/// The distance from `point` to the segment `(a, b)`.
#[inline]
fn point_segment_distance(point: Vec2, (a, b): (Vec2, Vec2)) -> f32 {
    let along = b - a;
    let length_squared = along.length_squared();
    let t = if length_squared > 0.0 {
        ((point - a).dot(along) / length_squared).clamp(0.0, 1.0)
    } else {
        0.0
    };
    point.distance(a + along * t)
}

/// Whether the segments properly cross (each one's ends strictly on
/// either side of the other's line); touching ends are caught by the
/// point distances as 0.
#[inline]
fn segments_cross((p1, q1): (Vec2, Vec2), (p2, q2): (Vec2, Vec2)) -> bool {
    let side = |a: Vec2, b: Vec2, c: Vec2| (b - a).perp_dot(c - a);
    let (d1, d2) = (side(p2, q2, p1), side(p2, q2, q1));
    let (d3, d4) = (side(p1, q1, p2), side(p1, q1, q2));
    ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0))
        && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Brute force: the closest of many sampled point pairs.
    fn sampled_distance(first: (Vec2, Vec2), second: (Vec2, Vec2)) -> f32 {
        const STEPS: usize = 200;
        let mut best = f32::INFINITY;
        for i in 0..=STEPS {
            let a = first.0.lerp(first.1, i as f32 / STEPS as f32);
            for j in 0..=STEPS {
                let b = second.0.lerp(second.1, j as f32 / STEPS as f32);
                best = best.min(a.distance(b));
            }
        }
        best
    }

    fn point() -> impl Strategy<Value = Vec2> {
        (-10.0f32..10.0, -10.0f32..10.0).prop_map(|(x, y)| Vec2::new(x, y))
    }

    proptest! {
        #[test]
        fn segment_distance_matches_dense_sampling(a in point(), b in point(), c in point(), d in point()) {
            let exact = segment_distance((a, b), (c, d));
            let sampled = sampled_distance((a, b), (c, d));
            // Sampling overestimates by at most half a sample step.
            let step = (a.distance(b).max(c.distance(d))) / 200.0;
            prop_assert!(exact <= sampled + 1e-4, "exact {exact} > sampled {sampled}");
            prop_assert!(sampled - exact <= step + 1e-4, "exact {exact}, sampled {sampled}");
        }
    }

    fn tank(position: Vec2, heading: f32, speed: f32) -> Mover {
        Body {
            position,
            velocity: Vec2::from_angle(heading) * speed,
            heading,
            altitude: 0.0,
            shield: Vec3::new(4.0, 2.0, 1.5),
        }
        .mover()
    }

    #[test]
    fn head_on_threat_is_found_and_turned_away_from() {
        let me = tank(Vec2::ZERO, 0.0, 10.0);
        let other = tank(Vec2::new(60.0, 0.5), std::f32::consts::PI, 10.0);
        let mut search = ThreatSearch::new(&me, me.velocity);
        search.consider(&other);
        let threat = search.threat().expect("head-on pair collides");
        assert!((threat.time - 3.0).abs() < 0.1, "{threat:?}");
        let Response::Avoid(velocity) = respond(
            &me,
            me.velocity,
            Some(Vec2::new(500.0, 0.0)),
            12.0,
            Some(threat),
        ) else {
            panic!("expected avoidance");
        };
        // The threat passes slightly left: turn right and slow down.
        assert!(velocity.y < 0.0, "{velocity}");
        assert!(velocity.x < me.velocity.x, "{velocity}");
    }

    #[test]
    fn a_flyer_is_no_threat_to_a_tank_below() {
        let me = tank(Vec2::ZERO, 0.0, 10.0);
        let mut helicopter = tank(Vec2::new(30.0, 0.0), std::f32::consts::PI, 10.0);
        helicopter.altitude = 60.0;
        let mut search = ThreatSearch::new(&me, me.velocity);
        search.consider(&helicopter);
        assert_eq!(search.threat(), None);
    }

    #[test]
    fn parallel_units_a_lane_apart_are_no_threat() {
        let me = tank(Vec2::ZERO, 0.0, 10.0);
        let other = tank(Vec2::new(0.0, 5.0), 0.0, 10.0);
        let mut search = ThreatSearch::new(&me, me.velocity);
        search.consider(&other);
        assert_eq!(search.threat(), None);
    }

    #[test]
    fn the_right_unit_of_a_side_by_side_pair_speeds_up() {
        let me = tank(Vec2::ZERO, 0.0, 10.0);
        let other = tank(Vec2::new(0.0, 3.5), -0.05, 10.0);
        let threat = Threat {
            time: 0.5,
            other: &other,
        };
        let Response::Avoid(velocity) = respond(
            &me,
            me.velocity,
            Some(Vec2::new(500.0, 0.0)),
            12.0,
            Some(threat),
        ) else {
            panic!("expected avoidance");
        };
        assert!(velocity.x > me.velocity.x, "{velocity}");
        // Seen from the other side, it brakes or turns instead.
        let Response::Avoid(theirs) = respond(
            &other,
            other.velocity,
            Some(Vec2::new(500.0, 0.0)),
            12.0,
            Some(Threat {
                time: 0.5,
                other: &me,
            }),
        ) else {
            panic!("expected avoidance");
        };
        assert!(
            theirs.dot(Vec2::X) < other.velocity.dot(Vec2::X),
            "{theirs}"
        );
    }

    #[test]
    fn a_destination_next_to_the_threat_means_stop_but_a_route_corner_does_not() {
        let me = tank(Vec2::ZERO, 0.0, 10.0);
        let other = tank(Vec2::new(20.0, 0.0), 0.0, 0.0);
        let threat = Threat {
            time: 2.0,
            other: &other,
        };
        let near = Vec2::new(22.0, 1.0);
        let response = respond(&me, me.velocity, Some(near), 12.0, Some(threat));
        assert_eq!(response, Response::Stop);
        let passing = respond(&me, me.velocity, None, 12.0, Some(threat));
        assert!(matches!(passing, Response::Avoid(_)), "{passing:?}");
    }
}
