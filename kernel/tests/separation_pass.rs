//! The separation pass on crowds, pile-ups and thread pools.

mod common;

use common::{World, crowd, worst_overlap};
use convoy::data::spatial_hash::SpatialHash;
use convoy::glam::{Vec2, Vec3};
use convoy::stages::separation::{Separation, SeparationStats};

fn separate(world: &mut World, iterations: u32) -> SeparationStats {
    let hash = world.hash();
    let mut separation =
        Separation::new(world.bounds(), common::CELL, iterations).expect("test grid is valid");
    separation.reserve(world.len());
    let (input_world, mut position) = (world.clone(), world.position.clone());
    let stats = separation.pass(input_world.input(&hash), &mut position);
    world.position = position;
    stats
}

/// 10,000 units at 30 m² each. Dense (over 5,000 overlapping pairs at the
/// start) but feasible: the ground shields' footprints (Σ π·forward·lateral)
/// cover about 30 % of the square, far below what random ellipses jam at, so
/// an overlap-free arrangement exists close by. (At a footprint near or above
/// the area none would, and no number of iterations could pass this test.)
#[test]
fn dense_random_crowd_ends_with_overlap_below_a_thousandth_of_the_smallest_axis() {
    let mut world = crowd(11, 10_000, 30.0);
    let footprint: f32 = (0..world.len())
        .filter(|&u| world.altitude[u] == 0.0)
        .map(|u| std::f32::consts::PI * world.shield[u].x * world.shield[u].y)
        .sum();
    let covered = footprint / (world.len() as f32 * 30.0);
    assert!(
        (0.2..0.4).contains(&covered),
        "ground shields cover {covered} of the area"
    );
    let before = world.clone();
    let (initial, _) = worst_overlap(&world);
    assert!(
        initial > 0.5,
        "the crowd should start badly overlapped, worst {initial}"
    );
    let stats = separate(&mut world, 2000);
    assert!(stats.overlaps > 1000, "{stats:?}");
    assert!(stats.iterations < 2000, "did not converge: {stats:?}");
    assert!(stats.max_overlap_rel < 1e-3, "{stats:?}");
    let (worst, pair) = worst_overlap(&world);
    assert!(
        worst < 1e-3,
        "pair {pair:?} still overlaps by {worst} ({stats:?})"
    );
    for unit in 0..world.len() {
        if before.inv_mass[unit] == 0.0 {
            assert_eq!(
                world.position[unit], before.position[unit],
                "immovable {unit} moved"
            );
        }
    }
    let moved = (0..world.len())
        .filter(|&u| world.position[u] != before.position[u])
        .count();
    assert!(moved > 1000, "only {moved} units moved");
}

/// Tiles (8 m by 24 m, 50 by 20) of spheres of 1 m, each with:
/// - a chain of three stacked north, or, every other column, south: the
///   first two overlap by 0.4 m; pushed apart, the middle one runs 0.1 m
///   into the third, which nothing touched before. The middle and third
///   sphere are in different rows of hash cells (8 m, edges at y = 4 mod 8
///   in the test grid), so about a row of cells' places lies between them,
///   and chains near the edges of the pass's chunks of places have them in
///   different chunks, the third at a later place (north) or an earlier
///   one (south);
/// - two overlapping pairs 0.1 m apart, which the first push drives into
///   each other: a pair of two units the first push moved. The third of
///   the four is heavier (inverse mass 0.25), so they meet 0.18 m deep, and
///   the second push drives the second sphere 0.14 m back into the first:
///   the deepest overlap left, with a unit at an earlier place that is
///   inactive, so only a search back from the second finds it;
/// - nine loners, so that 6 units in 16 are active after the first push
///   and the second starts only from them (at most half must be).
///
/// The third sphere of every chain is unit 2 of its tile.
fn chains() -> World {
    const LONERS: [(f32, f32); 4] = [(0.0, 17.0), (0.0, 21.0), (4.0, 17.0), (4.0, 21.0)];
    const QUAD: [(f32, f32, f32); 4] = [
        (4.0, 0.0, 1.0),
        (4.0, 1.6, 1.0),
        (4.0, 3.7, 0.25),
        (4.0, 5.3, 1.0),
    ];
    const NORTH: [(f32, f32); 8] = [
        (0.0, 9.4),
        (0.0, 11.0),
        (0.0, 13.1),
        (0.0, 0.0),
        (0.0, 4.0),
        (0.0, 6.8),
        (4.0, 9.0),
        (4.0, 13.0),
    ];
    const SOUTH: [(f32, f32); 8] = [
        (0.0, 6.6),
        (0.0, 5.0),
        (0.0, 2.9),
        (0.0, 0.0),
        (0.0, 9.5),
        (0.0, 13.0),
        (4.0, 9.0),
        (4.0, 13.0),
    ];
    let mut world = World::default();
    for row in 0..20 {
        for column in 0..50 {
            let base = Vec2::new(column as f32 * 8.0, row as f32 * 24.0);
            let chain = if column % 2 == 0 { NORTH } else { SOUTH };
            let movable = |(x, y)| (x, y, 1.0);
            let spheres = chain.map(movable).into_iter().chain(QUAD);
            for (x, y, inv_mass) in spheres.chain(LONERS.map(movable)) {
                world.push(base + Vec2::new(x, y), 0.0, 0.0, Vec3::ONE, inv_mass);
            }
        }
    }
    world
}

