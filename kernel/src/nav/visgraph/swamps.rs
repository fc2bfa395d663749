//! Swamp costs along a segment: the seed paper's "edges are constructed
//! within the obstacle and given a higher weight than normal". A segment is
//! cut where it crosses swamp edges; each piece costs its length times the
//! largest multiplier of the swamps containing its midpoint (1 outside).

use glam::DVec2;

use crate::nav::polygon::{Swamp, point_in_ring};

/// The map's swamps with their bounding boxes.
#[derive(Clone, Debug, Default)]
pub struct Swamps {
    swamps: Vec<Swamp>,
    boxes: Vec<(DVec2, DVec2)>,
}

impl Swamps {
    /// Indexes `swamps`.
    #[must_use]
    pub fn new(swamps: Vec<Swamp>) -> Self {
        let boxes = swamps
            .iter()
            .map(|s| {
                s.ring.iter().fold(
                    (DVec2::splat(f64::INFINITY), DVec2::splat(f64::NEG_INFINITY)),
                    |(lo, hi), &p| (lo.min(p), hi.max(p)),
                )
            })
            .collect();
        Self { swamps, boxes }
    }

    /// The swamps.
    #[must_use]
    pub fn list(&self) -> &[Swamp] {
        &self.swamps
    }

    /// The cost of driving straight from `p` to `q`; `cuts` is scratch.
    pub fn segment_cost(&self, p: DVec2, q: DVec2, cuts: &mut Vec<f64>) -> f64 {
        let length = p.distance(q);
        let (lo, hi) = (p.min(q), p.max(q));
        let overlaps = |&(blo, bhi): &(DVec2, DVec2)| {
            blo.x <= hi.x && blo.y <= hi.y && bhi.x >= lo.x && bhi.y >= lo.y
        };
        if length == 0.0 || !self.boxes.iter().any(overlaps) {
            return length;
        }
        cuts.clear();
        cuts.extend([0.0, 1.0]);
        let d = q - p;
        for (swamp, bbox) in self.swamps.iter().zip(&self.boxes) {
            if !overlaps(bbox) {
                continue;
            }
            let n = swamp.ring.len();
            for i in 0..n {
                let (a, b) = (swamp.ring[i], swamp.ring[(i + 1) % n]);
                let denom = d.perp_dot(b - a);
                if denom == 0.0 {
                    continue;
                }
                let t = (a - p).perp_dot(b - a) / denom;
                let s = (a - p).perp_dot(d) / denom;
                if (0.0..=1.0).contains(&t) && (0.0..=1.0).contains(&s) {
                    cuts.push(t);
                }
            }
        }
        cuts.sort_unstable_by(f64::total_cmp);
        cuts.windows(2)
            .map(|w| (w[1] - w[0]) * length * self.multiplier_at(p + d * (0.5 * (w[0] + w[1]))))
            .sum()
    }

    /// The largest multiplier of the swamps containing `x` (1 outside).
    fn multiplier_at(&self, x: DVec2) -> f64 {
        self.swamps
            .iter()
            .zip(&self.boxes)
            .filter(|(_, (lo, hi))| x.cmpge(*lo).all() && x.cmple(*hi).all())
            .filter(|(s, _)| point_in_ring(x, &s.ring))
            .map(|(s, _)| s.cost)
            .fold(1.0, f64::max)
    }
}
