//! Shield separation: the `separation` stage.
//!
//! The Armada paper (Davis, *Warp Speed: Path Planning for Star Trek:
//! Armada*, "Support Systems: … Collision Prevention") guarantees that no two
//! ships' shield ellipsoids overlap: every cycle each ship is checked against
//! nearby ships found through geometric hashing (buckets), and overlapping
//! ships are separated by the amount of the overlap.
//!
//! Here each shield is an oriented ellipsoid (semi-axes forward, lateral,
//! vertical; turned by the heading; centred at `(x, y, altitude)`), tested
//! exactly with the Perram–Wertheim contact function (Perram & Wertheim,
//! *J. Comput. Phys.* 58 (1985) 409–416; see
//! [`crate::ellipsoid`]), so a helicopter above a tank does not touch it and
//! long ships are not treated as spheres. One pass:
//!
//! 1. **Bodies (Jacobi pre-pass).** Each unit's block-diagonal shape
//!    ([`Shape`]: the 2×2 ground-plane block and `vertical²`), bounding
//!    radius, vertical semi-axis, smallest semi-axis, inverse mass and centre
//!    are packed once per pass into one record, so a pair test reads two
//!    records instead of five columns and never rebuilds a shape; pushes
//!    update the centres in place. Units whose bounding radius exceeds the
//!    hash cell size are *big* (starbases, capital ships): they go on a short
//!    list, sized at [`Separation::reserve`], so that they never widen
//!    everyone else's search.
//! 2. **Sweep (Jacobi).** Every small movable unit looks up its candidates in
//!    the spatial hash within its own bounding radius + the largest small
//!    bounding radius + twice the *slack* (how far any unit may have moved
//!    since the hash was built), from the current positions. Cheap rejections
//!    first (bounding spheres, then the vertical extents), then the exact
//!    test, which stops at the first sample `f(λ) ≥ 1` for the common
//!    no-overlap case. Each overlapping pair pushes the unit away along the
//!    centre line by the exact depth (plus a skin of [`SKIN_REL`] of the
//!    smaller smallest semi-axis) times its share of the inverse mass
//!    (`inv_self / (inv_self + inv_other)`; immovable units have inverse mass
//!    0, so the movable party takes the full depth; pairs of two immovable
//!    units are skipped). Pairs with a big unit are then handled on one
//!    thread in a fixed order: each big unit queries the hash with its own
//!    radius, and big pairs are tested all against all. A unit moves by the
//!    **sum** of its pushes from movable partners times [`RELAXATION`] plus
//!    the sum from immovable ones, applied only after every pair has been
//!    measured, so the result does not depend on the thread count or on pair
//!    order. (The mean of the pushes, tried first, under-relaxes a unit with
//!    many neighbours by their number and stalled dense crowds.)
//! 3. **Repeat** up to `iterations` times, or until no pair overlaps by more
//!    than [`TOLERANCE_REL`] of the smaller shield's smallest semi-axis. After
//!    the last push one more sweep measures what remains, from the current
//!    positions with the slack widened by every push since the hash was
//!    built.
//!
//! **Ground plane only.** Separation moves units only in the ground plane,
//! airborne ones included: altitude belongs to the flight model, and nothing
//! downstream would restore an altitude changed here. For two shields at the
//! same altitude the push is along the centre line by the exact depth
//! `|r|(1/√F − 1)`; when altitudes differ, the push is along the horizontal
//! part of the centre line by the exact horizontal distance to touching
//! ([`crate::ellipsoid::horizontal_separation`]). Units whose centres coincide
//! in the ground plane are separated along x, the lower index to the west.
//!
//! **Hashes.** The first sweep uses the tick's hash (built from positions
//! before integration) with slack = the largest travel of the tick. Every
//! applied push adds the largest push to the slack; once the slack exceeds a
//! quarter of a cell, the stage rebuilds its own hash from current positions
//! (same bounds and cell size, allocated at construction) and resets the
//! slack. Nothing allocates after [`Separation::reserve`].

