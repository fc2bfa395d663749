use proptest::prelude::*;

use super::*;
use crate::geometry::segments::segment_distance;
use glam::Vec3;


/// The search over `others`, all in range.
fn threat_among(me: &Mover, desired: Vec2, others: &[Mover]) -> Option<Threat> {
    let mut movers = MoverColumns::default();
    movers.fill_from(others);
    let mut search = ThreatSearch::new(me, desired);
    let near = Near {
        radius_sq: f32::INFINITY,
        skip: usize::MAX,
    };
    search.consider_run(&movers, 0..others.len(), near);
    search.threat(&movers)
}

/// The test one neighbour at a time as the paper states it, in
/// absolute positions and true distances (`segment_distance`): the
/// threat's time if it is one, and how far its closest call was from
/// the tests' edges (sphere and capsule), metres.
fn reference_test(me: &Mover, predicted: Vec2, other: &Mover) -> (Option<f32>, f32) {
    let offset = other.position - me.position;
    let closing = other.velocity - predicted;
    let closing_sq = closing.length_squared();
    let approach = -offset.dot(closing);
    if approach <= 0.0 && closing_sq > SEPARATING_SPEED * SEPARATING_SPEED {
        return (None, approach.abs() + 1.0);
    }
    let time = if closing_sq > 1e-12 {
        (approach / closing_sq).max(0.0)
    } else {
        0.0
    };
    let reach = me.bounding_radius + other.bounding_radius + CLEARANCE_M;
    let sphere_gap = (offset + closing * time).length();
    let level = (me.altitude - other.altitude).abs() < me.half_height + other.half_height;
    if time >= HORIZON_S || sphere_gap > reach || !level {
        return (None, (sphere_gap - reach).abs());
    }
    let mine = me.position + predicted * time;
    let theirs = other.position + other.velocity * time;
    let (my_half, their_half) = (me.half_axis(), other.half_axis());
    let gap = segment_distance(
        (mine - my_half, mine + my_half),
        (theirs - their_half, theirs + their_half),
    );
    let margin = if time > 0.0 { CLEARANCE_M } else { 0.0 };
    let touch = me.half_width + other.half_width + margin;
    let slack = (gap - touch).abs().min((sphere_gap - reach).abs());
    ((gap < touch).then_some(time), slack)
}

fn mover() -> impl Strategy<Value = Mover> {
    (
        (-30.0f32..30.0, -30.0f32..30.0),
        (-12.0f32..12.0, -12.0f32..12.0),
        -4.0f32..4.0,
        prop_oneof![Just(0.0f32), Just(1.0), Just(40.0)],
        (1.0f32..6.0, 0.5f32..3.0),
    )
        .prop_map(|((x, y), (vx, vy), heading, altitude, (length, width))| {
            // Some stand still, so their axis is their heading.
            let velocity = if vx.abs() < 2.0 {
                Vec2::ZERO
            } else {
                Vec2::new(vx, vy)
            };
            Body {
                position: Vec2::new(x, y),
                velocity,
                heading,
                altitude,
                shield: Vec3::new(length, width, 1.5),
            }
            .mover()
        })
}

proptest! {
    /// The eight-lane search with its division-free capsule test finds
    /// the threat the paper's one-at-a-time test finds: the soonest,
    /// the first of equally soon ones (cases within a millimetre of a
    /// test's edge, where rounding decides, are left out).
    #[test]
    fn lane_search_finds_the_reference_threat(
        me in mover(),
        desired in (-12.0f32..12.0, -12.0f32..12.0),
        others in proptest::collection::vec(mover(), 1..11),
    ) {
        let desired = Vec2::new(desired.0, desired.1);
        let predicted = 0.5 * (me.velocity + desired);
        let mut expected: Option<(f32, usize)> = None;
        for (row, other) in others.iter().enumerate() {
            let (time, slack) = reference_test(&me, predicted, other);
            prop_assume!(slack > 1e-3);
            if let Some(time) = time
                && expected.is_none_or(|(soonest, _)| time < soonest)
            {
                expected = Some((time, row));
            }
        }
        let found = threat_among(&me, desired, &others);
        prop_assert_eq!(found.map(|threat| threat.time), expected.map(|(time, _)| time));
        prop_assert_eq!(
            found.map(|threat| threat.other),
            expected.map(|(_, row)| others[row])
        );
    }
}

