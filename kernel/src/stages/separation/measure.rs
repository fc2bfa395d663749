//! Measuring: the deepest overlap left after the pushes, searched only
//! where it may exceed the deepest found so far.

use super::*;

/// The deepest overlap seen so far, metres and relative to the smaller
/// shield's smallest semi-axis (not necessarily of the same pair).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Deepest {
    pub(super) m: f32,
    pub(super) rel: f32,
}

impl Deepest {
    pub(super) fn include(&mut self, overlap: &Overlap) {
        self.m = self.m.max(overlap.depth);
        self.rel = self.rel.max(overlap.relative);
    }
}

/// The deepest overlaps of the small units at the chunk's places `part`
/// (counted from its first, cut at its end) with small units at later
/// places (in a sweep from the active units: of the active ones, with the
/// units at later places and the inactive ones at earlier places), into
/// the chunk's depths. Only overlaps deeper than the deepest so far
/// (`deepest` to start with) are measured to the end.
pub(super) fn measure_chunk(
    chunk: &mut ChunkSweep<'_>,
    context: &Context<'_>,
    part: Range<usize>,
    mut deepest: Deepest,
) {
    // Nothing is pushed after the last sweep: its pushes stay as they are.
    let mut batch = Batch::default();
    let places = chunk.places();
    let first = places.start.saturating_add(part.start).min(places.end);
    let end = places.start.saturating_add(part.end).min(places.end);
    if first == end {
        return;
    }
    let mut skips = context.hash.sweep_skips(0, first);
    for unit in first..end {
        let own = &context.bodies[unit];
        if own.radius > context.big_radius || context.only_active && !own.active {
            continue;
        }
        let mut exact = 0;
        let search = context.search_deeper(own, deepest);
        // Earlier places tested their pairs with this one (all, or the
        // active ones).
        let skip = if context.only_active {
            skips.only(unit)
        } else {
            skips.through(unit)
        };
        let examined = for_each_candidate(context, unit, search, &skip, |other| {
            let them = &context.bodies[other];
            let offset = them.centre - own.centre;
            if own.inv_mass + them.inv_mass == 0.0
                || other < unit && them.active
                || !may_be_deeper(own, them, offset, deepest)
            {
                return;
            }
            exact += 1;
            if batch.queue(unit, other, offset) {
                settle_depths(&mut batch, &mut chunk.totals, context, &mut deepest);
            }
        });
        examined.count_in(&mut chunk.totals);
        chunk.totals.exact += exact;
    }
    settle_depths(&mut batch, &mut chunk.totals, context, &mut deepest);
}

/// Measures the queued pairs that may be deeper than `deepest` and raises
/// it (see [`measure_chunk`]).
pub(super) fn settle_depths(
    batch: &mut Batch,
    totals: &mut Sweep,
    context: &Context<'_>,
    deepest: &mut Deepest,
) {
    if batch.len == 0 {
        return;
    }
    let level = std::array::from_fn(|lane| {
        let (own, them) = (
            &context.bodies[batch.first[lane]],
            &context.bodies[batch.second[lane]],
        );
        uninteresting_level(
            batch.offset[lane],
            own.smallest.min(them.smallest),
            *deepest,
        )
    });
    let contacts = batch.contacts(context.bodies, level);
    for (lane, &level) in level.iter().enumerate().take(batch.len) {
        let (unit, other) = (batch.first[lane], batch.second[lane]);
        let f = contacts.f[lane];
        if f >= level || f.is_nan() {
            continue;
        }
        let (own, them) = (&context.bodies[unit], &context.bodies[other]);
        if let Some(overlap) = resolve(own, them, batch.offset[lane], f, (unit, other)) {
            totals.record(&overlap, false);
            deepest.include(&overlap);
        }
    }
    batch.len = 0;
}

/// False when the pair `a`, `b` (centres `offset` apart, same altitude)
/// cannot overlap by more than `beyond` (in metres and relative to the
/// smaller smallest semi-axis), because even their bounding spheres do not:
/// pushed apart along the centre line until the spheres touch, the shields
/// are apart, so the depth is at most `a.radius + b.radius − |offset|`.
/// Pairs at different altitudes are always measured (their depth is
/// horizontal).
#[inline]
pub(super) fn may_be_deeper(a: &Body, b: &Body, offset: Vec3, beyond: Deepest) -> bool {
    let floor = beyond.m.min(beyond.rel * a.smallest.min(b.smallest));
    let bound = (a.radius + b.radius - floor).max(0.0);
    (offset.z != 0.0) | (offset.length_squared() < bound * bound)
}

/// The level of the contact function at and above which a pair at `offset`
/// cannot be deeper than `beyond` (both in metres and relative to
/// `smallest`): depth `|r|(1/√F − 1) ≤ floor` exactly when
/// `F ≥ (|r| / (|r| + floor))²`, and any sample of `f` is a lower bound of
/// `F`, so the search stops at the first that reaches it. Pairs at
/// different altitudes, or at one ground position, are measured in full
/// (their depth is horizontal).
pub(super) fn uninteresting_level(offset: Vec3, smallest: f32, beyond: Deepest) -> f32 {
    let distance = offset.length();
    // As in `resolve`: pairs at different altitudes, or at one ground
    // position, take their depth from the horizontal search, which the
    // contact function does not bound.
    if offset.z != 0.0 || distance == 0.0 || distance.is_nan() {
        return 1.0;
    }
    let floor = beyond.m.min(beyond.rel * smallest);
    let ratio = distance / (distance + floor);
    ratio * ratio
}
