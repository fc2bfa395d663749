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
//! exactly with the Perram–Wertheim contact function (see
//! [`crate::ellipsoid`]), so a helicopter above a tank does not touch it and
//! long ships are not treated as spheres. One pass:
//!
//! 1. **Shapes.** Each unit's shape matrix, bounding radius and smallest
//!    semi-axis are computed once per pass (headings do not change here).
//!    Units whose bounding radius exceeds the hash cell size are *big*
//!    (starbases, capital ships): they go on a short list, sized at
//!    [`Separation::reserve`], so that they never widen everyone else's
//!    search.
//! 2. **Sweep (Jacobi).** Every small unit looks up its candidates in the
//!    spatial hash within its own bounding radius + the largest small bounding
//!    radius + twice the *slack* (how far any unit may have moved since the
//!    hash was built), from the current positions: a bounding-sphere check,
//!    then the exact test. Each overlapping pair pushes the unit away along the
//!    centre line by the exact depth times its share of the inverse mass
//!    (`inv_self / (inv_self + inv_other)`; immovable units have inverse mass
//!    0, so only the other party moves; pairs of two immovable units are
//!    skipped). Pairs with a big unit are then handled on one thread in a fixed
//!    order: each big unit queries the hash with its own radius, and big pairs
//!    are tested all against all. Pushes are summed per unit and applied only
//!    after every pair has been measured, so the result does not depend on the
//!    thread count or on pair order.
//! 3. **Repeat** up to `iterations` times, or until no pair overlaps by more
//!    than [`TOLERANCE_REL`] of the smaller shield's smallest semi-axis. After
//!    the last push one more sweep measures what remains.
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
use crate::parallel::for_each_chunk;
use crate::spatial::{Bounds, GridError, SpatialHash};

/// A pair still counts as overlapping when its depth exceeds this fraction of
/// the smaller shield's smallest semi-axis; below it the pass has converged.
pub const TOLERANCE_REL: f32 = 1e-4;
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
    /// Candidates that passed the bounding-sphere check and got the exact
    /// Perram–Wertheim test.
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

/// One unit's shield, prepared for the pass.
#[derive(Clone, Copy, Debug)]
struct UnitShape {
    shape: Shape,
    /// Bounding-sphere radius (largest semi-axis).
    radius: f32,
    /// Smallest semi-axis.
    smallest: f32,
}

impl Default for UnitShape {
    fn default() -> UnitShape {
        UnitShape {
            shape: Shape::new(Vec3::ONE, 0.0),
            radius: 1.0,
            smallest: 1.0,
        }
    }
}

/// One unit's share of a sweep.
#[derive(Clone, Copy, Debug, Default)]
struct Push {
    /// Sum of the pair pushes; the unit moves by their mean.
    offset: Vec2,
    /// Overlapping pairs that push this unit.
    contacts: u32,
    tested: u32,
    exact: u32,
    /// Overlapping pairs above tolerance, counted on the lower index's side.
    overlaps: u32,
    depth_m: f32,
    depth_rel: f32,
}

impl Push {
    /// Where the unit moves: the mean of its pair pushes.
    fn step(&self) -> Vec2 {
        if self.contacts > 1 {
            self.offset / self.contacts as f32
        } else {
            self.offset
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
    shapes: Vec<UnitShape>,
    pushes: Vec<Push>,
    /// Units whose bounding radius exceeds a cell, in index order.
    big: Vec<u32>,
}

/// What the sweeps of one pass share.
#[derive(Clone, Copy)]
struct Context<'a> {
    shapes: &'a [UnitShape],
    position: &'a [Vec2],
    altitude: &'a [f32],
    inv_mass: &'a [f32],
    /// Units with a radius above this are big.
    big_radius: f32,
    /// Largest bounding radius among small units.
    small_radius: f32,
    slack: f32,
}

impl Context<'_> {
    fn centre(&self, unit: usize) -> Vec3 {
        self.position[unit].extend(self.altitude[unit])
    }

    fn is_big(&self, unit: usize) -> bool {
        self.shapes[unit].radius > self.big_radius
    }
}

