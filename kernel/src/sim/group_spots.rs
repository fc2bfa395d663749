//! Where a group ordered to one point stands when it gets there, and who
//! takes which spot.
//!
//! Method: Company of Heroes' destination formation (Pottinger, *Company of
//! Heroes' squad formations*, "Destination formation"): the spots are laid
//! out at the goal, facing the order's way, before anyone moves, each spot
//! on open ground reserved for one member. Here the spots form a block of
//! ranks (wider than deep), centred on the goal; a spot on a wall or across
//! it is replaced by the nearest free lattice point outside the block.
//! Members take spots rank by rank (the unit farthest forward takes the
//! front rank, left to right), then pairs swap spots while that shortens
//! their summed travel (2-opt): when no swap shortens it, no two straight
//! lines from a member to its spot cross, since swapping the ends of two
//! crossing segments always shortens them (the triangle inequality).

use glam::Vec2;

/// Largest group whose spot assignment is refined by pair swaps (a pass
/// costs the square of the group's size).
pub const MAX_SWAP_GROUP: usize = 2048;
/// Passes of pair swaps at most.
const SWAP_PASSES: usize = 32;

/// The block's frame: `forward` is the way the group faces, `left` its
/// left hand.
#[derive(Clone, Copy, Debug)]
struct Frame {
    forward: Vec2,
    left: Vec2,
}

impl Frame {
    fn new(facing: Vec2) -> Frame {
        Frame {
            forward: facing,
            left: facing.perp(),
        }
    }

    /// (forward, left) coordinates of `offset`.
    fn of(self, offset: Vec2) -> (f32, f32) {
        (offset.dot(self.forward), offset.dot(self.left))
    }
}

/// `count` spots `spacing` metres apart around `goal`, in a block facing
/// `facing` (a unit vector), each accepted by `open` (the caller's test
/// for open, reachable ground). Spots `open` refuses are replaced by the
/// nearest accepted lattice points outside the block; if too few remain
/// within reach, the rest stand at `goal`.
pub fn destination_spots(
    count: usize,
    goal: Vec2,
    facing: Vec2,
    spacing: f32,
    open: impl Fn(Vec2) -> bool,
) -> Vec<Vec2> {
    if count == 0 {
        return Vec::new();
    }
    let frame = Frame::new(facing);
    let files = ((2.0 * count as f64).sqrt().ceil() as usize).clamp(1, count);
    let ranks = count.div_ceil(files);
    let at = |rank: f32, file: f32| goal + (frame.forward * -rank + frame.left * file) * spacing;
    let mut spots = Vec::with_capacity(count);
    let mut missing = 0;
    for rank in 0..ranks {
        let in_rank = files.min(count - rank * files);
        let depth = rank as f32 - (ranks as f32 - 1.0) / 2.0;
        for file in 0..in_rank {
            let across = (in_rank as f32 - 1.0) / 2.0 - file as f32;
            let spot = at(depth, across);
            if open(spot) {
                spots.push(spot);
            } else {
                missing += 1;
            }
        }
    }
    if missing > 0 {
        let half_depth = (ranks as f32 - 1.0) / 2.0;
        let half_width = (files as f32 - 1.0) / 2.0;
        let reach = (4 * (files + ranks) + 16) as i32;
        let mut outside: Vec<(f32, Vec2)> = Vec::new();
        for i in -reach..=reach {
            for j in -reach..=reach {
                // The lattice of the block, extended (half steps where the
                // block's side has an even count).
                let depth = i as f32 + half_depth.fract();
                let across = j as f32 + half_width.fract();
                if depth.abs() <= half_depth && across.abs() <= half_width {
                    continue;
                }
                let spot = at(depth, across);
                outside.push((spot.distance_squared(goal), spot));
            }
        }
        outside.sort_by(|a, b| a.0.total_cmp(&b.0));
        spots.extend(
            outside
                .into_iter()
                .map(|(_, spot)| spot)
                .filter(|&spot| open(spot))
                .take(missing),
        );
    }
    spots.resize(count, goal);
    spots
}

/// Which spot each of `from` takes: `result[k]` is the index in `spots`
/// of member `k`'s spot (a permutation; `from` and `spots` are the same
/// length). Deterministic: ties go to the lower index.
#[must_use]
pub fn assign_spots(from: &[Vec2], spots: &[Vec2], facing: Vec2) -> Vec<usize> {
    assert_eq!(from.len(), spots.len(), "one spot per member");
    let frame = Frame::new(facing);
    let files = ((2.0 * from.len() as f64).sqrt().ceil() as usize).max(1);
    let members = ranked(from, frame, files);
    let places = ranked(spots, frame, files);
    let mut assignment = vec![0; from.len()];
    for (&member, &place) in members.iter().zip(&places) {
        assignment[member] = place;
    }
    if from.len() <= MAX_SWAP_GROUP {
        untangle(from, spots, &mut assignment);
    }
    assignment
}

/// Indices of `points` front rank first (farthest along `frame.forward`),
/// each rank of `files` from left to right.
fn ranked(points: &[Vec2], frame: Frame, files: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..points.len()).collect();
    let key = |k: usize| frame.of(points[k]);
    order.sort_by(|&a, &b| key(b).0.total_cmp(&key(a).0).then(a.cmp(&b)));
    for rank in order.chunks_mut(files) {
        rank.sort_by(|&a, &b| key(b).1.total_cmp(&key(a).1).then(a.cmp(&b)));
    }
    order
}

