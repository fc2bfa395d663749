//! The separation bench's peer: the same pass as
//! [`convoy::stages::separation::Separation::pass`] with one push (a Jacobi push of
//! every overlapping pair, then the deepest overlap left), built the
//! textbook way on the field's spatial index, [`rstar`], as a broad phase
//! and a narrow phase:
//!
//! - **broad phase**: an R-tree bulk-loaded from the units' ground
//!   positions, asked unit by unit on the pool for the units within the
//!   unit's bounding radius plus the crowd's largest, keeping each pair
//!   whose bounding spheres meet once (from its lower unit number);
//! - **narrow phase**: the Perram–Wertheim contact function of every such
//!   pair, eight pairs a call ([`contact_functions_until`], convoy's own
//!   exact test, so that the ratio measures everything else: finding the
//!   pairs, gathering the shapes, pushing and measuring);
//! - **push**: each overlapping pair moved apart along its centre line by
//!   its depth plus convoy's skin ([`SKIN_REL`]), shared by inverse mass,
//!   summed per unit in pair order and applied after every pair;
//! - **measure**: a new tree from the pushed positions, the same two
//!   phases, and the deepest overlap in metres and relative to the pair's
//!   smaller smallest semi-axis.
//!
//! Only ground crowds of movable units (the bench's) are handled: every
//! centre line is horizontal.

use convoy::geometry::ellipsoid::{LANES, Offsets8, Shape, Shapes8, contact_functions_until};
use convoy::glam::Vec2;
use convoy::stages::separation::{SKIN_REL, TOLERANCE_REL};
use rayon::prelude::*;
use rstar::RTree;
use rstar::primitives::GeomWithData;
use wide::f32x8;

use crate::shield_crowd::ShieldCrowd;

/// Pairs per task of the narrow phase.
const PAIRS_PER_TASK: usize = 64 * LANES;

/// What the peer's pass found, as [`convoy::stages::separation::SeparationStats`]
/// reports it.
#[derive(Clone, Copy, Debug)]
pub struct PeerStats {
    /// Pairs overlapping by more than [`TOLERANCE_REL`] before the push.
    pub overlaps: u64,
    /// The deepest overlap left after the push, metres.
    pub max_overlap_m: f32,
    /// The deepest overlap left, relative to its pair's smaller smallest
    /// semi-axis.
    pub max_overlap_rel: f32,
}

/// A pair of units (lower number first) whose bounding spheres meet, and
/// its contact function `F` (below 1 when the shields overlap).
#[derive(Clone, Copy)]
struct Contact {
    first: u32,
    second: u32,
    f: f32,
}

/// One pass with one push over `crowd`'s shields at `position`, which it
/// moves.
pub fn pass(crowd: &ShieldCrowd, position: &mut [Vec2]) -> PeerStats {
    assert!(
        crowd.altitude.iter().all(|&z| z == 0.0) && crowd.inv_mass.iter().all(|&m| m > 0.0),
        "the peer handles ground crowds of movable units only"
    );
    let shape: Vec<Shape> = crowd
        .shield
        .par_iter()
        .zip(&crowd.heading)
        .map(|(&axes, &heading)| Shape::new(axes, heading))
        .collect();
    let radius: Vec<f32> = crowd.shield.iter().map(|axes| axes.max_element()).collect();
    let largest = radius.iter().copied().fold(0.0, f32::max);

    let before = contacts(position, &radius, largest, &shape);
    let overlaps = push(&before, crowd, position);
    let after = contacts(position, &radius, largest, &shape);
    let (max_overlap_m, max_overlap_rel) = deepest(&after, crowd, position);
    PeerStats {
        overlaps,
        max_overlap_m,
        max_overlap_rel,
    }
}

/// Moves the units at `position` apart by every overlapping pair of
/// `contacts`, after all pairs (Jacobi); returns how many overlap by more
/// than [`TOLERANCE_REL`].
fn push(contacts: &[Contact], crowd: &ShieldCrowd, position: &mut [Vec2]) -> u64 {
    let mut step = vec![Vec2::ZERO; position.len()];
    let mut overlaps = 0;
    for contact in contacts {
        let Some((direction, depth)) = depth(contact, position) else {
            continue;
        };
        let (a, b) = (contact.first as usize, contact.second as usize);
        let smallest = smaller_smallest(crowd, a, b);
        overlaps += u64::from(depth / smallest > TOLERANCE_REL);
        let (inv_a, inv_b) = (crowd.inv_mass[a], crowd.inv_mass[b]);
        let away = direction * (depth + SKIN_REL * smallest) / (inv_a + inv_b);
        step[a] -= away * inv_a;
        step[b] += away * inv_b;
    }
    position
        .par_iter_mut()
        .zip(&step)
        .for_each(|(position, step)| *position += *step);
    overlaps
}

