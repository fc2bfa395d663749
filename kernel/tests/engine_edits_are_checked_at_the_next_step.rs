//! Values an engine writes through `Sim::columns_mut` are checked by the
//! next step against the ranges a spawn keeps: `try_step` refuses one out
//! of range, naming the unit and field, and changes nothing; `step` puts
//! it right as documented and the tick stays finite. One case per field
//! and kind of bad value.

#![allow(clippy::unwrap_used)]

use convoy::glam::Vec2;
use convoy::unit_limits::{MAX_COORDINATE, MAX_SIZE, MAX_SPEED};
use convoy::{
    Bounds, EngineColumns, Sim, SimConfig, SpawnError, StepError, UnitId, UnitSpec, VehicleKind,
};

const DT: f32 = 1.0 / 60.0;

/// A tank, a wheeled unit and a helicopter, ordered and stepped a few
/// ticks; returns the wheeled unit (the one every case edits).
fn world() -> (Sim, UnitId) {
    let config = SimConfig::new(Bounds::new(Vec2::splat(-500.0), Vec2::splat(500.0)));
    let mut sim = Sim::new(config).unwrap();
    let mut ids = Vec::new();
    for (k, kind) in [
        VehicleKind::Tracked,
        VehicleKind::Wheeled,
        VehicleKind::RotaryWing,
    ]
    .into_iter()
    .enumerate()
    {
        let id = sim
            .spawn(&UnitSpec::new(kind, Vec2::new(-100.0, 20.0 * k as f32)))
            .unwrap();
        sim.order_move(id, Vec2::new(200.0, 20.0 * k as f32))
            .unwrap();
        ids.push(id);
    }
    for _ in 0..20 {
        sim.step(DT);
    }
    (sim, ids[1])
}

/// Every float column the tick writes or reads, finite.
fn assert_finite(sim: &Sim) {
    let c = sim.vehicles().columns();
    for column in [
        c.position(),
        c.velocity(),
        c.desired_velocity(),
        c.drive_to(),
    ] {
        assert!(column.iter().all(|v| v.is_finite()), "{column:?}");
    }
    for column in [c.heading(), c.altitude(), c.max_speed(), c.turn_rate()] {
        assert!(column.iter().all(|v| v.is_finite()), "{column:?}");
    }
}

/// The field a refusal names, for `unit`.
fn refused_field(error: StepError, unit: UnitId) -> &'static str {
    let StepError::BadEdit {
        unit: named,
        source,
    } = error
    else {
        panic!("expected a bad edit, got {error}");
    };
    assert_eq!(named, unit, "{error}");
    match source {
        SpawnError::NotFinite { field, .. }
        | SpawnError::NotPositive { field, .. }
        | SpawnError::Negative { field, .. }
        | SpawnError::TooLarge { field, .. } => field,
        other => panic!("unexpected rule {other:?}"),
    }
}

