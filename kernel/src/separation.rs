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
//!    into one record, written straight in the spatial hash's place (cell)
//!    order (with the census of the crowd's layers folded in the same pass),
//!    so a pair test reads two nearby records instead of five columns and
//!    never rebuilds a shape; pushes update the centres in
//!    place and are written back to the position column at the end. Units
//!    whose bounding radius exceeds the hash cell size are *big* (starbases,
//!    capital ships): they go on a short list, sized at
//!    [`Separation::reserve`], so that they never widen everyone else's
//!    search.
//! 2. **Sweep (Jacobi).** Places are cut into chunks, one task each: from
//!    8,192 units, twelve chunks of one size (above 196,608 units, a multiple
//!    of twelve of at most 16,384 places), so that two, three or four threads
//!    share them evenly; below, chunks of 2,048 (the size depends on the unit
//!    count alone). Every small unit takes as candidates the units in the hash
//!    cells under a square about its hashed position, of half-side its own
//!    bounding radius and *travel* (how far it is from where the hash saw it),
//!    plus the largest small bounding radius and travel of the *layers* (small
//!    units on the ground, and airborne ones) whose altitude span its shield
//!    meets, plus the *slack* (the sum of each push's largest step since the
//!    hash was built) of its own class and the largest of those layers' (the
//!    classes: small units on the ground, airborne ones, big ones): a tank
//!    need not reach as far as the wide shields of helicopters flying above
//!    it, nor as far as they fly in a tick or are pushed over a jam. Travel is
//!    measured unit by unit, from the hash's own record of where it saw each
//!    unit, so no bound on speeds is trusted.
//!    A pair inside one chunk is tested **once**, from its earlier place, and
//!    pushes both units (the window skips the chunk's earlier places
//!    outright: a grid row's cells are contiguous places); a pair
//!    straddling two chunks is tested from both sides, each pushing only its
//!    own unit, so no task writes another's rows. With rows in cell order a
//!    chunk is a band of the map and only pairs across its two edges
//!    straddle. Cheap rejections first (bounding
//!    spheres at the current centres, then the vertical extents: one
//!    candidate at a time, a pushing sweep queueing them without a branch
//!    on them when more than a fifth passed in the last one, or else, where
//!    the last one's window rows held two and a half or more a run, four at
//!    a time in SIMD lanes; the same pairs in the same order),
//!    then the
//!    exact test on **eight queued pairs at once**
//!    ([`crate::ellipsoid::contact_functions_until`], one SIMD lane each,
//!    bit-identical to one at a time), which stops at the first sample
//!    `f(λ) ≥ 1` for the common no-overlap case. Each overlapping pair is
//!    pushed apart along the centre line by the exact depth (plus a skin of
//!    [`SKIN_REL`] of the smaller smallest semi-axis; for pairs at one
//!    altitude, the depths and directions of the eight are found at once in
//!    SIMD lanes too, with the same bits),
//!    each unit by its share of the inverse mass (`inv_self / (inv_self +
//!    inv_other)`; immovable units have inverse mass 0, so the movable party
//!    takes the full depth; pairs of two immovable units are skipped). Pairs
//!    with a big unit are then handled on one thread in a fixed order: each
//!    big unit queries the hash with its own radius, and finds its big
//!    partners in a list of the big units sorted by x (two shields can only
//!    overlap if their centres' x differ by less than the sum of their
//!    radii), so thousands of big units do not cost all `B²/2` pairs. A
//!    unit moves by the **sum** of its pushes from movable partners times
//!    [`RELAXATION`] plus the sum from immovable ones, applied only after
//!    every pair has been measured; the pairs of a chunk are queued and
//!    summed in a fixed order and the chunk cut does not depend on the
//!    thread count, so neither does the result. (The mean of the pushes,
//!    tried first, under-relaxes a unit with many neighbours by their number
//!    and stalled dense crowds.)
//! 3. **Repeat** up to `iterations` times, or until no pair overlaps by more
//!    than [`TOLERANCE_REL`] of the smaller shield's smallest semi-axis.
//!    A unit the last push neither moved nor found overlapping is
//!    *inactive*; two inactive units did not overlap and have not moved, so
//!    they still do not. When at most half the units are active (each then
//!    searches its whole window, not only later places, so the full sweep
//!    is cheaper past that), a sweep starts only from the active units: a
//!    pair within a chunk is tested from its earlier active place; an
//!    active unit that overlaps an inactive one of another chunk pushes
//!    only itself and marks the other, and a second parallel phase has each
//!    marked unit test its pairs with the active units of other chunks and
//!    push itself. Every overlapping pair is still pushed from both sides,
//!    by the same amounts up to the last bits: a pair may be measured from
//!    its other side, and a unit's pushes are summed in another order than
//!    in a full sweep. In crowds that
//!    mostly settle after the first push (the shipped profiles) the later
//!    sweeps then test a fraction of the pairs.
//! 4. **Measure.** After the last push one more sweep measures what remains,
//!    from the current positions with the slacks widened by every push since
//!    the hash was built. It only wants the deepest overlap, so each pair is
//!    tested once (from its earlier place, whatever the chunk; in a sweep
//!    from the active units, from its earlier active place). Write `d` for
//!    the chunk's deepest so far (the smaller of its depth in metres and its
//!    relative depth times the pair's smaller smallest semi-axis). A pair at
//!    one altitude whose bounding spheres overlap by no more than `d` cannot
//!    raise it (pushed apart until the spheres touch, the shields are apart,
//!    so the depth is at most `r_A + r_B − |r|`): it gets no exact test. No
//!    pair whose ground positions are farther apart than that can raise it
//!    either, at any altitudes (a horizontal depth is at most `r_A + r_B −
//!    |r_h|`), so each unit's search window shrinks by `d`. For the others
//!    at one altitude and apart on the ground, the Newton search stops as
//!    soon as a sample of `f` proves the pair no deeper than `d` (`f ≥ (|r|
//!    / (|r| + d))²`); the rest are measured in full. Only the pairs that
//!    raise the maximum are measured to the end. So that `d` starts deep,
//!    every chunk first measures its first places (`MEASURE_FIRST`), and
//!    then the rest from the deepest overlap any chunk found there. This
//!    sweep, too, starts only from the active units when at most half are.
//!    The maximum is exact; the count of overlapping pairs reported is the
//!    first sweep's.
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
//! before integration), each unit's search widened by the travels as above.
//! Every applied push adds each class's largest push to its slack. A class's
//! *drift* is its largest travel plus its slack: how far its units may be
//! from where the hash saw them. Once the drifts, averaged over the classes
//! weighted by their units, exceed a cell (`REBUILD_MEAN_DRIFT_CELLS`), or
//! any one class's exceeds two (`REBUILD_DRIFT_CELLS`; before the first
//! sweep too, when units have already moved that far), the stage rebuilds
//! its own hash from current positions (same bounds and cell size,
//! allocated at construction) and resets them all (every search then
//! reaches only as far as the radii). A tenth of the crowd (the
//! helicopters over a jam) pushed most of a cell does not make everyone pay
//! for a rebuild. Its hash is built over the current places,
//! not the units: the bodies move to the new place order in one copy, and
//! each unit's place is the new hash's place of its current one (so a
//! cell's units are in the order of their current places, not of their
//! unit numbers). Nothing allocates after [`Separation::reserve`].

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use glam::{Mat4, Vec2, Vec3, Vec4};
use wide::f32x8;

use crate::angles;
use crate::ellipsoid::{
    Contacts8, LANES, Offsets8, Shape, Shapes8, contact_function_until, contact_functions_until,
    horizontal_separation,
};
use crate::instrument::zone;
use crate::nav::WorldMap;
use crate::parallel::{
    CHUNK_ROWS, PARALLEL_MIN_ROWS, for_each_chunk, for_each_chunk_fold, for_each_chunk_fold_of,
};
use crate::spatial::{Bounds, GridError, Skip, SpatialHash, WindowRuns};

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
/// A sweep starts only from the active units ([`Body::active`]) when at
/// most one in this many is: each then searches its whole window, not only
/// later places, so the full sweep is cheaper when more are active.
const ACTIVE_SWEEP_MAX_SHARE: usize = 2;
/// A pushing sweep queues its candidates without a branch on the cheap
/// rejections ([`queue_candidates_without_branch`]) when, in the pushing
/// sweep before it (of this pass or the last), more than one candidate
/// examined in this many was given the exact test.
const QUEUE_WITHOUT_BRANCH_PASS_SHARE: u64 = 5;
/// Twice the candidates a run of a window's row (two and a half) from which
/// sweeps test bounding spheres [`SPHERE_LANES`] at a time in SIMD lanes
/// ([`Scan::after`]), when few pass: four at once pay where runs are long
/// and most candidates fail (the default profile's 8 m cells hold three a
/// run and a tenth pass: its `separation` 5–13 % faster), and lose where
/// runs hold one or two (the separation benchmark's sparser crowd) or four
/// in ten pass, whose lanes then branch at random on each passing candidate
/// (its jammed crowd, three a run): 4 % and 9 % slower there (medians of
/// alternating rounds).
const LANES_MIN_RUN_TWICE: u64 = 5;
/// Rebuild the stage's own hash once units may have moved, on average over
/// the [`Class`]es weighted by their units, this many cells from where the
/// hash saw them ([`should_rebuild`]). A rebuild (the hash, and the bodies
/// copied to its order) costs about 10 ns a unit; windows widened by about
/// a cell cost less in the shipped crowds. In a crowd of one class the mean
/// is (up to rounding) the drift: there, rebuilding from a whole cell
/// instead of a quarter tests 20–40 % more pairs and takes 8–12 % less time
/// (the default profile's 600 ticks when one slack held for every class,
/// `convoy-bench run --units 10000` and `100000`). With the helicopters'
/// pushes counted apart, the default profile at 100,000 units takes 17 %
/// less time in this stage than with one slack and the largest drift
/// against a cell (README, "Pushes widen windows by class").
const REBUILD_MEAN_DRIFT_CELLS: f32 = 1.0;
/// Rebuild the stage's own hash once the units of any one [`Class`] may
/// have moved this many cells: a few units pushed far (helicopters over a
/// jam, say) widen only the windows of their own class and of the units
/// whose shields span their layer, but without a bound those windows'
/// areas would grow with the square of the drift.
const REBUILD_DRIFT_CELLS: f32 = 2.0;
/// A sweep run in parallel cuts its places into a multiple of this many
/// chunks of one size ([`sweep_chunk_rows`]): 12 is shared evenly by 1, 2,
/// 3, 4, 6 and 12 threads.
const SWEEP_CHUNKS: usize = 12;
/// Places of a sweep's chunk at most, so that many threads find work in a
/// large crowd: 1,000,000 units make 72 chunks.
const SWEEP_CHUNK_MAX_ROWS: usize = 16_384;
/// Places each chunk of a measuring sweep measures before the rest, which
/// start from the deepest overlap any chunk found in them, not from none:
/// the deeper it is, the narrower their windows
/// ([`Context::search_deeper`]). After one push of the separation
/// benchmark's sparser crowd, the twelve chunks' first 256 places held the
/// crowd's deepest overlap; their first 64, one a third shallower.
const MEASURE_FIRST: usize = 256;

