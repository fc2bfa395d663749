//! Value checks for a decoded snapshot: a restored unit meets the rules
//! [`Sim::spawn`](crate::Sim::spawn) keeps (the ranges of
//! [`crate::unit_limits`], by the field names
//! [`UnitSpec::validate`](crate::UnitSpec::validate) gives; the columns an
//! engine writes as a step checks them), and every float
//! the tick reads — routes, platoon records, path goals, the clock — is
//! finite and on the map. Checksums catch damaged bytes; these checks catch
//! a file whose checksums are right but whose values are wrong (a
//! hand-edited or buggy save).

use glam::Vec2;

use super::snapshot::SnapshotError;
use crate::data::path_requests::PathRequest;
use crate::data::routes::ROUTE_POINTS;
use crate::data::platoons::{MAX_LOOKAHEAD_S, MAX_SPACING_M, Platoon, Platoons};
use super::engine_edits;
use super::snapshot::EditedColumns;
use crate::data::unit_limits::{
    MAX_COORDINATE, MAX_INV_MASS, MAX_SIZE, MAX_SPEED, Sign, finite, in_range, on_map, within_map,
};
use crate::data::vehicles::{Columns, NONE, SpawnError, Vehicles};
use crate::stages::formations::group_pace::MAX_GROUPS;

/// Every unit row, as [`SnapshotError::BadUnit`] naming the row and field
/// (the columns an engine writes only if `edited` says so).
pub(crate) fn check_units(vehicles: &Vehicles, edited: EditedColumns) -> Result<(), SnapshotError> {
    let columns = vehicles.columns();
    (0..vehicles.len()).try_for_each(|row| {
        check_row(columns, row, edited).map_err(|source| SnapshotError::BadUnit { row, source })
    })
}

/// One row: the columns an engine writes as a step checks them, the rest
/// of its spec as spawn checks it, then the tick's own columns.
fn check_row(c: &Columns, row: usize, edited: EditedColumns) -> Result<(), SpawnError> {
    if edited == EditedColumns::Check {
        engine_edits::check_row(c, row)?;
    }
    within_map(["goal.x", "goal.y"], c.goal[row])?;
    let shield = c.shield[row];
    in_range("shield.forward", shield.x, Sign::Positive, MAX_SIZE)?;
    in_range("shield.lateral", shield.y, Sign::Positive, MAX_SIZE)?;
    in_range("shield.vertical", shield.z, Sign::Positive, MAX_SIZE)?;
    in_range("inv_mass", c.inv_mass[row], Sign::NotNegative, MAX_INV_MASS)?;
    let speed = |field, value| in_range(field, value, Sign::Any, MAX_COORDINATE);
    speed("desired_velocity.x", c.desired_velocity[row].x)?;
    speed("desired_velocity.y", c.desired_velocity[row].y)?;
    in_range("cruise_speed", c.cruise_speed[row], Sign::NotNegative, MAX_SPEED)?;
    within_map(["drive_to.x", "drive_to.y"], c.drive_to[row])?;
    within_map(["steered_from.x", "steered_from.y"], c.steered_from[row])?;
    within_map(["route_start.x", "route_start.y"], c.route_start[row])?;
    // NaN (both coordinates) when the goal is as ordered.
    let wanted = c.wanted_goal[row];
    if !(wanted.x.is_nan() && wanted.y.is_nan()) {
        within_map(["wanted_goal.x", "wanted_goal.y"], wanted)?;
    }
    if c.final_heading[row].is_infinite() {
        return Err(SpawnError::NotFinite {
            field: "final_heading",
            value: c.final_heading[row],
        });
    }
    let small = |field, value: u32, max: u32| {
        in_range(field, value as f32, Sign::NotNegative, max as f32)
    };
    finite("progress_m", c.progress_m[row])?;
    in_range("group_odometer", c.group_odometer[row], Sign::NotNegative, f32::MAX)?;
    if c.group[row] != NONE {
        small("group", c.group[row], MAX_GROUPS - 1)?;
    }
    in_range("stalled_s", c.stalled_s[row], Sign::NotNegative, f32::MAX)?;
    small("route_next", c.route_next[row], ROUTE_POINTS as u32)?;
    small("route_pending", u32::from(c.route_pending[row]), 2)?;
    small("move_state", u32::from(c.move_state[row]), 4)
}

/// Route corners (units' or platoons'), path goals and the clock.
pub(crate) fn check_points(
    section: &'static str,
    points: &[Vec2],
) -> Result<(), SnapshotError> {
    match points.iter().position(|&p| !on_map(p)) {
        Some(index) => Err(SnapshotError::BadValue {
            what: format!("{section}[{index}]"),
            value: f64::from(points[index].abs().max_element()),
            rule: "a point must be finite and within MAX_COORDINATE of 0 on each axis",
        }),
        None => Ok(()),
    }
}

