//! Engine edits through [`Sim::columns_mut`], checked at the start of the
//! next step against the ranges of [`crate::unit_limits`] that a spawned
//! unit and a restored snapshot's rows meet (field names as
//! [`crate::UnitSpec::validate`] gives them; velocity as a snapshot's, within
//! `MAX_COORDINATE` on each axis). [`Sim::try_step`] refuses an edited value out of range
//! ([`StepError::BadEdit`], naming the unit and field) and steps nothing;
//! [`Sim::step`] puts every such value right ([`put_right`]) and steps.
//! Nothing here allocates.

use super::{Sim, StepError};
use crate::data::unit_limits::{
    MAX_ACCEL, MAX_COORDINATE, MAX_SIZE, MAX_SPEED, MAX_TURN_RATE, Sign, in_range,
};
use crate::data::vehicles::{Columns, ColumnsMut, SpawnError, UnitSpec, VehicleKind};

/// The range of one number an engine may write.
#[derive(Clone, Copy)]
struct Range {
    sign: Sign,
    max: f32,
}

const COORDINATE: Range = Range {
    sign: Sign::Any,
    max: MAX_COORDINATE,
};
const ANY_FINITE: Range = Range {
    sign: Sign::Any,
    max: f32::MAX,
};
const fn positive(max: f32) -> Range {
    Range {
        sign: Sign::Positive,
        max,
    }
}

/// Every number of [`crate::EngineColumns`] a row holds, in this order.
const FIELDS: [(&str, Range); 11] = [
    ("position.x", COORDINATE),
    ("position.y", COORDINATE),
    ("velocity.x", COORDINATE),
    ("velocity.y", COORDINATE),
    ("heading", ANY_FINITE),
    ("altitude", COORDINATE),
    ("max_speed", positive(MAX_SPEED)),
    ("max_accel", positive(MAX_ACCEL)),
    ("max_brake", positive(MAX_ACCEL)),
    ("turn_rate", positive(MAX_TURN_RATE)),
    (
        "turn_radius",
        Range {
            sign: Sign::NotNegative,
            max: MAX_SIZE,
        },
    ),
];

impl Range {
    /// `value` in range, or the nearest value that is; NaN, and a value
    /// not above 0 where the range wants one, become `fallback`.
    fn put_right(self, value: f32, fallback: f32) -> f32 {
        if value.is_nan() || self.sign == Sign::Positive && value <= 0.0 {
            fallback
        } else if self.sign == Sign::NotNegative && value < 0.0 {
            0.0
        } else {
            value.clamp(-self.max, self.max)
        }
    }
}

/// Row `row`'s numbers in [`FIELDS`] order.
fn numbers(c: &Columns, row: usize) -> [f32; 11] {
    [
        c.position[row].x,
        c.position[row].y,
        c.velocity[row].x,
        c.velocity[row].y,
        c.heading[row],
        c.altitude[row],
        c.max_speed[row],
        c.max_accel[row],
        c.max_brake[row],
        c.turn_rate[row],
        c.turn_radius[row],
    ]
}

/// Row `row`'s engine-writable numbers in range, or the first out of
/// range, by field.
pub(crate) fn check_row(c: &Columns, row: usize) -> Result<(), SpawnError> {
    FIELDS
        .iter()
        .zip(numbers(c, row))
        .try_for_each(|(&(field, range), value)| in_range(field, value, range.sign, range.max))
}

/// Puts every number of row `row` in range: one beyond its range becomes
/// the end it passed; NaN, and a speed, acceleration or turn rate not
/// above 0, what a unit of its kind spawned where it stood when last
/// steered has (that place for the position, no velocity, the kind's
/// altitude and limits; [`UnitSpec::new`]).
fn put_right(c: &mut ColumnsMut<'_>, row: usize, now: [f32; 11]) {
    let kind = VehicleKind::from_u8(c.kind[row]).unwrap_or(VehicleKind::Tracked);
    let at = c.steered_from[row];
    let spawned = UnitSpec::new(kind, at);
    let fallback = [
        at.x,
        at.y,
        0.0,
        0.0,
        spawned.heading,
        spawned.altitude,
        spawned.max_speed,
        spawned.max_accel,
        spawned.max_brake,
        spawned.turn_rate,
        spawned.turn_radius,
    ];
    let v: [f32; 11] = std::array::from_fn(|k| FIELDS[k].1.put_right(now[k], fallback[k]));
    c.position[row] = glam::Vec2::new(v[0], v[1]);
    c.velocity[row] = glam::Vec2::new(v[2], v[3]);
    c.heading[row] = v[4];
    c.altitude[row] = v[5];
    c.max_speed[row] = v[6];
    c.max_accel[row] = v[7];
    c.max_brake[row] = v[8];
    c.turn_rate[row] = v[9];
    c.turn_radius[row] = v[10];
}

impl Sim {
    /// The first unit, by row, whose engine-writable columns hold a value
    /// out of range, as [`StepError::BadEdit`].
    pub(super) fn check_edits(&self) -> Result<(), StepError> {
        let columns = self.vehicles.columns();
        (0..self.vehicles.len()).try_for_each(|row| {
            check_row(columns, row).map_err(|source| StepError::BadEdit {
                unit: columns.unit_id[row],
                source,
            })
        })
    }

    /// Puts every edited value out of range right ([`put_right`]).
    pub(super) fn put_edits_right(&mut self) {
        for row in 0..self.vehicles.len() {
            if check_row(self.vehicles.columns(), row).is_err() {
                let now = numbers(self.vehicles.columns(), row);
                put_right(&mut self.vehicles.columns_mut(), row, now);
            }
        }
    }
}
