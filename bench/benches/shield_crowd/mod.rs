//! The shield separation benchmarks' crowd, shared by the criterion bench
//! (`separation.rs`) and the instruction counts (`instructions.rs`).

use convoy::glam::{Vec2, Vec3};
use convoy::random::unit_f32;
use convoy::{Bounds, SpatialHash};

/// The shield benchmark crowd's hash cell: its largest bounding radius.
pub const SHIELD_CROWD_CELL: f32 = 6.0;

/// A crowd for shield separation: one unit per 50 m² of a square, semi-axes
/// 2–6 m each, random headings, all on the ground and movable, rows in
/// spatial-cell order (as `Sim` keeps them), so that neighbours sit together
/// in memory. Shields of that size at that density overlap heavily (about
/// two overlapping pairs per unit).
pub struct ShieldCrowd {
    pub position: Vec<Vec2>,
    pub altitude: Vec<f32>,
    pub heading: Vec<f32>,
    pub shield: Vec<Vec3>,
    pub inv_mass: Vec<f32>,
    pub bounds: Bounds,
}

/// The shield crowd of `units` units (seeded).
pub fn shield_crowd(units: usize) -> ShieldCrowd {
    const SEED: u64 = 42;
    let side = (units as f32 * 50.0).sqrt();
    let draw = |stream: u64, unit: usize| unit_f32(SEED, stream, unit as u64);
    let position: Vec<Vec2> = (0..units)
        .map(|u| Vec2::new(draw(1, u), draw(2, u)) * side)
        .collect();
    let bounds = Bounds::new(Vec2::splat(-50.0), Vec2::splat(side + 50.0));
    let mut hash = SpatialHash::new(bounds, SHIELD_CROWD_CELL).expect("valid grid");
    hash.rebuild(&position);
    let order: Vec<usize> = hash.order().iter().map(|&u| u as usize).collect();
    ShieldCrowd {
        position: order.iter().map(|&u| position[u]).collect(),
        altitude: vec![0.0; units],
        heading: order
            .iter()
            .map(|&u| (draw(6, u) - 0.5) * std::f32::consts::TAU)
            .collect(),
        shield: order
            .iter()
            .map(|&u| Vec3::new(draw(3, u), draw(4, u), draw(5, u)) * 4.0 + 2.0)
            .collect(),
        inv_mass: vec![1.0; units],
        bounds,
    }
}
