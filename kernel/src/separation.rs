//! Shield separation: the `separation` stage.
//!
//! The Armada paper (Davis, *Warp Speed*, "Support Systems") keeps ships from
//! overlapping by testing shield volumes found through the spatial buckets
//! and pushing overlapping pairs apart. This pass uses each shield's bounding
//! sphere (its largest semi-axis, centred at `(x, y, altitude)`), so a
//! helicopter above a tank does not touch it; each overlapping pair is pushed
//! apart along the centre line by the overlap, shared by inverse mass
//! (immovable units have inverse mass 0). Displacements are summed per unit
//! from last-integrated positions and applied afterwards (Jacobi), so the
//! result does not depend on thread count or pair order. Ground units move
//! only in the ground plane.

use glam::{Vec2, Vec3};

use crate::parallel::{count_rows, for_each_chunk};
use crate::spatial::SpatialHash;

/// The columns separation reads.
#[derive(Clone, Copy, Debug)]
pub struct SeparationInput<'a> {
    /// Altitudes.
    pub altitude: &'a [f32],
    /// Shield semi-axes.
    pub shield: &'a [Vec3],
    /// Inverse masses (0 is immovable).
    pub inv_mass: &'a [f32],
    /// The hash built this tick from positions before integration.
    pub spatial: &'a SpatialHash,
    /// Largest bounding radius of any shield.
    pub max_radius: f32,
    /// How far any unit may have moved since the hash was built.
    pub max_travel: f32,
}

/// What one pass found.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SeparationStats {
    /// Candidate pairs tested (each pair counted from both sides).
    pub pairs_tested: u64,
    /// Units that overlapped at least one other.
    pub overlapping_units: usize,
}

/// One unit's share of a pass: where it is pushed and how many candidates
/// it tested.
#[derive(Clone, Copy, Debug, Default)]
struct Push {
    offset: Vec2,
    tested: u32,
}

/// Separation's working memory: reuse it across ticks.
#[derive(Clone, Debug, Default)]
pub struct Separation {
    pushes: Vec<Push>,
}

impl Separation {
    /// Grows scratch to `units` so passes never allocate.
    pub fn reserve(&mut self, units: usize) {
        self.pushes.reserve(units.saturating_sub(self.pushes.len()));
    }

    /// One Jacobi pass: measure every unit's push, then apply them all.
    pub fn pass(&mut self, input: SeparationInput<'_>, position: &mut [Vec2]) -> SeparationStats {
        let units = position.len();
        self.pushes.resize(units, Push::default());
        let now = &*position;
        for_each_chunk(&mut self.pushes, |first, rows| {
            for (offset, push) in rows.iter_mut().enumerate() {
                *push = push_of(first + offset, now, &input);
            }
        });
        let pushes = &self.pushes;
        for_each_chunk(position, |first, rows| {
            for (offset, position) in rows.iter_mut().enumerate() {
                *position += pushes[first + offset].offset;
            }
        });
        SeparationStats {
            pairs_tested: pushes.iter().map(|push| u64::from(push.tested)).sum(),
            overlapping_units: count_rows(units, |unit| pushes[unit].offset != Vec2::ZERO),
        }
    }
}

/// How far overlapping neighbours push `unit`, from positions `now`.
fn push_of(unit: usize, now: &[Vec2], input: &SeparationInput<'_>) -> Push {
    let mut push = Push::default();
    if input.inv_mass[unit] == 0.0 {
        return push;
    }
    let centre = now[unit].extend(input.altitude[unit]);
    let radius = input.shield[unit].max_element();
    // Both units may have moved since the hash was built.
    let search = radius + input.max_radius + 2.0 * input.max_travel;
    input
        .spatial
        .for_each_neighbour(unit as u32, search, |other, _| {
            push.tested += 1;
            let other = other as usize;
            let offset = centre - now[other].extend(input.altitude[other]);
            let reach = radius + input.shield[other].max_element();
            let distance_squared = offset.length_squared();
            if distance_squared >= reach * reach {
                return;
            }
            let share = input.inv_mass[unit] / (input.inv_mass[unit] + input.inv_mass[other]);
            let across = offset.truncate();
            let across_length = across.length();
            let direction = if across_length > 0.0 {
                across / across_length
            } else {
                // Stacked centres: separate along x, the lower index to the west.
                Vec2::new(if unit < other { -1.0 } else { 1.0 }, 0.0)
            };
            push.offset += direction * ((reach - distance_squared.sqrt()) * share);
        });
    push
}
