use super::*;
use crate::random::unit_f32;
use crate::geometry::bounds::Bounds;

/// A crowd's columns.
struct Crowd {
    position: Vec<Vec2>,
    altitude: Vec<f32>,
    heading: Vec<f32>,
    shield: Vec<Vec3>,
    inv_mass: Vec<f32>,
}

/// `units` shields of random sizes and headings, `spacing` metres apart
/// on a jittered lattice: every tenth immovable; with `mixed`, one in
/// 31 big (forward semi-axis above the 3 m cell) and every fifth
/// airborne (some low enough to meet the ground shields).
fn crowd(units: usize, spacing: f32, mixed: bool) -> Crowd {
    let side = (units as f32).sqrt().ceil() as usize;
    let random = |stream: u64, unit: usize| unit_f32(7, stream, unit as u64);
    let jitter = |stream: u64, unit: usize| spacing * (random(stream, unit) - 0.5);
    let big = |unit: usize| mixed && unit % 31 == 3;
    let airborne = |unit: usize| mixed && unit % 5 == 1;
    Crowd {
        position: (0..units)
            .map(|unit| {
                let (column, row) = ((unit % side) as f32, (unit / side) as f32);
                Vec2::new(
                    spacing * column + jitter(0, unit),
                    spacing * row + jitter(1, unit),
                )
            })
            .collect(),
        altitude: (0..units)
            .map(|unit| {
                if airborne(unit) {
                    1.5 + 6.0 * random(5, unit)
                } else {
                    0.0
                }
            })
            .collect(),
        heading: (0..units).map(|unit| 6.0 * random(2, unit)).collect(),
        shield: (0..units)
            .map(|unit| {
                let forward = if big(unit) { 3.5 } else { 1.0 } + 2.0 * random(3, unit);
                Vec3::new(forward, forward * (0.4 + 0.6 * random(4, unit)), 1.0)
            })
            .collect(),
        inv_mass: (0..units)
            .map(|unit| if unit % 10 == 0 { 0.0 } else { 1.0 })
            .collect(),
    }
}

/// One pass of `separation` over `crowd`: the positions it leaves, as
/// bits, and its stats.
fn pass(separation: &mut Separation, crowd: &Crowd) -> (Vec<[u32; 2]>, SeparationStats) {
    pass_hashed(separation, crowd, 3.0)
}

/// [`pass`] with the tick's hash at `cell` metres.
fn pass_hashed(
    separation: &mut Separation,
    crowd: &Crowd,
    cell: f32,
) -> (Vec<[u32; 2]>, SeparationStats) {
    let bounds = Bounds::new(Vec2::splat(-10.0), Vec2::splat(300.0));
    let mut hash = SpatialHash::new(bounds, cell).expect("a valid grid");
    hash.rebuild(&crowd.position);
    let input = SeparationInput {
        altitude: &crowd.altitude,
        heading: &crowd.heading,
        shield: &crowd.shield,
        inv_mass: &crowd.inv_mass,
        spatial: &hash,
        mobility: &[],
        terrain: ClassMaps::default(),
    };
    let mut position = crowd.position.clone();
    let stats = separation.pass(input, &mut position);
    let bits = position
        .iter()
        .map(|position| position.to_array().map(f32::to_bits))
        .collect();
    (bits, stats)
}

fn separation(iterations: u32) -> Separation {
    let bounds = Bounds::new(Vec2::splat(-10.0), Vec2::splat(300.0));
    Separation::new(bounds, 3.0, iterations).expect("a valid grid")
}

/// Every pushing sweep examining its candidates without a branch, or
/// four at a time in lanes (with the measuring sweep), pushes every unit
/// to the same bits, with the same stats, as every one examining them
/// one at a time with the branch: in a crowd with immovable, big and
/// airborne units, over enough pushes that later sweeps start only from
/// the active units.
#[test]
fn every_scan_pushes_as_the_branch_does() {
    let mixed = crowd(4_000, 5.0, true);
    let mut runs = [Scan::Branch, Scan::WithoutBranch, Scan::Lanes].map(|fixed| {
        let mut separation = separation(12);
        separation.fixed_scan = Some(fixed);
        let run = pass(&mut separation, &mixed);
        let active = separation.placed.iter().filter(|body| body.active).count();
        (run, active)
    });
    let ((with_branch, stats), active) = std::mem::take(&mut runs[0]);
    assert!(stats.overlaps > 500, "{stats:?}");
    assert!(stats.iterations >= 3, "{stats:?}");
    // The last sweeps started from the active units alone.
    assert!(
        active <= mixed.position.len() / 4,
        "{active} active {stats:?}"
    );
    for ((other_scan, again), _) in &runs[1..] {
        assert_eq!(*again, stats);
        assert_eq!(*other_scan, with_branch);
    }
}