/// One bad edit of the wheeled unit's row: `write` sets the field to a
/// value; `bad` is refused, and `step` puts `replacement` in its place.
struct Case {
    field: &'static str,
    write: fn(&mut EngineColumns<'_>, usize, f32),
    bad: f32,
    replacement: fn(&Sim, usize) -> f32,
}

fn spawned() -> UnitSpec {
    UnitSpec::new(VehicleKind::Wheeled, Vec2::ZERO)
}

fn cases() -> [Case; 13] {
    [
        Case {
            field: "position.x",
            write: |e, row, v| e.position[row].x = v,
            bad: f32::NAN,
            // Where it stood when last steered.
            replacement: |sim, row| sim.vehicles().columns().steered_from()[row].x,
        },
        Case {
            field: "position.y",
            write: |e, row, v| e.position[row].y = v,
            bad: 3.0 * MAX_COORDINATE,
            replacement: |_, _| MAX_COORDINATE,
        },
        Case {
            field: "velocity.x",
            write: |e, row, v| e.velocity[row].x = v,
            bad: f32::INFINITY,
            replacement: |_, _| MAX_COORDINATE,
        },
        Case {
            field: "velocity.y",
            write: |e, row, v| e.velocity[row].y = v,
            bad: f32::NAN,
            replacement: |_, _| 0.0,
        },
        Case {
            field: "heading",
            write: |e, row, v| e.heading[row] = v,
            bad: f32::NAN,
            replacement: |_, _| spawned().heading,
        },
        Case {
            field: "altitude",
            write: |e, row, v| e.altitude[row] = v,
            bad: -1e30,
            replacement: |_, _| -MAX_COORDINATE,
        },
        Case {
            field: "max_speed",
            write: |e, row, v| e.max_speed[row] = v,
            bad: f32::NEG_INFINITY,
            replacement: |_, _| spawned().max_speed,
        },
        Case {
            field: "max_speed",
            write: |e, row, v| e.max_speed[row] = v,
            bad: 1e20,
            replacement: |_, _| MAX_SPEED,
        },
        Case {
            field: "max_accel",
            write: |e, row, v| e.max_accel[row] = v,
            bad: 0.0,
            replacement: |_, _| spawned().max_accel,
        },
        Case {
            field: "max_brake",
            write: |e, row, v| e.max_brake[row] = v,
            bad: -1.0,
            replacement: |_, _| spawned().max_brake,
        },
        Case {
            field: "turn_rate",
            write: |e, row, v| e.turn_rate[row] = v,
            bad: f32::NAN,
            replacement: |_, _| spawned().turn_rate,
        },
        Case {
            field: "turn_radius",
            write: |e, row, v| e.turn_radius[row] = v,
            bad: -3.0,
            replacement: |_, _| 0.0,
        },
        Case {
            field: "turn_radius",
            write: |e, row, v| e.turn_radius[row] = v,
            bad: f32::INFINITY,
            replacement: |_, _| MAX_SIZE,
        },
    ]
}

#[test]
fn try_step_refuses_each_bad_edit_by_unit_and_field_and_changes_nothing() {
    for case in cases() {
        let (mut sim, unit) = world();
        let row = sim.vehicles().row_of(unit).unwrap();
        (case.write)(&mut sim.columns_mut(), row, case.bad);
        let (before, tick) = (sim.checksum(), sim.tick_count());
        let error = sim.try_step(DT).unwrap_err();
        assert_eq!(refused_field(error, unit), case.field, "{error}");
        assert!(error.to_string().contains(case.field), "{error}");
        assert_eq!(
            sim.checksum(),
            before,
            "{}: the refusal changed the state",
            case.field
        );
        assert_eq!(sim.tick_count(), tick);
        // Refused again until the engine puts it right, then stepped.
        let again = sim.try_step(DT).unwrap_err();
        assert_eq!(again.to_string(), error.to_string());
        let replacement = (case.replacement)(&sim, row);
        (case.write)(&mut sim.columns_mut(), row, replacement);
        sim.try_step(DT).unwrap();
        assert_eq!(sim.tick_count(), tick + 1);
    }
}

#[test]
fn step_puts_each_bad_edit_right_as_documented_and_ticks_finite() {
    for case in cases() {
        // The same world with the documented replacement written instead.
        let (mut sim, unit) = world();
        let (mut twin, _) = world();
        let row = sim.vehicles().row_of(unit).unwrap();
        (case.write)(&mut sim.columns_mut(), row, case.bad);
        let replacement = (case.replacement)(&twin, row);
        (case.write)(&mut twin.columns_mut(), row, replacement);
        sim.step(DT);
        twin.step(DT);
        assert_eq!(sim.checksum(), twin.checksum(), "{}", case.field);
        for _ in 0..120 {
            sim.try_step(DT).unwrap();
            assert_finite(&sim);
        }
    }
}

#[test]
fn edits_in_range_are_stepped_as_written() {
    let (mut sim, unit) = world();
    let row = sim.vehicles().row_of(unit).unwrap();
    {
        let columns = sim.columns_mut();
        columns.position[row] = Vec2::splat(-MAX_COORDINATE);
        columns.velocity[row] = Vec2::new(MAX_COORDINATE, 0.0);
        columns.heading[row] = 1e30;
        columns.max_speed[row] = MAX_SPEED;
        columns.turn_radius[row] = 0.0;
    }
    let mut twin = sim.clone();
    twin.step(DT);
    sim.try_step(DT).unwrap();
    assert_eq!(sim.checksum(), twin.checksum());
    assert_eq!(sim.vehicles().columns().max_speed()[row], MAX_SPEED);
    assert_finite(&sim);
}

#[test]
fn a_copy_keeps_edits_not_yet_stepped_and_checks_them_as_the_original() {
    let (mut sim, unit) = world();
    let row = sim.vehicles().row_of(unit).unwrap();
    sim.columns_mut().max_speed[row] = f32::NAN;
    let mut copy = sim.clone();
    assert_eq!(copy.checksum(), sim.checksum());
    let error = copy.try_step(DT).unwrap_err();
    assert_eq!(refused_field(error, unit), "max_speed");
    let original = sim.try_step(DT).unwrap_err();
    assert_eq!(original.to_string(), error.to_string());
    sim.step(DT);
    copy.step(DT);
    assert_eq!(copy.checksum(), sim.checksum());
}

#[test]
fn a_bad_dt_is_still_refused_first() {
    let (mut sim, _) = world();
    sim.columns_mut().heading[0] = f32::NAN;
    let error = sim.try_step(f32::NAN).unwrap_err();
    assert!(
        matches!(error, StepError::BadDt(dt) if dt.is_nan()),
        "{error}"
    );
}
