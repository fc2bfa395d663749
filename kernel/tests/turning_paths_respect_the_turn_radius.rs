//! Turning-radius paths (Smith, GDC 2002): every curve is continuous, has a
//! continuous heading, never turns tighter than the vehicle's radius, starts
//! and ends where the polyline does, and matches closed-form lengths.

use std::f32::consts::{FRAC_1_SQRT_2, FRAC_PI_2, PI, TAU};

use convoy::glam::Vec2;
use convoy::nav::turning::{CornerCurve, MERGE_DISTANCE, Segment, TurningPath, TurningPathError};
use proptest::prelude::*;

/// Consecutive segments must share endpoints this closely (metres).
const JOIN_TOLERANCE: f32 = 1e-3;
/// Headings must agree this closely at joins (radians).
const HEADING_TOLERANCE: f32 = 1e-3;

fn angle_between(a: Vec2, b: Vec2) -> f32 {
    a.perp_dot(b).atan2(a.dot(b)).abs()
}

fn line_direction(from: Vec2, to: Vec2) -> Vec2 {
    (to - from).normalize()
}

/// The point where a line meets its neighbouring arc, and the line's direction.
fn line_end_toward(segment: &Segment, at_end: bool) -> Option<(Vec2, Vec2)> {
    match *segment {
        Segment::Line { from, to } => {
            Some((if at_end { to } else { from }, line_direction(from, to)))
        }
        Segment::Arc { .. } => None,
    }
}

fn arc_centre_radius(segment: &Segment) -> Option<(Vec2, f32)> {
    match *segment {
        Segment::Arc { centre, radius, .. } => Some((centre, radius)),
        Segment::Line { .. } => None,
    }
}

/// A straight meeting an arc must touch the circle (distance to the centre is
/// the radius) and run perpendicular to the radius there.
fn assert_tangent(line_end: Vec2, line_dir: Vec2, centre: Vec2, radius: f32) {
    let radial = line_end - centre;
    assert!(
        (radial.length() - radius).abs() <= JOIN_TOLERANCE,
        "straight ends {} from the centre of an arc of radius {radius}",
        radial.length()
    );
    let cosine = line_dir.dot(radial / radial.length());
    assert!(
        cosine.abs() <= HEADING_TOLERANCE,
        "straight meets its arc at cos {cosine} to the radius"
    );
}

/// Sampled curvature: the chord through points `step` apart along the path
/// (from `point_at`) never turns by more than `step / radius` per step, i.e.
/// the curvature never exceeds 1/radius. On a circle of that radius the chord
/// turns by exactly `step / radius`; straights and joins of tangent pieces
/// turn it less, anything tighter more.
fn assert_sampled_curvature_at_most(path: &TurningPath, radius: f32, scale: f32) {
    let step = radius / 8.0;
    let steps = (path.length() / step).floor() as usize;
    let at = |i: usize| path.point_at(i as f32 * step).expect("non-empty").position;
    // Positions carry f32 rounding of the coordinates' magnitude; a chord of
    // length `step` turns by up to ~2·noise/step from that alone.
    let noise = 16.0 * f32::EPSILON * (scale + radius);
    let allowed = step / radius * 1.01 + 4.0 * noise / step;
    for i in 0..steps.saturating_sub(1) {
        let (a, b, c) = (at(i), at(i + 1), at(i + 2));
        let turn = angle_between(b - a, c - b);
        assert!(
            turn <= allowed,
            "chord turns {turn} rad over {step} m at {} m (a circle of radius {radius} turns {})",
            i as f32 * step,
            step / radius
        );
    }
}

