//! The shield separation benchmarks' crowd, shared by the criterion bench
//! (`separation.rs`) and the instruction counts (`instructions.rs`).

use convoy::Bounds;
use convoy::data::spatial_hash::SpatialHash;
use convoy::glam::{Vec2, Vec3};
use convoy::nav::ClassMaps;
use convoy::random::unit_f32;
use convoy::stages::separation::{Separation, SeparationInput};

/// How big the crowd's shields are. The separation issue asks for "shields
/// of 2–6 m" at one unit per 50 m², which reads two ways.
#[derive(Clone, Copy, Debug)]
pub enum ShieldSize {
    /// Every semi-axis 2–6 m (shields 4–12 m across): the footprints cover
    /// about the whole area, a jammed crowd with about two overlapping
    /// pairs per unit that no number of pushes can resolve.
    SemiAxes2To6m,
    /// Shields 2–6 m across (every semi-axis 1–3 m): the footprints cover
    /// about a quarter of the area.
    Across2To6m,
}

impl ShieldSize {
    /// The range every semi-axis is drawn from, metres.
    fn semi_axes(self) -> (f32, f32) {
        match self {
            ShieldSize::SemiAxes2To6m => (2.0, 6.0),
            ShieldSize::Across2To6m => (1.0, 3.0),
        }
    }
}

/// A crowd for shield separation: one unit per 50 m² of a square, each
/// semi-axis drawn from the range of its [`ShieldSize`], random headings, all
/// on the ground and movable, rows in spatial-cell order (as `Sim` keeps
/// them), so that neighbours sit together in memory.
pub struct ShieldCrowd {
    pub position: Vec<Vec2>,
    pub altitude: Vec<f32>,
    pub heading: Vec<f32>,
    pub shield: Vec<Vec3>,
    pub inv_mass: Vec<f32>,
    pub bounds: Bounds,
    /// The tick hash's cell: the largest bounding radius.
    pub cell: f32,
}

impl ShieldCrowd {
    /// The tick hash of the crowd's positions.
    pub fn hash(&self) -> SpatialHash {
        let mut hash = SpatialHash::new(self.bounds, self.cell).expect("valid grid");
        hash.rebuild(&self.position);
        hash
    }

    /// Separation scratch for the crowd, one push a pass, grown to its size.
    pub fn separation(&self) -> Separation {
        let mut separation = Separation::new(self.bounds, self.cell, 1).expect("valid grid");
        separation.reserve(self.position.len());
        separation
    }

    /// The crowd's columns as separation reads them, hashed in `spatial`,
    /// nothing moved since, no terrain.
    pub fn input<'a>(&'a self, spatial: &'a SpatialHash) -> SeparationInput<'a> {
        SeparationInput {
            altitude: &self.altitude,
            heading: &self.heading,
            shield: &self.shield,
            inv_mass: &self.inv_mass,
            spatial,
            mobility: &[],
            terrain: ClassMaps::default(),
        }
    }
}

/// The shield crowd of `units` units (seeded).
pub fn shield_crowd(units: usize, size: ShieldSize) -> ShieldCrowd {
    const SEED: u64 = 42;
    let (low, high) = size.semi_axes();
    let side = (units as f32 * 50.0).sqrt();
    let draw = |stream: u64, unit: usize| unit_f32(SEED, stream, unit as u64);
    let position: Vec<Vec2> = (0..units)
        .map(|u| Vec2::new(draw(1, u), draw(2, u)) * side)
        .collect();
    let bounds = Bounds::new(Vec2::splat(-50.0), Vec2::splat(side + 50.0));
    let mut hash = SpatialHash::new(bounds, high).expect("valid grid");
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
            .map(|&u| Vec3::new(draw(3, u), draw(4, u), draw(5, u)) * (high - low) + low)
            .collect(),
        inv_mass: vec![1.0; units],
        bounds,
        cell: high,
    }
}