/// The second push of a pass starts only from the units the first touched
/// or moved; it must push every overlapping pair from both sides, once, as
/// a sweep over every unit does (a fresh pass's first): two pushes in one
/// pass end where two passes of one push do. The measuring sweep after it, also from the
/// active units, must find what a full measure does.
#[test]
fn a_push_from_the_active_units_alone_moves_units_as_a_full_sweep_does() {
    let start = chains();
    let mut in_one = start.clone();
    let stats = separate(&mut in_one, 2);
    assert_eq!(stats.iterations, 2, "{stats:?}");
    let mut in_two = start.clone();
    separate(&mut in_two, 1);
    let second = separate(&mut in_two, 1);
    assert_eq!(second.overlaps, 2000, "{second:?}");
    let third_moved = (0..start.len())
        .filter(|&unit| unit % 16 == 2 && in_one.position[unit] != start.position[unit])
        .count();
    assert_eq!(third_moved, 1000, "every third sphere is pushed");
    for unit in 0..start.len() {
        assert!(
            in_one.position[unit].distance(in_two.position[unit]) < 1e-5,
            "unit {unit}: {} after two pushes in one pass, {} after two passes",
            in_one.position[unit],
            in_two.position[unit]
        );
    }
    let full = measured_in_full(&in_one);
    assert!(
        full.max_overlap_m > 0.1
            && same_depth(stats.max_overlap_m, full.max_overlap_m)
            && same_depth(stats.max_overlap_rel, full.max_overlap_rel),
        "reported {stats:?}, measured in full {full:?}"
    );
}

#[test]
fn head_on_pile_up_against_an_immovable_wall_ends_apart_and_outside_the_wall() {
    let mut world = World::default();
    // The wall: immovable shields every 2 m along x = 0, overlapping each
    // other so nothing slips between them.
    for k in -40..=40 {
        world.push(
            Vec2::new(0.0, k as f32 * 2.0),
            0.0,
            0.0,
            Vec3::new(2.0, 2.0, 2.0),
            0.0,
        );
    }
    let wall = world.len();
    // 500 units (25 deep, 20 abreast) driven into it head-on: compressed to
    // 60 % of their length and 75 % of their width, the front rank already
    // a metre into the wall's shields.
    for rank in 0..25 {
        for file in 0..20 {
            let position = Vec2::new(-3.0 - 2.4 * rank as f32, (file as f32 - 9.5) * 1.5);
            world.push(position, 0.0, 0.0, Vec3::new(2.0, 1.0, 1.5), 1.0);
        }
    }
    let stats = separate(&mut world, 20_000);
    assert!(stats.overlaps >= 500, "{stats:?}");
    let (worst, pair) = worst_overlap(&world);
    assert!(
        worst < 1e-3,
        "pair {pair:?} still overlaps by {worst} ({stats:?})"
    );
    for unit in 0..wall {
        assert_eq!(
            world.position[unit],
            Vec2::new(0.0, (unit as f32 - 40.0) * 2.0)
        );
    }
    for unit in wall..world.len() {
        // Facing the wall, the front tip (2 m ahead) stays west of its line.
        assert!(
            world.position[unit].x + 2.0 < 0.0,
            "unit {unit} at {} is inside the wall",
            world.position[unit]
        );
    }
}

