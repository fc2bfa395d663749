//! Vehicle avoidance (Force 21 §5 "Avoid other vehicles", after Reynolds'
//! unaligned collision avoidance, "Steering Behaviors For Autonomous
//! Characters", GDC 1999).
//!
//! For the neighbours within a radius (from the spatial hash) compute the
//! time of nearest approach; of those closer in time than
//! [`HORIZON_S`] that would collide then, keep the soonest. The paper's
//! changes to Reynolds are all here:
//!
//! - the unit's own predicted velocity is the average of its current and
//!   desired velocity;
//! - bounding spheres cull, and swept spheres — each vehicle a capsule along
//!   its heading, radius its lateral half-width — decide;
//! - if the drive-to point is too close to the threat, the unit stops;
//! - (ours) a pair already moving apart is no threat: its nearest approach
//!   is past;
//! - two units side by side, same speed and heading: the one on the right
//!   speeds up so the other can pass behind;
//! - the blend `t = min((10 − minTime) / 5, 1)`,
//!   `steering += t · lateral + forward`, so units turn a little at a
//!   distance and more as the collision nears.
//!
//! Flying units and ground units at different heights ignore each other.

mod respond;
mod respond_lanes;

use std::ops::Range;

use glam::{Vec2, Vec4};

use wide::f32x8;

pub use super::movers::{Body, Mover};
use super::movers::{LANES, MoverColumns, MoverLanes, SEARCH_LANES};

pub use respond::Response;
#[cfg(any(test, feature = "internals"))]
pub use respond::respond;
pub use respond_lanes::{Question, respond_lanes};

/// Threats further ahead in time than this are ignored, seconds (the
/// paper's 10 in its blend formula).
pub const HORIZON_S: f32 = 10.0;
/// The blend reaches full lateral avoidance this many seconds before
/// impact (the paper's divisor 5).
const BLEND_S: f32 = 5.0;
/// Side by side: headings within this cosine (about 15°)…
const SIDE_BY_SIDE_COS: f32 = 0.966;
/// …and speeds within this fraction of the faster one.
const SIDE_BY_SIDE_SPEED: f32 = 0.2;
/// The unit on the right speeds up by this fraction of its top speed.
const SPEED_UP_FRACTION: f32 = 0.25;
/// Capsules closer than this at nearest approach count as colliding, metres:
/// a margin for the turn and braking limits that delay the answer.
pub const CLEARANCE_M: f32 = 1.0;
/// Relative speed above which a pair moving apart is no threat, m/s.
const SEPARATING_SPEED: f32 = 0.1;

/// The soonest predicted collision.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Threat {
    /// Time of nearest approach, seconds from now.
    pub time: f32,
    /// The other vehicle.
    pub other: Mover,
}

/// Which rows of a run are candidates: those within `radius_sq.sqrt()` of
/// the searching unit, other than the row `skip` (its own).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Near {
    /// The neighbour radius, squared.
    pub radius_sq: f32,
    /// The searching unit's own row (any row past the end for none).
    pub skip: usize,
}

/// The searching unit, each value in every lane.
#[derive(Clone, Copy, Debug)]
struct OwnLanes {
    x: f32x8,
    y: f32x8,
    /// Predicted velocity.
    vx: f32x8,
    vy: f32x8,
    /// Half the core segment, along the hull, and its length squared.
    half_axis_x: f32x8,
    half_axis_y: f32x8,
    half_axis_sq: f32x8,
    /// Bounding radius plus [`CLEARANCE_M`].
    reach: f32x8,
    half_width: f32x8,
    altitude: f32x8,
    half_height: f32x8,
}

/// A lane mask with every bit set.
const ALL_BITS: f32 = f32::from_bits(u32::MAX);

/// `FIRST_LANES[n]`: all bits in lanes `0..n`, none in the others.
const FIRST_LANES: [f32x8; SEARCH_LANES + 1] = {
    let mut table = [f32x8::ZERO; SEARCH_LANES + 1];
    let mut count = 0;
    while count <= SEARCH_LANES {
        let mut lanes = [0.0; SEARCH_LANES];
        let mut lane = 0;
        while lane < count {
            lanes[lane] = ALL_BITS;
            lane += 1;
        }
        table[count] = f32x8::new(lanes);
        count += 1;
    }
    table
};

