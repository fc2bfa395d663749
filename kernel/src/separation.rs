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
//! 1. **Bodies (Jacobi pre-pass).** Each unit's shape ([`Shape`]: forward
//!    axis and squared semi-axes), bounding radius, vertical semi-axis,
//!    smallest semi-axis, inverse mass and centre are packed once per pass
//!    into one record, and the records are laid out in the spatial hash's
//!    place (cell) order, so a pair test reads two nearby records instead of
//!    five columns and never rebuilds a shape; pushes update the centres in
//!    place and are written back to the position column at the end. Units
//!    whose bounding radius exceeds the hash cell size are *big* (starbases,
//!    capital ships): they go on a short list, sized at
//!    [`Separation::reserve`], so that they never widen everyone else's
//!    search.
//! 2. **Sweep (Jacobi).** Places are cut into fixed chunks of
//!    [`crate::parallel::CHUNK_ROWS`], one task each. Every small unit looks
//!    up its candidates in the spatial hash within its own bounding radius +
//!    the largest small bounding radius + twice the *slack* (how far any unit
//!    may have moved since the hash was built). A pair inside one chunk is
//!    tested **once**, from its earlier place, and pushes both units (the
//!    window skips the chunk's earlier places outright: a grid row's cells
//!    are contiguous places); a pair straddling two chunks is tested from
//!    both sides, each pushing only its own unit, so no task writes another's
//!    rows. With rows in cell order a chunk is a band of the map and only
//!    pairs across its two edges straddle. Cheap rejections first (bounding
//!    spheres, then the vertical extents), then the exact test, which stops
//!    at the first sample `f(λ) ≥ 1` for the common no-overlap case. Each
//!    overlapping pair is pushed apart along the centre line by the exact
//!    depth (plus a skin of [`SKIN_REL`] of the smaller smallest semi-axis),
//!    each unit by its share of the inverse mass (`inv_self / (inv_self +
//!    inv_other)`; immovable units have inverse mass 0, so the movable party
//!    takes the full depth; pairs of two immovable units are skipped). Pairs
//!    with a big unit are then handled on one thread in a fixed order: each
//!    big unit queries the hash with its own radius, and big pairs are tested
//!    all against all. A unit moves by the **sum** of its pushes from movable
//!    partners times [`RELAXATION`] plus the sum from immovable ones, applied
//!    only after every pair has been measured; the pairs of a chunk are
//!    summed in a fixed order and the chunk cut does not depend on the
//!    thread count, so neither does the result. (The mean of the pushes,
//!    tried first, under-relaxes a unit with many neighbours by their number
//!    and stalled dense crowds.)
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
//! in the ground plane are separated along x, the earlier place (in the hash
//! order) to the west.
//!
//! **Hashes.** The first sweep uses the tick's hash (built from positions
//! before integration) with slack = the largest travel of the tick. Every
//! applied push adds the largest push to the slack; once the slack exceeds a
//! quarter of a cell, the stage rebuilds its own hash from current positions
//! (same bounds and cell size, allocated at construction) and resets the
//! slack. Nothing allocates after [`Separation::reserve`].

use glam::{Vec2, Vec3};

use crate::ellipsoid::{Shape, contact_function_until, horizontal_separation};
use crate::parallel::for_each_chunk;
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
    /// Candidate pairs examined over all sweeps: each pair once, except
    /// pairs of two small units in different chunks of
    /// [`crate::parallel::CHUNK_ROWS`] places, which are examined from both
    /// sides (a few per cent of pairs with rows in cell order).
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
    /// Overlapping pairs above tolerance, each counted once.
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

    /// Adds the push `away` (already scaled by this unit's share) from a
    /// partner that is immovable or not.
    #[inline]
    fn add(&mut self, away: Vec2, from_immovable: bool) {
        if from_immovable {
            self.wall += away;
        } else {
            self.mutual += away;
        }
    }

    fn record(&mut self, overlap: &Overlap, count_here: bool) {
        self.depth_m = self.depth_m.max(overlap.depth);
        self.depth_rel = self.depth_rel.max(overlap.relative);
        if count_here && overlap.relative > TOLERANCE_REL {
            self.overlaps += 1;
        }
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
    /// Bodies in unit order (centres as of the pass start).
    bodies: Vec<Body>,
    /// Bodies in the current hash's place order, centres kept current.
    placed: Vec<Body>,
    /// Pushes in place order.
    pushes: Vec<Push>,
    /// Places of units whose bounding radius exceeds a cell, in order.
    big: Vec<u32>,
}

/// What the sweeps of one pass share.
#[derive(Clone, Copy)]
struct Context<'a> {
    /// Bodies in place order.
    bodies: &'a [Body],
    hash: &'a SpatialHash,
    /// Units with a radius above this are big.
    big_radius: f32,
    /// Largest bounding radius among small units.
    small_radius: f32,
    slack: f32,
}

