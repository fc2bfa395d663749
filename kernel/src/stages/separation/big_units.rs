//! Big units: shields larger than a hash cell, whose pairs are tested
//! apart from the window scans.

use super::*;

/// The big units (bounding radius above the hash cell) and their scratch.
/// Their pairs are tested on one thread in a fixed order, both sides at
/// once: with small units from a window of the hash about each big unit;
/// with each other from a list sorted by x, so that thousands of big units
/// (a cell chosen smaller than the helicopters' shields, say) cost
/// `B log B` and the pairs within reach on the x axis, not all `B²/2`
/// pairs.
#[derive(Clone, Debug, Default)]
pub(super) struct BigUnits {
    /// Their places, in order.
    pub(super) places: Vec<u32>,
    /// The same places sorted by centre x (NaN first, then by place).
    pub(super) by_x: Vec<u32>,
    /// One big unit's big partners at later places.
    pub(super) partners: Vec<u32>,
}

impl BigUnits {
    /// Grows the scratch to `units`, so passes never allocate.
    pub(super) fn reserve(&mut self, units: usize) {
        for list in [&mut self.places, &mut self.by_x, &mut self.partners] {
            list.reserve(units.saturating_sub(list.len()));
        }
    }

    /// Lists the places of big units in `placed`, those with a radius above
    /// `big_above` (`None`: there are none).
    pub(super) fn list(&mut self, placed: &[Body], big_above: Option<f32>) {
        self.places.clear();
        if let Some(big_radius) = big_above {
            self.places.extend(
                (0..placed.len() as u32)
                    .filter(|&place| placed[place as usize].radius > big_radius),
            );
        }
    }

    /// Tests and pushes every pair with a big unit, in the order of the big
    /// units' places and, for each, of its partners' places; returns the
    /// totals.
    pub(super) fn push_pairs(&mut self, context: &Context<'_>, pushes: &mut [Push]) -> Sweep {
        let mut totals = Sweep::default();
        if self.places.is_empty() {
            return totals;
        }
        let bodies = context.bodies;
        let x = |place: u32| bodies[place as usize].centre.x;
        self.by_x.clone_from(&self.places);
        self.by_x.sort_unstable_by(|&a, &b| {
            let nan_first = x(b).is_nan().cmp(&x(a).is_nan());
            nan_first.then(x(a).total_cmp(&x(b))).then(a.cmp(&b))
        });
        let widest = self.places.iter().fold(0.0_f32, |widest, &place| {
            widest.max(bodies[place as usize].radius)
        });
        for &unit in &self.places {
            let unit = unit as usize;
            let own = &bodies[unit];
            let search = context.search(own);
            let skip = context.hash.skip(unit..unit + 1);
            let examined = for_each_candidate(context, unit, search, &skip, |other| {
                push_pair(unit, other, context, pushes, &mut totals);
            });
            examined.count_in(&mut totals);
            // Two shields overlap only if their centres' x differ by less
            // than the sum of their radii (rounding is monotone): the
            // partners lie in one stretch of `by_x`. NaN centres come first
            // and count as too far left.
            let reach = own.radius + widest;
            let left_of = |place: &u32| {
                let offset = x(*place) - own.centre.x;
                offset <= -reach || offset.is_nan()
            };
            let from = self.by_x.partition_point(left_of);
            self.partners.clear();
            for &other in &self.by_x[from..] {
                if x(other) - own.centre.x >= reach {
                    break;
                }
                totals.tested += 1;
                if other as usize > unit {
                    self.partners.push(other);
                }
            }
            self.partners.sort_unstable();
            for &other in &self.partners {
                let other = other as usize;
                let them = &bodies[other];
                if may_overlap(own, them, them.centre - own.centre) {
                    push_pair(unit, other, context, pushes, &mut totals);
                }
            }
        }
        totals
    }
}