/// Keeps the soonest colliding neighbour of `me` (whose `velocity` is the
/// predicted one) among the rows offered to [`ThreatSearch::consider_run`].
///
/// Two passes, so that the costly tests run on full lanes: the rows of
/// each run are sifted eight at a time by distance alone (one load a
/// coordinate, as the rows are consecutive), and the rows within the
/// radius queue up, in visit order, to be tested eight at a time with
/// everything else (their fields gathered row by row). A query's ~3 runs
/// hold a few rows each, and only about a third of them are within the
/// radius: a group per run tested in full had a third of its lanes empty,
/// and most of the rest out of range.
#[derive(Clone, Copy, Debug)]
pub struct ThreatSearch {
    me: OwnLanes,
    /// The soonest threat's time, or [`HORIZON_S`] while there is none.
    soonest_time: f32,
    /// The soonest threat's row.
    soonest: Option<usize>,
    /// Rows within the radius not tested yet, in visit order: the first
    /// `queued`, never more than `QUEUE_ROWS - SEARCH_LANES` between
    /// sifts. Every slot holds a row of the movers offered (0 at first,
    /// then rows a sift wrote, kept or not), so any eight slots can be
    /// loaded.
    queue: [u32; QUEUE_ROWS],
    queued: usize,
}

/// Rows a search queues before it tests them: enough for all of a query's
/// rows within the radius at the shipped densities (about 8), so the
/// tests run once per query, in one loop, instead of whenever a group is
/// queued (a branch taken at random). A multiple of [`SEARCH_LANES`].
const QUEUE_ROWS: usize = 32;
// A power of two: a queue slot's index is masked into range.
const _: () = assert!(QUEUE_ROWS.is_power_of_two());

/// `QUEUED_LANES[mask]`: the lanes set in `mask`, in order, then zeros.
const QUEUED_LANES: [[u32; SEARCH_LANES]; 1 << SEARCH_LANES] = {
    let mut table = [[0; SEARCH_LANES]; 1 << SEARCH_LANES];
    let mut mask = 0;
    while mask < 1 << SEARCH_LANES {
        let (mut lane, mut count) = (0, 0);
        while lane < SEARCH_LANES {
            if mask & (1 << lane) != 0 {
                table[mask][count] = lane as u32;
                count += 1;
            }
            lane += 1;
        }
        mask += 1;
    }
    table
};

impl ThreatSearch {
    /// A search for `me`, predicted with the average of its current and
    /// desired velocity (Force 21's predictor).
    #[must_use]
    #[inline]
    pub fn new(me: &Mover, desired: Vec2) -> ThreatSearch {
        let predicted = 0.5 * (me.velocity + desired);
        let half_axis = me.half_axis();
        ThreatSearch {
            me: OwnLanes {
                x: f32x8::splat(me.position.x),
                y: f32x8::splat(me.position.y),
                vx: f32x8::splat(predicted.x),
                vy: f32x8::splat(predicted.y),
                half_axis_x: f32x8::splat(half_axis.x),
                half_axis_y: f32x8::splat(half_axis.y),
                half_axis_sq: f32x8::splat(half_axis.length_squared()),
                reach: f32x8::splat(me.bounding_radius + CLEARANCE_M),
                half_width: f32x8::splat(me.half_width),
                altitude: f32x8::splat(me.altitude),
                half_height: f32x8::splat(me.half_height),
            },
            soonest_time: HORIZON_S,
            soonest: None,
            queue: [0; QUEUE_ROWS],
            queued: 0,
        }
    }

    /// Offers the rows `run` of `movers` within `near`: sifts them eight at
    /// a time by distance and tests those within the radius whenever
    /// enough are queued. Rows keep their order: of equally soon threats
    /// the first row's is kept.
    #[inline]
    pub fn consider_run(&mut self, movers: &MoverColumns, run: Range<usize>, near: Near) {
        let radius_sq = f32x8::splat(near.radius_sq);
        let mut start = run.start;
        while start < run.end {
            let (x, y) = movers.positions(start);
            let (offset_x, offset_y) = (x - self.me.x, y - self.me.y);
            let within = (offset_x * offset_x + offset_y * offset_y).simd_le(radius_sq);
            // Rows past the run's end, and the unit's own row, take no part.
            let mut keep = within.to_bitmask() & ((1 << (run.end - start).min(SEARCH_LANES)) - 1);
            keep &= !(1 << near.skip.wrapping_sub(start).min(SEARCH_LANES));
            // Branch-free: all eight slots written, the kept ones first.
            let kept = QUEUED_LANES[keep as usize].map(|lane| start as u32 + lane);
            self.queue[self.queued..self.queued + SEARCH_LANES].copy_from_slice(&kept);
            self.queued += keep.count_ones() as usize;
            if self.queued > QUEUE_ROWS - SEARCH_LANES {
                self.test_full_groups(movers);
            }
            start += SEARCH_LANES;
        }
    }

