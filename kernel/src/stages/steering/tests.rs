//! Tests of the `steering` stage: progress tracking in lanes, and the
//! nearest-neighbour search against a brute-force sort.

use proptest::prelude::*;

use super::*;

/// One row's progress inputs: position, drive-to point, where it was
/// last steered from, progress and stalled time.
type Row = (Vec2, Vec2, Vec2, f32, f32);

fn point() -> impl Strategy<Value = Vec2> {
    (-50.0f32..50.0, -50.0f32..50.0).prop_map(|(x, y)| Vec2::new(x, y))
}

fn row() -> impl Strategy<Value = Row> {
    let target = prop_oneof![
        4 => point().prop_map(Some),
        // At the target, or on the arrival radius.
        1 => Just(None),
        1 => (0.0f32..6.3).prop_map(|angle| Some(Vec2::from_angle(angle) * ARRIVE_RADIUS)),
        // Not a number, or infinitely far.
        1 => prop_oneof![Just(Vec2::NAN), Just(Vec2::INFINITY), Just(Vec2::new(f32::NEG_INFINITY, 1.0))].prop_map(Some),
    ];
    let progress = prop_oneof![4 => 0.0f32..0.6, 1 => Just(0.0), 1 => Just(PROGRESS_STEP_M)];
    let stalled = prop_oneof![4 => 0.0f32..12.0, 1 => Just(STUCK_AFTER_S)];
    (point(), target, point(), progress, stalled).prop_map(
        |(position, target, from, progress, stalled)| {
            // Targets near the origin are relative to the position
            // (none: the position itself); some rows have not moved.
            let target = match target {
                None => position,
                Some(target) if target.length() <= ARRIVE_RADIUS => position + target,
                Some(target) => target,
            };
            let from = if from.x < -40.0 { position } else { from };
            (position, target, from, progress, stalled)
        },
    )
}

/// Tracks `rows` with [`Rows::track_progress`], or one row at a time
/// with [`Rows::track_one`]: the columns it leaves and its tally.
fn tracked(rows: &[Row], one_at_a_time: bool) -> (Vec<u32>, [usize; 5]) {
    let count = rows.len();
    let (mut desired, mut progress, mut stalled, mut from) = (
        vec![Vec2::ZERO; count],
        rows.iter().map(|row| row.3).collect::<Vec<_>>(),
        rows.iter().map(|row| row.4).collect::<Vec<_>>(),
        rows.iter().map(|row| row.2).collect::<Vec<_>>(),
    );
    let position: Vec<Vec2> = rows.iter().map(|row| row.0).collect();
    let target: Vec<Vec2> = rows.iter().map(|row| row.1).collect();
    let mut out = Rows {
        desired: &mut desired,
        progress: &mut progress,
        stalled: &mut stalled,
        steered_from: &mut from,
        dt: 1.0 / 60.0,
    };
    let mut tally = [0; 5];
    if one_at_a_time {
        for row in 0..count {
            let [arrived, stuck] = out.track_one(row, position[row], target[row]);
            tally[0] += usize::from(arrived);
            tally[3] += usize::from(stuck);
        }
        out.steered_from.copy_from_slice(&position);
    } else {
        out.track_progress(&position, &target, &mut tally);
    }
    let bits = progress
        .iter()
        .chain(&stalled)
        .map(|value| value.to_bits())
        .chain(
            from.iter()
                .flat_map(|point| point.to_array().map(f32::to_bits)),
        )
        .collect();
    (bits, tally)
}