/// How an overlapping pair is pushed apart.
struct Overlap {
    /// Unit vector from the first unit towards the second, ground plane.
    direction: Vec2,
    depth: f32,
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
            shapes: Vec::new(),
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
        self.shapes.reserve(units.saturating_sub(self.shapes.len()));
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
            shapes,
            pushes,
            big,
        } = self;
        shapes.resize(units, UnitShape::default());
        pushes.resize(units, Push::default());
        for_each_chunk(shapes, |first, rows| {
            for (offset, shape) in rows.iter_mut().enumerate() {
                let unit = first + offset;
                let axes = input.shield[unit];
                *shape = UnitShape {
                    shape: Shape::new(axes, input.heading[unit]),
                    radius: axes.max_element(),
                    smallest: axes.min_element(),
                };
            }
        });
        let big_radius = input.spatial.cell_size();
        big.clear();
        let mut small_radius = 0.0_f32;
        for (unit, shape) in shapes.iter().enumerate() {
            if shape.radius > big_radius {
                big.push(unit as u32);
            } else {
                small_radius = small_radius.max(shape.radius);
            }
        }

        let mut stats = SeparationStats::default();
        let mut slack = input.max_travel;
        let mut own_hash = false;
        loop {
            let hash: &SpatialHash = if own_hash { local } else { input.spatial };
            let context = Context {
                shapes,
                position,
                altitude: input.altitude,
                inv_mass: input.inv_mass,
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
            for_each_chunk(position, |first, rows| {
                for (offset, position) in rows.iter_mut().enumerate() {
                    *position += pushes[first + offset].step();
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
        let search = context.shapes[unit].radius + context.small_radius + 2.0 * context.slack;
        hash.for_each_neighbour(unit as u32, search, |other, _| {
            let other = other as usize;
            if !context.is_big(other) {
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
        total.largest_push = total.largest_push.max(push.step().length());
    }
    total
}

/// Unit `unit`'s push from its small neighbours (big units get theirs in the
/// sequential phase).
fn small_push(unit: usize, context: &Context<'_>, hash: &SpatialHash) -> Push {
    let mut push = Push::default();
    if context.is_big(unit) {
        return push;
    }
    let search = context.shapes[unit].radius + context.small_radius + 2.0 * context.slack;
    let own_inv_mass = context.inv_mass[unit];
    if own_inv_mass == 0.0 {
        // Immovable: it pushes others from their side, and its own pairs
        // with small units are measured there.
        return push;
    }
    hash.for_each_neighbour(unit as u32, search, |other, _| {
        let other = other as usize;
        if context.is_big(other) || own_inv_mass + context.inv_mass[other] == 0.0 {
            return;
        }
        push.tested += 1;
        if let Some(overlap) = overlap_of(unit, other, context, &mut push.exact) {
            // Immovable units do not sweep: count their pairs here.
            let count_here = unit < other || context.inv_mass[other] == 0.0;
            record(&mut push, &overlap, count_here);
            let share = own_inv_mass / (own_inv_mass + context.inv_mass[other]);
            push.offset -= overlap.direction * (overlap.depth * share);
            push.contacts += 1;
        }
    });
    push
}

/// Tests the pair `(unit, other)` once and pushes both.
fn push_pair(unit: usize, other: usize, context: &Context<'_>, pushes: &mut [Push]) {
    let (inv_unit, inv_other) = (context.inv_mass[unit], context.inv_mass[other]);
    if inv_unit + inv_other == 0.0 {
        return;
    }
    pushes[unit].tested += 1;
    let Some(overlap) = overlap_of(unit, other, context, &mut pushes[unit].exact) else {
        return;
    };
    record(&mut pushes[unit], &overlap, true);
    let total = inv_unit + inv_other;
    pushes[unit].offset -= overlap.direction * (overlap.depth * inv_unit / total);
    pushes[other].offset += overlap.direction * (overlap.depth * inv_other / total);
    pushes[unit].contacts += u32::from(inv_unit > 0.0);
    pushes[other].contacts += u32::from(inv_other > 0.0);
}

fn record(push: &mut Push, overlap: &Overlap, count_here: bool) {
    push.depth_m = push.depth_m.max(overlap.depth);
    push.depth_rel = push.depth_rel.max(overlap.relative);
    if count_here && overlap.relative > TOLERANCE_REL {
        push.overlaps += 1;
    }
}

/// The exact overlap of `unit` and `other` at current positions, if any.
#[inline]
fn overlap_of(
    unit: usize,
    other: usize,
    context: &Context<'_>,
    exact: &mut u32,
) -> Option<Overlap> {
    let (a, b) = (&context.shapes[unit], &context.shapes[other]);
    let r = context.centre(other) - context.centre(unit);
    let reach = a.radius + b.radius;
    if r.length_squared() >= reach * reach {
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
        } else if unit < other {
            Vec2::X
        } else {
            Vec2::NEG_X
        };
        let depth = horizontal_separation(&a.shape, &b.shape, r, direction.extend(0.0));
        (direction, depth)
    };
    // Non-finite depths only come from absurd shield sizes: leave those alone.
    (depth.is_finite() && depth > 0.0).then(|| Overlap {
        direction,
        depth,
        relative: depth / a.smallest.min(b.smallest),
    })
}