/// The rows `0..rows` cut into consecutive runs (some left out), in a
/// shuffled visit order.
fn runs(rows: usize) -> impl Strategy<Value = Vec<Range<usize>>> {
    (
        proptest::collection::vec((1usize..9, proptest::bool::weighted(0.8)), 1..40),
        Just(()),
    )
        .prop_map(move |(cuts, ())| {
            let mut runs = Vec::new();
            let mut start = 0;
            for (length, visited) in cuts {
                let end = (start + length).min(rows);
                if visited && start < end {
                    runs.push(start..end);
                }
                start = end;
            }
            runs
        })
        .prop_shuffle()
}

/// One row's test on its own: its threat time, if it is one, within
/// `near` ([`ThreatSearch`] on a one-row run: every lane does the same
/// arithmetic, so this is the row's result in any lane of any group).
fn row_alone(
    me: &Mover,
    desired: Vec2,
    movers: &MoverColumns,
    row: usize,
    near: Near,
) -> Option<f32> {
    let mut search = ThreatSearch::new(me, desired);
    search.consider_run(movers, row..row + 1, near);
    search.soonest(movers).map(|(time, _)| time)
}

proptest! {
    /// Rows queued across runs and tested eight at a time give what each
    /// row gives alone: the soonest threat, bit for bit, and of equally
    /// soon ones the first row in visit order — for any cut of the rows
    /// into runs, any visit order, radius and own row, and more rows
    /// within the radius than the queue holds.
    #[test]
    fn queued_groups_find_what_rows_alone_find(
        me in mover(),
        desired in (-12.0f32..12.0, -12.0f32..12.0),
        (others, runs) in proptest::collection::vec(mover(), 1..120)
            .prop_flat_map(|others| { let rows = others.len(); (Just(others), runs(rows)) }),
        radius in 5.0f32..60.0,
        skip in 0usize..130,
    ) {
        let desired = Vec2::new(desired.0, desired.1);
        let mut movers = MoverColumns::default();
        movers.fill_from(&others);
        let near = Near { radius_sq: radius * radius, skip };
        let mut expected: Option<(f32, usize)> = None;
        for row in runs.iter().flat_map(Clone::clone) {
            if let Some(time) = row_alone(&me, desired, &movers, row, near)
                && expected.is_none_or(|(soonest, _)| time < soonest)
            {
                expected = Some((time, row));
            }
        }
        let mut search = ThreatSearch::new(&me, desired);
        for run in &runs {
            search.consider_run(&movers, run.clone(), near);
        }
        let found = search.soonest(&movers);
        prop_assert_eq!(found.map(|(time, row)| (time.to_bits(), row)), expected.map(|(time, row)| (time.to_bits(), row)));
    }
}

/// Of two equally soon threats the one visited first is kept, whatever
/// its row, whether the two meet in one group of lanes or in two.
#[test]
fn of_equally_soon_threats_the_first_visited_is_kept() {
    let me = tank(Vec2::ZERO, 0.0, 10.0);
    let threat = tank(Vec2::new(30.0, 0.0), std::f32::consts::PI, 10.0);
    let bystander = tank(Vec2::new(0.0, 25.0), 0.0, 10.0);
    let mut rows = vec![bystander; 12];
    rows[2] = threat;
    rows[9] = threat;
    let mut movers = MoverColumns::default();
    movers.fill_from(&rows);
    let near = Near {
        radius_sq: f32::INFINITY,
        skip: usize::MAX,
    };
    for (runs, first) in [
        (vec![0..6, 6..12], 2),
        (vec![8..12, 0..8], 9),
        (vec![9..10, 2..3], 9),
        (vec![2..3, 9..10], 2),
    ] {
        let mut search = ThreatSearch::new(&me, me.velocity);
        for run in runs.clone() {
            search.consider_run(&movers, run, near);
        }
        assert_eq!(
            search.soonest(&movers).map(|(_, row)| row),
            Some(first),
            "{runs:?}"
        );
    }
}