/// The rows of a sweep's chunks for `units` units. A sweep run in
/// parallel (from [`PARALLEL_MIN_ROWS`] units) takes the fewest chunks that
/// are a multiple of [`SWEEP_CHUNKS`] and hold at most
/// [`SWEEP_CHUNK_MAX_ROWS`] rows, all of one size but the last, so the
/// threads share them evenly: a chunk count the threads do not divide,
/// with a shorter last chunk, left one thread alone at the end (13 chunks
/// at 100,000 units, five at 10,000, where 12 made the default profile's
/// `separation` 5–9 % faster). Few and long chunks keep the pairs across
/// their edges, examined from both sides, few: at 100,000 units, chunks of
/// 8,192 rows instead of 2,048 examine 12 % fewer candidates (the
/// separation benchmark's crowds). A sweep on one thread keeps chunks of
/// [`CHUNK_ROWS`]. The cut depends on the unit count alone, never on the
/// thread count, so neither do the results.
fn sweep_chunk_rows(units: usize) -> usize {
    if units < PARALLEL_MIN_ROWS {
        return CHUNK_ROWS;
    }
    let chunks = SWEEP_CHUNKS * units.div_ceil(SWEEP_CHUNKS * SWEEP_CHUNK_MAX_ROWS);
    units.div_ceil(chunks)
}

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
    /// A hash of these units (this tick's, built from positions before
    /// integration): each unit's search reaches as far as the units may
    /// have moved from where it saw them, measured unit by unit.
    pub spatial: &'a SpatialHash,
    /// The ground: a push never moves a unit at altitude 0 from an open
    /// cell onto a blocked one (`None`: open space).
    pub terrain: Option<&'a WorldMap>,
}

/// What one pass did and found.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SeparationStats {
    /// Candidate pairs examined over all sweeps: for each unit a sweep starts
    /// from (every unit, or only the active ones), the units in the hash
    /// cells of its search window (which in the measuring sweep shrinks as
    /// deeper overlaps turn up), big and immovable ones included.
    /// In a sweep over every unit a pair of small units counts once, except
    /// in different chunks (a twelfth of the units, or 2,048 places below
    /// 8,192 units) in a pushing sweep, where
    /// it is examined from both sides; in a sweep from the active units
    /// a pair of two active units counts from both sides, and a marked
    /// unit's pairs with other chunks again; a pair with a big unit counts
    /// from both sides.
    pub pairs_tested: u64,
    /// Candidates that passed the bounding-sphere and height checks and got
    /// the exact Perram–Wertheim test (in the measuring sweep, only those
    /// whose bounding spheres overlap by more than the deepest overlap found
    /// so far).
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
///
/// `#[repr(C)]` with the centre and radius first, so that a bounding sphere
/// is one 16-byte load ([`meeting_lanes`]).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
struct Body {
    /// `(x, y, altitude)`, updated with every push.
    centre: Vec3,
    /// Bounding-sphere radius (largest semi-axis).
    radius: f32,
    /// Vertical semi-axis.
    half_height: f32,
    shape: Shape,
    /// Smallest semi-axis.
    smallest: f32,
    inv_mass: f32,
    /// How far a small unit's hashed position may be from this one's and
    /// the two still overlap, pushes aside: the radius and the unit's own
    /// travel plus the largest radius and travel of the layers its shield
    /// meets ([`reach`]); [`Context::search`] adds the pushes.
    reach: f32,
    /// Whether the last pushing sweep found the unit overlapping or pushed
    /// it (true until a sweep has run): a pair of inactive units cannot
    /// overlap, so later sweeps start only from active ones.
    active: bool,
    /// `4 × class + spans`, where `class` is the unit's [`Class`] and bit
    /// `k` of `spans` is set when its shield spans an altitude of layer `k`
    /// ([`Layer::spans`]): where [`Context::search`] finds what pushes add
    /// to the unit's search ([`Slack::by_key`]).
    slack_key: u8,
}

impl Body {
    /// The unit's [`Class`], as an index.
    #[inline]
    fn class(&self) -> usize {
        usize::from(self.slack_key >> 2)
    }

    /// Whether the unit's shield spans an altitude of layer `k`.
    #[inline]
    fn spans(&self, k: usize) -> bool {
        self.slack_key & (1 << k) != 0
    }
}

/// The classes of units whose pushes are tracked apart, because their
/// windows reach for different partners: small units on the ground and
/// airborne ones (the two [`Layer`]s), and big units. Helicopters pushed
/// metres apart above a jam need not widen every tank's window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Class {
    Ground = 0,
    Airborne = 1,
    Big = 2,
}

impl Class {
    /// The class of a unit of bounding radius `radius` at `altitude`, big
    /// above `big_radius`.
    #[inline]
    fn of(radius: f32, altitude: f32, big_radius: f32) -> Class {
        match (radius > big_radius, altitude != 0.0) {
            (true, _) => Class::Big,
            (false, true) => Class::Airborne,
            (false, false) => Class::Ground,
        }
    }
}

/// The largest pushes since the hash was built, summed, by [`Class`]: how
/// far pushes may have carried a unit of each class from where the hash saw
/// it.
#[derive(Clone, Copy, Debug, Default)]
struct Slack([f32; 3]);

impl Slack {
    /// The slack after one more push, whose largest step in each class is
    /// `largest`.
    fn after(self, largest: Slack) -> Slack {
        Slack([0, 1, 2].map(|k| self.0[k] + largest.0[k]))
    }

    /// What pushes add to the search of a unit, by its [`Body::slack_key`]
    /// (its class and the layers its shield spans): its own class's slack,
    /// as it may have been pushed from where the hash saw it, plus the
    /// largest slack of those layers, as its partners may have been.
    fn by_key(self) -> [f32; 16] {
        // Keys run to 11; the table is padded to 16 so that a key masked
        // with 15 needs no bounds check.
        std::array::from_fn(|key| {
            let (class, spans) = (key / 4, key % 4);
            let layer = |k: usize| {
                if spans & (1 << k) != 0 {
                    self.0[k]
                } else {
                    0.0
                }
            };
            self.0
                .get(class)
                .map_or(0.0, |own| own + layer(0).max(layer(1)))
        })
    }
}

/// One unit's share of a sweep: only its pushes (the counts and depths go
/// to its chunk's [`Sweep`] totals), so clearing and reading the column is
/// cheap.
#[derive(Clone, Copy, Debug, Default)]
struct Push {
    /// Sum of the pushes from movable partners.
    mutual: Vec2,
    /// Sum of the pushes from immovable partners.
    wall: Vec2,
    /// Whether any pair of the unit overlapped.
    touched: bool,
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
struct Sweep {
    /// Candidate pairs examined.
    tested: u64,
    /// Runs of a window's row holding them ([`Scan::after`]).
    runs: u64,
    /// Pairs given the exact test.
    exact: u64,
    /// Overlapping pairs above tolerance, each counted once.
    overlaps: u64,
    depth_m: f32,
    depth_rel: f32,
}

impl Sweep {
    /// Records `overlap`'s depths, and the pair as overlapping if
    /// `count_here` (the side that counts it) and it is above tolerance.
    fn record(&mut self, overlap: &Overlap, count_here: bool) {
        self.depth_m = self.depth_m.max(overlap.depth);
        self.depth_rel = self.depth_rel.max(overlap.relative);
        if count_here && overlap.relative > TOLERANCE_REL {
            self.overlaps += 1;
        }
    }

    /// The totals of two sets of units: sums and maxima, so the grouping
    /// does not change them.
    fn combine(self, other: Sweep) -> Sweep {
        Sweep {
            tested: self.tested + other.tested,
            runs: self.runs + other.runs,
            exact: self.exact + other.exact,
            overlaps: self.overlaps + other.overlaps,
            depth_m: self.depth_m.max(other.depth_m),
            depth_rel: self.depth_rel.max(other.depth_rel),
        }
    }
}

/// One chunk of a sweep as it is written: the pushes of places `first..first
/// + pushes.len()`, and the chunk's totals.
struct ChunkSweep<'a> {
    first: usize,
    pushes: &'a mut [Push],
    totals: Sweep,
}