#[test]
fn results_are_bit_identical_with_one_and_two_threads() {
    // Large enough (30,000 rows) that passes really split across threads,
    // into sweep chunks longer than the 2,048 rows of the other passes.
    let world = crowd(23, 30_000, 30.0);
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a small pool starts");
        let mut world = world.clone();
        let stats = pool.install(|| separate(&mut world, 6));
        let bits: Vec<[u32; 2]> = world
            .position
            .iter()
            .map(|p| [p.x.to_bits(), p.y.to_bits()])
            .collect();
        (stats, bits)
    };
    let (one, one_bits) = run(1);
    let (two, two_bits) = run(2);
    assert_eq!(one, two);
    assert!(one.iterations == 6 && one.overlaps > 1000, "{one:?}");
    let differing = one_bits
        .iter()
        .zip(&two_bits)
        .filter(|(a, b)| a != b)
        .count();
    assert_eq!(
        differing, 0,
        "{differing} units differ between 1 and 2 threads"
    );
    assert_ne!(
        one_bits,
        world
            .position
            .iter()
            .map(|p| [p.x.to_bits(), p.y.to_bits()])
            .collect::<Vec<_>>(),
        "the pass should have moved units"
    );
}

/// Ground units search only as far as the shields they can meet: here the
/// helicopters' wider shields fly well above every ground shield. Both
/// layers are dense enough to start overlapped, among themselves only; the
/// oracle checks every pair afterwards, so a search cut too short in either
/// layer would leave an overlap.
#[test]
fn a_ground_crowd_under_a_helicopter_crowd_ends_with_no_overlap_in_either() {
    let side = 240.0;
    let draw = |stream: u64, unit: usize| convoy::random::unit_f32(77, stream, unit as u64);
    let mut world = World::default();
    for unit in 0..2_000 {
        let position = Vec2::new(draw(1, unit), draw(2, unit)) * side;
        let shield = Vec3::new(1.0 + 3.0 * draw(3, unit), 0.5 + 1.5 * draw(4, unit), 1.5);
        world.push(position, 0.0, 6.3 * draw(5, unit), shield, 1.0);
    }
    for unit in 0..150 {
        let position = Vec2::new(draw(6, unit), draw(7, unit)) * side;
        let altitude = 40.0 + 5.0 * draw(8, unit);
        let shield = Vec3::new(6.0, 4.0, 2.0);
        world.push(position, altitude, 6.3 * draw(9, unit), shield, 1.0);
    }
    let layer = |units: std::ops::Range<usize>| {
        let mut layer = World::default();
        for unit in units {
            let e = world.ellipsoid(unit);
            layer.push(e.centre.truncate(), e.centre.z, e.yaw, e.semi_axes, 1.0);
        }
        worst_overlap(&layer).0
    };
    let (ground, air) = (layer(0..2_000), layer(2_000..world.len()));
    assert!(
        ground > 0.1 && air > 0.1,
        "both layers should start overlapped: {ground}, {air}"
    );
    let stats = separate(&mut world, 2000);
    assert!(stats.iterations < 2000, "did not converge: {stats:?}");
    let (worst, pair) = worst_overlap(&world);
    assert!(
        worst < 1e-3,
        "pair {pair:?} still overlaps by {worst} ({stats:?})"
    );
}