fn question() -> impl Strategy<Value = Question> {
    (
        mover(),
        mover(),
        (-12.0f32..12.0, -12.0f32..12.0),
        prop_oneof![
            Just(None),
            (-30.0f32..30.0, -30.0f32..30.0).prop_map(|(x, y)| Some(Vec2::new(x, y)))
        ],
        1.0f32..20.0,
        0.0f32..HORIZON_S,
    )
        .prop_map(
            |(me, other, steering, destination, max_speed, time)| Question {
                me,
                steering: Vec2::new(steering.0, steering.1),
                destination,
                max_speed,
                threat: Threat { time, other },
            },
        )
}

proptest! {
    /// Four answers in lanes are `respond`'s, bit for bit, every rule
    /// (stop, speed up, swerve), and padding lanes stay out.
    #[test]
    fn lanes_answer_as_respond_does(
        questions in prop::array::uniform4(question()),
        count in 1usize..=4,
    ) {
        let answers = respond_lanes(&questions, count);
        for (lane, question) in questions.iter().enumerate() {
            let expected = if lane < count {
                respond(&question.me, question.steering, question.destination, question.max_speed, Some(question.threat))
            } else {
                Response::Clear
            };
            let same = match (answers[lane], expected) {
                (Response::Avoid(got), Response::Avoid(want)) => {
                    got.x.to_bits() == want.x.to_bits() && got.y.to_bits() == want.y.to_bits()
                }
                (got, want) => got == want,
            };
            prop_assert!(same, "lane {lane}: {:?} vs {expected:?}", answers[lane]);
        }
    }
}

/// Rows outside the neighbour radius, the
/// unit's own row and rows past the run are no threat.
#[test]
fn the_search_passes_over_far_rows_its_own_and_rows_past_the_run() {
    let me = tank(Vec2::ZERO, 0.0, 10.0);
    let far = tank(Vec2::new(30.0, 0.0), std::f32::consts::PI, 10.0);
    let close = tank(Vec2::new(15.0, 0.0), std::f32::consts::PI, 10.0);
    let mut movers = MoverColumns::default();
    movers.fill_from(&[me, far, close]);
    let search = |run: Range<usize>, radius: f32, skip: usize| {
        let mut search = ThreatSearch::new(&me, me.velocity);
        let near = Near {
            radius_sq: radius * radius,
            skip,
        };
        search.consider_run(&movers, run, near);
        search.soonest(&movers).map(|(_, row)| row)
    };
    assert_eq!(search(0..3, 40.0, 0), Some(2), "the sooner of two");
    assert_eq!(search(0..2, 40.0, 0), Some(1), "row 2 is past the run");
    assert_eq!(search(0..2, 20.0, 0), None, "row 1 is too far");
    assert_eq!(search(0..2, 20.0, 9), Some(0), "my own row, not skipped");
    assert_eq!(search(0..1, 40.0, 0), None);
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
    let threat = threat_among(&me, me.velocity, &[other]).expect("head-on pair collides");
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
    assert_eq!(threat_among(&me, me.velocity, &[helicopter]), None);
}

#[test]
fn parallel_units_a_lane_apart_are_no_threat() {
    let me = tank(Vec2::ZERO, 0.0, 10.0);
    let other = tank(Vec2::new(0.0, 5.0), 0.0, 10.0);
    assert_eq!(threat_among(&me, me.velocity, &[other]), None);
}

#[test]
fn the_right_unit_of_a_side_by_side_pair_speeds_up() {
    let me = tank(Vec2::ZERO, 0.0, 10.0);
    let other = tank(Vec2::new(0.0, 3.5), -0.05, 10.0);
    let threat = Threat { time: 0.5, other };
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
            other: me,
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
    let threat = Threat { time: 2.0, other };
    let near = Vec2::new(22.0, 1.0);
    let response = respond(&me, me.velocity, Some(near), 12.0, Some(threat));
    assert_eq!(response, Response::Stop);
    let passing = respond(&me, me.velocity, None, 12.0, Some(threat));
    assert!(matches!(passing, Response::Avoid(_)), "{passing:?}");
}