/// The lanes' overlaps are [`resolve`]'s, bit for bit, for every queued
/// pair at one altitude and apart on the ground, and the lanes send the
/// others (different altitudes, one ground position, NaN offsets) to
/// it: random shields, offsets and contact functions (below 1, at 1,
/// above, NaN, zero), batches of one to eight pairs over lanes left from
/// a longer one.
#[test]
fn level_overlaps_in_lanes_are_those_resolve_finds() {
    let random = |stream: u64, draw: u64| unit_f32(11, stream, draw);
    let bodies: Vec<Body> = (0..64)
        .map(|k| {
            let axes = Vec3::new(0.5, 0.3, 0.2)
                + 4.0 * Vec3::new(random(0, k), random(1, k), random(2, k));
            let axes = Vec3::new(axes.x.max(axes.y), axes.x.min(axes.y), axes.z);
            Body {
                shape: Shape::facing(axes, angles::direction(6.0 * random(3, k))),
                radius: axes.max_element(),
                half_height: axes.z,
                smallest: axes.min_element(),
                ..Body::default()
            }
        })
        .collect();
    let (mut compared, mut deep) = (0, 0);
    let mut batch = Batch::default();
    for draw in 0..4_000_u64 {
        let value = |stream: u64| random(stream, draw);
        batch.len = 1 + (draw % LANES as u64) as usize;
        for lane in 0..batch.len {
            let draw = draw * LANES as u64 + lane as u64;
            let value = |stream: u64| random(stream, draw);
            batch.first[lane] = (64.0 * value(10)) as usize % 64;
            batch.second[lane] = (64.0 * value(11)) as usize % 64;
            let ground = 8.0 * Vec2::new(value(12) - 0.5, value(13) - 0.5);
            batch.offset[lane] = match draw % 11 {
                0 => Vec3::new(0.0, 0.0, 0.0),
                1 => ground.extend(value(14) - 0.5),
                2 => Vec3::new(f32::NAN, ground.y, 0.0),
                _ => ground.extend(0.0),
            };
        }
        let f: [f32; LANES] = std::array::from_fn(|lane| match (draw + lane as u64) % 13 {
            0 => f32::NAN,
            1 => 1.0,
            2 => 0.0,
            3 => 1.0 + value(20),
            _ => value(21 + lane as u64),
        });
        let lanes = LevelOverlaps::of(&batch, f, &bodies);
        let lanes_below_one = lanes_below_one(f, batch.len);
        assert_eq!(
            lanes_below_one >> batch.len,
            0,
            "draw {draw}: lanes past the queue"
        );
        for lane in 0..batch.len {
            let (a, b) = (&bodies[batch.first[lane]], &bodies[batch.second[lane]]);
            let offset = batch.offset[lane];
            let expected = resolve(a, b, offset, f[lane], (batch.first[lane], batch.second[lane]));
            let below_one = lanes_below_one & (1 << lane) != 0;
            assert_eq!(below_one, f[lane] < 1.0, "draw {draw}, lane {lane}");
            let level = lanes.level & (1 << lane) != 0;
            let across = offset.truncate().length();
            assert_eq!(
                level,
                across > 0.0 && offset.z == 0.0,
                "draw {draw}, lane {lane}"
            );
            if !(below_one && level) {
                continue;
            }
            let bits = |overlap: &Option<Overlap>| {
                overlap.as_ref().map(|o| {
                    [o.direction.x, o.direction.y, o.depth, o.push, o.relative]
                        .map(f32::to_bits)
                })
            };
            assert_eq!(
                bits(&lanes.overlap(lane)),
                bits(&expected),
                "draw {draw}, lane {lane}: f {}, offset {offset}",
                f[lane]
            );
            compared += 1;
            deep += usize::from(expected.is_some());
        }
    }
    assert!(
        compared > 10_000 && deep > 5_000,
        "{compared} compared, {deep} deep"
    );
}

