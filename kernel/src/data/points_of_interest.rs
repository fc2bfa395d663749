//! Points of interest — cover, a building's corner, a crest — that
//! platoons' element leaders leapfrog to (Company of Heroes, "Squad
//! formations": "such interesting spots are selected by searching for
//! points of interest in the area of a follower's goal").
//!
//! The points are fixed when the `Sim` is built. They are bucketed by a
//! square cell and sorted by cell, so the points near a spot are a binary
//! search per cell of the box around it.

use glam::Vec2;

/// The bucket edge, metres.
const CELL_M: f32 = 32.0;

/// The points, sorted by cell.
#[derive(Clone, Debug, Default)]
pub struct PointsOfInterest {
    /// `(cell key, point)`, sorted by key, then by the point's order given.
    points: Vec<(u64, Vec2)>,
}

impl PointsOfInterest {
    /// The index of `points` (finite, as `SimConfig` checks them).
    #[must_use]
    pub fn new(points: &[Vec2]) -> PointsOfInterest {
        let mut points: Vec<(u64, Vec2)> = points.iter().map(|&p| (key(cell_of(p)), p)).collect();
        points.sort_by_key(|&(key, _)| key);
        PointsOfInterest { points }
    }

    /// Whether there are none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// The point within `radius` of `centre` that `accept`s and lies
    /// nearest it (ties: the lower cell, then the earlier point).
    pub fn nearest(&self, centre: Vec2, radius: f32, accept: impl Fn(Vec2) -> bool) -> Option<Vec2> {
        if self.points.is_empty() || radius.is_nan() || radius < 0.0 {
            return None;
        }
        let (low, high) = (cell_of(centre - radius), cell_of(centre + radius));
        let mut best: Option<(f32, Vec2)> = None;
        for y in low.1..=high.1 {
            for x in low.0..=high.0 {
                let wanted = key((x, y));
                let first = self.points.partition_point(|&(k, _)| k < wanted);
                for &(_, point) in self.points[first..].iter().take_while(|&&(k, _)| k == wanted) {
                    let distance = point.distance(centre);
                    let better = best.is_none_or(|(nearest, _)| distance < nearest);
                    if distance <= radius && better && accept(point) {
                        best = Some((distance, point));
                    }
                }
            }
        }
        best.map(|(_, point)| point)
    }
}

/// The cell holding `point`, clamped to ±2³⁰ cells.
fn cell_of(point: Vec2) -> (i32, i32) {
    let limit = (1 << 30) as f32;
    let cell = (point / CELL_M).floor().clamp(Vec2::splat(-limit), Vec2::splat(limit));
    (cell.x as i32, cell.y as i32)
}

/// A cell's sort key: rows, then columns.
fn key((x, y): (i32, i32)) -> u64 {
    (u64::from(y as u32 ^ 0x8000_0000) << 32) | u64::from(x as u32 ^ 0x8000_0000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::unit_f32;

    #[test]
    fn the_nearest_accepted_point_is_the_brute_force_one() {
        let at = |k: u64, stream: u64| Vec2::new(unit_f32(k, stream, 0), unit_f32(k, stream, 1)) * 400.0 - 200.0;
        let points: Vec<Vec2> = (0..300).map(|k| at(k, 1)).collect();
        let index = PointsOfInterest::new(&points);
        for k in 0..500 {
            let centre = at(k, 2);
            let radius = 60.0 * unit_f32(k, 3, 0);
            let accept = |p: Vec2| p.x > centre.x;
            let expected = points
                .iter()
                .copied()
                .filter(|&p| p.distance(centre) <= radius && accept(p))
                .min_by(|a, b| a.distance(centre).total_cmp(&b.distance(centre)));
            assert_eq!(index.nearest(centre, radius, accept), expected, "centre {centre}, radius {radius}");
        }
    }
}
