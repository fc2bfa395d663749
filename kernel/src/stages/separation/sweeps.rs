//! Pushing sweeps: every unit's push from its overlapping neighbours,
//! measured in chunks across the pool (Jacobi: read last positions, write
//! only the chunk's own pushes), then applied.

use super::*;
use crate::data::unit_limits::clamp_to_map;
use crate::nav::ClassMaps;

/// One unit's share of a sweep: only its pushes (the counts and depths go
/// to its chunk's [`Sweep`] totals), so clearing and reading the column is
/// cheap.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Push {
    /// Sum of the pushes from movable partners.
    pub(super) mutual: Vec2,
    /// Sum of the pushes from immovable partners.
    pub(super) wall: Vec2,
    /// Whether any pair of the unit overlapped.
    pub(super) touched: bool,
}

impl Push {
    /// Where the unit moves.
    #[inline]
    pub(super) fn step(&self) -> Vec2 {
        self.mutual * RELAXATION + self.wall
    }

    /// Adds the push `away` (already scaled by this unit's share) from a
    /// partner that is immovable or not.
    #[inline]
    pub(super) fn add(&mut self, away: Vec2, from_immovable: bool) {
        self.touched = true;
        if from_immovable {
            self.wall += away;
        } else {
            self.mutual += away;
        }
    }
}

/// Totals of one sweep, or of one chunk's part of it.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Sweep {
    /// Candidate pairs examined.
    pub(super) tested: u64,
    /// Runs of a window's row holding them ([`Scan::after`]).
    pub(super) runs: u64,
    /// Pairs given the exact test.
    pub(super) exact: u64,
    /// Overlapping pairs above tolerance, each counted once.
    pub(super) overlaps: u64,
    pub(super) depth_m: f32,
    pub(super) depth_rel: f32,
    /// The most candidates one unit examined.
    pub(super) most: u32,
    /// Units whose search a run holding more places than its window
    /// allows ([`run_candidates`]) cut short.
    pub(super) cut: u64,
}

impl Sweep {
    /// Records `overlap`'s depths, and the pair as overlapping if
    /// `count_here` (the side that counts it) and it is above tolerance.
    pub(super) fn record(&mut self, overlap: &Overlap, count_here: bool) {
        self.depth_m = self.depth_m.max(overlap.depth);
        self.depth_rel = self.depth_rel.max(overlap.relative);
        if count_here && overlap.relative > TOLERANCE_REL {
            self.overlaps += 1;
        }
    }

    /// The totals of two sets of units: sums and maxima, so the grouping
    /// does not change them.
    pub(super) fn combine(self, other: Sweep) -> Sweep {
        Sweep {
            tested: self.tested + other.tested,
            runs: self.runs + other.runs,
            exact: self.exact + other.exact,
            overlaps: self.overlaps + other.overlaps,
            depth_m: self.depth_m.max(other.depth_m),
            depth_rel: self.depth_rel.max(other.depth_rel),
            most: self.most.max(other.most),
            cut: self.cut + other.cut,
        }
    }
}

/// One chunk of a sweep as it is written: the pushes of places `first..first
/// + pushes.len()`, and the chunk's totals.
pub(super) struct ChunkSweep<'a> {
    pub(super) first: usize,
    pub(super) pushes: &'a mut [Push],
    pub(super) totals: Sweep,
}

impl ChunkSweep<'_> {
    /// The chunk's places.
    pub(super) fn places(&self) -> Range<usize> {
        self.first..self.first + self.pushes.len()
    }

    /// The push of the unit at `place`, one of the chunk's.
    pub(super) fn push(&mut self, place: usize) -> &mut Push {
        &mut self.pushes[place - self.first]
    }
}