/// From [`PARALLEL_MIN_ROWS`] units a sweep's chunks are a multiple of
/// [`SWEEP_CHUNKS`], of at most [`SWEEP_CHUNK_MAX_ROWS`] places, and
/// fewest so; all of one size but the last, which is shorter by less
/// than their number. Below, chunks of [`CHUNK_ROWS`].
#[test]
fn sweeps_cut_their_places_into_chunks_the_threads_share_evenly() {
    let counts = (0..400).map(|k| PARALLEL_MIN_ROWS + k * k * 7 + k);
    let edges = [196_608, 196_609, 393_216, 393_217, 1_000_000];
    for units in counts.chain(edges) {
        let rows = sweep_chunk_rows(units);
        let chunks = units.div_ceil(rows);
        let last = units - (chunks - 1) * rows;
        assert!(rows <= SWEEP_CHUNK_MAX_ROWS, "{units} units: {rows} rows");
        assert_eq!(chunks % SWEEP_CHUNKS, 0, "{units} units: {chunks} chunks");
        let fewest = SWEEP_CHUNKS * units.div_ceil(SWEEP_CHUNKS * SWEEP_CHUNK_MAX_ROWS);
        assert_eq!(chunks, fewest, "{units} units");
        assert!(last + chunks > rows, "{units} units: last {last} of {rows}");
    }
    for units in [1, 2_000, PARALLEL_MIN_ROWS - 1] {
        assert_eq!(sweep_chunk_rows(units), CHUNK_ROWS, "{units} units");
    }
}

/// A row of 1 m spheres 3 m apart, one a cell, so that places follow
/// the units, with a movable unit between two immovable ones at place
/// `place` (0.4 m into its western one and 0.2 m into its eastern one,
/// so that one push leaves it 0.4 m into the eastern one: the deepest
/// overlap, measured from `place`), and shallower ones of the same kind
/// (0.1 m left) at every 97th place.
fn wedged_row(units: usize, place: usize) -> Crowd {
    let mut position: Vec<Vec2> = (0..units)
        .map(|k| Vec2::new(3.0 * k as f32 + 1.5, 5.0))
        .collect();
    let mut inv_mass = vec![1.0; units];
    let mut wedge = |at: usize, west: f32, east: f32| {
        position[at - 1].x = position[at].x - west;
        position[at + 1].x = position[at].x + east;
        inv_mass[at - 1] = 0.0;
        inv_mass[at + 1] = 0.0;
    };
    for shallow in (5..units - 1).step_by(97) {
        if shallow.abs_diff(place) > 3 {
            wedge(shallow, 1.9, 1.95);
        }
    }
    wedge(place, 1.6, 1.8);
    Crowd {
        position,
        altitude: vec![0.0; units],
        heading: vec![0.0; units],
        shield: vec![Vec3::ONE; units],
        inv_mass,
    }
}

/// The measuring sweep's first places and the rest of each chunk,
/// started from the deepest overlap found in the first: the deepest
/// overlap left, measured from the last place of the first part, the
/// first of the rest, the last of a chunk, the first of the next and
/// their neighbours, is the one reported (a part that skips a place
/// misses it).
#[test]
fn the_measure_of_each_chunks_first_places_and_the_rest_misses_no_place() {
    let units = 3 * CHUNK_ROWS;
    let rows = sweep_chunk_rows(units);
    let bounds = Bounds::new(
        Vec2::splat(-10.0),
        Vec2::new(3.0 * units as f32 + 10.0, 20.0),
    );
    let mut hash = SpatialHash::new(bounds, 3.0).expect("a valid grid");
    let places = [
        MEASURE_FIRST - 1,
        MEASURE_FIRST,
        MEASURE_FIRST + 1,
        rows - 1,
        rows,
        rows + MEASURE_FIRST,
    ];
    for place in places {
        let crowd = wedged_row(units, place);
        hash.rebuild(&crowd.position);
        let input = |hash| SeparationInput {
            altitude: &crowd.altitude,
            heading: &crowd.heading,
            shield: &crowd.shield,
            inv_mass: &crowd.inv_mass,
            spatial: hash,
            mobility: &[],
            terrain: ClassMaps::default(),
        };
        let in_unit_order = hash.order().iter().enumerate();
        assert!(
            in_unit_order
                .into_iter()
                .all(|(k, &unit)| k == unit as usize)
        );
        let mut separation = Separation::new(bounds, 3.0, 1).expect("a valid grid");
        let mut position = crowd.position.clone();
        let reported = separation.pass(input(&hash), &mut position);
        let mut left_hash = SpatialHash::new(bounds, 3.0).expect("a valid grid");
        left_hash.rebuild(&position);
        let mut measure = Separation::new(bounds, 3.0, 0).expect("a valid grid");
        let left = measure.pass(input(&left_hash), &mut position.clone());
        assert!(
            (reported.max_overlap_m - 0.4).abs() < 1e-4
                && reported.max_overlap_m.to_bits() == left.max_overlap_m.to_bits(),
            "deepest at place {place}: reported {reported:?}, left {left:?}"
        );
    }
}

