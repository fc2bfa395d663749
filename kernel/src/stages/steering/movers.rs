//! Every unit as avoidance reads it, so the threat search
//! ([`super::avoid::ThreatSearch`]) tests eight neighbours at a time in
//! SIMD lanes ([`f32x8`]).
//!
//! The rows are in the spatial hash's place order, so a neighbour query's
//! candidates are consecutive rows. The search reads them twice, so they
//! are stored twice:
//!
//! - positions, x and y in two columns (with [`SEARCH_LANES`]` − 1` rows of
//!   padding at the end), for the sift by distance over every candidate:
//!   eight consecutive rows are one unaligned load per coordinate wherever
//!   they start;
//! - the whole mover, for the full test of the rows within the radius,
//!   which are no longer consecutive, in two arrays: the motion and sizes
//!   (position, velocity, bounding radius, half width, altitude, half
//!   height), a 32-byte aligned record a row, so eight rows are eight loads
//!   and an 8 × 8 transpose; and the hull (axis, half core, speed), a
//!   16-byte quad a row read only when a group's spheres meet, two 4 × 4
//!   transposes. Field-by-field columns take a load per field per row, and
//!   one 48-byte record a row straddles two cache lines for half the rows
//!   (guarded by the `steering` bench).
//!
//! All are written in parallel, in the chunks of
//! [`crate::parallel::for_each_chunk4_of`].

use glam::{Mat4, Vec2, Vec3, Vec4};
use wide::f32x8;

use crate::geometry::lanes::lanes_of;
use crate::parallel::{CHUNK_ROWS, for_each_chunk4_of};

/// One vehicle as avoidance sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Body {
    /// Ground-plane position.
    pub position: Vec2,
    /// Velocity used to predict where it goes.
    pub velocity: Vec2,
    /// Facing, radians (the hull axis when the unit stands still).
    pub heading: f32,
    /// Height above the ground.
    pub altitude: f32,
    /// Shield semi-axes (forward, lateral, vertical): the body's size.
    pub shield: Vec3,
}

impl Body {
    /// The body with its sizes, speed and axis worked out, as the neighbour
    /// loop reads it. Vehicles move along their heading (or against it,
    /// reversing), and a capsule is symmetric, so a moving unit's axis is
    /// its velocity's direction, and a standing unit's its heading's. Both
    /// are worked out and one kept, without a branch: where some units
    /// stand and others drive, which one a unit needs is a branch taken at
    /// random (the trigonometry costs less than its mispredictions).
    #[must_use]
    #[inline]
    pub fn mover(&self) -> Mover {
        let speed = self.velocity.length();
        // `Vec2::try_normalize`, keeping the length.
        let rcp = speed.recip();
        let moving = rcp.is_finite() && rcp > 0.0;
        let facing = crate::geometry::angles::direction(self.heading);
        let along = self.velocity * rcp;
        let axis = Vec2::select(glam::BVec2::splat(moving), along, facing);
        Mover {
            position: self.position,
            velocity: self.velocity,
            axis,
            speed,
            half_core: (self.shield.x - self.shield.y).max(0.0),
            bounding_radius: self.shield.x.max(self.shield.y),
            half_width: self.shield.y,
            altitude: self.altitude,
            half_height: self.shield.z,
        }
    }
}

/// A [`Body`] prepared once per tick for every test against it: the hull
/// axis (the velocity's direction, or the heading's when standing still),
/// the speed and the sizes derived from the shield.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Mover {
    /// Ground-plane position.
    pub position: Vec2,
    /// Velocity used to predict where it goes.
    pub velocity: Vec2,
    /// Unit vector along the hull: the velocity's direction, or the heading
    /// when standing still.
    pub axis: Vec2,
    /// The velocity's length.
    pub speed: f32,
    /// Half the capsule's core segment: forward minus lateral semi-axis,
    /// at least 0.
    pub half_core: f32,
    /// Radius of the culling sphere: the larger ground semi-axis.
    pub bounding_radius: f32,
    /// The capsule's radius: the lateral semi-axis.
    pub half_width: f32,
    /// Height above the ground.
    pub altitude: f32,
    /// The vertical semi-axis.
    pub half_height: f32,
}