use glam::{Vec2, Vec3};

use crate::ellipsoid::{Shape, contact_function_until, horizontal_separation};
use crate::parallel::{CHUNK_ROWS, PARALLEL_MIN_ROWS, for_each_chunk};
use crate::spatial::{Bounds, GridError, SpatialHash};

/// A pair still counts as overlapping when its depth exceeds this fraction of
/// the smaller shield's smallest semi-axis; below it the pass has converged.
pub const TOLERANCE_REL: f32 = 1e-4;
/// Each unit moves by the sum of its pair pushes from movable neighbours
/// times this factor (pushes from immovable ones count in full). Below 1 it
/// damps the overshoot of a unit squeezed from many sides at once.
pub const RELAXATION: f32 = 1.0;
/// Overlapping pairs are pushed this fraction of the smaller shield's
/// smallest semi-axis beyond touching (a fraction of a millimetre for
/// metre-sized shields), so that Jacobi sweeps end with pairs just apart
/// instead of creeping towards touching from inside.
pub const SKIN_REL: f32 = 1e-3;
/// Rebuild the stage's own hash once units may have moved this many cells.
const REBUILD_SLACK_CELLS: f32 = 0.25;

/// The columns separation reads.
#[derive(Clone, Copy, Debug)]
pub struct SeparationInput<'a> {
    /// Altitudes (the shields' vertical centres).
    pub altitude: &'a [f32],
    /// Headings (the shields' yaw).
    pub heading: &'a [f32],
    /// Shield semi-axes (forward, lateral, vertical).
    pub shield: &'a [Vec3],
    /// Inverse masses (0 is immovable).
    pub inv_mass: &'a [f32],
    /// The hash built this tick from positions before integration.
    pub spatial: &'a SpatialHash,
    /// How far any unit may have moved since `spatial` was built, metres.
    pub max_travel: f32,
}

/// What one pass did and found.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SeparationStats {
    /// Candidate pairs examined over all sweeps (a pair of two small units is
    /// examined from both sides, a pair with a big unit once).
    pub pairs_tested: u64,
    /// Candidates that passed the bounding-sphere and height checks and got
    /// the exact Perram–Wertheim test.
    pub exact_tests: u64,
    /// Overlapping pairs found by the first sweep (before any push).
    pub overlaps: u64,
    /// Pushes applied (0 when nothing overlapped).
    pub iterations: u32,
    /// Times the stage rebuilt its own hash.
    pub rebuilds: u32,
    /// Largest overlap depth remaining after the pass, metres.
    pub max_overlap_m: f32,
    /// Largest remaining depth relative to the smaller shield's smallest
    /// semi-axis of its pair.
    pub max_overlap_rel: f32,
}

/// One unit's shield, prepared once per pass, with its current centre.
#[derive(Clone, Copy, Debug, Default)]
struct Body {
    /// `(x, y, altitude)`, updated with every push.
    centre: Vec3,
    shape: Shape,
    /// Bounding-sphere radius (largest semi-axis).
    radius: f32,
    /// Vertical semi-axis.
    half_height: f32,
    /// Smallest semi-axis.
    smallest: f32,
    inv_mass: f32,
}

/// One unit's share of a sweep.
#[derive(Clone, Copy, Debug, Default)]
struct Push {
    /// Sum of the pushes from movable partners.
    mutual: Vec2,
    /// Sum of the pushes from immovable partners.
    wall: Vec2,
    tested: u32,
    exact: u32,
    /// Overlapping pairs above tolerance, counted on one side only.
    overlaps: u32,
    depth_m: f32,
    depth_rel: f32,
}

impl Push {
    /// Where the unit moves.
    #[inline]
    fn step(&self) -> Vec2 {
        self.mutual * RELAXATION + self.wall
    }
}