impl ChunkSweep<'_> {
    /// The chunk's places.
    fn places(&self) -> Range<usize> {
        self.first..self.first + self.pushes.len()
    }

    /// The push of the unit at `place`, one of the chunk's.
    fn push(&mut self, place: usize) -> &mut Push {
        &mut self.pushes[place - self.first]
    }
}

/// The deepest overlap seen so far, metres and relative to the smaller
/// shield's smallest semi-axis (not necessarily of the same pair).
#[derive(Clone, Copy, Debug, Default)]
struct Deepest {
    m: f32,
    rel: f32,
}

impl Deepest {
    fn include(&mut self, overlap: &Overlap) {
        self.m = self.m.max(overlap.depth);
        self.rel = self.rel.max(overlap.relative);
    }
}

/// Separation's working memory and its iteration limit: reuse it across
/// ticks.
#[derive(Clone, Debug)]
pub struct Separation {
    iterations: u32,
    /// The stage's own hash, rebuilt from the bodies' centres in the
    /// current place order: its "units" are those places.
    local: SpatialHash,
    /// The bodies' ground centres in the current place order, which the
    /// stage's own hash is rebuilt from.
    centres: Vec<Vec2>,
    /// Each unit's place once the stage has rebuilt its own hash (before,
    /// the tick hash's places are read).
    place_of: Vec<u32>,
    /// Bodies in the current place order, centres kept current.
    placed: Vec<Body>,
    /// The bodies in the next place order while the stage's own hash is
    /// rebuilt; then swapped with `placed`.
    replaced: Vec<Body>,
    /// Pushes in place order.
    pushes: Vec<Push>,
    /// Units whose bounding radius exceeds a cell.
    big: BigUnits,
    /// One flag per place: in a sweep from the active units, set on an
    /// inactive unit that an active one of another chunk found overlapping.
    marked: Marks,
    /// How the next pushing sweep examines its candidates, from the last
    /// one's totals ([`Scan::after`]).
    scan: Scan,
    /// Tests fix the choice for every pushing sweep.
    #[cfg(test)]
    fixed_scan: Option<Scan>,
}

/// One flag per place, set across chunks during a sweep and all cleared
/// before it ends: a clone starts with none set.
#[derive(Debug, Default)]
struct Marks(Vec<AtomicBool>);

impl Clone for Marks {
    fn clone(&self) -> Marks {
        Marks(self.0.iter().map(|_| AtomicBool::new(false)).collect())
    }
}

/// How a sweep examines its candidates. Every way visits the same pairs in
/// the same order, so the choice changes no result, only the time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Scan {
    /// One candidate at a time, a branch on the cheap rejections.
    Branch,
    /// One at a time, queued without a branch on them (pushing sweeps only:
    /// [`queue_candidates_without_branch`]).
    WithoutBranch,
    /// Four at a time in SIMD lanes ([`meeting_lanes`]).
    Lanes,
}

impl Scan {
    /// The scan for the pushing sweeps after one with totals `sweep`.
    fn after(sweep: &Sweep) -> Scan {
        if sweep.exact * QUEUE_WITHOUT_BRANCH_PASS_SHARE > sweep.tested {
            Scan::WithoutBranch
        } else if 2 * sweep.tested >= LANES_MIN_RUN_TWICE * sweep.runs && sweep.runs > 0 {
            Scan::Lanes
        } else {
            Scan::Branch
        }
    }

    /// The scan for a measuring sweep in a pass whose pushing sweeps scan
    /// this way.
    fn measuring(self) -> Scan {
        match self {
            Scan::Lanes => Scan::Lanes,
            Scan::Branch | Scan::WithoutBranch => Scan::Branch,
        }
    }
}

/// What the sweeps of one pass share.
#[derive(Clone, Copy)]
struct Context<'a> {
    /// Bodies in place order.
    bodies: &'a [Body],
    hash: &'a SpatialHash,
    /// Units with a radius above this are big.
    big_radius: f32,
    /// The small units on the ground and the airborne ones.
    layers: [Layer; 2],
    /// What pushes add to each unit's search, by [`Body::slack_key`].
    slack: [f32; 16],
    /// The sweep after the last push: only the deepest overlap is wanted.
    measure_only: bool,
    /// Pairs of two inactive units are skipped: the sweep starts only from
    /// the active units ([`Body::active`]).
    only_active: bool,
    /// Rows of each chunk of places ([`sweep_chunk_rows`]).
    chunk_rows: usize,
    /// One flag per place: the inactive units to push from their pairs with
    /// the active units of other chunks ([`push_marked`]).
    marked: &'a [AtomicBool],
    /// How the sweep examines its candidates.
    scan: Scan,
}

impl Context<'_> {
    /// How far from `body`'s hashed position a small unit's hashed position
    /// may be and still overlap it.
    #[inline]
    fn search(&self, body: &Body) -> f32 {
        body.reach + self.slack[usize::from(body.slack_key) & 15]
    }

    /// [`Context::search`] for a measuring sweep that wants only overlaps
    /// deeper than `beyond`: no pair whose bounding spheres overlap by less
    /// can be ([`may_be_deeper`]; the same holds for the horizontal depth of
    /// a pair at different altitudes), so the search shrinks by that depth.
    #[inline]
    fn search_deeper(&self, body: &Body, beyond: Deepest) -> f32 {
        let smallest = body
            .smallest
            .min(self.layers[0].smallest)
            .min(self.layers[1].smallest);
        let floor = beyond.m.min(beyond.rel * smallest);
        self.search(body) - floor
    }
}

/// The small units of one layer (on the ground, or airborne): their largest
/// bounding radius and the altitudes their shields span. A unit whose shield
/// spans no altitude of the layer cannot overlap any of its units, so its
/// search need not reach for them (ground units need not look as far as the
/// helicopters' shields above them).
#[derive(Clone, Copy, Debug)]
struct Layer {
    radius: f32,
    /// The largest ground distance of a unit from where the hash saw it.
    travel: f32,
    /// The smallest semi-axis.
    smallest: f32,
    low: f32,
    high: f32,
    /// How many units the layer holds.
    units: usize,
}

impl Layer {
    const EMPTY: Layer = Layer {
        radius: 0.0,
        units: 0,
        travel: 0.0,
        smallest: f32::INFINITY,
        low: f32::INFINITY,
        high: f32::NEG_INFINITY,
    };

    /// The layer with `body` in it, `travel` from where the hash saw it.
    #[inline]
    fn with(self, body: &Body, travel: f32) -> Layer {
        Layer {
            radius: self.radius.max(body.radius),
            travel: self.travel.max(travel),
            smallest: self.smallest.min(body.smallest),
            low: self.low.min(body.centre.z - body.half_height),
            high: self.high.max(body.centre.z + body.half_height),
            units: self.units + 1,
        }
    }

    /// The layer of the units of both.
    fn combine(self, other: Layer) -> Layer {
        Layer {
            radius: self.radius.max(other.radius),
            travel: self.travel.max(other.travel),
            smallest: self.smallest.min(other.smallest),
            low: self.low.min(other.low),
            high: self.high.max(other.high),
            units: self.units + other.units,
        }
    }

    /// The layer once a hash has been built from its units' current
    /// positions: none has travelled from where the hash saw it.
    fn hashed_in_place(self) -> Layer {
        Layer {
            travel: 0.0,
            ..self
        }
    }

    /// Whether `body`'s shield spans an altitude of the layer.
    #[inline]
    fn spans(&self, body: &Body) -> bool {
        (body.centre.z - body.half_height <= self.high)
            & (self.low <= body.centre.z + body.half_height)
    }
}

/// What a pass needs to know of all its units at once: the layers of the
/// small ones (on the ground, at altitude 0, and the rest), and the big
/// ones' count and travel.
#[derive(Clone, Copy, Debug)]
struct Census {
    layers: [Layer; 2],
    /// The largest ground distance of a big unit from where the hash saw it.
    big_travel: f32,
    /// How many units are big.
    big_units: usize,
}

impl Census {
    const EMPTY: Census = Census {
        layers: [Layer::EMPTY; 2],
        big_travel: 0.0,
        big_units: 0,
    };

    /// The census with `body`, of `class`, `travel` from where the hash
    /// saw it.
    #[inline]
    fn with(mut self, body: &Body, class: Class, travel: f32) -> Census {
        if class == Class::Big {
            self.big_travel = self.big_travel.max(travel);
            self.big_units += 1;
        } else {
            let layer = &mut self.layers[class as usize];
            *layer = layer.with(body, travel);
        }
        self
    }

    /// The largest ground distance of a unit of each [`Class`] from where
    /// the hash saw it.
    fn travel(&self) -> [f32; 3] {
        [
            self.layers[0].travel,
            self.layers[1].travel,
            self.big_travel,
        ]
    }

    /// Whether any unit is big.
    fn any_big(&self) -> bool {
        self.big_units > 0
    }

    /// How many units there are of each [`Class`].
    fn units(&self) -> [usize; 3] {
        [self.layers[0].units, self.layers[1].units, self.big_units]
    }