impl Mover {
    /// Half the capsule's core segment, along the hull.
    #[inline]
    pub(crate) fn half_axis(&self) -> Vec2 {
        self.axis * self.half_core
    }
}

/// Threats answered at once.
pub const LANES: usize = 4;
/// Rows the threat search sifts and tests at once (the lanes of an
/// [`f32x8`]).
pub const SEARCH_LANES: usize = 8;

/// One row's motion and sizes, the fields of the full test's first stage
/// (time of nearest approach, bounding spheres, height) and the capsule
/// radius: eight lanes, aligned, so one load a row.
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C, align(32))]
pub(crate) struct SphereRecord {
    /// Position x and y, velocity x and y.
    motion: Vec4,
    /// Bounding radius, half width, altitude, half height.
    size: Vec4,
}

impl SphereRecord {
    #[inline]
    fn of(mover: &Mover) -> SphereRecord {
        SphereRecord {
            motion: Vec4::new(
                mover.position.x,
                mover.position.y,
                mover.velocity.x,
                mover.velocity.y,
            ),
            size: Vec4::new(
                mover.bounding_radius,
                mover.half_width,
                mover.altitude,
                mover.half_height,
            ),
        }
    }
}

/// One row's hull: axis x and y and half core (the capsule test's
/// fields), and speed (for the answer to a threat).
#[inline]
fn hull_of(mover: &Mover) -> Vec4 {
    Vec4::new(mover.axis.x, mover.axis.y, mover.half_core, mover.speed)
}

/// The mover of a row's sphere record and hull.
#[inline]
fn mover_of(sphere: &SphereRecord, hull: Vec4) -> Mover {
    let [x, y, vx, vy] = sphere.motion.to_array();
    let [bounding_radius, half_width, altitude, half_height] = sphere.size.to_array();
    let [axis_x, axis_y, half_core, speed] = hull.to_array();
    Mover {
        position: Vec2::new(x, y),
        velocity: Vec2::new(vx, vy),
        axis: Vec2::new(axis_x, axis_y),
        speed,
        half_core,
        bounding_radius,
        half_width,
        altitude,
        half_height,
    }
}

/// Eight rows' movers, field by field in lanes (lane `i` row `i`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct MoverLanes {
    /// Position, x and y.
    pub x: f32x8,
    pub y: f32x8,
    /// Velocity, x and y.
    pub vx: f32x8,
    pub vy: f32x8,
    /// [`Mover::bounding_radius`].
    pub bounding_radius: f32x8,
    /// [`Mover::half_width`].
    pub half_width: f32x8,
    /// [`Mover::altitude`].
    pub altitude: f32x8,
    /// [`Mover::half_height`].
    pub half_height: f32x8,
}

/// Eight rows' hulls, in lanes (the capsule test's fields).
#[derive(Clone, Copy, Debug)]
pub(crate) struct HullLanes {
    /// [`Mover::axis`], x and y.
    pub axis_x: f32x8,
    pub axis_y: f32x8,
    /// [`Mover::half_core`].
    pub half_core: f32x8,
}

/// Movers in rows; see the module docs. Reuse it across ticks: it grows
/// to the largest count it held and never shrinks.
#[derive(Clone, Debug, Default)]
pub struct MoverColumns {
    rows: usize,
    /// Position x of every row, then `SEARCH_LANES - 1` of padding.
    x: Vec<f32>,
    /// Position y, likewise.
    y: Vec<f32>,
    /// Motion and sizes of every row.
    spheres: Vec<SphereRecord>,
    /// Hull of every row.
    hulls: Vec<Vec4>,
}