/// Moves every unit in `placed` by its push (a ground unit's kept off
/// blocked cells, [`crate::nav::WorldMap::step_on_open_ground`], the direction of the
/// part cut kept as its [`Body::wall`]), marks the units that overlapped
/// or moved active, and returns how many are and the largest push's length
/// in each [`Class`] (as pushed, before a wall cut it short).
pub(super) fn apply_pushes(
    placed: &mut [Body],
    pushes: &[Push],
    terrain: ClassMaps<'_>,
) -> (usize, Slack) {
    zone!("separation: apply pushes");
    let apply = |first: usize, rows: &mut [Body]| {
        let (mut count, mut largest) = (0, [0.0_f32; 3]);
        for (body, push) in rows.iter_mut().zip(&pushes[first..]) {
            let step = push.step();
            let class = &mut largest[body.class()];
            *class = class.max(step.length_squared());
            body.active = push.touched || step != Vec2::ZERO;
            count += usize::from(body.active);
            if step == Vec2::ZERO {
                continue;
            }
            let taken = match terrain.of(body.mobility).filter(|_| body.centre.z <= 0.0) {
                Some(map) => map.step_on_open_ground(body.centre.truncate(), step),
                None => step,
            };
            // Never past the coordinate limit (a pile at the map's edge).
            body.centre = clamp_to_map(body.centre.truncate() + taken).extend(body.centre.z);
            if taken != step {
                body.wall = (step - taken).normalize_or_zero();
            } else if step.dot(body.wall) > 0.0 {
                body.wall = Vec2::ZERO;
            }
        }
        (count, largest)
    };
    let combine = |(a, a_largest): (usize, [f32; 3]), (b, b_largest): (usize, [f32; 3])| {
        (a + b, [0, 1, 2].map(|k| a_largest[k].max(b_largest[k])))
    };
    let (active, largest) = for_each_chunk_fold(placed, (0, [0.0; 3]), apply, combine);
    (active, Slack(largest.map(f32::sqrt)))
}

/// Measures every unit's push from the current positions into `pushes`
/// (place order) and returns the totals.
pub(super) fn sweep(context: &Context<'_>, big: &mut BigUnits, pushes: &mut [Push]) -> Sweep {
    let chunks = |work: &(dyn Fn(&mut ChunkSweep<'_>, &Context<'_>) + Sync),
                  pushes: &mut [Push]| {
        let each = |first: usize, pushes: &mut [Push]| {
            let mut chunk = ChunkSweep {
                first,
                pushes,
                totals: Sweep::default(),
            };
            work(&mut chunk, context);
            chunk.totals
        };
        let (rows, identity) = (context.chunk_rows, Sweep::default());
        for_each_chunk_fold_of(pushes, rows, identity, each, Sweep::combine)
    };
    let mut totals = if context.measure_only {
        // Each chunk measures its first places, then the rest knowing the
        // deepest overlap any chunk found there.
        let first = |chunk: &mut ChunkSweep<'_>, context: &Context<'_>| {
            measure_chunk(chunk, context, 0..MEASURE_FIRST, Deepest::default());
        };
        let found = chunks(&first, pushes);
        let deepest = Deepest {
            m: found.depth_m,
            rel: found.depth_rel,
        };
        let rest = |chunk: &mut ChunkSweep<'_>, context: &Context<'_>| {
            measure_chunk(chunk, context, MEASURE_FIRST..usize::MAX, deepest);
        };
        found.combine(chunks(&rest, pushes))
    } else {
        chunks(&push_chunk, pushes)
    };
    if context.only_active && !context.measure_only {
        totals = totals.combine(chunks(&push_marked, pushes));
    }
    totals.combine(big.push_pairs(context, pushes))
}

/// The pushes of the small units at places `first..first + chunk.len()`
/// from their pairs with small units (big units get theirs in the
/// sequential phase): a pair within the chunk is tested once, from its
/// earlier place, and pushes both; a pair with a unit of another chunk is
/// tested from both sides, each pushing only its own unit.
///
/// A sweep from the active units only: a pair within the chunk is tested
/// from its earlier active place; a pair with an inactive unit of another
/// chunk, from the active side, which marks the other [`Context::marked`]
/// if they overlap, for [`push_marked`] to push it.
pub(super) fn push_chunk(chunk: &mut ChunkSweep<'_>, context: &Context<'_>) {
    let without_branch = context.scan == Scan::WithoutBranch;
    match (context.only_active, without_branch) {
        (false, false) => push_chunk_as::<false, false>(chunk, context),
        (false, true) => push_chunk_as::<false, true>(chunk, context),
        (true, false) => push_chunk_as::<true, false>(chunk, context),
        (true, true) => push_chunk_as::<true, true>(chunk, context),
    }
}