    /// The census of the units of both (minima and maxima: the grouping
    /// does not change it).
    fn combine(self, other: Census) -> Census {
        Census {
            layers: [0, 1].map(|k| self.layers[k].combine(other.layers[k])),
            big_travel: self.big_travel.max(other.big_travel),
            big_units: self.big_units + other.big_units,
        }
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
            centres: Vec::new(),
            place_of: Vec::new(),
            placed: Vec::new(),
            replaced: Vec::new(),
            pushes: Vec::new(),
            big: BigUnits::default(),
            marked: Marks::default(),
            scan: Scan::Branch,
            #[cfg(test)]
            fixed_scan: None,
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
        self.centres
            .reserve(units.saturating_sub(self.centres.len()));
        self.place_of
            .reserve(units.saturating_sub(self.place_of.len()));
        self.placed.reserve(units.saturating_sub(self.placed.len()));
        self.replaced
            .reserve(units.saturating_sub(self.replaced.len()));
        self.pushes.reserve(units.saturating_sub(self.pushes.len()));
        self.big.reserve(units);
        let marks = &mut self.marked.0;
        marks.reserve(units.saturating_sub(marks.len()));
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
        let Separation {
            iterations,
            local,
            centres,
            place_of,
            placed,
            replaced,
            pushes,
            big,
            marked,
            scan,
            ..
        } = self;
        let next_scan = Scan::after;
        #[cfg(test)]
        let next_scan = {
            let fixed = self.fixed_scan;
            if let Some(fixed) = fixed {
                *scan = fixed;
            }
            move |sweep: &Sweep| fixed.unwrap_or_else(|| next_scan(sweep))
        };
        marked.0.resize_with(units, AtomicBool::default);
        centres.resize(units, Vec2::ZERO);
        place_of.resize(units, 0);
        placed.resize(units, Body::default());
        replaced.resize(units, Body::default());
        pushes.resize(units, Push::default());
        let big_radius = input.spatial.cell_size();
        let census = {
            zone!("separation: bodies");
            prepare_bodies(&input, position, big_radius, placed, big)
        };
        let big_above = census.any_big().then_some(big_radius);
        let (mut layers, mut travel) = (census.layers, census.travel());

        let mut stats = SeparationStats::default();
        let mut slack = Slack::default();
        let mut own_hash = false;
        let mut active = units;
        loop {
            // Before the first sweep too: units already far from where the
            // tick's hash saw them would widen every window of their layer.
            let drift = [0, 1, 2].map(|class| travel[class] + slack.0[class]);
            if should_rebuild(drift, census.units(), local.cell_size()) {
                zone!("separation: rebuild");
                layers = layers.map(Layer::hashed_in_place);
                let tick_places = (!own_hash).then(|| input.spatial.places());
                let buffers = (&mut **centres, &**placed, &mut **replaced);
                rebuild_own_hash(local, buffers, place_of, tick_places, &layers);
                std::mem::swap(placed, replaced);
                big.list(placed, big_above);
                own_hash = true;
                active = units;
                (travel, slack) = ([0.0; 3], Slack::default());
                stats.rebuilds += 1;
            }
            let hash: &SpatialHash = if own_hash { local } else { input.spatial };
            let measure_only = stats.iterations > 0 && stats.iterations >= *iterations;
            let context = Context {
                bodies: placed,
                hash,
                big_radius,
                layers,
                slack: slack.by_key(),
                measure_only,
                only_active: active <= units / ACTIVE_SWEEP_MAX_SHARE,
                chunk_rows: sweep_chunk_rows(units),
                marked: &marked.0,
                scan: if measure_only {
                    scan.measuring()
                } else {
                    *scan
                },
            };
            let sweep = if context.measure_only {
                zone!("separation: measuring sweep");
                sweep(&context, big, pushes)
            } else {
                zone!("separation: pushing sweep");
                let sweep = sweep(&context, big, pushes);
                *scan = next_scan(&sweep);
                sweep
            };
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
            let largest_push;
            (active, largest_push) = apply_pushes(placed, pushes, input.terrain);
            stats.iterations += 1;
            slack = slack.after(largest_push);
        }
        if stats.iterations > 0 {
            let place_of = if own_hash {
                place_of
            } else {
                input.spatial.places()
            };
            write_back(placed, place_of, position);
        }
        stats
    }
}

/// Whether the stage should rebuild its own hash when the units of each
/// [`Class`] (`units` of them) may be as far as `drift` from where the hash
/// saw them: when they are, on average, more than
/// [`REBUILD_MEAN_DRIFT_CELLS`] of a cell away, or any class more than
/// [`REBUILD_DRIFT_CELLS`].
fn should_rebuild(drift: [f32; 3], units: [usize; 3], cell: f32) -> bool {
    let total: usize = units.iter().sum();
    let weighted: f32 = (0..3).map(|k| drift[k] * units[k] as f32).sum();
    let farthest = drift.into_iter().fold(0.0, f32::max);
    weighted > REBUILD_MEAN_DRIFT_CELLS * cell * total as f32
        || farthest > REBUILD_DRIFT_CELLS * cell
}

/// Moves every unit in `placed` by its push (a ground unit's kept off
/// blocked cells), marks the units that overlapped or moved active, and
/// returns how many are and the largest push's length in each [`Class`] (as
/// pushed, before a wall cut it short).
fn apply_pushes(
    placed: &mut [Body],
    pushes: &[Push],
    terrain: Option<&WorldMap>,
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
            body.centre = match terrain.filter(|_| body.centre.z <= 0.0) {
                Some(map) => keep_on_open_ground(map, body.centre, step),
                None => body.centre + step.extend(0.0),
            };
        }
        (count, largest)
    };
    let combine = |(a, a_largest): (usize, [f32; 3]), (b, b_largest): (usize, [f32; 3])| {
        (a + b, [0, 1, 2].map(|k| a_largest[k].max(b_largest[k])))
    };
    let (active, largest) = for_each_chunk_fold(placed, (0, [0.0; 3]), apply, combine);
    (active, Slack(largest.map(f32::sqrt)))
}

/// Builds every unit's body into `placed` ([`place_columns`]), sets its
/// reach from its travel and the crowd's layers ([`reach`]) and lists the
/// big units in `big`; returns the census.
fn prepare_bodies(
    input: &SeparationInput<'_>,
    position: &[Vec2],
    big_radius: f32,
    placed: &mut [Body],
    big: &mut BigUnits,
) -> Census {
    let census = place_columns(input, position, big_radius, placed);
    for_each_chunk(placed, |_, rows| {
        for body in rows {
            let spans = census.layers.map(|layer| layer.spans(body));
            body.slack_key |= u8::from(spans[0]) | (u8::from(spans[1]) << 1);
            // `reach` holds the unit's own travel until now.
            body.reach = reach(body, body.reach, &census.layers);
        }
    });
    // Without big units the list stays empty: no need to look for them.
    big.list(placed, census.any_big().then_some(big_radius));
    census
}

/// How far from `body`'s hashed position a small unit's hashed position may
/// be and the two still overlap, `travel` being how far `body` is from its
/// own: their centres are less than the sum of their radii apart, and each
/// is its travel from its hashed position, at most its layer's; only the
/// layers its shield spans ([`Body::spans`]) count.
#[inline]
fn reach(body: &Body, travel: f32, layers: &[Layer; 2]) -> f32 {
    let partners = |k: usize| {
        let layer = &layers[k];
        let spanned = body.spans(k);
        if spanned {
            layer.radius + layer.travel
        } else {
            0.0
        }
    };
    body.radius + travel + partners(0).max(partners(1))
}

/// Builds every unit's body from the columns and `position` into `placed`,
/// in the tick hash's place order, all active, with its travel from where
/// the hash saw it in place of its reach, and returns their census (units
/// with a radius above `big_radius` big).
fn place_columns(
    input: &SeparationInput<'_>,
    position: &[Vec2],
    big_radius: f32,
    placed: &mut [Body],
) -> Census {
    let (order, hashed) = (input.spatial.order(), input.spatial.sorted_positions());
    let build = |first: usize, rows: &mut [Body]| {
        let mut census = Census::EMPTY;
        let groups = rows.chunks_mut(LANES).zip(order[first..].chunks(LANES));
        for (group, (rows, units)) in groups.enumerate() {
            let forward = forward_axes(input.heading, units);
            let hashed = &hashed[first + group * LANES..];
            for (((body, &unit), &hashed), forward) in
                rows.iter_mut().zip(units).zip(hashed).zip(forward)
            {
                let unit = unit as usize;
                let (axes, altitude) = (input.shield[unit], input.altitude[unit]);
                let travel = position[unit].distance(hashed);
                let class = Class::of(axes.max_element(), altitude, big_radius);
                *body = Body {
                    centre: position[unit].extend(altitude),
                    shape: Shape::facing(axes, forward),
                    radius: axes.max_element(),
                    half_height: axes.z,
                    smallest: axes.min_element(),
                    inv_mass: input.inv_mass[unit],
                    // The travel until the layers are known.
                    reach: travel,
                    active: true,
                    // The layers it spans once they are known.
                    slack_key: 4 * class as u8,
                };
                census = census.with(body, class, travel);
            }
        }
        census
    };
    for_each_chunk_fold(placed, Census::EMPTY, build, Census::combine)
}

/// The forward axes of the shields of `units` (up to [`LANES`]; the rest
/// are left as +x), [`angles::direction`] of their headings, eight in SIMD
/// lanes (the same bits), or one at a time when some heading is beyond
/// what the lanes reduce.
#[inline]
fn forward_axes(heading: &[f32], units: &[u32]) -> [Vec2; LANES] {
    let angle = |k: usize| units.get(k).map_or(0.0, |&unit| heading[unit as usize]);
    match angles::direction_lanes(f32x8::new(std::array::from_fn(angle))) {
        Some((cos, sin)) => {
            let (cos, sin) = (cos.to_array(), sin.to_array());
            std::array::from_fn(|k| Vec2::new(cos[k], sin[k]))
        }
        None => std::array::from_fn(|k| angles::direction(angle(k))),
    }
}

