//! The separation pass on crowds, pile-ups and thread pools.

mod common;

use common::{World, crowd, worst_overlap};
use convoy::glam::{Vec2, Vec3};
use convoy::separation::{Separation, SeparationStats};

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
    // Large enough (20,000 rows) that passes really split across threads.
    let world = crowd(23, 20_000, 30.0);
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
    assert_eq!(world.position[2].y, 0.0);
    assert!(
        world.position[2].x < 30.0 && world.position[3].x > 30.0,
        "{:?}",
        world.position
    );
}

/// The largest overlap the pass reports is the one left in the crowd, even
/// when the iterations run out long before it is resolved (the measuring
/// sweep skips pairs that cannot be deeper than the deepest so far, and stops
/// the others' searches early): checked against the brute-force oracle on a
/// jammed ground crowd after 1 and 3 pushes. Ground only, where the pass's
/// depth (along the centre line) is the oracle's.
#[test]
fn reported_largest_overlap_is_the_one_left_when_iterations_run_out() {
    let mixed = crowd(31, 6_000, 12.0);
    let mut ground = World::default();
    for unit in (0..mixed.len()).filter(|&unit| mixed.altitude[unit] == 0.0) {
        ground.push(
            mixed.position[unit],
            0.0,
            mixed.heading[unit],
            mixed.shield[unit],
            mixed.inv_mass[unit],
        );
    }
    for iterations in [1, 3] {
        let mut world = ground.clone();
        let stats = separate(&mut world, iterations);
        let (worst, pair) = worst_overlap(&world);
        assert!(
            stats.iterations == iterations && worst > 0.1,
            "the crowd should still overlap after {iterations} pushes: {stats:?}"
        );
        assert!(
            (stats.max_overlap_rel - worst).abs() <= 1e-3 * worst,
            "after {iterations} pushes the pass reports {} but pair {pair:?} overlaps by {worst}",
            stats.max_overlap_rel
        );
    }
}
