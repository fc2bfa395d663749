//! The separation pass against walls and on stacked units.

mod common;

use common::{World, worst_overlap};
use convoy::glam::{Vec2, Vec3};
use convoy::nav::ClassMaps;
use convoy::nav::{GridMap, Mobility, Terrain, WorldMap};
use convoy::stages::separation::{Separation, SeparationStats};

/// A map of 1 m cells, 100 × 100 from the origin, blocked where `blocked`
/// says (by cell column and row).
fn map(blocked: impl Fn(u32, u32) -> bool) -> WorldMap {
    let (width, height) = (100, 100);
    let cells = (0..width * height)
        .map(|index| match blocked(index % width, index / width) {
            true => Terrain::Blocked,
            false => Terrain::Open,
        })
        .collect();
    let grid = GridMap::new(width, height, cells).expect("sizes match");
    WorldMap::new(&grid, Mobility::GROUND, Vec2::ZERO, 1.0).expect("valid map")
}

/// One pass of at most `iterations` pushes over `world` on `terrain`.
fn separate_on(world: &mut World, terrain: Option<&WorldMap>, iterations: u32) -> SeparationStats {
    let hash = world.hash();
    let mut separation =
        Separation::new(world.bounds(), common::CELL, iterations).expect("test grid is valid");
    separation.reserve(world.len());
    let (input_world, mut position) = (world.clone(), world.position.clone());
    let mut input = input_world.input(&hash);
    input.terrain = ClassMaps::new(terrain, &[]);
    let stats = separation.pass(input, &mut position);
    world.position = position;
    stats
}

/// A unit against a wall cannot be pushed into it: after the wall cuts its
/// first step, its partner takes the whole push, as from an immovable unit,
/// and the pair, 0.9 m deep, is apart after the next (sharing each push half and half takes more, the overlap about halving
/// each time).
#[test]
fn the_partner_of_a_unit_against_a_wall_takes_the_whole_push() {
    let terrain = map(|column, _| column < 50);
    let mut world = World::default();
    world.push(Vec2::new(50.05, 20.0), 0.0, 0.0, Vec3::ONE, 1.0);
    world.push(Vec2::new(51.15, 20.0), 0.0, 0.0, Vec3::ONE, 1.0);
    let stats = separate_on(&mut world, Some(&terrain), 64);
    let (worst, _) = worst_overlap(&world);
    assert!(worst < 1e-3, "overlap {worst} left ({stats:?})");
    assert!(stats.iterations <= 3, "{stats:?}");
    assert!(world.position[0].x >= 50.0, "{:?}", world.position);
    assert!(world.position[1].x > 52.0, "{:?}", world.position);
}

/// Units stacked on one spot of a corridor a cell wide part along it: the
/// pairs' directions turn with the gaps between their places, so they are
/// not all pushed across the corridor into its walls.
#[test]
fn units_stacked_in_a_narrow_corridor_part_along_it() {
    let terrain = map(|column, _| column != 50);
    let mut world = World::default();
    for _ in 0..5 {
        world.push(Vec2::new(50.5, 50.0), 0.0, 0.0, Vec3::splat(0.4), 1.0);
    }
    let stats = separate_on(&mut world, Some(&terrain), 64);
    let (worst, _) = worst_overlap(&world);
    assert!(worst < 1e-3, "overlap {worst} left ({stats:?})");
    assert!(!stats.capped, "{stats:?}");
    for position in &world.position {
        assert!(terrain.is_open(*position), "{position} is off the corridor");
    }
}