impl MoverColumns {
    /// Number of rows.
    #[must_use]
    #[cfg(any(test, feature = "internals"))]
    pub fn len(&self) -> usize {
        self.rows
    }

    /// No rows.
    #[must_use]
    #[cfg(any(test, feature = "internals"))]
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Grows the storage to hold `rows`, so refilling never allocates.
    pub fn reserve(&mut self, rows: usize) {
        if self.spheres.len() < rows {
            self.spheres.resize(rows, SphereRecord::default());
            self.hulls.resize(rows, Vec4::ZERO);
            self.x.resize(rows + SEARCH_LANES - 1, 0.0);
            self.y.resize(rows + SEARCH_LANES - 1, 0.0);
        }
    }

    /// Holds `rows` rows from now on, row `index` the mover `row(index)`;
    /// written in parallel for many rows.
    pub fn fill(&mut self, rows: usize, row: impl Fn(usize) -> Mover + Sync) {
        self.reserve(rows);
        self.rows = rows;
        let (x, y, spheres, hulls) = (
            &mut self.x[..rows],
            &mut self.y[..rows],
            &mut self.spheres[..rows],
            &mut self.hulls[..rows],
        );
        for_each_chunk4_of(
            CHUNK_ROWS,
            x,
            y,
            spheres,
            hulls,
            |first, x, y, spheres, hulls| {
                let rows = x.iter_mut().zip(y).zip(spheres).zip(hulls);
                for (offset, (((x, y), sphere), hull)) in rows.enumerate() {
                    let mover = row(first + offset);
                    *x = mover.position.x;
                    *y = mover.position.y;
                    *sphere = SphereRecord::of(&mover);
                    *hull = hull_of(&mover);
                }
            },
        );
    }

    /// Holds `movers`.
    #[cfg(any(test, feature = "internals"))]
    pub fn fill_from(&mut self, movers: &[Mover]) {
        self.fill(movers.len(), |row| movers[row]);
    }

    /// The mover in row `row`.
    #[must_use]
    #[inline]
    pub fn get(&self, row: usize) -> Mover {
        assert!(row < self.rows, "row {row} of {} movers", self.rows);
        mover_of(&self.spheres[row], self.hulls[row])
    }

    /// The positions of rows `row..row + SEARCH_LANES`, x and y (rows past
    /// the end hold stale values).
    #[inline]
    pub(crate) fn positions(&self, row: usize) -> (f32x8, f32x8) {
        let rows = row..row + SEARCH_LANES;
        (lanes_of(&self.x[rows.clone()]), lanes_of(&self.y[rows]))
    }

    /// The movers of `rows` (each below [`MoverColumns::len`]), in lanes.
    #[inline]
    pub(crate) fn lanes(&self, rows: [usize; SEARCH_LANES]) -> MoverLanes {
        // A row's motion and sizes are eight aligned lanes: one load a row
        // and an 8 × 8 transpose.
        let lane = |lane: usize| bytemuck::cast::<_, f32x8>(self.spheres[rows[lane]]);
        let [
            x,
            y,
            vx,
            vy,
            bounding_radius,
            half_width,
            altitude,
            half_height,
        ] = f32x8::transpose(std::array::from_fn(lane));
        MoverLanes {
            x,
            y,
            vx,
            vy,
            bounding_radius,
            half_width,
            altitude,
            half_height,
        }
    }

    /// The hulls of `rows` (each below [`MoverColumns::len`]), in lanes: a
    /// 4 × 4 transpose for each half of the rows.
    #[inline]
    pub(crate) fn hull_lanes(&self, rows: [usize; SEARCH_LANES]) -> HullLanes {
        let half = |rows: &[usize]| {
            Mat4::from_cols(
                self.hulls[rows[0]],
                self.hulls[rows[1]],
                self.hulls[rows[2]],
                self.hulls[rows[3]],
            )
            .transpose()
        };
        let (low, high) = (half(&rows[..4]), half(&rows[4..]));
        let join = |low: Vec4, high: Vec4| -> f32x8 { bytemuck::cast([low, high]) };
        HullLanes {
            axis_x: join(low.x_axis, high.x_axis),
            axis_y: join(low.y_axis, high.y_axis),
            half_core: join(low.z_axis, high.z_axis),
        }
    }
}

