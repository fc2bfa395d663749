//! Big units: shields larger than a hash cell, whose pairs are tested
//! apart from the window scans.

use super::*;

/// The big units (bounding radius above the hash cell) and their scratch.
/// Their pairs are tested on one thread in a fixed order, both sides at
/// once: with small units from a window of the hash about each big unit;
/// with each other through a grid of coarse cells, two and a half times
/// the widest big unit's bounding radius across, rebuilt from their
/// centres every sweep (a sort), so that thousands of big units (a cell
/// chosen smaller than the helicopters' shields, say) cost `B log B` and
/// the pairs in neighbouring coarse cells, not all `B²/2` pairs. Each
/// coarse row of three cells about a big unit yields at most
/// [`big_run_candidates`] partners, those nearest it in the grid's order:
/// big units piled on one point tick in linear time too.
#[derive(Clone, Debug, Default)]
pub(super) struct BigUnits {
    /// Their places, in order.
    pub(super) places: Vec<u32>,
    /// The same places by coarse cell (row, then column), then by place.
    pub(super) by_cell: Vec<CoarsePlace>,
    /// One big unit's big partners at later places.
    pub(super) partners: Vec<u32>,
}

/// A big unit's place in its coarse cell, ordered by cell row, column and
/// place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct CoarsePlace {
    cell: (i64, i64),
    place: u32,
}

/// The partners a big unit takes at most from one coarse row of three
/// cells of edge `edge` when the smallest big unit's bounding radius is
/// `smallest`: one for each square of that radius's side the row covers
/// (3.4 times as many as such shields pack without overlap on one level),
/// and at least [`MIN_RUN_CANDIDATES`]. No shipped profile reaches it.
#[must_use]
pub(super) fn big_run_candidates(edge: f32, smallest: f32) -> usize {
    let squares = 3.0 * (edge / smallest) * (edge / smallest);
    // `as` saturates (and takes NaN to 0).
    (squares.ceil() as usize).max(MIN_RUN_CANDIDATES)
}

impl BigUnits {
    /// Grows the scratch to `units`, so passes never allocate.
    pub(super) fn reserve(&mut self, units: usize) {
        self.places.reserve(units.saturating_sub(self.places.len()));
        self.by_cell.reserve(units.saturating_sub(self.by_cell.len()));
        self.partners
            .reserve(units.saturating_sub(self.partners.len()));
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
        let (smallest, widest) = self.places.iter().fold((f32::MAX, 0.0_f32), |(low, high), &place| {
            let radius = bodies[place as usize].radius;
            (low.min(radius), high.max(radius))
        });
        // Two big shields overlap only if their centres are less than the
        // sum of their radii apart on each axis, at most twice the widest:
        // in the same or neighbouring coarse cells (with room for
        // rounding).
        let edge = 2.5 * widest;
        let cell_of = |place: u32| {
            let centre = bodies[place as usize].centre;
            // `as` saturates, and takes NaN (no partner) to 0.
            ((centre.y / edge).floor() as i64, (centre.x / edge).floor() as i64)
        };
        self.by_cell.clear();
        self.by_cell.extend(self.places.iter().map(|&place| CoarsePlace {
            cell: cell_of(place),
            place,
        }));
        self.by_cell.sort_unstable();
        let cap = big_run_candidates(edge, smallest);
        for &unit in &self.places {
            let own = &bodies[unit as usize];
            let search = context.search(own);
            let skip = context.hash.skip(unit as usize..unit as usize + 1);
            let examined = for_each_candidate(context, unit as usize, search, &skip, |other| {
                push_pair(unit as usize, other, context, pushes, &mut totals);
            });
            examined.count_in(&mut totals);
            let me = CoarsePlace {
                cell: cell_of(unit),
                place: unit,
            };
            let at = self.by_cell.partition_point(|coarse| *coarse < me);
            let (row, column) = me.cell;
            self.partners.clear();
            let mut cut = false;
            for row in [row.saturating_sub(1), row, row.saturating_add(1)] {
                let from = (row, column.saturating_sub(1));
                let to = (row, column.saturating_add(1));
                let first = self.by_cell.partition_point(|coarse| coarse.cell < from);
                let end = self.by_cell.partition_point(|coarse| coarse.cell <= to);
                let kept = nearest_places(first..end, at, cap);
                cut |= kept.len() < end - first;
                totals.tested += kept.len() as u64;
                self.partners.extend(
                    self.by_cell[kept]
                        .iter()
                        .map(|coarse| coarse.place)
                        .filter(|&other| other > unit),
                );
            }
            totals.cut += u64::from(cut);
            self.partners.sort_unstable();
            for &other in &self.partners {
                let other = other as usize;
                let them = &bodies[other];
                if may_overlap(own, them, them.centre - own.centre) {
                    push_pair(unit as usize, other, context, pushes, &mut totals);
                }
            }
        }
        totals
    }
}