/// [`push_chunk`] with its sweep's kind and whether it scans without a
/// branch fixed, each its own function: the hot loops then carry neither
/// test nor the values only the other kind needs.
#[inline(never)]
pub(super) fn push_chunk_as<const ONLY_ACTIVE: bool, const WITHOUT_BRANCH: bool>(
    chunk: &mut ChunkSweep<'_>,
    context: &Context<'_>,
) {
    chunk.pushes.fill(Push::default());
    let (first, chunk_end) = (chunk.first, chunk.places().end);
    let mut batch = Batch::default();
    let mut skips = context.hash.sweep_skips(first, first);
    for unit in first..chunk_end {
        let own = &context.bodies[unit];
        if own.radius > context.big_radius || ONLY_ACTIVE && !own.active {
            continue;
        }
        // Earlier places of this chunk already tested their pairs with this
        // one (all, or the active ones).
        let skip = if ONLY_ACTIVE {
            skips.only(unit)
        } else {
            skips.through(unit)
        };
        let moves = own.inv_mass != 0.0;
        let takes = |other: usize, them: &Body| {
            let shared = (first..chunk_end).contains(&other);
            // Not two immovable units, nor a pair only the other side moves
            // (and measures itself), nor one the other side tested (a full
            // sweep's skip leaves out all those of the chunk).
            let tested = ONLY_ACTIVE && shared && other < unit && them.active;
            (moves || shared && them.inv_mass != 0.0) && !tested
        };
        queue_pushes(
            unit,
            &skip,
            takes,
            WITHOUT_BRANCH,
            &mut batch,
            chunk,
            context,
        );
    }
    settle_pushes(&mut batch, chunk, context);
}

/// In a sweep from the active units, the pushes of the units at places
/// `first..first + chunk.len()` that [`push_chunk`] marked
/// [`Context::marked`] (clearing the marks) from their pairs with the active
/// units of other chunks, each pushing only its own unit.
pub(super) fn push_marked(chunk: &mut ChunkSweep<'_>, context: &Context<'_>) {
    let chunk_places = chunk.places();
    let skip = context.hash.skip(chunk_places.clone());
    let mut batch = Batch::default();
    let without_branch = context.scan == Scan::WithoutBranch;
    for unit in chunk_places {
        // A plain load first: most places are not marked, and a swap would
        // lock the bus for each.
        if context.marked[unit].load(Ordering::Relaxed) {
            context.marked[unit].store(false, Ordering::Relaxed);
            let takes = |_, them: &Body| them.active;
            queue_pushes(
                unit,
                &skip,
                takes,
                without_branch,
                &mut batch,
                chunk,
                context,
            );
        }
    }
    settle_pushes(&mut batch, chunk, context);
}

/// Tests the queued pairs exactly and pushes the overlapping ones apart
/// (see [`push_chunk`]), in queue order.
pub(super) fn settle_pushes(batch: &mut Batch, chunk: &mut ChunkSweep<'_>, context: &Context<'_>) {
    if batch.len == 0 {
        return;
    }
    let contacts = batch.contacts(context.bodies, [1.0; LANES]);
    let mut below_one = lanes_below_one(contacts.f, batch.len);
    // Where few pairs overlap (the default profile's crowd), one at a time
    // costs less than all eight lanes.
    let level = (below_one.count_ones() >= LEVEL_LANES_MIN)
        .then(|| LevelOverlaps::of(batch, contacts.f, context.bodies));
    while below_one != 0 {
        let lane = below_one.trailing_zeros() as usize;
        below_one &= below_one - 1;
        let (unit, other) = (batch.first[lane], batch.second[lane]);
        let (own, them) = (&context.bodies[unit], &context.bodies[other]);
        let overlap = match &level {
            Some(level) if level.level & (1 << lane) != 0 => level.overlap(lane),
            _ => resolve(
                own,
                them,
                batch.offset[lane],
                contacts.f[lane],
                (unit, other),
            ),
        };
        let Some(overlap) = overlap else {
            continue;
        };
        let (own_share, their_share) = shares(own, them, overlap.direction);
        let away = overlap.direction * overlap.push;
        let shared = chunk.places().contains(&other);
        let push = chunk.push(unit);
        push.add(-away * own_share, their_share == 0.0);
        // Counted by the earlier place, or by the movable side.
        let count_here = shared || unit < other || them.inv_mass == 0.0;
        chunk.totals.record(&overlap, count_here);
        if shared {
            let away = away * their_share;
            chunk.push(other).add(away, own_share == 0.0);
        } else if context.only_active && !them.active && them.inv_mass > 0.0 {
            context.marked[other].store(true, Ordering::Relaxed);
        }
    }
    batch.len = 0;
}