/// Every property a turning path must have, checked against the polyline's
/// ends and the vehicle's radius.
fn assert_valid_curve(path: &TurningPath, first: Vec2, last: Vec2, radius: f32) {
    let segments = path.segments();
    assert!(!segments.is_empty(), "a built path has segments");
    let scale =
        first.abs().max_element().max(last.abs().max_element()) + 2.0 * radius + path.length();

    assert!(
        segments[0].start().position.distance(first) <= JOIN_TOLERANCE,
        "starts at the first point"
    );
    let end = segments[segments.len() - 1].end().position;
    assert!(
        end.distance(last) <= JOIN_TOLERANCE,
        "ends at the last point, not {end}"
    );

    for segment in segments {
        assert!(
            segment.length() > 0.0 && segment.length().is_finite(),
            "{segment:?}"
        );
        if let Segment::Arc {
            radius: arc_radius,
            sweep,
            ..
        } = *segment
        {
            assert!(
                arc_radius >= radius,
                "arc of radius {arc_radius} below the vehicle's {radius}"
            );
            assert!(
                sweep.abs() < TAU,
                "an arc never turns a full circle: {sweep}"
            );
        }
    }

    for pair in segments.windows(2) {
        let (end, start) = (pair[0].end(), pair[1].start());
        assert!(
            end.position.distance(start.position) <= JOIN_TOLERANCE,
            "gap of {} m between {:?} and {:?}",
            end.position.distance(start.position),
            pair[0],
            pair[1]
        );
        let kink = angle_between(end.direction, start.direction);
        assert!(
            kink <= HEADING_TOLERANCE,
            "heading jumps {kink} rad between {:?} and {:?}",
            pair[0],
            pair[1]
        );
        if let (Some((joint, dir)), Some((centre, r))) =
            (line_end_toward(&pair[0], true), arc_centre_radius(&pair[1]))
        {
            assert_tangent(joint, dir, centre, r);
        }
        if let (Some((centre, r)), Some((joint, dir))) = (
            arc_centre_radius(&pair[0]),
            line_end_toward(&pair[1], false),
        ) {
            assert_tangent(joint, dir, centre, r);
        }
    }

    let summed: f32 = segments.iter().map(Segment::length).sum();
    assert!(
        (path.length() - summed).abs() <= 1e-4 * summed.max(1.0),
        "length {} vs {summed}",
        path.length()
    );

    let start = path.point_at(-1.0).expect("non-empty");
    assert!(
        start.position.distance(first) <= JOIN_TOLERANCE,
        "point_at clamps below 0"
    );
    let finish = path.point_at(path.length() + 1.0).expect("non-empty");
    assert!(
        finish.position.distance(last) <= JOIN_TOLERANCE,
        "point_at clamps beyond the end"
    );

    assert_directions_match_positions(path, radius, scale);
    assert_sampled_curvature_at_most(path, radius, scale);
}

/// `point_at`'s direction is the derivative of its position: central
/// differences, exact within one circle or line by symmetry; straddling a
/// join of a line and an arc they lean by at most h/(2r).
fn assert_directions_match_positions(path: &TurningPath, radius: f32, scale: f32) {
    let h = radius / 20.0;
    let noise = 16.0 * f32::EPSILON * scale;
    let tolerance = h / (2.0 * radius) + 4.0 * noise / h;
    let count = 97;
    for i in 1..count - 1 {
        let d = path.length() * i as f32 / (count - 1) as f32;
        if d < h || d > path.length() - h {
            continue;
        }
        let p = path.point_at(d).expect("non-empty");
        assert!(
            p.direction.is_finite() && (p.direction.length() - 1.0).abs() < 1e-4,
            "{p:?}"
        );
        let ahead = path.point_at(d + h).expect("non-empty").position;
        let behind = path.point_at(d - h).expect("non-empty").position;
        let error = angle_between(ahead - behind, p.direction);
        assert!(error <= tolerance, "direction off by {error} rad at {d} m");
    }
}

#[derive(Debug, Clone)]
enum Step {
    /// A random point.
    To(Vec2),
    /// The previous point again.
    Repeat,
    /// Back along the last leg by this fraction of it: a U-turn corner.
    Back(f32),
    /// On along the last leg by this fraction of it: a straight corner.
    Ahead(f32),
}

fn coordinate() -> impl Strategy<Value = Vec2> {
    (-100.0f32..100.0, -100.0f32..100.0).prop_map(|(x, y)| Vec2::new(x, y))
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => coordinate().prop_map(Step::To),
        1 => Just(Step::Repeat),
        1 => (0.1f32..2.0).prop_map(Step::Back),
        1 => (0.1f32..2.0).prop_map(Step::Ahead),
    ]
}

