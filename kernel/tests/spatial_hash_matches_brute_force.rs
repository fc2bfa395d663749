//! The spatial hash finds exactly the units a brute-force O(n²) scan finds,
//! on random sets including the awkward cases: negative coordinates, points
//! on cell borders, everything in one cell, points far outside the bounds.

#![allow(clippy::unwrap_used)]

use convoy::Bounds;
use convoy::data::spatial_hash::SpatialHash;
use convoy::glam::Vec2;
use proptest::prelude::*;

fn brute_force_within(points: &[Vec2], centre: Vec2, radius: f32) -> Vec<u32> {
    let mut found: Vec<u32> = (0..points.len() as u32)
        .filter(|&i| points[i as usize].distance_squared(centre) <= radius * radius)
        .collect();
    found.sort_unstable();
    found
}

fn hash_within(hash: &SpatialHash, centre: Vec2, radius: f32) -> Vec<u32> {
    let mut found = Vec::new();
    hash.for_each_within(centre, radius, |unit, _| found.push(unit));
    found.sort_unstable();
    found
}

/// Points on a 2 m lattice (so many lie exactly on 4 m cell borders), mixed
/// with free points, some far outside the bounds.
fn point() -> impl Strategy<Value = Vec2> {
    prop_oneof![
        4 => (-50i32..50, -50i32..50).prop_map(|(x, y)| Vec2::new(x as f32 * 2.0, y as f32 * 2.0)),
        4 => (-100f32..100.0, -100f32..100.0).prop_map(|(x, y)| Vec2::new(x, y)),
        1 => (-1e7f32..1e7, -1e7f32..1e7).prop_map(|(x, y)| Vec2::new(x, y)),
    ]
}

proptest! {
    #[test]
    fn radius_queries_match_brute_force(
        points in prop::collection::vec(point(), 0..400),
        centres in prop::collection::vec(point(), 1..20),
        radius in prop_oneof![Just(0.0f32), Just(4.0), 0.0f32..30.0],
        // 0.2 m: 360,000 cells, cleared and summed in parallel.
        cell in prop_oneof![Just(4.0f32), 0.5f32..20.0, Just(0.2f32)],
    ) {
        let bounds = Bounds::new(Vec2::splat(-60.0), Vec2::splat(60.0));
        let mut hash = SpatialHash::new(bounds, cell).unwrap();
        hash.rebuild(&points);
        for centre in centres.iter().copied().chain(points.iter().copied().take(20)) {
            prop_assert_eq!(hash_within(&hash, centre, radius), brute_force_within(&points, centre, radius));
        }
    }

    #[test]
    fn neighbour_visits_match_brute_force_and_skip_the_unit_itself(
        points in prop::collection::vec(point(), 1..300),
        radius in 0.0f32..12.0,
    ) {
        let bounds = Bounds::new(Vec2::new(-80.0, -40.0), Vec2::new(40.0, 90.0));
        let mut hash = SpatialHash::new(bounds, 4.0).unwrap();
        hash.rebuild(&points);
        for unit in 0..points.len() as u32 {
            let mut found = Vec::new();
            hash.for_each_neighbour(unit, radius, |other, position| {
                assert_eq!(position, points[other as usize]);
                found.push(other);
            });
            found.sort_unstable();
            let expected: Vec<u32> = brute_force_within(&points, points[unit as usize], radius)
                .into_iter()
                .filter(|&other| other != unit)
                .collect();
            prop_assert_eq!(found, expected);
        }
    }
}

#[test]
fn an_empty_world_answers_every_query_with_nothing() {
    let mut hash = SpatialHash::new(Bounds::new(Vec2::ZERO, Vec2::splat(10.0)), 1.0).unwrap();
    hash.rebuild(&[]);
    assert!(hash_within(&hash, Vec2::splat(5.0), 100.0).is_empty());
}

#[test]
fn all_units_in_one_cell_are_all_found() {
    let points: Vec<Vec2> = (0..500)
        .map(|i| Vec2::splat(0.5 + i as f32 * 1e-4))
        .collect();
    let mut hash = SpatialHash::new(Bounds::new(Vec2::ZERO, Vec2::splat(100.0)), 4.0).unwrap();
    let stats = hash.rebuild(&points);
    assert_eq!(stats.max_cell_units, 500);
    assert_eq!(hash_within(&hash, Vec2::splat(0.5), 1.0).len(), 500);
}

#[test]
fn units_far_outside_the_bounds_and_nan_positions_do_not_panic() {
    let points = vec![
        Vec2::new(1e30, -1e30),
        Vec2::new(f32::INFINITY, 0.0),
        Vec2::new(f32::NAN, 3.0),
        Vec2::new(1e30, -1e30 + 1.0),
        Vec2::splat(2.0),
    ];
    let mut hash = SpatialHash::new(Bounds::new(Vec2::ZERO, Vec2::splat(10.0)), 1.0).unwrap();
    let stats = hash.rebuild(&points);
    assert_eq!(stats.outside_bounds, 4);
    assert_eq!(hash_within(&hash, Vec2::new(1e30, -1e30), 1.0), vec![0, 3]);
    assert_eq!(hash_within(&hash, Vec2::splat(2.0), 1.0), vec![4]);
    assert!(hash_within(&hash, Vec2::splat(2.0), f32::NAN).is_empty());
    assert!(hash_within(&hash, Vec2::splat(2.0), -1.0).is_empty());
}

#[test]
fn bad_grid_parameters_are_refused() {
    let bounds = Bounds::new(Vec2::ZERO, Vec2::splat(10.0));
    assert!(SpatialHash::new(bounds, 0.0).is_err());
    assert!(SpatialHash::new(bounds, f32::NAN).is_err());
    assert!(SpatialHash::new(Bounds::new(Vec2::ZERO, Vec2::ZERO), 1.0).is_err());
    assert!(SpatialHash::new(Bounds::new(Vec2::ZERO, Vec2::splat(1e9)), 1e-3).is_err());
}