/// The rows of the units' movers (`bodies(unit)`) in the spatial hash's
/// place order (`order`).
pub(crate) fn gather(
    movers: &mut MoverColumns,
    bodies: impl Fn(usize) -> Body + Sync,
    order: &[u32],
) {
    movers.fill(order.len(), |place| bodies(order[place] as usize).mover());
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;

    fn mover(index: usize) -> Mover {
        let f = index as f32;
        Body {
            position: Vec2::new(f, -f),
            velocity: Vec2::new(1.0 + f, 0.5),
            heading: 0.1 * f,
            altitude: f % 3.0,
            shield: Vec3::new(4.0, 2.0 + f % 2.0, 1.5),
        }
        .mover()
    }

    /// Every row reads back, eight positions from any start are the next
    /// eight rows', and any eight rows read in lanes are those rows.
    #[test]
    fn every_row_reads_back_in_rows_and_in_lanes() {
        let rows = 2 * CHUNK_ROWS + 7;
        let all: Vec<Mover> = (0..rows).map(mover).collect();
        let mut columns = MoverColumns::default();
        columns.fill_from(&all);
        assert_eq!(columns.len(), rows);
        for (row, expected) in all.iter().enumerate() {
            assert_eq!(columns.get(row), *expected);
        }
        for start in 0..rows - SEARCH_LANES {
            let (xs, ys) = columns.positions(start);
            let (xs, ys) = (xs.to_array(), ys.to_array());
            for lane in 0..SEARCH_LANES {
                assert_eq!(
                    xs[lane],
                    all[start + lane].position.x,
                    "row {start} lane {lane}"
                );
                assert_eq!(
                    ys[lane],
                    all[start + lane].position.y,
                    "row {start} lane {lane}"
                );
            }
        }
        for first in 0..rows - 3 * 97 {
            let picked = [
                first,
                first + 97 * 3,
                first + 5,
                first,
                first + 1,
                first + 97,
                0,
                first + 2,
            ];
            let (movers, hulls) = (columns.lanes(picked), columns.hull_lanes(picked));
            let fields = |lanes: f32x8| lanes.to_array();
            let [x, y, vx, vy] = [movers.x, movers.y, movers.vx, movers.vy].map(fields);
            let [bounding_radius, half_width, altitude, half_height] = [
                movers.bounding_radius,
                movers.half_width,
                movers.altitude,
                movers.half_height,
            ]
            .map(fields);
            let [axis_x, axis_y, half_core] =
                [hulls.axis_x, hulls.axis_y, hulls.half_core].map(fields);
            for (lane, &row) in picked.iter().enumerate() {
                let expected = all[row];
                let got = Mover {
                    position: Vec2::new(x[lane], y[lane]),
                    velocity: Vec2::new(vx[lane], vy[lane]),
                    axis: Vec2::new(axis_x[lane], axis_y[lane]),
                    speed: expected.speed,
                    half_core: half_core[lane],
                    bounding_radius: bounding_radius[lane],
                    half_width: half_width[lane],
                    altitude: altitude[lane],
                    half_height: half_height[lane],
                };
                assert_eq!(got, expected, "row {row} in lane {lane}");
            }
        }
    }

    #[test]
    fn refilling_with_fewer_rows_forgets_the_rest() {
        let mut columns = MoverColumns::default();
        columns.fill_from(&(0..600).map(mover).collect::<Vec<_>>());
        columns.fill_from(&[mover(7)]);
        assert_eq!(columns.len(), 1);
        assert_eq!(columns.get(0), mover(7));
    }
}