#[test]
fn airborne_shields_above_ground_shields_do_not_collide() {
    let mut world = World::default();
    world.push(Vec2::ZERO, 0.0, 0.0, Vec3::new(4.0, 2.0, 1.5), 1.0);
    world.push(
        Vec2::new(0.5, 0.3),
        10.0,
        1.0,
        Vec3::new(8.0, 8.0, 2.0),
        1.0,
    );
    // Low enough to meet the tank's shield: pushed apart in the ground plane.
    world.push(
        Vec2::new(30.0, 0.0),
        0.0,
        0.0,
        Vec3::new(4.0, 2.0, 1.5),
        1.0,
    );
    world.push(
        Vec2::new(30.0, 0.0),
        2.5,
        0.0,
        Vec3::new(8.0, 8.0, 2.0),
        1.0,
    );
    let stats = separate(&mut world, 50);
    assert_eq!(stats.overlaps, 1, "{stats:?}");
    assert_eq!(world.position[0], Vec2::ZERO);
    assert_eq!(world.position[1], Vec2::new(0.5, 0.3));
    let (worst, _) = worst_overlap(&world);
    assert!(worst < 1e-3, "{worst}");
    // At one ground position: parted along one line, each by half.
    let (tank, helicopter) = (world.position[2], world.position[3]);
    assert!(
        (tank + helicopter).distance(Vec2::new(60.0, 0.0)) < 1e-3
            && tank.distance(helicopter) > 1.0,
        "{:?}",
        world.position
    );
}

/// What a pass that pushes nothing reports for `world`: every overlapping
/// pair measured in full by a pushing sweep.
fn measured_in_full(world: &World) -> SeparationStats {
    separate(&mut world.clone(), 0)
}

/// Whether two reported depths agree (pairs straddling two chunks are
/// measured from both sides, a last-bit difference).
fn same_depth(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-5 * a.max(b) + 1e-6
}

/// The largest overlap the pass reports, in metres and relative, is the one
/// left in the crowd, even when the iterations run out long before it is
/// resolved: the measuring sweep skips pairs that cannot be deeper than the
/// deepest so far, narrows its windows and stops searches early, so each
/// figure is checked against a pass that measures every pair in full, on
/// mixed crowds (airborne, immovable and big units) at three densities
/// after 1, 2, 3 and 5 pushes.
#[test]
fn reported_largest_overlap_is_the_one_left_when_iterations_run_out() {
    for (seed, area) in [(31, 12.0), (32, 20.0), (33, 30.0)] {
        let start = crowd(seed, 6_000, area);
        for iterations in [1, 2, 3, 5] {
            let mut world = start.clone();
            let stats = separate(&mut world, iterations);
            let full = measured_in_full(&world);
            assert!(
                same_depth(stats.max_overlap_m, full.max_overlap_m)
                    && same_depth(stats.max_overlap_rel, full.max_overlap_rel),
                "seed {seed}, {iterations} pushes: the pass reports {} m ({} relative), \
                 measured in full {} m ({})",
                stats.max_overlap_m,
                stats.max_overlap_rel,
                full.max_overlap_m,
                full.max_overlap_rel
            );
        }
        let mut jammed = start.clone();
        let stats = separate(&mut jammed, 1);
        assert!(
            seed != 31 || stats.max_overlap_rel > 0.5,
            "the densest crowd should still overlap after one push: {stats:?}"
        );
    }
}

/// A movable shield wedged between two immovable ones that overlap it
/// equally from the west and the east: its pushes cancel, so the overlap
/// stays. All three are spheres of `radius` at `altitude`, `gap` apart.
fn wedge(world: &mut World, centre: Vec2, altitude: f32, radius: f32, gap: f32) {
    let sphere = Vec3::splat(radius);
    world.push(centre - Vec2::new(gap, 0.0), 0.0, 0.0, sphere, 0.0);
    world.push(centre, altitude, 0.0, sphere, 1.0);
    world.push(centre + Vec2::new(gap, 0.0), 0.0, 0.0, sphere, 0.0);
}