/// Totals of one sweep.
#[derive(Clone, Copy, Debug, Default)]
struct Sweep {
    tested: u64,
    exact: u64,
    overlaps: u64,
    depth_m: f32,
    depth_rel: f32,
    largest_push: f32,
}

/// Separation's working memory and its iteration limit: reuse it across
/// ticks.
#[derive(Clone, Debug)]
pub struct Separation {
    iterations: u32,
    local: SpatialHash,
    bodies: Vec<Body>,
    pushes: Vec<Push>,
    /// Units whose bounding radius exceeds a cell, in index order.
    big: Vec<u32>,
}

/// What the sweeps of one pass share.
#[derive(Clone, Copy)]
struct Context<'a> {
    bodies: &'a [Body],
    /// Units with a radius above this are big.
    big_radius: f32,
    /// Largest bounding radius among small units.
    small_radius: f32,
    slack: f32,
}

/// How an overlapping pair is pushed apart.
struct Overlap {
    /// Unit vector from the first unit towards the second, ground plane.
    direction: Vec2,
    depth: f32,
    /// The depth plus the skin: how far the pair is pushed apart.
    push: f32,
    relative: f32,
}

impl Separation {
    /// Working memory for a world of `bounds` hashed at `cell_size` (use the
    /// tick hash's), doing at most `iterations` pushes per pass (0 measures
    /// overlap without moving anything).
    pub fn new(bounds: Bounds, cell_size: f32, iterations: u32) -> Result<Separation, GridError> {
        Ok(Separation {
            iterations,
            local: SpatialHash::new(bounds, cell_size)?,
            bodies: Vec::new(),
            pushes: Vec::new(),
            big: Vec::new(),
        })
    }

    /// Pushes per pass at most.
    #[must_use]
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// Sets the most pushes per pass.
    pub fn set_iterations(&mut self, iterations: u32) {
        self.iterations = iterations;
    }

    /// Grows scratch (including the big-unit list and the stage's own hash)
    /// to `units`, so passes never allocate.
    pub fn reserve(&mut self, units: usize) {
        self.bodies.reserve(units.saturating_sub(self.bodies.len()));
        self.pushes.reserve(units.saturating_sub(self.pushes.len()));
        self.big.reserve(units.saturating_sub(self.big.len()));
        self.local.reserve(units);
    }

    /// Separates overlapping shields: sweeps and pushes until nothing
    /// overlaps or the iteration limit is reached; see the module docs.
    pub fn pass(&mut self, input: SeparationInput<'_>, position: &mut [Vec2]) -> SeparationStats {
        let units = position.len();
        assert!(
            input.altitude.len() == units
                && input.heading.len() == units
                && input.shield.len() == units
                && input.inv_mass.len() == units,
            "separation columns must all have {units} rows"
        );
        assert_eq!(
            input.spatial.len(),
            units,
            "the spatial hash must be built from this tick's {units} units"
        );
        assert!(
            input.max_travel >= 0.0,
            "max_travel must not be negative, was {}",
            input.max_travel
        );
        let Separation {
            iterations,
            local,
            bodies,
            pushes,
            big,
        } = self;
        bodies.resize(units, Body::default());
        pushes.resize(units, Push::default());
        {
            let position = &*position;
            for_each_chunk(bodies, |first, rows| {
                for (offset, body) in rows.iter_mut().enumerate() {
                    let unit = first + offset;
                    let axes = input.shield[unit];
                    *body = Body {
                        centre: position[unit].extend(input.altitude[unit]),
                        shape: Shape::new(axes, input.heading[unit]),
                        radius: axes.max_element(),
                        half_height: axes.z,
                        smallest: axes.min_element(),
                        inv_mass: input.inv_mass[unit],
                    };
                }
            });
        }
        let big_radius = input.spatial.cell_size();
        big.clear();
        let mut small_radius = 0.0_f32;
        for (unit, body) in bodies.iter().enumerate() {
            if body.radius > big_radius {
                big.push(unit as u32);
            } else {
                small_radius = small_radius.max(body.radius);
            }
        }

        let mut stats = SeparationStats::default();
        let mut slack = input.max_travel;
        let mut own_hash = false;
        loop {
            let hash: &SpatialHash = if own_hash { local } else { input.spatial };
            let context = Context {
                bodies,
                big_radius,
                small_radius,
                slack,
            };
            let sweep = sweep(&context, hash, big, pushes);
            stats.pairs_tested += sweep.tested;
            stats.exact_tests += sweep.exact;
            if stats.iterations == 0 {
                stats.overlaps = sweep.overlaps;
            }
            stats.max_overlap_m = sweep.depth_m;
            stats.max_overlap_rel = sweep.depth_rel;
            if sweep.overlaps == 0 || stats.iterations >= *iterations {
                break;
            }
            let pushes = &*pushes;
            for_each_chunk2(position, bodies, |first, positions, bodies| {
                for (offset, (position, body)) in positions.iter_mut().zip(bodies).enumerate() {
                    *position += pushes[first + offset].step();
                    body.centre = position.extend(body.centre.z);
                }
            });
            stats.iterations += 1;
            slack += sweep.largest_push;
            if slack > REBUILD_SLACK_CELLS * local.cell_size() {
                local.rebuild(position);
                own_hash = true;
                slack = 0.0;
                stats.rebuilds += 1;
            }
        }
        stats
    }
}