    /// Tests the queued rows eight at a time, up to the last multiple of
    /// eight, and keeps the rest queued.
    #[inline]
    fn test_full_groups(&mut self, movers: &MoverColumns) {
        let tested = self.queued - self.queued % SEARCH_LANES;
        for first in (0..tested).step_by(SEARCH_LANES) {
            self.test_group(movers, first, SEARCH_LANES);
        }
        self.queue.copy_within(tested..self.queued, 0);
        self.queued -= tested;
    }

    /// Tests the `count` (1 to 8) queued rows from `first` on.
    #[inline]
    fn test_group(&mut self, movers: &MoverColumns, first: usize, count: usize) {
        // Lanes past `count` hold rows queued earlier or left over (every
        // slot holds a row of `movers`), and take no part.
        // `first + lane` is below QUEUE_ROWS (`first` is at most
        // `QUEUE_ROWS - SEARCH_LANES`): the mask changes nothing but spares
        // a bounds check a lane. One load a lane, not one of all eight: the
        // sift wrote the slots eight at a time from other offsets, and a
        // load spanning two of those stores cannot be forwarded from them
        // (guarded by the `steering` bench).
        debug_assert!(first <= QUEUE_ROWS - SEARCH_LANES, "group at slot {first}");
        let rows: [usize; SEARCH_LANES] =
            std::array::from_fn(|lane| self.queue[(first + lane) & (QUEUE_ROWS - 1)] as usize);
        if let Some(time) = self.soonest_in(movers, rows, FIRST_LANES[count]) {
            // No NaN: every lane is a time below the soonest or infinite,
            // so the minimum does not depend on the order it is taken in.
            let [low, high]: [Vec4; 2] = bytemuck::cast(time);
            self.soonest_time = low.min(high).min_element();
            let lane = time.simd_eq(f32x8::splat(self.soonest_time)).to_bitmask();
            self.soonest = Some(rows[lane.trailing_zeros() as usize]);
        }
    }

    /// For the eight `rows` of `movers`, those `in_queue` selects: the
    /// times of those that collide sooner than the soonest so far (other
    /// lanes infinite), or `None` if none does. The cheap tests first (time
    /// of nearest approach, bounding spheres, height), the capsules only if
    /// a row is left.
    #[inline]
    fn soonest_in(
        &self,
        movers: &MoverColumns,
        rows: [usize; SEARCH_LANES],
        in_queue: f32x8,
    ) -> Option<f32x8> {
        let me = &self.me;
        let them: MoverLanes = movers.lanes(rows);
        let offset_x = them.x - me.x;
        let offset_y = them.y - me.y;
        let closing_x = them.vx - me.vx;
        let closing_y = them.vy - me.vy;
        let closing_sq = closing_x * closing_x + closing_y * closing_y;
        let approach = -(offset_x * closing_x + offset_y * closing_y);
        // Already moving apart: the nearest approach is behind them, so
        // this pair is no threat, however close (answering it would turn
        // the unit back toward the other, and the two would dither on the
        // edge of the capsule test for ever). Pairs keeping pace (side by
        // side) are still tested where they stand.
        let parting = approach.simd_le(f32x8::ZERO)
            & closing_sq.simd_gt(f32x8::splat(SEPARATING_SPEED * SEPARATING_SPEED));
        // `fast_max`: a NaN quotient gives 0, as `maxps` does.
        let time = closing_sq
            .simd_gt(f32x8::splat(1e-12))
            .select((approach / closing_sq).fast_max(f32x8::ZERO), f32x8::ZERO);
        // Where the other is, relative to me, at the nearest approach.
        let gap_x = offset_x + closing_x * time;
        let gap_y = offset_y + closing_y * time;
        let gap_sq = gap_x * gap_x + gap_y * gap_y;
        let reach = me.reach + them.bounding_radius;
        let level = (them.altitude - me.altitude)
            .abs()
            .simd_lt(me.half_height + them.half_height);
        let spheres_meet = in_queue
            & !parting
            & time.simd_lt(f32x8::splat(self.soonest_time))
            & gap_sq.simd_le(reach * reach)
            & level;
        if !spheres_meet.any() {
            return None;
        }
        // The margin is for units closing in; neighbours keeping their
        // distance (nearest approach now) threaten only by touching.
        let margin = time
            .simd_gt(f32x8::ZERO)
            .select(f32x8::splat(CLEARANCE_M), f32x8::ZERO);
        let touch = me.half_width + them.half_width + margin;
        let hulls = movers.hull_lanes(rows);
        let theirs = (
            hulls.axis_x * hulls.half_core,
            hulls.axis_y * hulls.half_core,
        );
        let capsules_meet = spheres_meet
            & cores_within(
                (gap_x, gap_y),
                (me.half_axis_x, me.half_axis_y, me.half_axis_sq),
                theirs,
                touch,
            );
        capsules_meet
            .any()
            .then(|| capsules_meet.select(time, f32x8::INFINITY))
    }