/// Overlaps the measuring sweep cannot bound by the bounding spheres or the
/// contact function, each met after deep ones have raised the floor: the
/// deepest is reported, and equals the full measure. Wedges 3.5 m deep
/// (spheres of 3 m, 2.5 m apart) come first in place order, then:
/// shields at one ground position (depth 6 m, where the centre line gives
/// no direction: the middle one, between the other two in place order, is
/// pushed opposite ways by them); a shield 2.9 m above two at its ground position
/// (depth √(6² − 2.9²) ≈ 5.25 m, horizontal, though its centres are nearer
/// than the spheres' reach less 3.5 m); and a small wedge that is
/// shallow in metres but deepest relative to its shields.
#[test]
fn overlaps_the_measure_cannot_bound_are_still_the_deepest_reported() {
    // Five of them: each queues two pairs for the measure (its two outer
    // shields are immovable, a pair it skips), ten in all, so that a batch
    // of eight is settled (and the floor raised) before the later shields
    // are queued. (With three wedges, six pairs, the test passes too: it
    // checks what is reported, not when the floor rose.)
    let deep = |world: &mut World| {
        for x in [5.0, 25.0, 45.0, 65.0, 85.0] {
            wedge(world, Vec2::new(x, 5.0), 0.0, 3.0, 2.5);
        }
    };
    let later = Vec2::new(60.0, 60.0);
    let cases = [
        ("at one ground position", 0.0, 6.0),
        (
            "above at one ground position",
            2.9,
            (6.0_f32 * 6.0 - 2.9 * 2.9).sqrt(),
        ),
    ];
    for (case, altitude, depth) in cases {
        let mut world = World::default();
        deep(&mut world);
        wedge(&mut world, later, altitude, 3.0, 0.0);
        let stats = separate(&mut world, 1);
        let full = measured_in_full(&world);
        assert!(
            (stats.max_overlap_m - depth).abs() < 1e-3
                && same_depth(stats.max_overlap_m, full.max_overlap_m),
            "{case}: reported {} m, expected {depth}, measured in full {}",
            stats.max_overlap_m,
            full.max_overlap_m
        );
    }
    // Metres and relative depth from different pairs: 3.5 m of 3 m shields
    // (1.17), then 0.45 m of 0.25 m ones (1.8).
    let mut world = World::default();
    deep(&mut world);
    wedge(&mut world, later, 0.0, 0.25, 0.05);
    let stats = separate(&mut world, 1);
    let full = measured_in_full(&world);
    assert!(
        same_depth(stats.max_overlap_m, 3.5) && same_depth(stats.max_overlap_rel, 1.8),
        "reported {stats:?}, measured in full {full:?}"
    );
    assert!(
        same_depth(stats.max_overlap_rel, full.max_overlap_rel),
        "reported {stats:?}, measured in full {full:?}"
    );
}

/// 3,000 units, two in three of them movable shields wider than a hash
/// cell (big units: forward 9–12 m against 8 m cells), at 400 m² each: a
/// cell chosen smaller than many shields. Big pairs are found through a
/// list sorted by x, not all against all: the pass examines a fifth or less
/// of the 2,000 big units' 2 million pairs a sweep (about a twelfth here:
/// the stretch of x within reach is a twelfth of the square's side), and
/// still leaves no overlap the brute-force checker finds, big or small.
#[test]
fn a_crowd_of_big_units_is_separated_without_testing_every_big_pair() {
    let units = 3_000;
    let side = (units as f32 * 400.0).sqrt();
    let draw = |stream: u64, unit: usize| convoy::random::unit_f32(5, stream, unit as u64);
    let mut world = World::default();
    for unit in 0..units {
        let big = unit % 3 != 0;
        let shield = if big {
            Vec3::new(9.0 + 3.0 * draw(3, unit), 5.0 + 3.0 * draw(4, unit), 2.0)
        } else {
            Vec3::new(1.0 + 3.0 * draw(3, unit), 0.5 + 1.5 * draw(4, unit), 1.5)
        };
        let position = Vec2::new(draw(1, unit), draw(2, unit)) * side;
        world.push(position, 0.0, 6.3 * draw(5, unit), shield, 1.0);
    }
    let (initial, _) = worst_overlap(&world);
    assert!(
        initial > 0.5,
        "the crowd should start overlapped, worst {initial}"
    );
    let stats = separate(&mut world, 500);
    let big_pairs_a_sweep = 2_000 * 1_999 / 2;
    let sweeps = u64::from(stats.iterations) + 1;
    assert!(
        stats.pairs_tested < sweeps * big_pairs_a_sweep / 5,
        "{} pairs examined over {sweeps} sweeps",
        stats.pairs_tested
    );
    assert!(stats.max_overlap_rel < 1e-3, "{stats:?}");
    let (worst, pair) = worst_overlap(&world);
    assert!(
        worst < 1e-3,
        "pair {pair:?} still overlaps by {worst} ({stats:?})"
    );
}