/// Measures every unit's push from the current positions into `pushes` and
/// returns the totals.
fn sweep(context: &Context<'_>, hash: &SpatialHash, big: &[u32], pushes: &mut [Push]) -> Sweep {
    for_each_chunk(pushes, |first, rows| {
        for (offset, push) in rows.iter_mut().enumerate() {
            *push = small_push(first + offset, context, hash);
        }
    });
    // Pairs with a big unit: one thread, fixed order, both sides at once.
    for (place, &unit) in big.iter().enumerate() {
        let unit = unit as usize;
        let search = context.bodies[unit].radius + context.small_radius + 2.0 * context.slack;
        hash.for_each_neighbour(unit as u32, search, |other, _| {
            let other = other as usize;
            if context.bodies[other].radius <= context.big_radius {
                push_pair(unit, other, context, pushes);
            }
        });
        for &other in &big[place + 1..] {
            push_pair(unit, other as usize, context, pushes);
        }
    }
    let mut total = Sweep::default();
    for push in pushes.iter() {
        total.tested += u64::from(push.tested);
        total.exact += u64::from(push.exact);
        total.overlaps += u64::from(push.overlaps);
        total.depth_m = total.depth_m.max(push.depth_m);
        total.depth_rel = total.depth_rel.max(push.depth_rel);
        total.largest_push = total.largest_push.max(push.step().length_squared());
    }
    total.largest_push = total.largest_push.sqrt();
    total
}

/// Unit `unit`'s push from its small neighbours (big units get theirs in the
/// sequential phase).
fn small_push(unit: usize, context: &Context<'_>, hash: &SpatialHash) -> Push {
    let mut push = Push::default();
    let own = &context.bodies[unit];
    if own.radius > context.big_radius || own.inv_mass == 0.0 {
        // Big units get their pairs in the sequential phase; immovable ones
        // push others from the other side, where their pairs are measured.
        return push;
    }
    let search = own.radius + context.small_radius + 2.0 * context.slack;
    hash.for_each_neighbour(unit as u32, search, |other, _| {
        let other = other as usize;
        let them = &context.bodies[other];
        if them.radius > context.big_radius {
            return;
        }
        push.tested += 1;
        if let Some(overlap) = overlap_of(own, them, unit < other, &mut push.exact) {
            // Immovable units do not sweep: count their pairs here.
            let count_here = unit < other || them.inv_mass == 0.0;
            record(&mut push, &overlap, count_here);
            if them.inv_mass == 0.0 {
                push.wall -= overlap.direction * overlap.push;
            } else {
                let share = own.inv_mass / (own.inv_mass + them.inv_mass);
                push.mutual -= overlap.direction * (overlap.push * share);
            }
        }
    });
    push
}