/// Swaps pairs' spots while that shortens their summed straight-line
/// travel, for at most [`SWAP_PASSES`] passes; returns whether it settled
/// (no swap left that shortens it).
fn untangle(from: &[Vec2], spots: &[Vec2], assignment: &mut [usize]) -> bool {
    // In f64: a shallow crossing of two long paths gains little.
    let length = |member: usize, spot: usize| from[member].as_dvec2().distance(spots[spot].as_dvec2());
    for _ in 0..SWAP_PASSES {
        let mut swapped = false;
        for a in 0..from.len() {
            for b in a + 1..from.len() {
                let (sa, sb) = (assignment[a], assignment[b]);
                let now = length(a, sa) + length(b, sb);
                let swapped_length = length(a, sb) + length(b, sa);
                // A relative margin, so rounding cannot swap a pair back
                // and forth.
                if swapped_length < now * (1.0 - 1e-12) {
                    assignment.swap(a, b);
                    swapped = true;
                }
            }
        }
        if !swapped {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::unit_f32;

    fn segments_cross(a: (Vec2, Vec2), b: (Vec2, Vec2)) -> bool {
        let side = |p: Vec2, q: Vec2, r: Vec2| (q - p).perp_dot(r - p);
        let (d1, d2) = (side(b.0, b.1, a.0), side(b.0, b.1, a.1));
        let (d3, d4) = (side(a.0, a.1, b.0), side(a.0, a.1, b.1));
        d1 * d2 < 0.0 && d3 * d4 < 0.0
    }

    fn crossings(from: &[Vec2], spots: &[Vec2], assignment: &[usize]) -> usize {
        let segment = |k: usize| (from[k], spots[assignment[k]]);
        let mut count = 0;
        for a in 0..from.len() {
            for b in a + 1..from.len() {
                count += usize::from(segments_cross(segment(a), segment(b)));
            }
        }
        count
    }

    fn is_permutation(assignment: &[usize]) -> bool {
        let mut seen = vec![false; assignment.len()];
        assignment
            .iter()
            .all(|&k| k < seen.len() && !std::mem::replace(&mut seen[k], true))
    }

    #[test]
    fn spots_are_distinct_spaced_and_centred_on_the_goal() {
        for count in [1, 2, 5, 20, 37, 200] {
            let goal = Vec2::new(100.0, -40.0);
            let spots = destination_spots(count, goal, Vec2::Y, 10.0, |_| true);
            assert_eq!(spots.len(), count);
            for (a, &p) in spots.iter().enumerate() {
                for &q in &spots[a + 1..] {
                    assert!(p.distance(q) >= 10.0 - 1e-3, "{count}: {p} and {q} too close");
                }
            }
            let centre = spots.iter().sum::<Vec2>() / count as f32;
            // A partly filled last rank shifts the centre by under a rank.
            assert!(centre.distance(goal) < 10.0, "{count}: centred at {centre}");
        }
    }

    #[test]
    fn spots_on_closed_ground_move_to_the_nearest_open_lattice_points() {
        // A wall along x = 0 through the goal: only the east side is open.
        let open = |p: Vec2| p.x > 1.0;
        let spots = destination_spots(20, Vec2::ZERO, Vec2::Y, 5.0, open);
        assert_eq!(spots.len(), 20);
        assert!(spots.iter().all(|&p| open(p)), "{spots:?}");
        for (a, &p) in spots.iter().enumerate() {
            assert!(spots[a + 1..].iter().all(|&q| p.distance(q) > 1.0));
            // Nothing farther out than needed: 20 spots fit within 6 files.
            assert!(p.x <= 5.0 * 7.0, "{p} is farther than needed");
        }
    }

    #[test]
    fn a_block_moved_straight_keeps_each_members_place() {
        let spots = destination_spots(20, Vec2::new(0.0, 300.0), Vec2::Y, 10.0, |_| true);
        let from: Vec<Vec2> = spots.iter().map(|&p| p - Vec2::new(0.0, 300.0)).collect();
        let assignment = assign_spots(&from, &spots, Vec2::Y);
        for (member, &spot) in assignment.iter().enumerate() {
            assert_eq!(spot, member, "member {member} took spot {spot}");
        }
    }

    #[test]
    fn no_two_members_paths_to_their_spots_cross() {
        for trial in 0..40 {
            let draw = |stream: u64, index: u64| unit_f32(trial, stream, index);
            let count = 2 + (draw(0, 0) * 80.0) as usize;
            let from: Vec<Vec2> = (0..count as u64)
                .map(|k| Vec2::new(draw(1, k) * 120.0, draw(2, k) * 80.0))
                .collect();
            let facing = Vec2::from_angle(draw(3, 0) * std::f32::consts::TAU);
            let goal = Vec2::new(draw(4, 0) * 400.0 - 200.0, 250.0);
            let spots = destination_spots(count, goal, facing, 6.0, |_| true);
            let mut assignment = assign_spots(&from, &spots, facing);
            assert!(is_permutation(&assignment), "trial {trial}");
            assert!(untangle(&from, &spots, &mut assignment), "trial {trial} did not settle");
            assert_eq!(crossings(&from, &spots, &assignment), 0, "trial {trial}");
        }
    }
}