/// A crowd's hash (8 m cells) and its movers in place order, from
/// `points` (every seventh unit a helicopter 20 m up).
fn crowd(points: &[Vec2]) -> (SpatialHash, MoverColumns) {
    let bounds = crate::data::spatial_hash::Bounds::new(Vec2::splat(-100.0), Vec2::splat(100.0));
    let mut hash = SpatialHash::new(bounds, 8.0).expect("valid grid");
    hash.rebuild(points);
    let placed: Vec<Mover> = hash
        .order()
        .iter()
        .map(|&unit| {
            let body = Body {
                position: points[unit as usize],
                velocity: Vec2::ZERO,
                heading: 0.0,
                altitude: if unit % 7 == 0 { 20.0 } else { 0.0 },
                shield: glam::Vec3::new(1.5, 1.0, 1.0),
            };
            body.mover()
        })
        .collect();
    let mut movers = MoverColumns::default();
    movers.fill_from(&placed);
    (hash, movers)
}

/// Below the cap, the neighbours of every unit are a brute-force
/// sort's: every other unit within the radius whose layers meet, by
/// distance then place, the first [`reciprocal::MAX_NEIGHBOURS`]. A
/// sparse crowd (fewer than ten in range) and a cluster (more).
#[test]
fn below_the_cap_the_nearest_are_a_brute_force_sorts() {
    let draw = |stream: u64, unit: usize| crate::random::unit_f32(35, stream, unit as u64);
    let mut points: Vec<Vec2> = (0..300)
        .map(|u| Vec2::new(draw(1, u), draw(2, u)) * 180.0 - 90.0)
        .collect();
    points.extend((0..40).map(|u| Vec2::new(draw(3, u), draw(4, u)) * 9.0 + 20.0));
    let (hash, movers) = crowd(&points);
    let (radius, mut crowded) = (8.0, 0);
    for place in 0..points.len() {
        let me = movers.get(place);
        let mut oracle: Vec<(f32, usize)> = (0..points.len())
            .filter(|&other| other != place && layers_meet(&me, &movers.get(other)))
            .map(|other| (me.position.distance_squared(movers.get(other).position), other))
            .filter(|&(distance_sq, _)| distance_sq <= radius * radius)
            .collect();
        oracle.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
        crowded += usize::from(oracle.len() > reciprocal::MAX_NEIGHBOURS);
        oracle.truncate(reciprocal::MAX_NEIGHBOURS);
        let oracle: Vec<u32> = oracle.iter().map(|&(_, other)| other as u32).collect();
        let unit = hash.order()[place] as usize;
        let cap = max_run_candidates(&hash, radius);
        let (nearest, search) =
            nearest_neighbours(&hash, &movers, place, hash.cells()[unit], (radius, cap));
        assert_eq!(nearest.places(), &oracle[..], "place {place}");
        assert!(!search.cut, "place {place}");
    }
    assert!(crowded > 20, "{crowded} units with more than ten in range");
}

/// 5,000 units on one point: each search examines at most the cap of
/// each of its three runs (3 cells of 8 m: 384 places), all in the
/// unit's own cell, and keeps its ten nearest of them.
#[test]
fn on_one_point_a_search_examines_a_bounded_number() {
    let points = vec![Vec2::new(3.0, 3.0); 5_000];
    let (hash, movers) = crowd(&points);
    let cap = max_run_candidates(&hash, 8.0);
    assert_eq!(cap, 384);
    for place in (0..points.len()).step_by(7) {
        let unit = hash.order()[place] as usize;
        let (nearest, search) =
            nearest_neighbours(&hash, &movers, place, hash.cells()[unit], (8.0, cap));
        assert!(search.cut, "place {place}");
        assert_eq!(search.candidates, cap, "place {place}");
        assert_eq!(nearest.places().len(), reciprocal::MAX_NEIGHBOURS);
        let window = place.saturating_sub(cap)..place + cap;
        assert!(nearest.places().iter().all(|&other| window.contains(&(other as usize))));
    }
}

proptest! {
    /// Rows tracked eight at a time in lanes end with the same bits and
    /// the same counts as one at a time.
    #[test]
    fn progress_in_lanes_is_progress_one_row_at_a_time(
        rows in prop::collection::vec(row(), 1..40),
    ) {
        prop_assert_eq!(tracked(&rows, false), tracked(&rows, true));
    }
}