/// Every waiting path request's goal is on the map.
pub(crate) fn check_requests(requests: &[PathRequest]) -> Result<(), SnapshotError> {
    let goals: Vec<Vec2> = requests.iter().map(|request| request.goal).collect();
    check_points("paths.goal", &goals)
}

/// The simulated clock is finite and not negative.
pub(crate) fn check_clock(time_s: f64) -> Result<(), SnapshotError> {
    if time_s.is_finite() && time_s >= 0.0 {
        Ok(())
    } else {
        Err(SnapshotError::BadValue {
            what: "meta.time_s".to_owned(),
            value: time_s,
            rule: "the clock must be finite and not negative",
        })
    }
}

/// The longest a route can be: [`ROUTE_POINTS`] legs, each at most the
/// diagonal of the coordinate range, metres.
const MAX_ROUTE_M: f32 = ROUTE_POINTS as f32 * 2.0 * std::f32::consts::SQRT_2 * MAX_COORDINATE;

/// Every live platoon's floats: finite where the formations stage reads
/// them, points on the map, spacing as [`crate::PlatoonSpec::validate`]
/// accepts it.
pub(crate) fn check_platoons(platoons: &Platoons) -> Result<(), SnapshotError> {
    for (index, platoon) in platoons.records().iter().enumerate() {
        if platoon.live != 1 {
            continue;
        }
        if let Some((field, value)) = bad_platoon_value(platoon) {
            return Err(SnapshotError::BadValue {
                what: format!("platoons[{index}].{field}"),
                value: f64::from(value),
                rule: "out of the range the platoon's spec and the map allow",
            });
        }
    }
    Ok(())
}

/// The first of `platoon`'s values out of range, by field name.
fn bad_platoon_value(p: &Platoon) -> Option<(&'static str, f32)> {
    let scalars = [
        ("morph", p.morph, (0.0..=1.0).contains(&p.morph)),
        ("heading", p.heading, p.heading.is_finite()),
        ("speed", p.speed, (0.0..=MAX_SPEED).contains(&p.speed)),
        ("facing", p.facing, !p.facing.is_infinite()),
        ("start_heading", p.start_heading, p.start_heading.is_finite()),
        ("travelled", p.travelled, p.travelled.abs() <= MAX_ROUTE_M),
        ("route_length", p.route_length, (0.0..=MAX_ROUTE_M).contains(&p.route_length)),
        ("route_pending", p.route_pending as f32, p.route_pending <= 1),
        ("spacing_m", p.spacing_m, p.spacing_m > 0.0 && p.spacing_m <= MAX_SPACING_M),
        ("lookahead_s", p.lookahead_s, (0.0..=MAX_SPACING_M).contains(&p.lookahead_s)),
        ("drift_m", p.drift_m, (0.0..=MAX_SPACING_M).contains(&p.drift_m)),
        ("leapfrog_m", p.leapfrog_m, (0.0..=MAX_SPACING_M).contains(&p.leapfrog_m)),
        ("leapfrog_hold_s", p.leapfrog_hold_s, (0.0..=MAX_LOOKAHEAD_S).contains(&p.leapfrog_hold_s)),
    ];
    let scalar = scalars.into_iter().find(|&(_, _, ok)| !ok);
    let points = [("position", p.position), ("goal", p.goal), ("path_start", p.path_start)]
        .into_iter()
        .chain(p.bridge_deck.map(|deck| ("bridge_deck", deck)))
        .chain(p.spots.map(|spot| ("spots", spot)))
        .chain(p.drift.map(|drift| ("drift", drift)))
        .chain(p.targets.map(|target| ("targets", target)))
        .chain(p.leap_point.map(|point| ("leap_point", point)).into_iter().filter(|(_, point)| !point.is_nan()));
    let point = points
        .map(|(field, point)| (field, point.abs().max_element(), on_map(point)))
        .find(|&(_, _, ok)| !ok);
    // A slot's cruise speed is infinite when nothing limits it.
    let arrays = (p.pull.iter().map(|&v| ("pull", v, v.is_finite())))
        .chain(p.bridge_span.iter().map(|&v| ("bridge_span", v, v.is_finite())))
        .chain(p.cruise.iter().map(|&v| ("cruise", v, v >= 0.0)))
        .chain(p.leap_hold.iter().map(|&v| ("leap_hold", v, v.is_finite() && v <= MAX_LOOKAHEAD_S)))
        .find(|&(_, _, ok)| !ok);
    scalar
        .or(point)
        .or(arrays)
        .map(|(field, value, _)| (field, value))
}