/// How far and in which direction (angle) each unit moved.
type Moves<'a> = dyn Fn(usize) -> (f32, f32) + 'a;

/// A hash, in cells of `cell`, of `world` as it was before its units moved
/// by `moves(unit)` (distance, direction angle): where each unit was is its
/// position minus that move.
fn hash_before_moves(world: &World, cell: f32, moves: impl Fn(usize) -> (f32, f32)) -> SpatialHash {
    let earlier: Vec<Vec2> = (0..world.len())
        .map(|unit| {
            let (distance, angle) = moves(unit);
            world.position[unit] - Vec2::from_angle(angle) * distance
        })
        .collect();
    let mut hash = SpatialHash::new(world.bounds(), cell).expect("valid grid");
    hash.rebuild(&earlier);
    hash
}

/// 5,000 small shields (semi-axes 0.4–1 m, so 1 m cells hold them all) at
/// 4 m² each, a fifth airborne at 1.5 m, low enough to meet the ground
/// shields: windows a few cells wide, where leaving out a few tenths of a
/// metre of reach loses pairs.
fn small_crowd(seed: u64) -> World {
    let draw = |stream, unit: usize| convoy::random::unit_f32(seed, stream, unit as u64);
    let side = (5_000.0_f32 * 4.0).sqrt();
    let mut world = World::default();
    for unit in 0..5_000 {
        let axis = |stream| 0.4 + 0.6 * draw(stream, unit);
        world.push(
            Vec2::new(draw(1, unit), draw(2, unit)) * side,
            if draw(3, unit) < 0.2 { 1.5 } else { 0.0 },
            std::f32::consts::TAU * draw(4, unit),
            Vec3::new(axis(5), axis(6), axis(7)),
            1.0,
        );
    }
    world
}

/// A pass on a hash built before the units moved (as the tick's is, before
/// integration) finds every overlap it finds on a hash of where they are
/// now: each unit's search reaches as far as it and the units of the layers
/// it meets travelled, measured unit by unit. Moves in random directions,
/// in 1 m cells (the pass rebuilds its hash first once the drift averaged
/// over the crowd passes 1 m, or one class's 2 m): every unit
/// 0.9 m (a search that left out a unit's own travel misses pairs); ground
/// units 0.2 m and airborne ones 0.9 m (one that left out a layer's
/// travel misses pairs); and one unit in a hundred 5 m, which has the pass
/// rebuild its hash before the first sweep. Nothing is pushed (`iterations`
/// 0), so the passes report the same crowd.
#[test]
fn a_hash_of_earlier_positions_finds_every_overlap_of_the_current_ones() {
    const CELL: f32 = 1.0;
    for seed in [41, 42] {
        let world = small_crowd(seed);
        let draw = |stream, unit: usize| convoy::random::unit_f32(seed, stream, unit as u64);
        let angle = |unit| std::f32::consts::TAU * draw(21, unit);
        let expected = measured_in_full(&world);
        assert!(expected.overlaps > 1_000, "seed {seed}: {expected:?}");
        let cases: [(&str, &Moves, u32); 3] = [
            ("every unit 0.9 m", &|unit| (0.9, angle(unit)), 0),
            (
                "ground 0.2 m, airborne 0.9 m",
                &|unit| {
                    let distance = if world.altitude[unit] > 0.0 { 0.9 } else { 0.2 };
                    (distance, angle(unit))
                },
                0,
            ),
            (
                "1 % 5 m",
                &|unit| (if draw(20, unit) < 0.01 { 5.0 } else { 0.1 }, angle(unit)),
                1,
            ),
        ];
        for (moves, moved, rebuilds) in cases {
            let earlier = hash_before_moves(&world, CELL, moved);
            let mut separation =
                Separation::new(world.bounds(), CELL, 0).expect("test grid is valid");
            separation.reserve(world.len());
            let mut position = world.position.clone();
            let found = separation.pass(world.input(&earlier), &mut position);
            assert_eq!(found.overlaps, expected.overlaps, "seed {seed}, {moves}");
            assert!(
                same_depth(found.max_overlap_m, expected.max_overlap_m)
                    && same_depth(found.max_overlap_rel, expected.max_overlap_rel),
                "seed {seed}, {moves}: {found:?} against {expected:?}"
            );
            assert_eq!(found.rebuilds, rebuilds, "seed {seed}, {moves}");
            assert_eq!(position, world.position, "nothing is pushed");
        }
    }
}