/// Random polylines with repeated points, U-turns and straight corners.
fn polyline() -> impl Strategy<Value = Vec<Vec2>> {
    (coordinate(), proptest::collection::vec(step(), 1..10)).prop_map(|(start, steps)| {
        let mut points = vec![start];
        for step in steps {
            let last = points[points.len() - 1];
            let leg = points
                .iter()
                .rev()
                .find(|&&p| p.distance(last) >= MERGE_DISTANCE)
                .map_or(Vec2::new(10.0, 0.0), |&before| last - before);
            points.push(match step {
                Step::To(p) => p,
                Step::Repeat => last,
                Step::Back(t) => last - leg * t,
                Step::Ahead(t) => last + leg * t,
            });
        }
        points
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_polylines_give_smooth_curves_no_tighter_than_the_radius(
        points in polyline(),
        // Cramped (most corners too tight), ordinary and wide polylines.
        scale in prop_oneof![Just(0.05f32), Just(1.0), Just(10.0)],
        radius in 0.5f32..30.0,
    ) {
        let points: Vec<Vec2> = points.into_iter().map(|p| p * scale).collect();
        let first = points[0];
        let last = points[points.len() - 1];
        match TurningPath::build(&points, radius) {
            Ok(path) => assert_valid_curve(&path, first, last, radius),
            Err(TurningPathError::TooFewPoints { .. } | TurningPathError::NoFeasibleCurve { .. }) => {
                // Only when the path ends where it starts (up to merged repeats).
                let merged = points.len() as f32 * MERGE_DISTANCE;
                prop_assert!(first.distance(last) < merged, "refused a path from {first} to {last}");
            }
            Err(error) => prop_assert!(false, "unexpected error: {error}"),
        }
    }

    /// A follower builds one corner at a time from the corner and two
    /// neighbours each side: the pieces equal the whole path's around that
    /// corner, and points of the path lie on them.
    #[test]
    fn one_corner_from_its_neighbours_is_that_corner_of_the_whole_path(
        points in proptest::collection::vec(coordinate(), 3..9),
        radius in 0.5f32..30.0,
    ) {
        let Ok(path) = TurningPath::build(&points, radius) else {
            return Ok(());
        };
        let corners = points.len() - 2;
        // Only paths keeping every corner, each with its arc.
        prop_assume!(path.skipped_corners().is_empty());
        prop_assume!(path.segments().len() == 2 * corners + 1);
        for corner in 1..=corners {
            let first = corner.saturating_sub(2);
            let last = (corner + 2).min(points.len() - 1);
            let near = &points[first..=last];
            let local = CornerCurve::around(near, corner - first, radius).expect("a kept corner");
            let whole = &path.segments()[2 * (corner - 1)..2 * corner + 1];
            for (piece, segment) in local.pieces.iter().zip(whole) {
                for fraction in [0.0, 0.5, 1.0] {
                    let (a, b) = (
                        piece.point_at(fraction * piece.length()).position,
                        segment.point_at(fraction * segment.length()).position,
                    );
                    prop_assert!(a.distance(b) <= 1e-3 * (1.0 + radius), "{a} vs {b}");
                }
            }
            let arc_middle = whole[1].point_at(0.5 * whole[1].length()).position;
            let located = local.locate(arc_middle);
            prop_assert_eq!(located.piece, 1);
            prop_assert!(located.off <= 1e-3 * (1.0 + radius));
            let along = local.arc_start() + 0.5 * whole[1].length();
            prop_assert!((located.along - along).abs() <= 1e-3 * (1.0 + radius));
        }
    }

    #[test]
    fn a_straight_polyline_stays_straight(
        start in coordinate(),
        angle in -PI..PI,
        gaps in proptest::collection::vec(0.01f32..50.0, 1..8),
        radius in 0.5f32..30.0,
    ) {
        let direction = Vec2::from_angle(angle);
        let mut travelled = 0.0;
        let mut points = vec![start];
        for gap in gaps {
            travelled += gap;
            points.push(start + direction * travelled);
        }
        let polyline_length: f32 = points.windows(2).map(|w| w[0].distance(w[1])).sum();
        let path = TurningPath::build(&points, radius).expect("a straight path builds");
        prop_assert!(path.skipped_corners().is_empty());
        for segment in path.segments() {
            let Segment::Line { from, to } = *segment else {
                return Err(TestCaseError::fail(format!("an arc on a straight path: {segment:?}")));
            };
            prop_assert!(angle_between(to - from, direction) < 1e-4);
        }
        prop_assert!(
            (path.length() - polyline_length).abs() <= 1e-5 * polyline_length + 1e-4,
            "length {} vs polyline {polyline_length}", path.length()
        );
        assert_valid_curve(&path, points[0], points[points.len() - 1], radius);
    }

    /// One 90° corner between legs of lengths L₁ and L₂, in the corner's frame
    /// (incoming along +x to the corner at the origin, out along +y):
    /// the circle's centre is c = (−a, a) with a = r/√2, |S − c|² = L² − √2·rL + r²
    /// for S = (−L, 0), so the straight from S is √(L² − √2·rL) long and its
    /// heading dips below the leg by γ(L) = asin(r/|S − c|) − atan(a / (L − a));
    /// the exit leg is the mirror image across y = −x. The arc turns by
    /// π/2 + γ(L₁) + γ(L₂).
    #[test]
    fn a_right_angle_corner_has_the_closed_form_length(
        legs in (2.0f32..40.0, 2.0f32..40.0),
        radius in 0.5f32..20.0,
        rotation in -PI..PI,
        offset in coordinate(),
        right_turn in any::<bool>(),
    ) {
        let (first_leg, second_leg) = (legs.0 * radius, legs.1 * radius);
        let side = if right_turn { -1.0 } else { 1.0 };
        let place = |p: Vec2| offset + Vec2::from_angle(rotation).rotate(Vec2::new(p.x, side * p.y));
        let points = [Vec2::new(-first_leg, 0.0), Vec2::ZERO, Vec2::new(0.0, second_leg)].map(place);

        let a = radius * FRAC_1_SQRT_2;
        let straight = |l: f32| (l * l - std::f32::consts::SQRT_2 * radius * l).sqrt();
        let dip = |l: f32| {
            let to_centre = ((l - a).powi(2) + a * a).sqrt();
            (radius / to_centre).asin() - (a / (l - a)).atan()
        };
        let sweep = FRAC_PI_2 + dip(first_leg) + dip(second_leg);
        let expected = straight(first_leg) + straight(second_leg) + radius * sweep;

        let path = TurningPath::build(&points, radius).expect("long legs fit the arc");
        prop_assert!(path.skipped_corners().is_empty());
        prop_assert!(
            (path.length() - expected).abs() <= 2e-5 * expected + 1e-3,
            "length {} vs closed form {expected}", path.length()
        );
        let [Segment::Line { .. }, Segment::Arc { centre, start_angle, sweep: arc_sweep, .. }, Segment::Line { .. }] =
            *path.segments()
        else {
            return Err(TestCaseError::fail(format!("expected line, arc, line: {:?}", path.segments())));
        };
        prop_assert!((arc_sweep - side * sweep).abs() <= 1e-4, "sweep {arc_sweep} vs {}", side * sweep);
        prop_assert!(centre.distance(place(Vec2::new(-a, a))) <= 1e-3, "circle centred on the bisector");
        // The corner lies on the arc (the article's construction).
        let corner = points[1] - centre;
        prop_assert!((corner.length() - radius).abs() <= 1e-3);
        let into_arc = (side * (corner.to_angle() - start_angle)).rem_euclid(TAU);
        prop_assert!(into_arc <= sweep, "corner {into_arc} rad into an arc of {sweep}");
        assert_valid_curve(&path, points[0], points[2], radius);
    }
}

/// A U-turn: out along +x to (L, 0), back to (L/2, 0). The circle sits on the
/// leg, centred at (L − r, 0); start and goal lie on its axis at distances
/// D₁ = L − r and D₂ = L/2 − r, so the straights are √(D² − r²) and the arc
/// turns π + asin(r/D₁) + asin(r/D₂), through the corner.
#[test]
fn a_u_turn_loops_around_the_corner_with_the_closed_form_length() {
    for radius in [1.0f32, 3.5, 12.0] {
        let l = 10.0 * radius;
        let points = [Vec2::ZERO, Vec2::new(l, 0.0), Vec2::new(l / 2.0, 0.0)];
        let path = TurningPath::build(&points, radius).expect("legs are long enough");
        let (d1, d2) = (l - radius, l / 2.0 - radius);
        let sweep = PI + (radius / d1).asin() + (radius / d2).asin();
        let expected = (d1 * d1 - radius * radius).sqrt()
            + (d2 * d2 - radius * radius).sqrt()
            + radius * sweep;
        assert!(
            (path.length() - expected).abs() <= 1e-4 * expected,
            "length {} vs {expected}",
            path.length()
        );
        let Segment::Arc {
            centre,
            sweep: arc_sweep,
            ..
        } = path.segments()[1]
        else {
            panic!("the second segment is the arc: {:?}", path.segments());
        };
        assert!(centre.distance(Vec2::new(l - radius, 0.0)) <= 1e-4);
        assert!(
            (arc_sweep - sweep).abs() <= 1e-4,
            "turns left by {arc_sweep}, expected {sweep}"
        );
        let closest = path
            .samples(20_000)
            .map(|p| p.position.distance(points[1]))
            .fold(f32::INFINITY, f32::min);
        assert!(
            closest <= path.length() / 20_000.0,
            "passes {closest} m from the corner"
        );
        // The last straight runs from the circle's top down to the goal on
        // the axis: back along −x, tilted down by asin(r/D₂).
        let end = path.point_at(path.length()).expect("non-empty");
        let tilt = (radius / d2).asin();
        let expected_end = Vec2::new(-tilt.cos(), -tilt.sin());
        assert!(
            angle_between(end.direction, expected_end) <= HEADING_TOLERANCE,
            "ends heading {}",
            end.direction
        );
        assert_valid_curve(&path, points[0], points[2], radius);
    }
}

#[test]
fn bad_input_is_refused_with_a_typed_error() {
    let ok = [Vec2::ZERO, Vec2::new(10.0, 0.0)];
    for radius in [0.0, -1.0, f32::NAN, f32::INFINITY, 2e9] {
        let error = TurningPath::build(&ok, radius).expect_err("bad radius");
        assert!(
            matches!(error, TurningPathError::BadRadius { .. }),
            "{error}"
        );
    }
    assert_eq!(
        TurningPath::build(&[], 1.0).expect_err("no points"),
        TurningPathError::TooFewPoints {
            given: 0,
            distinct: 0
        }
    );
    assert_eq!(
        TurningPath::build(&[Vec2::ONE], 1.0).expect_err("one point"),
        TurningPathError::TooFewPoints {
            given: 1,
            distinct: 1
        }
    );
    assert_eq!(
        TurningPath::build(&[Vec2::ONE, Vec2::ONE, Vec2::ONE], 1.0)
            .expect_err("one distinct point"),
        TurningPathError::TooFewPoints {
            given: 3,
            distinct: 1
        }
    );
    for bad in [f32::NAN, f32::INFINITY, -2e9] {
        let points = [
            Vec2::ZERO,
            Vec2::new(10.0, 0.0),
            Vec2::new(bad, 3.0),
            Vec2::new(20.0, 0.0),
        ];
        let error = TurningPath::build(&points, 1.0).expect_err("bad coordinate");
        assert!(
            matches!(error, TurningPathError::BadPoint { index: 2, .. }),
            "{error}"
        );
        assert!(error.to_string().contains("path point 2"), "{error}");
    }
}

#[test]
fn point_at_clamps_any_distance_to_the_path() {
    let points = [Vec2::ZERO, Vec2::new(10.0, 0.0), Vec2::new(10.0, 10.0)];
    let path = TurningPath::build(&points, 2.0).expect("valid");
    for (distance, expected) in [
        (f32::NAN, points[0]),
        (f32::NEG_INFINITY, points[0]),
        (f32::INFINITY, points[2]),
        (1e30, points[2]),
    ] {
        let point = path.point_at(distance).expect("non-empty");
        assert!(
            point.position.distance(expected) <= JOIN_TOLERANCE,
            "{distance}: {point:?}"
        );
        assert!(point.direction.is_finite() && point.heading().is_finite());
    }
}

#[test]
fn a_failed_rebuild_leaves_an_empty_path() {
    let mut path = TurningPath::build(
        &[Vec2::ZERO, Vec2::new(10.0, 0.0), Vec2::new(10.0, 10.0)],
        2.0,
    )
    .expect("valid");
    assert!(path.point_at(1.0).is_some());
    assert!(
        path.build_into(&[Vec2::ZERO, Vec2::new(f32::NAN, 0.0)], 2.0)
            .is_err()
    );
    assert!(path.segments().is_empty() && path.length() == 0.0);
    assert!(path.point_at(1.0).is_none());
    assert_eq!(path.samples(10).count(), 0);
}

#[test]
fn repeated_points_change_nothing_but_the_reported_indices() {
    let clean = [
        Vec2::ZERO,
        Vec2::new(40.0, 0.0),
        Vec2::new(40.0, 0.5),
        Vec2::new(80.0, 30.0),
    ];
    let repeated = [
        clean[0], clean[0], clean[1], clean[1], clean[1], clean[2], clean[3], clean[3],
    ];
    let radius = 6.0;
    let a = TurningPath::build(&clean, radius).expect("valid");
    let b = TurningPath::build(&repeated, radius).expect("valid");
    assert_eq!(a.segments(), b.segments());
    // Corner 2 of `clean` (its circle overlaps corner 1's, opposite turn) is
    // dropped; in `repeated` that corner is point 5.
    assert_eq!(a.skipped_corners(), [2]);
    assert_eq!(b.skipped_corners(), [5]);
}

/// The bisector circle of the corner `at` between `prev` and `next`, computed
/// directly: the corner plus `radius` along the normalised sum of the unit
/// vectors to its neighbours.
fn bisector_centre(prev: Vec2, at: Vec2, next: Vec2, radius: f32) -> Vec2 {
    at + radius * ((prev - at).normalize() + (next - at).normalize()).normalize()
}

#[test]
fn a_corner_whose_circle_holds_the_start_is_dropped() {
    let radius = 10.0;
    let points = [Vec2::ZERO, Vec2::new(1.0, 0.0), Vec2::new(1.0, 100.0)];
    let centre = bisector_centre(points[0], points[1], points[2], radius);
    assert!(
        points[0].distance(centre) < radius,
        "precondition: no tangent from the start"
    );
    let path = TurningPath::build(&points, radius).expect("valid");
    assert_eq!(path.skipped_corners(), [1]);
    assert_eq!(
        path.segments(),
        [Segment::Line {
            from: points[0],
            to: points[2]
        }]
    );
}

#[test]
fn a_corner_whose_circle_holds_the_goal_is_dropped() {
    let radius = 10.0;
    let points = [Vec2::ZERO, Vec2::new(100.0, 0.0), Vec2::new(100.0, 1.0)];
    let centre = bisector_centre(points[0], points[1], points[2], radius);
    assert!(
        points[2].distance(centre) < radius,
        "precondition: no tangent to the goal"
    );
    let path = TurningPath::build(&points, radius).expect("valid");
    assert_eq!(path.skipped_corners(), [1]);
    assert_eq!(
        path.segments(),
        [Segment::Line {
            from: points[0],
            to: points[2]
        }]
    );
}

/// An S-bend narrower than the turning circle: the two circles (opposite
/// turns) overlap, so no crossing tangent joins them and the second corner is
/// dropped; the first one's arc then leads straight to the goal.
#[test]
fn an_s_bend_narrower_than_the_circle_drops_its_second_corner() {
    let radius = 10.0;
    let points = [
        Vec2::ZERO,
        Vec2::new(50.0, 0.0),
        Vec2::new(50.0, 1.0),
        Vec2::new(100.0, 1.0),
    ];
    let first = bisector_centre(points[0], points[1], points[2], radius);
    let second = bisector_centre(points[1], points[2], points[3], radius);
    assert!(
        first.distance(second) < 2.0 * radius,
        "precondition: the circles overlap"
    );
    let path = TurningPath::build(&points, radius).expect("valid");
    assert_eq!(path.skipped_corners(), [2]);
    let Segment::Arc { centre, .. } = path.segments()[1] else {
        panic!("line, arc, line: {:?}", path.segments());
    };
    assert!(
        centre.distance(first) <= 1e-4,
        "the arc is the first corner's circle"
    );
    assert_eq!(path.segments().len(), 3);
    assert_valid_curve(&path, points[0], points[3], radius);
}

/// A U made of two left corners 1 m apart, for a 10 m circle: following both
/// arcs would turn three quarters round each (a loop), so the second corner is
/// dropped and the first one's arc turns the vehicle round alone.
#[test]
fn a_narrow_u_of_two_corners_turns_on_one_arc() {
    let radius = 10.0;
    let points = [
        Vec2::new(-100.0, 0.0),
        Vec2::ZERO,
        Vec2::new(0.0, 1.0),
        Vec2::new(-100.0, 1.0),
    ];
    let path = TurningPath::build(&points, radius).expect("valid");
    assert_eq!(path.skipped_corners(), [2]);
    let arcs: Vec<f32> = path
        .segments()
        .iter()
        .filter_map(|s| match *s {
            Segment::Arc { sweep, .. } => Some(sweep),
            Segment::Line { .. } => None,
        })
        .collect();
    assert_eq!(arcs.len(), 1);
    assert!(
        arcs[0] > PI && arcs[0] < 1.25 * PI,
        "one left turn of a little over π: {}",
        arcs[0]
    );
    assert_valid_curve(&path, points[0], points[3], radius);
}

#[test]
fn a_path_back_to_its_start_without_room_to_turn_is_refused() {
    let points = [Vec2::ZERO, Vec2::new(1.0, 0.0), Vec2::ZERO];
    assert_eq!(
        TurningPath::build(&points, 10.0).expect_err("no room"),
        TurningPathError::NoFeasibleCurve { radius: 10.0 }
    );
}

#[test]
fn samples_run_from_start_to_goal_evenly() {
    let points = [
        Vec2::ZERO,
        Vec2::new(30.0, 0.0),
        Vec2::new(30.0, 30.0),
        Vec2::new(0.0, 40.0),
    ];
    let path = TurningPath::build(&points, 5.0).expect("valid");
    let samples: Vec<Vec2> = path.samples(200).map(|p| p.position).collect();
    assert_eq!(samples.len(), 200);
    assert!(samples[0].distance(points[0]) <= JOIN_TOLERANCE);
    assert!(samples[199].distance(points[3]) <= JOIN_TOLERANCE);
    let spacing = path.length() / 199.0;
    for pair in samples.windows(2) {
        let chord = pair[0].distance(pair[1]);
        // A chord is at most its arc, and on a radius-5 circle not much less.
        assert!(
            chord <= spacing * 1.0001 && chord >= spacing * 0.999,
            "chord {chord} vs spacing {spacing}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Extreme but finite input never yields NaN or a panic.
    #[test]
    fn wild_input_never_yields_nan(
        points in proptest::collection::vec((-1e9f32..1e9, -1e9f32..1e9), 0..6),
        radius in prop_oneof![1e-6f32..1.0, 1.0f32..1e9],
    ) {
        let points: Vec<Vec2> = points.into_iter().map(|(x, y)| Vec2::new(x, y)).collect();
        if let Ok(path) = TurningPath::build(&points, radius) {
            prop_assert!(path.length().is_finite());
            for segment in path.segments() {
                let (start, end) = (segment.start(), segment.end());
                prop_assert!(start.position.is_finite() && start.direction.is_finite(), "{segment:?}");
                prop_assert!(end.position.is_finite() && end.direction.is_finite(), "{segment:?}");
            }
            for sample in path.samples(50) {
                prop_assert!(sample.position.is_finite() && sample.direction.is_finite());
            }
        }
    }
}
