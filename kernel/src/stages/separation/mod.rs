//! The `separation` stage: shields pushed apart until none overlaps.
//!
//! Method: the Armada paper (Davis, *Warp Speed: Path Planning for Star
//! Trek: Armada*, "Collision Prevention"): every tick each ship is checked
//! against the ships near it, found through geometric hashing, and
//! overlapping ships are separated by the amount of the overlap. Here each
//! shield is an oriented ellipsoid tested exactly with the Perram–Wertheim
//! contact function (Perram & Wertheim, *J. Comput. Phys.* 58 (1985)
//! 409–416; [`crate::geometry::ellipsoid`]), so a helicopter above a tank
//! does not touch it and long ships are not treated as spheres.
//!
//! One pass, Jacobi style (every push read from the positions before it):
//! - `bodies`: each unit's shape packed once into a record in hash place
//!   order, with the crowd's layers and travel that bound each search;
//! - `scans`: each unit's candidates from the hash cells about it,
//!   filtered by bounding spheres in lanes and queued for the exact test;
//! - `contacts`: the exact test and the push (depth plus a skin, shared by
//!   inverse mass, weighted by how freely each unit can move its way past
//!   the walls that cut its steps; an immovable partner takes none);
//! - `sweeps`: pushes summed per unit in chunks across the pool and
//!   applied; ground units are never pushed onto a blocked cell;
//! - `measure`: the deepest overlap left, the pass's convergence figure;
//! - `big_units`: shields wider than a hash cell, tested on their own.
//!
//! Sweeps repeat until the deepest overlap is below [`TOLERANCE_REL`] of the
//! smaller shield's smallest semi-axis or the iteration cap is reached; the
//! stage rebuilds its own hash when units have drifted more than a cell.
//! Nothing allocates after [`Separation::reserve`].

mod big_units;
mod bodies;
mod contacts;
mod measure;
mod scans;
mod sweeps;

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use glam::{Mat4, Vec2, Vec3, Vec4};
use wide::f32x8;

use crate::geometry::angles;
use crate::geometry::ellipsoid::{
    Contacts8, LANES, Offsets8, Shape, Shapes8, contact_function_until, contact_functions_until,
    horizontal_separation,
};
use crate::instrument::zone;
use crate::nav::ClassMaps;
use crate::parallel::{
    CHUNK_ROWS, PARALLEL_MIN_ROWS, for_each_chunk, for_each_chunk_fold, for_each_chunk_fold_of,
};
use crate::data::spatial_hash::{
    Bounds, GridError, MIN_RUN_CANDIDATES, Skip, SpatialHash, WindowRuns, nearest_places,
    run_candidates, window_columns,
};

use big_units::*;
use bodies::*;
use contacts::*;
use measure::*;
use scans::*;
use sweeps::*;

/// A pair still counts as overlapping when its depth exceeds this fraction of
/// the smaller shield's smallest semi-axis; below it the pass has converged.
pub const TOLERANCE_REL: f32 = 1e-4;
/// Each unit moves by the sum of its pair pushes from movable neighbours
/// times this factor (pushes from immovable ones count in full). Below 1 it
/// damps the overshoot of a unit squeezed from many sides at once.
pub const RELAXATION: f32 = 1.0;
/// Overlapping pairs are pushed this fraction of the smaller shield's
/// smallest semi-axis beyond touching (a centimetre for metre-sized
/// shields), so that Jacobi sweeps end with pairs just apart instead of
/// creeping towards touching from inside, and a jam's pushes, which each
/// undo part of its neighbours', still part it within the iteration cap
/// (the `default` profile's crossing: `examples/separation_trace.rs`).
pub const SKIN_REL: f32 = 1e-2;
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
/// and most candidates fail, and lose where runs hold one or two or many
/// pass (guarded by the `separation` bench's two crowds and `tick`).
const LANES_MIN_RUN_TWICE: u64 = 5;
/// Rebuild the stage's own hash once units may have moved, on average over
/// the [`Class`]es weighted by their units, this many cells from where the
/// hash saw them ([`should_rebuild`]): a rebuild costs more than windows
/// widened by about a cell (guarded by `convoy-bench run --units 100000`).
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
/// ([`Context::search_deeper`]; guarded by the `separation` bench).
const MEASURE_FIRST: usize = 256;

/// The rows of a sweep's chunks for `units` units. A sweep run in
/// parallel (from [`PARALLEL_MIN_ROWS`] units) takes the fewest chunks that
/// are a multiple of [`SWEEP_CHUNKS`] and hold at most
/// [`SWEEP_CHUNK_MAX_ROWS`] rows, all of one size but the last, so the
/// threads share them evenly, and few and long chunks keep the pairs
/// across their edges, examined from both sides, few (guarded by the
/// `separation` bench and `tick`). A sweep on one thread keeps chunks of
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
    /// Mobility classes ([`crate::MobilityClass`]'s value); empty: every
    /// unit is of class 0.
    pub mobility: &'a [u8],
    /// The ground: a push never moves a unit at altitude 0 from an open
    /// cell onto a cell its class's map blocks (no map: open space).
    pub terrain: ClassMaps<'a>,
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
    /// Whether the pass stopped at its iteration cap with shields still
    /// overlapping beyond the tolerance.
    pub capped: bool,
    /// Times the stage rebuilt its own hash.
    pub rebuilds: u32,
    /// Largest overlap depth remaining after the pass, metres.
    pub max_overlap_m: f32,
    /// Largest remaining depth relative to the smaller shield's smallest
    /// semi-axis of its pair.
    pub max_overlap_rel: f32,
    /// The most candidates one unit examined in one sweep.
    pub most_candidates: u32,
    /// Searches cut short by a run holding more places than
    /// [`run_candidates`] allows for its window, over all sweeps (big
    /// units' searches for each other included, `big_run_candidates`).
    pub cut_searches: u64,
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
    #[cfg(any(test, feature = "internals"))]
    pub fn iterations(&self) -> u32 {
        self.iterations
    }

    /// Sets the most pushes per pass.
    #[cfg(any(test, feature = "internals"))]
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
                && input.inv_mass.len() == units
                && (input.mobility.is_empty() || input.mobility.len() == units),
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
            stats.most_candidates = stats.most_candidates.max(sweep.most);
            stats.cut_searches += sweep.cut;
            if stats.iterations == 0 {
                stats.overlaps = sweep.overlaps;
            }
            stats.max_overlap_m = sweep.depth_m;
            stats.max_overlap_rel = sweep.depth_rel;
            if sweep.overlaps == 0 || stats.iterations >= *iterations {
                stats.capped = *iterations > 0 && sweep.depth_rel > TOLERANCE_REL;
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

#[cfg(test)]
mod tests;