#[test]
fn forward_axes_in_lanes_are_each_units_direction() {
    let heading: Vec<f32> = (0..27)
        .map(|k| match k {
            12 => 1_000.0,
            17 => f32::NAN,
            _ => (k as f32 - 13.0) * 0.77,
        })
        .collect();
    let units: Vec<u32> = (0..27).rev().collect();
    for group in units.chunks(LANES) {
        let axes = forward_axes(&heading, group);
        for (axis, &unit) in axes.iter().zip(group) {
            let expected = angles::direction(heading[unit as usize]);
            assert_eq!(axis.x.to_bits(), expected.x.to_bits(), "unit {unit}");
            assert_eq!(axis.y.to_bits(), expected.y.to_bits(), "unit {unit}");
        }
    }
}

/// The next pushing sweeps examine their candidates without a branch
/// where more than a fifth of the last one's got the exact test, else
/// four at a time where its runs held two and a half or more, else one
/// at a time with the branch; a crowd whose windows' runs are long and
/// whose candidates mostly fail switches to lanes, a dense one whose
/// candidates often pass queues without the branch, and a sparse one,
/// whose runs hold a unit or two, does not take the lanes.
#[test]
fn pushing_sweeps_choose_their_scan_by_the_last_ones() {
    let totals = |tested, runs, exact| Sweep {
        tested,
        runs,
        exact,
        ..Sweep::default()
    };
    assert_eq!(Scan::after(&totals(250, 100, 50)), Scan::Lanes);
    assert_eq!(Scan::after(&totals(250, 100, 51)), Scan::WithoutBranch);
    assert_eq!(Scan::after(&totals(249, 100, 0)), Scan::Branch);
    assert_eq!(Scan::after(&totals(100, 100, 21)), Scan::WithoutBranch);
    assert_eq!(Scan::after(&totals(0, 0, 0)), Scan::Branch);
    assert_eq!(Scan::Lanes.measuring(), Scan::Lanes);
    assert_eq!(Scan::WithoutBranch.measuring(), Scan::Branch);
    // 8 m cells, as the default profile's, over units 4 m apart: four
    // units a cell, so runs of several, of which a few meet.
    let bounds = Bounds::new(Vec2::splat(-10.0), Vec2::splat(300.0));
    let mut coarse = Separation::new(bounds, 8.0, 2).expect("a valid grid");
    assert_eq!(coarse.scan, Scan::Branch);
    let (_, stats) = pass_hashed(&mut coarse, &crowd(4_000, 4.0, false), 8.0);
    assert!(stats.overlaps > 100, "{stats:?}");
    assert_eq!(coarse.scan, Scan::Lanes, "{stats:?}");
    let mut dense = separation(2);
    let (_, stats) = pass(&mut dense, &crowd(4_000, 2.5, false));
    assert!(stats.overlaps > 1_000, "{stats:?}");
    assert_eq!(dense.scan, Scan::WithoutBranch, "{stats:?}");
    let mut sparse = separation(2);
    // 32 × 32 units 8 m apart, inside the grid's 310 m.
    let (_, stats) = pass(&mut sparse, &crowd(1_000, 8.0, false));
    assert!(stats.overlaps > 0, "{stats:?}");
    assert_ne!(sparse.scan, Scan::Lanes, "{stats:?}");
}