/// Rebuilds the stage's own hash `local` from the current centres of
/// `placed` (in the current place order, which are the hash's "units") and
/// copies the bodies into `replaced` in its new place order, all active,
/// their reach without travel (`layers` are the crowd's, hashed in place):
/// one copy of the bodies, where going through unit order took two. Each
/// unit's place is composed: its new place is the new hash's place of its
/// current one, read from `place_of`, or from `tick_places` while the
/// current places are still the tick hash's.
fn rebuild_own_hash(
    local: &mut SpatialHash,
    (centres, placed, replaced): (&mut [Vec2], &[Body], &mut [Body]),
    place_of: &mut [u32],
    tick_places: Option<&[u32]>,
    layers: &[Layer; 2],
) {
    for_each_chunk(centres, |first, rows| {
        for (centre, body) in rows.iter_mut().zip(&placed[first..]) {
            *centre = body.centre.truncate();
        }
    });
    local.rebuild(centres);
    let earlier_place = local.order();
    for_each_chunk(replaced, |first, rows| {
        for (body, &earlier) in rows.iter_mut().zip(&earlier_place[first..]) {
            *body = placed[earlier as usize];
            body.reach = reach(body, 0.0, layers);
            body.active = true;
        }
    });
    let new_place = local.places();
    match tick_places {
        Some(tick_places) => for_each_chunk(place_of, |first, rows| {
            for (place, &earlier) in rows.iter_mut().zip(&tick_places[first..]) {
                *place = new_place[earlier as usize];
            }
        }),
        None => for_each_chunk(place_of, |_, rows| {
            for place in rows {
                *place = new_place[*place as usize];
            }
        }),
    }
}

/// Writes the ground positions of `placed` back to the unit-ordered
/// `position`, unit `u` from place `place_of[u]`.
fn write_back(placed: &[Body], place_of: &[u32], position: &mut [Vec2]) {
    for_each_chunk(position, |first, rows| {
        for (position, &place) in rows.iter_mut().zip(&place_of[first..]) {
            *position = placed[place as usize].centre.truncate();
        }
    });
}

/// The big units (bounding radius above the hash cell) and their scratch.
/// Their pairs are tested on one thread in a fixed order, both sides at
/// once: with small units from a window of the hash about each big unit;
/// with each other from a list sorted by x, so that thousands of big units
/// (a cell chosen smaller than the helicopters' shields, say) cost
/// `B log B` and the pairs within reach on the x axis, not all `B²/2`
/// pairs.
#[derive(Clone, Debug, Default)]
struct BigUnits {
    /// Their places, in order.
    places: Vec<u32>,
    /// The same places sorted by centre x (NaN first, then by place).
    by_x: Vec<u32>,
    /// One big unit's big partners at later places.
    partners: Vec<u32>,
}

impl BigUnits {
    /// Grows the scratch to `units`, so passes never allocate.
    fn reserve(&mut self, units: usize) {
        for list in [&mut self.places, &mut self.by_x, &mut self.partners] {
            list.reserve(units.saturating_sub(list.len()));
        }
    }