/// The deepest overlap among `contacts`, in metres and relative to its
/// pair's smaller smallest semi-axis (not necessarily of one pair).
fn deepest(contacts: &[Contact], crowd: &ShieldCrowd, position: &[Vec2]) -> (f32, f32) {
    let (mut metres, mut relative) = (0.0_f32, 0.0_f32);
    for contact in contacts {
        if let Some((_, depth)) = depth(contact, position) {
            let smallest = smaller_smallest(crowd, contact.first as usize, contact.second as usize);
            metres = metres.max(depth);
            relative = relative.max(depth / smallest);
        }
    }
    (metres, relative)
}

/// Both phases: every pair whose bounding spheres meet at `position`, once,
/// with its contact function.
fn contacts(position: &[Vec2], radius: &[f32], largest: f32, shape: &[Shape]) -> Vec<Contact> {
    let pairs = pairs_meeting(position, radius, largest);
    pairs
        .par_chunks(PAIRS_PER_TASK)
        .flat_map_iter(|pairs| {
            pairs.chunks(LANES).flat_map(|eight| {
                let pair = |k: usize| eight[k.min(eight.len() - 1)];
                let shapes = |side: fn((u32, u32)) -> u32| {
                    Shapes8::from_lanes(std::array::from_fn(|k| &shape[side(pair(k)) as usize]))
                };
                let offsets = Offsets8::from_lanes(std::array::from_fn(|k| {
                    let (a, b) = pair(k);
                    (position[b as usize] - position[a as usize]).extend(0.0)
                }));
                let f = contact_functions_until(
                    &shapes(|(a, _)| a),
                    &shapes(|(_, b)| b),
                    &offsets,
                    f32x8::ONE,
                )
                .f;
                eight
                    .iter()
                    .zip(f)
                    .map(|(&(first, second), f)| Contact { first, second, f })
            })
        })
        .collect()
}

/// The broad phase: pairs of units (lower number first) whose bounding
/// spheres meet, from an R-tree of `position`.
fn pairs_meeting(position: &[Vec2], radius: &[f32], largest: f32) -> Vec<(u32, u32)> {
    let points = position
        .iter()
        .enumerate()
        .map(|(unit, p)| GeomWithData::new([p.x, p.y], unit as u32))
        .collect();
    let tree = RTree::bulk_load(points);
    (0..position.len())
        .into_par_iter()
        .flat_map_iter(|a| {
            let (centre, reach) = (position[a], radius[a] + largest);
            let tree = &tree;
            tree.locate_within_distance([centre.x, centre.y], reach * reach)
                .filter_map(move |other| {
                    let b = other.data as usize;
                    let meet = radius[a] + radius[b];
                    (b > a && centre.distance_squared(position[b]) < meet * meet)
                        .then_some((a as u32, other.data))
                })
        })
        .collect()
}

/// The direction from the first unit to the second and the depth of their
/// overlap along it, if they overlap; a pair at one point is left alone
/// (convoy separates it along x; the bench's random crowds hold none).
fn depth(contact: &Contact, position: &[Vec2]) -> Option<(Vec2, f32)> {
    // A NaN `F` (absurd shapes) is no overlap, as in convoy.
    if contact.f >= 1.0 || contact.f.is_nan() {
        return None;
    }
    let r = position[contact.second as usize] - position[contact.first as usize];
    let distance = r.length();
    let depth = distance * (contact.f.sqrt().recip() - 1.0);
    (depth > 0.0).then(|| (r / distance, depth))
}

/// The smaller of the smallest semi-axes of units `a` and `b`.
fn smaller_smallest(crowd: &ShieldCrowd, a: usize, b: usize) -> f32 {
    let smallest = |unit: usize| crowd.shield[unit].min_element();
    smallest(a).min(smallest(b))
}