    /// The soonest threat among the rows offered, as its time and row
    /// (the queued rows are tested first).
    #[must_use]
    #[inline]
    pub fn soonest(&mut self, movers: &MoverColumns) -> Option<(f32, usize)> {
        // The groups `test_full_groups` would test, then the rest, without
        // moving the rest to the front (a `memmove` call).
        let mut first = 0;
        while first < self.queued {
            self.test_group(movers, first, (self.queued - first).min(SEARCH_LANES));
            first += SEARCH_LANES;
        }
        self.queued = 0;
        self.soonest.map(|row| (self.soonest_time, row))
    }

    /// The soonest threat among the rows of `movers` offered.
    #[must_use]
    #[inline]
    pub fn threat(&mut self, movers: &MoverColumns) -> Option<Threat> {
        self.soonest(movers).map(|(time, row)| Threat {
            time,
            other: movers.get(row),
        })
    }
}

/// In eight lanes: whether two segments, one from `−mine` to `mine` about
/// the origin (`mine.2` its half length squared) and one from `gap −
/// theirs` to `gap + theirs`, come closer than `touch` — the capsule test,
/// in squared distances, without a division or a square root.
///
/// In the plane the closest pair of two segments that do not cross always
/// includes an end, so this is "they cross, or an end of either is within
/// `touch` of the other". A point `p` is within `r` of the centred segment
/// `[−h, h]` if, with `u = p·h` and `H = h·h`, `|p|² − 2|u| + H < r²` when
/// `|u| ≥ H` (the nearest point is an end), or `|p|²·H − u² < r²·H` (the
/// foot of the perpendicular). Relative to the centres the products are
/// all of five dot products, and the segments cross exactly when `|h₁ ×
/// c|` and `|h₂ × c|` are both below `|h₁ × h₂|`.
#[inline]
fn cores_within(
    (gap_x, gap_y): (f32x8, f32x8),
    (mine_x, mine_y, mine_sq): (f32x8, f32x8, f32x8),
    (theirs_x, theirs_y): (f32x8, f32x8),
    touch: f32x8,
) -> f32x8 {
    let two = f32x8::splat(2.0);
    let touch_sq = touch * touch;
    let theirs_sq = theirs_x * theirs_x + theirs_y * theirs_y;
    let gap_sq = gap_x * gap_x + gap_y * gap_y;
    let gap_mine = gap_x * mine_x + gap_y * mine_y;
    let gap_theirs = gap_x * theirs_x + gap_y * theirs_y;
    let mine_theirs = mine_x * theirs_x + mine_y * theirs_y;
    let near_end = |p_sq: f32x8, u: f32x8, h_sq: f32x8| {
        let u = u.abs();
        let beyond = u.simd_ge(h_sq);
        let to_end = (p_sq - two * u + h_sq).simd_lt(touch_sq);
        let to_foot = (p_sq * h_sq - u * u).simd_lt(touch_sq * h_sq);
        (beyond & to_end) | (!beyond & to_foot)
    };
    // Their ends, gap ± theirs, against my segment.
    let their_ends = near_end(
        gap_sq + two * gap_theirs + theirs_sq,
        gap_mine + mine_theirs,
        mine_sq,
    ) | near_end(
        gap_sq - two * gap_theirs + theirs_sq,
        gap_mine - mine_theirs,
        mine_sq,
    );
    // My ends, ±mine, against theirs (about its centre: ±mine − gap).
    let my_ends = near_end(
        mine_sq - two * gap_mine + gap_sq,
        mine_theirs - gap_theirs,
        theirs_sq,
    ) | near_end(
        mine_sq + two * gap_mine + gap_sq,
        mine_theirs + gap_theirs,
        theirs_sq,
    );
    let cross = (mine_x * theirs_y - mine_y * theirs_x).abs();
    let mine_side = (mine_x * gap_y - mine_y * gap_x).abs();
    let theirs_side = (theirs_x * gap_y - theirs_y * gap_x).abs();
    let crossing =
        mine_side.simd_lt(cross) & theirs_side.simd_lt(cross) & touch.simd_gt(f32x8::ZERO);
    their_ends | my_ends | crossing
}

#[cfg(test)]
mod tests;
