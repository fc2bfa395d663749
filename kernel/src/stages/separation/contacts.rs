//! The exact test of a pair: Perram–Wertheim contact functions in lanes,
//! and the push that separates an overlapping pair.

use super::*;

/// How an overlapping pair is pushed apart.
pub(super) struct Overlap {
    /// Unit vector from the first unit towards the second, ground plane.
    pub(super) direction: Vec2,
    pub(super) depth: f32,
    /// The depth plus the skin: how far the pair is pushed apart.
    pub(super) push: f32,
    pub(super) relative: f32,
}

/// Tests the pair `(unit, other)` (places), which passed the cheap
/// rejections, once and pushes both.
pub(super) fn push_pair(
    unit: usize,
    other: usize,
    context: &Context<'_>,
    pushes: &mut [Push],
    totals: &mut Sweep,
) {
    let (a, b) = (&context.bodies[unit], &context.bodies[other]);
    if a.inv_mass + b.inv_mass == 0.0 {
        return;
    }
    let offset = b.centre - a.centre;
    totals.exact += 1;
    let contact = contact_function_until(&a.shape, &b.shape, offset, 1.0);
    let Some(overlap) = resolve(a, b, offset, contact.f, (unit, other)) else {
        return;
    };
    totals.record(&overlap, true);
    let (a_share, b_share) = shares(a, b, overlap.direction);
    let away = overlap.direction * overlap.push;
    pushes[unit].add(-away * a_share, b_share == 0.0);
    pushes[other].add(away * b_share, a_share == 0.0);
}

/// The cheap rejections: false when `a` and `b` (centres `offset` apart)
/// cannot overlap because their bounding spheres or their vertical extents
/// are apart.
#[inline]
pub(super) fn may_overlap(a: &Body, b: &Body, offset: Vec3) -> bool {
    let reach = a.radius + b.radius;
    // `&`, not `&&`: both tests are cheap, and a branch would mispredict.
    (offset.length_squared() < reach * reach) & (offset.z.abs() < a.half_height + b.half_height)
}

/// Bit `k` set: lane `k` of a batch of `len` queued pairs, whose contact
/// functions are `f`, holds a pair whose contact function is below 1 (NaN
/// is not): one that may overlap.
#[inline]
pub(super) fn lanes_below_one(f: [f32; LANES], len: usize) -> u32 {
    f32x8::new(f).simd_lt(f32x8::ONE).to_bitmask() & ((1 << len) - 1)
}

/// Lanes below 1 a settled batch needs before its depths are found in
/// SIMD lanes ([`LevelOverlaps`]) rather than one at a time.
pub(super) const LEVEL_LANES_MIN: u32 = 2;

/// What [`resolve`] finds for the queued pairs of a [`Batch`] that are at
/// one altitude and apart on the ground, for all its lanes at once in SIMD
/// lanes with the same arithmetic (so the same bits). The others take the
/// horizontal search, one at a time.
pub(super) struct LevelOverlaps {
    /// Bit `k` set: lane `k`'s pair is at one altitude and apart on the
    /// ground, so its overlap is the lanes'.
    pub(super) level: u32,
    /// Bit `k` set: lane `k`'s depth is finite and positive.
    pub(super) deep: u32,
    pub(super) direction_x: [f32; LANES],
    pub(super) direction_y: [f32; LANES],
    pub(super) depth: [f32; LANES],
    pub(super) push: [f32; LANES],
    pub(super) relative: [f32; LANES],
}

impl LevelOverlaps {
    /// The lanes of `batch`, whose contact functions are `f`, with its
    /// pairs' `bodies`.
    #[inline]
    pub(super) fn of(batch: &Batch, f: [f32; LANES], bodies: &[Body]) -> LevelOverlaps {
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
    pub(super) fn overlap(&self, lane: usize) -> Option<Overlap> {
        (self.deep & (1 << lane) != 0).then(|| Overlap {
            direction: Vec2::new(self.direction_x[lane], self.direction_y[lane]),
            depth: self.depth[lane],
            push: self.push[lane],
            relative: self.relative[lane],
        })
    }
}

/// The shares of a push of `a` and `b` apart (`direction` from `a` to `b`)
/// that each takes: by inverse mass, each weighted by how freely it can
/// move its way, `1 − cos` of the angle between its push and the wall that
/// last cut its step ([`Body::wall`]), so that a partner of a unit wedged
/// against a wall takes the whole push, as from an immovable one. If
/// neither can move its way, by inverse mass alone. Sums to 1 unless both
/// are immovable.
#[inline]
pub(super) fn shares(a: &Body, b: &Body, direction: Vec2) -> (f32, f32) {
    let free = |body: &Body, push: Vec2| 1.0 - body.wall.dot(push).clamp(0.0, 1.0);
    let (a_free, b_free) = (
        a.inv_mass * free(a, -direction),
        b.inv_mass * free(b, direction),
    );
    let (a_mass, b_mass) = if a_free + b_free > 0.0 {
        (a_free, b_free)
    } else {
        (a.inv_mass, b.inv_mass)
    };
    let total = a_mass + b_mass;
    (a_mass / total, b_mass / total)
}

/// The ground direction from the unit at place `unit` towards the one at
/// `other` when their ground positions coincide: turned from +x by the
/// golden-ratio fraction of a turn times the gap between their places
/// (a Weyl sequence), opposite from the other side. Units stacked on one
/// spot part in as many directions as there are gaps between their
/// places, not along one axis a wall may close; a unit between two
/// partners whose places are as far either side of its own is pushed
/// opposite ways by them.
pub(super) fn tie_direction((unit, other): (usize, usize)) -> Vec2 {
    const GOLDEN_TURN: f64 = 0.618_033_988_749_894_8;
    let gap = unit.abs_diff(other) as f64;
    let turn = (gap * GOLDEN_TURN).fract() as f32;
    let direction = Vec2::from_angle(std::f32::consts::TAU * turn);
    if unit < other { direction } else { -direction }
}

/// The exact overlap of `a` and `b` (at places `places`), centres `offset`
/// apart, given their contact function `f`, if they overlap. Coinciding
/// ground positions are parted along [`tie_direction`].
pub(super) fn resolve(
    a: &Body,
    b: &Body,
    offset: Vec3,
    f: f32,
    places: (usize, usize),
) -> Option<Overlap> {
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
        } else {
            tie_direction(places)
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