    /// Lists the places of big units in `placed`, those with a radius above
    /// `big_above` (`None`: there are none).
    fn list(&mut self, placed: &[Body], big_above: Option<f32>) {
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
    fn push_pairs(&mut self, context: &Context<'_>, pushes: &mut [Push]) -> Sweep {
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

/// Measures every unit's push from the current positions into `pushes`
/// (place order) and returns the totals.
fn sweep(context: &Context<'_>, big: &mut BigUnits, pushes: &mut [Push]) -> Sweep {
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

/// Candidate pairs (places) that passed the cheap rejections, waiting for
/// the exact test, which runs on [`LANES`] pairs at once.
#[derive(Clone, Copy, Default)]
struct Batch {
    len: usize,
    first: [usize; LANES],
    second: [usize; LANES],
    /// Centre offsets, second minus first.
    offset: [Vec3; LANES],
}

impl Batch {
    /// Queues a pair; true when the batch is full and must be settled.
    #[inline]
    fn queue(&mut self, first: usize, second: usize, offset: Vec3) -> bool {
        self.offer(first, second, offset, true)
    }

    /// Writes a pair in the next slot and queues it only if it `passes`
    /// (no branch); true when the batch is full and must be settled.
    #[inline]
    fn offer(&mut self, first: usize, second: usize, offset: Vec3, passes: bool) -> bool {
        let slot = self.len % LANES;
        self.first[slot] = first;
        self.second[slot] = second;
        self.offset[slot] = offset;
        self.len += usize::from(passes);
        self.len == LANES
    }

    /// The queued slot SIMD lane `k` reads: its own below `len`; past it,
    /// whose slots hold earlier batches' pairs or none, the first pair.
    #[inline]
    fn lane(&self, k: usize) -> usize {
        if k < self.len { k } else { 0 }
    }

    /// The exact contact functions of the queued pairs (lanes past `len`
    /// repeat the first pair, [`Batch::lane`]), each stopping once it
    /// reaches its `level`.
    fn contacts(&self, bodies: &[Body], level: [f32; LANES]) -> Contacts8 {
        let level = std::array::from_fn(|k| level[self.lane(k)]);
        let first = std::array::from_fn(|k| &bodies[self.first[self.lane(k)]].shape);
        let second = std::array::from_fn(|k| &bodies[self.second[self.lane(k)]].shape);
        let offset = std::array::from_fn(|k| self.offset[self.lane(k)]);
        contact_functions_until(
            &Shapes8::from_lanes(first),
            &Shapes8::from_lanes(second),
            &Offsets8::from_lanes(offset),
            f32x8::new(level),
        )
    }
}

/// What a window search examined: its candidates, and the runs of a
/// window's row (never empty) that held them.
#[derive(Clone, Copy, Debug, Default)]
struct Examined {
    candidates: u32,
    runs: u32,
}

impl Examined {
    #[inline]
    fn add(&mut self, run: &Range<usize>) {
        self.candidates += run.len() as u32;
        self.runs += 1;
    }

    /// Counts the places of `runs` and the runs that hold any.
    #[inline]
    fn add_runs(&mut self, runs: &WindowRuns) {
        self.candidates += runs.len() as u32;
        self.runs += runs.non_empty() as u32;
    }

    /// Adds these to a sweep's totals.
    fn count_in(self, totals: &mut Sweep) {
        totals.tested += u64::from(self.candidates);
        totals.runs += u64::from(self.runs);
    }
}

/// Calls `visit` with the place of every small unit, except places in
/// `skip`, whose bounding sphere and vertical extent meet those of the unit
/// at place `unit` ([`may_overlap`]), in place order, from the hash's
/// cells under the square of half-side `search` (at least
/// [`Context::search`] unless a narrower window provably suffices) about the
/// unit's hashed position: one at a time, or four at a time in SIMD lanes
/// ([`Scan::Lanes`]; the same places). Returns what it examined: the units
/// those cells hold outside `skip`.
#[inline]
fn for_each_candidate(
    context: &Context<'_>,
    unit: usize,
    search: f32,
    skip: &Skip,
    mut visit: impl FnMut(usize),
) -> Examined {
    let point = context.hash.sorted_positions()[unit];
    let own = &context.bodies[unit];
    let mut examined = Examined::default();
    let hash = context.hash;
    if context.scan == Scan::Lanes {
        hash.for_each_row_range_outside(point, search, skip, |run| {
            examined.add(&run);
            let mut first = run.start;
            while first < run.end {
                let mut meeting =
                    meeting_lanes(own, context.bodies, first, run.end, context.big_radius);
                while meeting != 0 {
                    let lane = meeting.trailing_zeros() as usize;
                    meeting &= meeting - 1;
                    visit(first + lane);
                }
                first += SPHERE_LANES;
            }
        });
    } else {
        hash.for_each_row_range_outside(point, search, skip, |run| {
            examined.add(&run);
            for (place, them) in run.clone().zip(&context.bodies[run]) {
                if them.radius <= context.big_radius
                    && may_overlap(own, them, them.centre - own.centre)
                {
                    visit(place);
                }
            }
        });
    }
    examined
}

/// Bodies whose bounding spheres [`meeting_lanes`] tests at once.
const SPHERE_LANES: usize = 4;

/// The cheap rejections of [`for_each_candidate`] ([`may_overlap`], and
/// not big) of the pairs of `own` with the bodies at places
/// `first..end.min(first + 4)`, in SIMD lanes, with the same arithmetic:
/// bit `k` of the mask is set when the body at `first + k` passes.
#[inline]
fn meeting_lanes(own: &Body, bodies: &[Body], first: usize, end: usize, big_radius: f32) -> u32 {
    let four: [&Body; SPHERE_LANES] = match bodies.get(first..first + SPHERE_LANES) {
        Some(four) => std::array::from_fn(|k| &four[k]),
        // Lanes past the last place repeat it (their bits are cleared).
        None => std::array::from_fn(|k| &bodies[(first + k).min(bodies.len() - 1)]),
    };
    let sphere = |body: &Body| Vec4::new(body.centre.x, body.centre.y, body.centre.z, body.radius);
    let spheres = Mat4::from_cols(
        sphere(four[0]),
        sphere(four[1]),
        sphere(four[2]),
        sphere(four[3]),
    )
    .transpose();
    let dx = spheres.x_axis - Vec4::splat(own.centre.x);
    let dy = spheres.y_axis - Vec4::splat(own.centre.y);
    let dz = spheres.z_axis - Vec4::splat(own.centre.z);
    let radius = spheres.w_axis;
    // `may_overlap`'s sums in its order (`own`'s term first or second is
    // the same: sums commute), so the same pairs pass.
    let reach = radius + Vec4::splat(own.radius);
    let near = (dx * dx + dy * dy + dz * dz).cmplt(reach * reach);
    let half_height = Vec4::from_array(four.map(|body| body.half_height));
    let level = dz.abs().cmplt(half_height + Vec4::splat(own.half_height));
    let small = radius.cmple(Vec4::splat(big_radius));
    let present = (1_u32 << (end - first).min(SPHERE_LANES)) - 1;
    (near & level & small).bitmask() & present
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
fn push_chunk(chunk: &mut ChunkSweep<'_>, context: &Context<'_>) {
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
fn push_chunk_as<const ONLY_ACTIVE: bool, const WITHOUT_BRANCH: bool>(
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

/// Queues the pairs of the unit at place `unit` with the small units in its
/// window, outside `skip`, that `takes(other, them)` accepts, settling
/// full batches ([`settle_pushes`]), and counts them in the chunk's totals.
/// The candidates are queued without a branch on the cheap rejections if
/// `without_branch` ([`queue_candidates_without_branch`]), else as
/// [`for_each_candidate`] visits them.
fn queue_pushes(
    unit: usize,
    skip: &Skip,
    takes: impl Fn(usize, &Body) -> bool,
    without_branch: bool,
    batch: &mut Batch,
    chunk: &mut ChunkSweep<'_>,
    context: &Context<'_>,
) {
    let own = &context.bodies[unit];
    let search = context.search(own);
    let (examined, exact) = if without_branch {
        queue_candidates_without_branch(unit, search, skip, takes, batch, chunk, context)
    } else {
        let mut exact = 0;
        let examined = for_each_candidate(context, unit, search, skip, |other| {
            let them = &context.bodies[other];
            if takes(other, them) {
                exact += 1;
                if batch.queue(unit, other, them.centre - own.centre) {
                    settle_pushes(batch, chunk, context);
                }
            }
        });
        (examined, exact)
    };
    examined.count_in(&mut chunk.totals);
    chunk.totals.exact += u64::from(exact);
}

/// [`queue_pushes`]' candidates (those [`for_each_candidate`] visits that
/// `takes` accepts) queued without a branch on whether each passes: every
/// candidate is written to the batch's next slot, which it keeps only if
/// it passes. The same pairs in the same order; returns the candidates
/// examined and those queued. Where a third of the candidates pass (the
/// separation benchmark's crowds) the branch mispredicts often and this is
/// faster; where a tenth do (the default profile's crowd) the branch
/// predicts well and writing every slot costs more, so pushing sweeps
/// choose by the last one's share ([`QUEUE_WITHOUT_BRANCH_PASS_SHARE`]).
/// Most windows' places come in one loop over at most three rows' runs
/// ([`SpatialHash::window_runs_outside`]), with no branch on where each
/// row ends or whether it holds any, which mispredict as often as the
/// candidates do.
fn queue_candidates_without_branch(
    unit: usize,
    search: f32,
    skip: &Skip,
    takes: impl Fn(usize, &Body) -> bool,
    batch: &mut Batch,
    chunk: &mut ChunkSweep<'_>,
    context: &Context<'_>,
) -> (Examined, u32) {
    let point = context.hash.sorted_positions()[unit];
    let own = &context.bodies[unit];
    let (mut examined, mut queued) = (Examined::default(), 0);
    let mut offer = |place: usize| {
        let them = &context.bodies[place];
        let offset = them.centre - own.centre;
        let passes = (them.radius <= context.big_radius)
            & may_overlap(own, them, offset)
            & takes(place, them);
        queued += u32::from(passes);
        if batch.offer(unit, place, offset, passes) {
            settle_pushes(batch, chunk, context);
        }
    };
    let hash = context.hash;
    match hash.window_runs_outside(point, search, skip) {
        // One loop over the window's places: no branch on each row's end
        // and each run's emptiness, which mispredict.
        Some(runs) => {
            examined.add_runs(&runs);
            (0..runs.len()).for_each(|k| offer(runs.place(k)));
        }
        None => hash.for_each_row_range_outside(point, search, skip, |run| {
            examined.add(&run);
            run.for_each(&mut offer);
        }),
    }
    (examined, queued)
}

/// In a sweep from the active units, the pushes of the units at places
/// `first..first + chunk.len()` that [`push_chunk`] marked
/// [`Context::marked`] (clearing the marks) from their pairs with the active
/// units of other chunks, each pushing only its own unit.
fn push_marked(chunk: &mut ChunkSweep<'_>, context: &Context<'_>) {
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

/// A ground unit's push kept off blocked cells
/// ([`WorldMap::step_on_open_ground`]: whole, sliding along the wall, or
/// none — the overlap is left for the next tick's steering).
fn keep_on_open_ground(map: &WorldMap, centre: Vec3, step: Vec2) -> Vec3 {
    centre + map.step_on_open_ground(centre.truncate(), step).extend(0.0)
}

/// Tests the queued pairs exactly and pushes the overlapping ones apart
/// (see [`push_chunk`]), in queue order.
fn settle_pushes(batch: &mut Batch, chunk: &mut ChunkSweep<'_>, context: &Context<'_>) {
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
                unit < other,
            ),
        };
        let Some(overlap) = overlap else {
            continue;
        };
        let total = own.inv_mass + them.inv_mass;
        let away = overlap.direction * overlap.push;
        let shared = chunk.places().contains(&other);
        let push = chunk.push(unit);
        push.add(-away * (own.inv_mass / total), them.inv_mass == 0.0);
        // Counted by the earlier place, or by the movable side.
        let count_here = shared || unit < other || them.inv_mass == 0.0;
        chunk.totals.record(&overlap, count_here);
        if shared {
            let away = away * (them.inv_mass / total);
            chunk.push(other).add(away, own.inv_mass == 0.0);
        } else if context.only_active && !them.active && them.inv_mass > 0.0 {
            context.marked[other].store(true, Ordering::Relaxed);
        }
    }
    batch.len = 0;
}

/// The deepest overlaps of the small units at the chunk's places `part`
/// (counted from its first, cut at its end) with small units at later
/// places (in a sweep from the active units: of the active ones, with the
/// units at later places and the inactive ones at earlier places), into
/// the chunk's depths. Only overlaps deeper than the deepest so far
/// (`deepest` to start with) are measured to the end.
fn measure_chunk(
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
fn settle_depths(
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
        if let Some(overlap) = resolve(own, them, batch.offset[lane], f, true) {
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
fn may_be_deeper(a: &Body, b: &Body, offset: Vec3, beyond: Deepest) -> bool {
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
fn uninteresting_level(offset: Vec3, smallest: f32, beyond: Deepest) -> f32 {
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

/// Tests the pair `(unit, other)` (places), which passed the cheap
/// rejections, once and pushes both.
fn push_pair(
    unit: usize,
    other: usize,
    context: &Context<'_>,
    pushes: &mut [Push],
    totals: &mut Sweep,
) {
    let (a, b) = (&context.bodies[unit], &context.bodies[other]);
    let total = a.inv_mass + b.inv_mass;
    if total == 0.0 {
        return;
    }
    let offset = b.centre - a.centre;
    totals.exact += 1;
    let contact = contact_function_until(&a.shape, &b.shape, offset, 1.0);
    let Some(overlap) = resolve(a, b, offset, contact.f, unit < other) else {
        return;
    };
    totals.record(&overlap, true);
    let away = overlap.direction * overlap.push;
    pushes[unit].add(-away * (a.inv_mass / total), b.inv_mass == 0.0);
    pushes[other].add(away * (b.inv_mass / total), a.inv_mass == 0.0);
}

/// The cheap rejections: false when `a` and `b` (centres `offset` apart)
/// cannot overlap because their bounding spheres or their vertical extents
/// are apart.
#[inline]
fn may_overlap(a: &Body, b: &Body, offset: Vec3) -> bool {
    let reach = a.radius + b.radius;
    // `&`, not `&&`: both tests are cheap, and a branch would mispredict.
    (offset.length_squared() < reach * reach) & (offset.z.abs() < a.half_height + b.half_height)
}

/// Bit `k` set: lane `k` of a batch of `len` queued pairs, whose contact
/// functions are `f`, holds a pair whose contact function is below 1 (NaN
/// is not): one that may overlap.
#[inline]
fn lanes_below_one(f: [f32; LANES], len: usize) -> u32 {
    f32x8::new(f).simd_lt(f32x8::ONE).to_bitmask() & ((1 << len) - 1)
}

/// Lanes below 1 a settled batch needs before its depths are found in
/// SIMD lanes ([`LevelOverlaps`]) rather than one at a time.
const LEVEL_LANES_MIN: u32 = 2;

/// What [`resolve`] finds for the queued pairs of a [`Batch`] that are at
/// one altitude and apart on the ground, for all its lanes at once in SIMD
/// lanes with the same arithmetic (so the same bits). The others take the
/// horizontal search, one at a time.
struct LevelOverlaps {
    /// Bit `k` set: lane `k`'s pair is at one altitude and apart on the
    /// ground, so its overlap is the lanes'.
    level: u32,
    /// Bit `k` set: lane `k`'s depth is finite and positive.
    deep: u32,
    direction_x: [f32; LANES],
    direction_y: [f32; LANES],
    depth: [f32; LANES],
    push: [f32; LANES],
    relative: [f32; LANES],
}

impl LevelOverlaps {
    /// The lanes of `batch`, whose contact functions are `f`, with its
    /// pairs' `bodies`.
    #[inline]
    fn of(batch: &Batch, f: [f32; LANES], bodies: &[Body]) -> LevelOverlaps {
        let offset =
            |axis: fn(&Vec3) -> f32| f32x8::new(std::array::from_fn(|k| axis(&batch.offset[k])));
        let (x, y, z) = (offset(|r| r.x), offset(|r| r.y), offset(|r| r.z));
        let smallest = f32x8::new(std::array::from_fn(|k| {
            let slot = batch.lane(k);
            let (a, b) = (&bodies[batch.first[slot]], &bodies[batch.second[slot]]);
            a.smallest.min(b.smallest)
        }));
        let f = f32x8::new(f);
        // `resolve`'s arithmetic, lane by lane.
        let across = (x * x + y * y).sqrt();
        let depth = across * (f32x8::ONE / f.sqrt() - f32x8::ONE);
        LevelOverlaps {
            level: (across.simd_gt(f32x8::ZERO) & z.simd_eq(f32x8::ZERO)).to_bitmask(),
            deep: (depth.is_finite() & depth.simd_gt(f32x8::ZERO)).to_bitmask(),
            direction_x: (x / across).to_array(),
            direction_y: (y / across).to_array(),
            depth: depth.to_array(),
            push: (depth + f32x8::splat(SKIN_REL) * smallest).to_array(),
            relative: (depth / smallest).to_array(),
        }
    }

    /// Lane `lane`'s overlap, if it overlaps (one of [`LevelOverlaps::level`]).
    #[inline]
    fn overlap(&self, lane: usize) -> Option<Overlap> {
        (self.deep & (1 << lane) != 0).then(|| Overlap {
            direction: Vec2::new(self.direction_x[lane], self.direction_y[lane]),
            depth: self.depth[lane],
            push: self.push[lane],
            relative: self.relative[lane],
        })
    }
}

/// The exact overlap of `a` and `b`, centres `offset` apart, given their
/// contact function `f`, if they overlap. `a_first` breaks the tie of
/// coinciding ground positions.
fn resolve(a: &Body, b: &Body, offset: Vec3, f: f32, a_first: bool) -> Option<Overlap> {
    if f >= 1.0 || f.is_nan() {
        return None;
    }
    let r = offset;
    let across = r.truncate();
    let across_length = across.length();
    let (direction, depth) = if across_length > 0.0 && r.z == 0.0 {
        // Same altitude: the centre line is horizontal, depth |r|(1/√F − 1).
        let depth = across_length * (f.sqrt().recip() - 1.0);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::unit_f32;
    use crate::spatial::Bounds;

    /// A crowd's columns.
    struct Crowd {
        position: Vec<Vec2>,
        altitude: Vec<f32>,
        heading: Vec<f32>,
        shield: Vec<Vec3>,
        inv_mass: Vec<f32>,
    }

    /// `units` shields of random sizes and headings, `spacing` metres apart
    /// on a jittered lattice: every tenth immovable; with `mixed`, one in
    /// 31 big (forward semi-axis above the 3 m cell) and every fifth
    /// airborne (some low enough to meet the ground shields).
    fn crowd(units: usize, spacing: f32, mixed: bool) -> Crowd {
        let side = (units as f32).sqrt().ceil() as usize;
        let random = |stream: u64, unit: usize| unit_f32(7, stream, unit as u64);
        let jitter = |stream: u64, unit: usize| spacing * (random(stream, unit) - 0.5);
        let big = |unit: usize| mixed && unit % 31 == 3;
        let airborne = |unit: usize| mixed && unit % 5 == 1;
        Crowd {
            position: (0..units)
                .map(|unit| {
                    let (column, row) = ((unit % side) as f32, (unit / side) as f32);
                    Vec2::new(
                        spacing * column + jitter(0, unit),
                        spacing * row + jitter(1, unit),
                    )
                })
                .collect(),
            altitude: (0..units)
                .map(|unit| {
                    if airborne(unit) {
                        1.5 + 6.0 * random(5, unit)
                    } else {
                        0.0
                    }
                })
                .collect(),
            heading: (0..units).map(|unit| 6.0 * random(2, unit)).collect(),
            shield: (0..units)
                .map(|unit| {
                    let forward = if big(unit) { 3.5 } else { 1.0 } + 2.0 * random(3, unit);
                    Vec3::new(forward, forward * (0.4 + 0.6 * random(4, unit)), 1.0)
                })
                .collect(),
            inv_mass: (0..units)
                .map(|unit| if unit % 10 == 0 { 0.0 } else { 1.0 })
                .collect(),
        }
    }

    /// One pass of `separation` over `crowd`: the positions it leaves, as
    /// bits, and its stats.
    fn pass(separation: &mut Separation, crowd: &Crowd) -> (Vec<[u32; 2]>, SeparationStats) {
        pass_hashed(separation, crowd, 3.0)
    }

    /// [`pass`] with the tick's hash at `cell` metres.
    fn pass_hashed(
        separation: &mut Separation,
        crowd: &Crowd,
        cell: f32,
    ) -> (Vec<[u32; 2]>, SeparationStats) {
        let bounds = Bounds::new(Vec2::splat(-10.0), Vec2::splat(300.0));
        let mut hash = SpatialHash::new(bounds, cell).expect("a valid grid");
        hash.rebuild(&crowd.position);
        let input = SeparationInput {
            altitude: &crowd.altitude,
            heading: &crowd.heading,
            shield: &crowd.shield,
            inv_mass: &crowd.inv_mass,
            spatial: &hash,
            terrain: None,
        };
        let mut position = crowd.position.clone();
        let stats = separation.pass(input, &mut position);
        let bits = position
            .iter()
            .map(|position| position.to_array().map(f32::to_bits))
            .collect();
        (bits, stats)
    }

    fn separation(iterations: u32) -> Separation {
        let bounds = Bounds::new(Vec2::splat(-10.0), Vec2::splat(300.0));
        Separation::new(bounds, 3.0, iterations).expect("a valid grid")
    }

    /// Every pushing sweep examining its candidates without a branch, or
    /// four at a time in lanes (with the measuring sweep), pushes every unit
    /// to the same bits, with the same stats, as every one examining them
    /// one at a time with the branch: in a crowd with immovable, big and
    /// airborne units, over enough pushes that later sweeps start only from
    /// the active units.
    #[test]
    fn every_scan_pushes_as_the_branch_does() {
        let mixed = crowd(4_000, 5.0, true);
        let mut runs = [Scan::Branch, Scan::WithoutBranch, Scan::Lanes].map(|fixed| {
            let mut separation = separation(12);
            separation.fixed_scan = Some(fixed);
            let run = pass(&mut separation, &mixed);
            let active = separation.placed.iter().filter(|body| body.active).count();
            (run, active)
        });
        let ((with_branch, stats), active) = std::mem::take(&mut runs[0]);
        assert!(stats.overlaps > 500, "{stats:?}");
        assert!(stats.iterations >= 3, "{stats:?}");
        // The last sweeps started from the active units alone.
        assert!(
            active <= mixed.position.len() / 4,
            "{active} active {stats:?}"
        );
        for ((other_scan, again), _) in &runs[1..] {
            assert_eq!(*again, stats);
            assert_eq!(*other_scan, with_branch);
        }
    }

    /// The lanes' overlaps are [`resolve`]'s, bit for bit, for every queued
    /// pair at one altitude and apart on the ground, and the lanes send the
    /// others (different altitudes, one ground position, NaN offsets) to
    /// it: random shields, offsets and contact functions (below 1, at 1,
    /// above, NaN, zero), batches of one to eight pairs over lanes left from
    /// a longer one.
    #[test]
    fn level_overlaps_in_lanes_are_those_resolve_finds() {
        let random = |stream: u64, draw: u64| unit_f32(11, stream, draw);
        let bodies: Vec<Body> = (0..64)
            .map(|k| {
                let axes = Vec3::new(0.5, 0.3, 0.2)
                    + 4.0 * Vec3::new(random(0, k), random(1, k), random(2, k));
                let axes = Vec3::new(axes.x.max(axes.y), axes.x.min(axes.y), axes.z);
                Body {
                    shape: Shape::facing(axes, angles::direction(6.0 * random(3, k))),
                    radius: axes.max_element(),
                    half_height: axes.z,
                    smallest: axes.min_element(),
                    ..Body::default()
                }
            })
            .collect();
        let (mut compared, mut deep) = (0, 0);
        let mut batch = Batch::default();
        for draw in 0..4_000_u64 {
            let value = |stream: u64| random(stream, draw);
            batch.len = 1 + (draw % LANES as u64) as usize;
            for lane in 0..batch.len {
                let draw = draw * LANES as u64 + lane as u64;
                let value = |stream: u64| random(stream, draw);
                batch.first[lane] = (64.0 * value(10)) as usize % 64;
                batch.second[lane] = (64.0 * value(11)) as usize % 64;
                let ground = 8.0 * Vec2::new(value(12) - 0.5, value(13) - 0.5);
                batch.offset[lane] = match draw % 11 {
                    0 => Vec3::new(0.0, 0.0, 0.0),
                    1 => ground.extend(value(14) - 0.5),
                    2 => Vec3::new(f32::NAN, ground.y, 0.0),
                    _ => ground.extend(0.0),
                };
            }
            let f: [f32; LANES] = std::array::from_fn(|lane| match (draw + lane as u64) % 13 {
                0 => f32::NAN,
                1 => 1.0,
                2 => 0.0,
                3 => 1.0 + value(20),
                _ => value(21 + lane as u64),
            });
            let lanes = LevelOverlaps::of(&batch, f, &bodies);
            let lanes_below_one = lanes_below_one(f, batch.len);
            assert_eq!(
                lanes_below_one >> batch.len,
                0,
                "draw {draw}: lanes past the queue"
            );
            for lane in 0..batch.len {
                let (a, b) = (&bodies[batch.first[lane]], &bodies[batch.second[lane]]);
                let offset = batch.offset[lane];
                let expected = resolve(a, b, offset, f[lane], true);
                let below_one = lanes_below_one & (1 << lane) != 0;
                assert_eq!(below_one, f[lane] < 1.0, "draw {draw}, lane {lane}");
                let level = lanes.level & (1 << lane) != 0;
                let across = offset.truncate().length();
                assert_eq!(
                    level,
                    across > 0.0 && offset.z == 0.0,
                    "draw {draw}, lane {lane}"
                );
                if !(below_one && level) {
                    continue;
                }
                let bits = |overlap: &Option<Overlap>| {
                    overlap.as_ref().map(|o| {
                        [o.direction.x, o.direction.y, o.depth, o.push, o.relative]
                            .map(f32::to_bits)
                    })
                };
                assert_eq!(
                    bits(&lanes.overlap(lane)),
                    bits(&expected),
                    "draw {draw}, lane {lane}: f {}, offset {offset}",
                    f[lane]
                );
                compared += 1;
                deep += usize::from(expected.is_some());
            }
        }
        assert!(
            compared > 10_000 && deep > 5_000,
            "{compared} compared, {deep} deep"
        );
    }

    /// From [`PARALLEL_MIN_ROWS`] units a sweep's chunks are a multiple of
    /// [`SWEEP_CHUNKS`], of at most [`SWEEP_CHUNK_MAX_ROWS`] places, and
    /// fewest so; all of one size but the last, which is shorter by less
    /// than their number. Below, chunks of [`CHUNK_ROWS`].
    #[test]
    fn sweeps_cut_their_places_into_chunks_the_threads_share_evenly() {
        let counts = (0..400).map(|k| PARALLEL_MIN_ROWS + k * k * 7 + k);
        let edges = [196_608, 196_609, 393_216, 393_217, 1_000_000];
        for units in counts.chain(edges) {
            let rows = sweep_chunk_rows(units);
            let chunks = units.div_ceil(rows);
            let last = units - (chunks - 1) * rows;
            assert!(rows <= SWEEP_CHUNK_MAX_ROWS, "{units} units: {rows} rows");
            assert_eq!(chunks % SWEEP_CHUNKS, 0, "{units} units: {chunks} chunks");
            let fewest = SWEEP_CHUNKS * units.div_ceil(SWEEP_CHUNKS * SWEEP_CHUNK_MAX_ROWS);
            assert_eq!(chunks, fewest, "{units} units");
            assert!(last + chunks > rows, "{units} units: last {last} of {rows}");
        }
        for units in [1, 2_000, PARALLEL_MIN_ROWS - 1] {
            assert_eq!(sweep_chunk_rows(units), CHUNK_ROWS, "{units} units");
        }
    }

    /// A row of 1 m spheres 3 m apart, one a cell, so that places follow
    /// the units, with a movable unit between two immovable ones at place
    /// `place` (0.4 m into its western one and 0.2 m into its eastern one,
    /// so that one push leaves it 0.4 m into the eastern one: the deepest
    /// overlap, measured from `place`), and shallower ones of the same kind
    /// (0.1 m left) at every 97th place.
    fn wedged_row(units: usize, place: usize) -> Crowd {
        let mut position: Vec<Vec2> = (0..units)
            .map(|k| Vec2::new(3.0 * k as f32 + 1.5, 5.0))
            .collect();
        let mut inv_mass = vec![1.0; units];
        let mut wedge = |at: usize, west: f32, east: f32| {
            position[at - 1].x = position[at].x - west;
            position[at + 1].x = position[at].x + east;
            inv_mass[at - 1] = 0.0;
            inv_mass[at + 1] = 0.0;
        };
        for shallow in (5..units - 1).step_by(97) {
            if shallow.abs_diff(place) > 3 {
                wedge(shallow, 1.9, 1.95);
            }
        }
        wedge(place, 1.6, 1.8);
        Crowd {
            position,
            altitude: vec![0.0; units],
            heading: vec![0.0; units],
            shield: vec![Vec3::ONE; units],
            inv_mass,
        }
    }

    /// The measuring sweep's first places and the rest of each chunk,
    /// started from the deepest overlap found in the first: the deepest
    /// overlap left, measured from the last place of the first part, the
    /// first of the rest, the last of a chunk, the first of the next and
    /// their neighbours, is the one reported (a part that skips a place
    /// misses it).
    #[test]
    fn the_measure_of_each_chunks_first_places_and_the_rest_misses_no_place() {
        let units = 3 * CHUNK_ROWS;
        let rows = sweep_chunk_rows(units);
        let bounds = Bounds::new(
            Vec2::splat(-10.0),
            Vec2::new(3.0 * units as f32 + 10.0, 20.0),
        );
        let mut hash = SpatialHash::new(bounds, 3.0).expect("a valid grid");
        let places = [
            MEASURE_FIRST - 1,
            MEASURE_FIRST,
            MEASURE_FIRST + 1,
            rows - 1,
            rows,
            rows + MEASURE_FIRST,
        ];
        for place in places {
            let crowd = wedged_row(units, place);
            hash.rebuild(&crowd.position);
            let input = |hash| SeparationInput {
                altitude: &crowd.altitude,
                heading: &crowd.heading,
                shield: &crowd.shield,
                inv_mass: &crowd.inv_mass,
                spatial: hash,
                terrain: None,
            };
            let in_unit_order = hash.order().iter().enumerate();
            assert!(
                in_unit_order
                    .into_iter()
                    .all(|(k, &unit)| k == unit as usize)
            );
            let mut separation = Separation::new(bounds, 3.0, 1).expect("a valid grid");
            let mut position = crowd.position.clone();
            let reported = separation.pass(input(&hash), &mut position);
            let mut left_hash = SpatialHash::new(bounds, 3.0).expect("a valid grid");
            left_hash.rebuild(&position);
            let mut measure = Separation::new(bounds, 3.0, 0).expect("a valid grid");
            let left = measure.pass(input(&left_hash), &mut position.clone());
            assert!(
                (reported.max_overlap_m - 0.4).abs() < 1e-4
                    && reported.max_overlap_m.to_bits() == left.max_overlap_m.to_bits(),
                "deepest at place {place}: reported {reported:?}, left {left:?}"
            );
        }
    }

    #[test]
    fn forward_axes_in_lanes_are_each_units_direction() {
        let heading: Vec<f32> = (0..27)
            .map(|k| match k {
                12 => 1_000.0,
                17 => f32::NAN,
                _ => (k as f32 - 13.0) * 0.77,
            })
            .collect();
        let units: Vec<u32> = (0..27).rev().collect();
        for group in units.chunks(LANES) {
            let axes = forward_axes(&heading, group);
            for (axis, &unit) in axes.iter().zip(group) {
                let expected = angles::direction(heading[unit as usize]);
                assert_eq!(axis.x.to_bits(), expected.x.to_bits(), "unit {unit}");
                assert_eq!(axis.y.to_bits(), expected.y.to_bits(), "unit {unit}");
            }
        }
    }

    /// The next pushing sweeps examine their candidates without a branch
    /// where more than a fifth of the last one's got the exact test, else
    /// four at a time where its runs held two and a half or more, else one
    /// at a time with the branch; a crowd whose windows' runs are long and
    /// whose candidates mostly fail switches to lanes, a dense one whose
    /// candidates often pass queues without the branch, and a sparse one,
    /// whose runs hold a unit or two, does not take the lanes.
    #[test]
    fn pushing_sweeps_choose_their_scan_by_the_last_ones() {
        let totals = |tested, runs, exact| Sweep {
            tested,
            runs,
            exact,
            ..Sweep::default()
        };
        assert_eq!(Scan::after(&totals(250, 100, 50)), Scan::Lanes);
        assert_eq!(Scan::after(&totals(250, 100, 51)), Scan::WithoutBranch);
        assert_eq!(Scan::after(&totals(249, 100, 0)), Scan::Branch);
        assert_eq!(Scan::after(&totals(100, 100, 21)), Scan::WithoutBranch);
        assert_eq!(Scan::after(&totals(0, 0, 0)), Scan::Branch);
        assert_eq!(Scan::Lanes.measuring(), Scan::Lanes);
        assert_eq!(Scan::WithoutBranch.measuring(), Scan::Branch);
        // 8 m cells, as the default profile's, over units 4 m apart: four
        // units a cell, so runs of several, of which a few meet.
        let bounds = Bounds::new(Vec2::splat(-10.0), Vec2::splat(300.0));
        let mut coarse = Separation::new(bounds, 8.0, 2).expect("a valid grid");
        assert_eq!(coarse.scan, Scan::Branch);
        let (_, stats) = pass_hashed(&mut coarse, &crowd(4_000, 4.0, false), 8.0);
        assert!(stats.overlaps > 100, "{stats:?}");
        assert_eq!(coarse.scan, Scan::Lanes, "{stats:?}");
        let mut dense = separation(2);
        let (_, stats) = pass(&mut dense, &crowd(4_000, 2.5, false));
        assert!(stats.overlaps > 1_000, "{stats:?}");
        assert_eq!(dense.scan, Scan::WithoutBranch, "{stats:?}");
        let mut sparse = separation(2);
        // 32 × 32 units 8 m apart, inside the grid's 310 m.
        let (_, stats) = pass(&mut sparse, &crowd(1_000, 8.0, false));
        assert!(stats.overlaps > 0, "{stats:?}");
        assert_ne!(sparse.scan, Scan::Lanes, "{stats:?}");
    }
}