impl Context<'_> {
    /// How far from a unit of bounding radius `radius` (at its hashed
    /// position) a small unit's hashed position may be and still overlap it.
    #[inline]
    fn search(&self, radius: f32) -> f32 {
        radius + self.small_radius + 2.0 * self.slack
    }
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
            placed: Vec::new(),
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
        self.placed.reserve(units.saturating_sub(self.placed.len()));
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
            placed,
            pushes,
            big,
        } = self;
        bodies.resize(units, Body::default());
        placed.resize(units, Body::default());
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
        let small_radius = bodies
            .iter()
            .map(|body| body.radius)
            .filter(|&radius| radius <= big_radius)
            .fold(0.0_f32, f32::max);
        place(bodies, position, input.spatial, big_radius, placed, big);

        let mut stats = SeparationStats::default();
        let mut slack = input.max_travel;
        let mut own_hash = false;
        loop {
            let hash: &SpatialHash = if own_hash { local } else { input.spatial };
            let context = Context {
                bodies: placed,
                hash,
                big_radius,
                small_radius,
                slack,
            };
            let sweep = sweep(&context, big, pushes);
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
            for_each_chunk(placed, |first, rows| {
                for (body, push) in rows.iter_mut().zip(&pushes[first..]) {
                    body.centre += push.step().extend(0.0);
                }
            });
            stats.iterations += 1;
            slack += sweep.largest_push;
            if slack > REBUILD_SLACK_CELLS * local.cell_size() {
                let hash: &SpatialHash = if own_hash { local } else { input.spatial };
                write_back(placed, hash, position);
                local.rebuild(position);
                place(bodies, position, local, big_radius, placed, big);
                own_hash = true;
                slack = 0.0;
                stats.rebuilds += 1;
            }
        }
        if stats.iterations > 0 {
            let hash: &SpatialHash = if own_hash { local } else { input.spatial };
            write_back(placed, hash, position);
        }
        stats
    }
}

/// Copies `bodies` (unit order) into `placed` in `hash`'s place order with
/// their centres at `position`, and lists the places of big units.
fn place(
    bodies: &[Body],
    position: &[Vec2],
    hash: &SpatialHash,
    big_radius: f32,
    placed: &mut [Body],
    big: &mut Vec<u32>,
) {
    let order = hash.order();
    for_each_chunk(placed, |first, rows| {
        for (body, &unit) in rows.iter_mut().zip(&order[first..]) {
            let unit = unit as usize;
            *body = bodies[unit];
            body.centre = position[unit].extend(body.centre.z);
        }
    });
    big.clear();
    big.extend(
        (0..placed.len() as u32).filter(|&place| placed[place as usize].radius > big_radius),
    );
}

/// Writes the ground positions of `placed` (in `hash`'s place order) back to
/// the unit-ordered `position`.
fn write_back(placed: &[Body], hash: &SpatialHash, position: &mut [Vec2]) {
    let places = hash.places();
    for_each_chunk(position, |first, rows| {
        for (position, &place) in rows.iter_mut().zip(&places[first..]) {
            *position = placed[place as usize].centre.truncate();
        }
    });
}

/// Measures every unit's push from the current positions into `pushes`
/// (place order) and returns the totals.
fn sweep(context: &Context<'_>, big: &[u32], pushes: &mut [Push]) -> Sweep {
    for_each_chunk(pushes, |first, rows| {
        rows.fill(Push::default());
        for offset in 0..rows.len() {
            small_pushes(first, offset, rows, context);
        }
    });
    // Pairs with a big unit: one thread, fixed order, both sides at once.
    for (index, &unit) in big.iter().enumerate() {
        let unit = unit as usize;
        let body = &context.bodies[unit];
        let point = context.hash.sorted_positions()[unit];
        let search = context.search(body.radius);
        context
            .hash
            .for_each_place_within_except(point, search, unit..unit + 1, |other, _| {
                if context.bodies[other].radius <= context.big_radius {
                    push_pair(unit, other, context, pushes);
                }
            });
        for &other in &big[index + 1..] {
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

/// The pairs of the small unit at place `first + offset` with small units
/// (big units get theirs in the sequential phase). `chunk` holds the pushes
/// of places `first..first + chunk.len()`: a pair within the chunk is tested
/// once, from its earlier place, and pushes both; a pair with a unit of
/// another chunk is tested from both sides, each pushing only its own unit.
fn small_pushes(first: usize, offset: usize, chunk: &mut [Push], context: &Context<'_>) {
    let unit = first + offset;
    let own = &context.bodies[unit];
    if own.radius > context.big_radius {
        return;
    }
    let chunk_end = first + chunk.len();
    let point = context.hash.sorted_positions()[unit];
    // Earlier places of this chunk already tested their pairs with this one.
    let skip = first..unit + 1;
    let search = context.search(own.radius);
    context
        .hash
        .for_each_place_within_except(point, search, skip, |other, _| {
            let them = &context.bodies[other];
            let total = own.inv_mass + them.inv_mass;
            if them.radius > context.big_radius || total == 0.0 {
                return;
            }
            let shared = (first..chunk_end).contains(&other);
            if !shared && own.inv_mass == 0.0 {
                // Only the other side moves: it measures the pair itself.
                return;
            }
            chunk[offset].tested += 1;
            let Some(overlap) = overlap_of(own, them, unit < other, &mut chunk[offset].exact)
            else {
                return;
            };
            let away = overlap.direction * overlap.push;
            chunk[offset].add(-away * (own.inv_mass / total), them.inv_mass == 0.0);
            if shared {
                chunk[offset].record(&overlap, true);
                chunk[other - first].add(away * (them.inv_mass / total), own.inv_mass == 0.0);
            } else {
                // Counted by the earlier place, or by the movable side.
                let count_here = unit < other || them.inv_mass == 0.0;
                chunk[offset].record(&overlap, count_here);
            }
        });
}

/// Tests the pair `(unit, other)` (places) once and pushes both.
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
    pushes[unit].record(&overlap, true);
    let away = overlap.direction * overlap.push;
    pushes[unit].add(-away * (a.inv_mass / total), b.inv_mass == 0.0);
    pushes[other].add(away * (b.inv_mass / total), a.inv_mass == 0.0);
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