/// After pushes from a hash of earlier positions, the largest overlap the
/// pass reports is the one left in the crowd: measured again in full on a
/// hash of where the units ended.
#[test]
fn pushes_from_a_hash_of_earlier_positions_report_the_overlap_left() {
    const CELL: f32 = 1.0;
    for seed in [43, 44] {
        let start = small_crowd(seed);
        let earlier = hash_before_moves(&start, CELL, |unit| {
            let draw = |stream| convoy::random::unit_f32(seed, stream, unit as u64);
            (0.9 * draw(22), std::f32::consts::TAU * draw(21))
        });
        for iterations in [1, 2, 3] {
            let mut separation =
                Separation::new(start.bounds(), CELL, iterations).expect("test grid is valid");
            separation.reserve(start.len());
            let mut world = start.clone();
            let reported = separation.pass(start.input(&earlier), &mut world.position);
            assert_eq!(reported.iterations, iterations, "seed {seed}: {reported:?}");
            let left = measured_in_full(&world);
            assert!(
                same_depth(reported.max_overlap_m, left.max_overlap_m)
                    && same_depth(reported.max_overlap_rel, left.max_overlap_rel),
                "seed {seed}, {iterations} pushes: reported {reported:?}, left {left:?}"
            );
        }
    }
}

/// The spherical shields of the far pair in [`facing_stacks`].
#[derive(Clone, Copy, Debug)]
struct FarPair {
    radius: f32,
    altitude: f32,
}

impl FarPair {
    /// 0.5 m at 0.3 m: airborne, low enough to meet the ground shields.
    const AIRBORNE: FarPair = FarPair {
        radius: 0.5,
        altitude: 0.3,
    };
    /// 0.6 m on the ground: big in 0.5 m cells.
    const BIG: FarPair = FarPair {
        radius: 0.6,
        altitude: 0.0,
    };

    /// How far apart on the ground a 0.5 m ground shield and one of these
    /// touch.
    fn touching(self) -> f32 {
        ((GROUND_RADIUS + self.radius).powi(2) - self.altitude.powi(2)).sqrt()
    }
}

/// The ground shields' radius in [`facing_stacks`].
const GROUND_RADIUS: f32 = 0.5;

/// Two stacked pairs facing each other along a random direction: ground
/// shields `G1`, `G2` (spheres of radius 0.5 m) and, beyond them, `H`, `H2`
/// of the `far` kind. Each pair overlaps deeply, so one push moves `G2`
/// about `ground_push` towards `H` and `H` about `far_push` towards `G2`,
/// which start `gap` apart (measured between where the hash sees them), not
/// yet touching. Twenty idle ground shields stand in a row 20 m away: they
/// touch nothing, but they make the ground the crowd's main class.
fn facing_stacks(origin: Vec2, angle: f32, gap: f32, pushes: (f32, f32), far: FarPair) -> World {
    let (ground_push, far_push) = pushes;
    let along = Vec2::from_angle(angle);
    let mut world = World::default();
    // A pair of radius `r` and `apart` apart overlaps by `2r − apart`, and
    // each is pushed half.
    let g2 = origin;
    let g1 = g2 - along * (2.0 * GROUND_RADIUS - 2.0 * ground_push);
    let h = g2 + along * gap;
    let h2 = h + along * (2.0 * far.radius - 2.0 * far_push);
    for position in [g1, g2] {
        world.push(position, 0.0, 0.0, Vec3::splat(GROUND_RADIUS), 1.0);
    }
    for position in [h, h2] {
        world.push(position, far.altitude, 0.0, Vec3::splat(far.radius), 1.0);
    }
    for idle in 0..20 {
        let position = origin + Vec2::new(20.0 + 1.5 * idle as f32, 0.0);
        world.push(position, 0.0, 0.0, Vec3::splat(GROUND_RADIUS), 1.0);
    }
    world
}

