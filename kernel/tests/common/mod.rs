//! Seeded crowds and an independent overlap checker for the separation tests.

#![allow(dead_code)]

use convoy::geometry::ellipsoid::{Ellipsoid, depth_along_centre_line, overlaps};
use convoy::glam::{Vec2, Vec3};
use convoy::nav::ClassMaps;
use convoy::random::unit_f32;
use convoy::stages::separation::SeparationInput;
use convoy::{Bounds, data::spatial_hash::SpatialHash};

/// Cell size of every test hash: larger shields count as big units.
pub const CELL: f32 = 8.0;

/// Shields and positions of a test world (columns, as the stage sees them).
#[derive(Clone, Debug, Default)]
pub struct World {
    pub position: Vec<Vec2>,
    pub altitude: Vec<f32>,
    pub heading: Vec<f32>,
    pub shield: Vec<Vec3>,
    pub inv_mass: Vec<f32>,
}

impl World {
    pub fn len(&self) -> usize {
        self.position.len()
    }

    pub fn push(
        &mut self,
        position: Vec2,
        altitude: f32,
        heading: f32,
        shield: Vec3,
        inv_mass: f32,
    ) {
        self.position.push(position);
        self.altitude.push(altitude);
        self.heading.push(heading);
        self.shield.push(shield);
        self.inv_mass.push(inv_mass);
    }

    pub fn ellipsoid(&self, unit: usize) -> Ellipsoid {
        Ellipsoid::new(
            self.position[unit].extend(self.altitude[unit]),
            self.shield[unit],
            self.heading[unit],
        )
    }

    /// Bounds around every unit with room to spare.
    pub fn bounds(&self) -> Bounds {
        let (mut min, mut max) = (Vec2::splat(f32::MAX), Vec2::splat(f32::MIN));
        for p in &self.position {
            min = min.min(*p);
            max = max.max(*p);
        }
        Bounds::new(min - 100.0, max + 100.0)
    }

    /// A hash of the current positions.
    pub fn hash(&self) -> SpatialHash {
        let mut hash = SpatialHash::new(self.bounds(), CELL).expect("test bounds are valid");
        hash.rebuild(&self.position);
        hash
    }

    pub fn input<'a>(&'a self, hash: &'a SpatialHash) -> SeparationInput<'a> {
        SeparationInput {
            altitude: &self.altitude,
            heading: &self.heading,
            shield: &self.shield,
            inv_mass: &self.inv_mass,
            spatial: hash,
            mobility: &[],
            terrain: ClassMaps::default(),
        }
    }
}

/// `units` shields scattered over a square at `area_per_unit` m² each:
/// forward 1–4 m, lateral 0.5–2 m, vertical 1–2 m; 1 % big immovable
/// buildings (forward 9–16 m, bigger than a cell), 5 % small immovable units,
/// 15 % airborne at 2–25 m (some still low enough to meet ground shields).
/// An immovable unit too close to an earlier one becomes an ordinary movable
/// unit.
pub fn crowd(seed: u64, units: usize, area_per_unit: f32) -> World {
    let side = (units as f32 * area_per_unit).sqrt();
    let draw = |stream: u64, unit: usize, low: f32, high: f32| {
        low + (high - low) * unit_f32(seed, stream, unit as u64)
    };
    let mut world = World::default();
    for unit in 0..units {
        let position = Vec2::new(draw(1, unit, 0.0, side), draw(2, unit, 0.0, side));
        let heading = draw(3, unit, -3.2, 3.2);
        let class = draw(4, unit, 0.0, 1.0);
        let ordinary = Vec3::new(
            draw(5, unit, 1.0, 4.0),
            draw(6, unit, 0.5, 2.0),
            draw(7, unit, 1.0, 2.0),
        );
        let mut shield = ordinary;
        let (mut altitude, mut inv_mass) = (0.0, draw(8, unit, 0.5, 2.0));
        if class < 0.01 {
            shield = Vec3::new(draw(9, unit, 9.0, 16.0), draw(10, unit, 4.0, 9.0), 6.0);
            inv_mass = 0.0;
        } else if class < 0.06 {
            inv_mass = 0.0;
        } else if class < 0.21 {
            altitude = draw(11, unit, 2.0, 25.0);
        }
        // Immovable shields keep at least 8 m (the widest small shield)
        // between them, so no unit can be trapped in a gap too small for it.
        if inv_mass == 0.0 {
            let crowded = (0..world.len()).any(|other| {
                world.inv_mass[other] == 0.0
                    && world.position[other].distance(position)
                        < world.shield[other].max_element() + shield.max_element() + 8.0
            });
            if crowded {
                // An ordinary movable unit instead: a big movable shield
                // could be wedged between two immovable ones for good.
                (shield, inv_mass) = (ordinary, 1.0);
            }
        }
        world.push(position, altitude, heading, shield, inv_mass);
    }
    world
}

/// The largest overlap of any pair (not both immovable), as the centre-line
/// depth relative to the smaller shield's smallest semi-axis, found by a
/// sweep over units sorted by x (no spatial hash involved).
pub fn worst_overlap(world: &World) -> (f32, Option<(usize, usize)>) {
    let mut order: Vec<usize> = (0..world.len()).collect();
    order.sort_by(|&a, &b| world.position[a].x.total_cmp(&world.position[b].x));
    let largest = world
        .shield
        .iter()
        .map(|s| s.max_element())
        .fold(0.0, f32::max);
    let mut worst = (0.0_f32, None);
    for (k, &a) in order.iter().enumerate() {
        let ea = world.ellipsoid(a);
        for &b in &order[k + 1..] {
            if world.position[b].x - world.position[a].x > ea.bounding_radius() + largest {
                break;
            }
            if world.inv_mass[a] == 0.0 && world.inv_mass[b] == 0.0 {
                continue;
            }
            let eb = world.ellipsoid(b);
            if !overlaps(&ea, &eb) {
                continue;
            }
            let smallest = ea.semi_axes.min_element().min(eb.semi_axes.min_element());
            let relative = depth_along_centre_line(&ea, &eb) / smallest;
            if relative >= worst.0 {
                worst = (relative, Some((a.min(b), a.max(b))));
            }
        }
    }
    worst
}