/// Tests the pair `(unit, other)` once and pushes both.
fn push_pair(unit: usize, other: usize, context: &Context<'_>, pushes: &mut [Push]) {
    let (a, b) = (&context.bodies[unit], &context.bodies[other]);
    let total = a.inv_mass + b.inv_mass;
    if total == 0.0 {
        return;
    }
    pushes[unit].tested += 1;
    let Some(overlap) = overlap_of(a, b, unit < other, &mut pushes[unit].exact) else {
        return;
    };
    record(&mut pushes[unit], &overlap, true);
    let (to_unit, to_other) = (
        overlap.direction * (overlap.push * a.inv_mass / total),
        overlap.direction * (overlap.push * b.inv_mass / total),
    );
    if b.inv_mass == 0.0 {
        pushes[unit].wall -= to_unit;
    } else if a.inv_mass == 0.0 {
        pushes[other].wall += to_other;
    } else {
        pushes[unit].mutual -= to_unit;
        pushes[other].mutual += to_other;
    }
}

fn record(push: &mut Push, overlap: &Overlap, count_here: bool) {
    push.depth_m = push.depth_m.max(overlap.depth);
    push.depth_rel = push.depth_rel.max(overlap.relative);
    if count_here && overlap.relative > TOLERANCE_REL {
        push.overlaps += 1;
    }
}

/// The exact overlap of `a` and `b` at their current centres, if any.
/// `a_first` breaks the tie of coinciding ground positions.
#[inline]
fn overlap_of(a: &Body, b: &Body, a_first: bool, exact: &mut u32) -> Option<Overlap> {
    let r = b.centre - a.centre;
    let reach = a.radius + b.radius;
    if r.length_squared() >= reach * reach || r.z.abs() >= a.half_height + b.half_height {
        return None;
    }
    *exact += 1;
    let contact = contact_function_until(&a.shape, &b.shape, r, 1.0);
    if !contact.overlaps() {
        return None;
    }
    let across = r.truncate();
    let across_length = across.length();
    let (direction, depth) = if across_length > 0.0 && r.z == 0.0 {
        // Same altitude: the centre line is horizontal, depth |r|(1/√F − 1).
        let depth = across_length * (contact.f.sqrt().recip() - 1.0);
        (across / across_length, depth)
    } else {
        let direction = if across_length > 0.0 {
            across / across_length
        } else if a_first {
            Vec2::X
        } else {
            Vec2::NEG_X
        };
        let depth = horizontal_separation(&a.shape, &b.shape, r, direction.extend(0.0));
        (direction, depth)
    };
    // Non-finite depths only come from absurd shield sizes: leave those alone.
    let smallest = a.smallest.min(b.smallest);
    (depth.is_finite() && depth > 0.0).then(|| Overlap {
        direction,
        depth,
        push: depth + SKIN_REL * smallest,
        relative: depth / smallest,
    })
}

/// Like [`for_each_chunk`] over two columns cut alike.
fn for_each_chunk2<A: Send, B: Send>(
    a: &mut [A],
    b: &mut [B],
    work: impl Fn(usize, &mut [A], &mut [B]) + Sync,
) {
    use rayon::prelude::*;
    assert_eq!(a.len(), b.len(), "columns differ in length");
    if a.len() < PARALLEL_MIN_ROWS {
        a.chunks_mut(CHUNK_ROWS)
            .zip(b.chunks_mut(CHUNK_ROWS))
            .enumerate()
            .for_each(|(chunk, (a, b))| work(chunk * CHUNK_ROWS, a, b));
    } else {
        a.par_chunks_mut(CHUNK_ROWS)
            .zip(b.par_chunks_mut(CHUNK_ROWS))
            .enumerate()
            .for_each(|(chunk, (a, b))| work(chunk * CHUNK_ROWS, a, b));
    }
}