/// Pushes widen each unit's window by its own class's largest push and by
/// the largest of the layers its shield meets, not by the largest anywhere:
/// ground units and airborne ones (or, in every other case, big ones) are
/// pushed different distances (a fifth to nine tenths of a 0.5 m cell on
/// the ground, a fifth to a whole cell for the others) towards each other, from all directions and offsets in
/// the cell, and the pair that the push closes lies near the edge of the
/// window of whichever of the two is tested first. The airborne class
/// drifts up to a cell, but the crowd's drift averaged over its units
/// stays below one (the idle ground shields), so after one push the pass
/// keeps its hash (no rebuild) and its next sweep relies on those windows:
/// the overlap it reports after one push (found by the measuring sweep), or
/// after two (the second pushing sweep), is the one left, measured in full. A window that left out
/// either unit's push misses the pair.
#[test]
fn windows_widened_by_each_class_pushes_find_the_overlap_left() {
    const CELL: f32 = 0.5;
    let mut closed = 0;
    for case in 0..2_000_u64 {
        let draw = |stream| convoy::random::unit_f32(47, stream, case);
        let far = if case % 2 == 0 {
            FarPair::AIRBORNE
        } else {
            FarPair::BIG
        };
        let (ground_push, far_push) = (0.1 + 0.35 * draw(1), 0.1 + 0.4 * draw(2));
        // Start apart, end overlapping.
        let gap = far.touching() + 0.01 + (ground_push + far_push - 0.02) * draw(3);
        let origin = Vec2::new(10.0, 10.0) + Vec2::new(draw(4), draw(5)) * CELL;
        let angle = std::f32::consts::TAU * draw(6);
        let start = facing_stacks(origin, angle, gap, (ground_push, far_push), far);
        let hash = hash_before_moves(&start, CELL, |_| (0.0, 0.0));
        for iterations in [1, 2] {
            let mut separation =
                Separation::new(start.bounds(), CELL, iterations).expect("test grid is valid");
            let mut world = start.clone();
            let reported = separation.pass(start.input(&hash), &mut world.position);
            // After the second push the drift may call for a rebuild
            // before the measuring sweep; the second pushing sweep still
            // ran on the widened windows.
            if iterations == 1 {
                assert_eq!(reported.rebuilds, 0, "case {case}: {reported:?}");
            }
            let left = measured_in_full(&world);
            closed += u64::from(iterations == 1 && left.overlaps > 0);
            assert!(
                same_depth(reported.max_overlap_m, left.max_overlap_m),
                "case {case} ({far:?}), {iterations} pushes: reported {reported:?}, left {left:?}"
            );
        }
    }
    assert!(closed > 1_500, "only {closed} pushes closed a pair");
}

/// Pairs that overlap by 5 cm, side by side along x, hashed 0.2 m apart
/// from where they are (each moved 0.2 m from the other since the hash saw
/// it, below the 1 m at which the pass would rebuild its 1 m cells): the
/// earlier unit's window must reach its own travel, its
/// partner's and both radii. Their offsets sweep a cell in steps of 5 mm,
/// so some pairs sit just past the edge of a window that left out either
/// travel. Every pair is found.
#[test]
fn pairs_at_the_edge_of_a_window_are_found_whatever_their_travel() {
    const CELL: f32 = 1.0;
    let (travel, depth, pairs) = (0.2, 0.05, 200);
    let mut world = World::default();
    let mut earlier = Vec::new();
    for k in 0..pairs {
        let first = Vec2::new(
            7.0 * (k % 20) as f32 + 0.005 * k as f32,
            5.0 * (k / 20) as f32,
        );
        let second = first + Vec2::new(2.0 - depth, 0.0);
        for (position, moved) in [(first, -travel), (second, travel)] {
            world.push(position, 0.0, 0.0, Vec3::ONE, 1.0);
            earlier.push(position + Vec2::new(moved, 0.0));
        }
    }
    let mut hash = SpatialHash::new(world.bounds(), CELL).expect("valid grid");
    hash.rebuild(&earlier);
    let mut separation = Separation::new(world.bounds(), CELL, 0).expect("test grid is valid");
    let mut position = world.position.clone();
    let found = separation.pass(world.input(&hash), &mut position);
    assert_eq!(found.rebuilds, 0, "{found:?}");
    assert_eq!(found.overlaps, pairs as u64, "{found:?}");
}
