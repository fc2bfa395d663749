//! Extreme values through the API: refused with a typed error naming the
//! field and its range, or harmless — any spawn and order accepted leaves
//! every column finite for 60 ticks.

#![allow(clippy::unwrap_used)]

use convoy::glam::{Vec2, Vec3};
use convoy::unit_limits::{
    MAX_ACCEL, MAX_COORDINATE, MAX_INV_MASS, MAX_SIZE, MAX_SPEED, MAX_TURN_RATE,
};
use convoy::{
    Bounds, Formation, OrderError, PlatoonError, PlatoonSpec, Sim, SimConfig, SpawnError,
    SteerMode, UnitSpec, VehicleKind,
};
use proptest::prelude::*;

/// One thread, so no pool: each of the 128 cases steps a handful of units
/// 60 times, and waking a pool's workers for that costs more than the work
/// (the bits are the same on any thread count).
fn sim() -> Sim {
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-1000.0), Vec2::splat(1000.0)));
    config.threads = 1;
    Sim::new(config).unwrap()
}

/// Every float a tick writes or reads, finite (`final_heading` may be NaN:
/// no facing wanted).
fn assert_finite(sim: &Sim, tick: usize) {
    let c = sim.vehicles().columns();
    let vectors = [
        c.position(),
        c.velocity(),
        c.drive_to(),
        c.desired_velocity(),
    ];
    for (k, column) in vectors.iter().enumerate() {
        assert!(
            column.iter().all(|v| v.is_finite()),
            "vector column {k} after tick {tick}: {column:?}"
        );
    }
    let scalars = [c.heading(), c.altitude(), c.progress_m(), c.stalled_s()];
    for (k, column) in scalars.iter().enumerate() {
        assert!(
            column.iter().all(|v| v.is_finite()),
            "scalar column {k} after tick {tick}: {column:?}"
        );
    }
}

fn step_finite(sim: &mut Sim, ticks: usize) {
    for tick in 0..ticks {
        sim.step(1.0 / 60.0);
        assert_finite(sim, tick);
    }
}

#[test]
fn a_wheeled_unit_at_1e30_metres_per_second_is_refused_and_at_the_limit_stays_finite() {
    let mut sim = sim();
    let mut spec = UnitSpec::new(VehicleKind::Wheeled, Vec2::ZERO);
    spec.max_speed = 1e30;
    let error = sim.spawn(&spec).unwrap_err();
    assert_eq!(
        error,
        SpawnError::TooLarge {
            field: "max_speed",
            value: 1e30,
            max: MAX_SPEED
        }
    );
    assert!(error.to_string().contains("at most 1000"), "{error}");
    spec.max_speed = MAX_SPEED;
    spec.max_accel = MAX_ACCEL;
    let unit = sim.spawn(&spec).unwrap();
    sim.order_move(unit, Vec2::new(-900.0, 700.0)).unwrap();
    step_finite(&mut sim, 120);
}

#[test]
fn a_unit_at_f32_max_is_refused_and_one_at_the_map_limit_crosses_finite() {
    let mut sim = sim();
    let far = UnitSpec::new(VehicleKind::Tracked, Vec2::new(f32::MAX, 0.0));
    assert!(matches!(
        sim.spawn(&far),
        Err(SpawnError::TooLarge {
            field: "position.x",
            max: MAX_COORDINATE,
            ..
        })
    ));
    let edge = UnitSpec::new(VehicleKind::Tracked, Vec2::new(MAX_COORDINATE, 0.0));
    let unit = sim.spawn(&edge).unwrap();
    assert!(matches!(
        sim.order_move(unit, Vec2::new(-f32::MAX, 0.0)),
        Err(OrderError::BadGoal(_))
    ));
    sim.order_move(unit, Vec2::new(-MAX_COORDINATE, 0.0))
        .unwrap();
    step_finite(&mut sim, 60);
}

#[test]
fn goals_beyond_the_coordinate_limit_are_refused_everywhere() {
    let mut sim = sim();
    let mut spec = UnitSpec::new(VehicleKind::Infantry, Vec2::ZERO);
    spec.goal = Vec2::new(0.0, -2.0 * MAX_COORDINATE);
    assert!(matches!(
        sim.spawn(&spec),
        Err(SpawnError::TooLarge {
            field: "goal.y",
            ..
        })
    ));
    spec.goal = Vec2::ZERO;
    let units: Vec<_> = (0..3).map(|_| sim.spawn(&spec).unwrap()).collect();
    let beyond = Vec2::new(1.5 * MAX_COORDINATE, 0.0);
    assert_eq!(
        sim.order_move(units[0], beyond),
        Err(OrderError::BadGoal(beyond))
    );
    assert_eq!(
        sim.order_group(&units, beyond, Vec2::ZERO),
        Err(OrderError::BadGoal(beyond))
    );
    let platoon = sim
        .create_platoon(&units, &PlatoonSpec::force21(Formation::Line))
        .unwrap();
    assert!(matches!(
        sim.order_platoon(platoon, beyond, None),
        Err(PlatoonError::BadOrder { key: "goal.x", .. })
    ));
    let mut wide = PlatoonSpec::force21(Formation::Line);
    wide.spacing_m = 1e30;
    assert!(matches!(
        wide.validate(),
        Err(PlatoonError::BadSpec {
            key: "spacing_m",
            ..
        })
    ));
}

/// A value in `(0, max]`, often at either end.
fn positive(max: f32) -> impl Strategy<Value = f32> {
    prop_oneof![Just(max), Just(1e-6f32), 1e-3f32..max]
}

fn coordinate() -> impl Strategy<Value = f32> {
    prop_oneof![
        Just(MAX_COORDINATE),
        Just(-MAX_COORDINATE),
        -1000.0f32..1000.0,
        -20.0f32..20.0,
        -MAX_COORDINATE..MAX_COORDINATE,
    ]
}

prop_compose! {
    fn spec()(
        kind in 0u8..5,
        steer in 0u8..3,
        x in coordinate(), y in coordinate(),
        heading in -1e6f32..1e6,
        max_speed in positive(MAX_SPEED),
        max_accel in positive(MAX_ACCEL),
        max_brake in positive(MAX_ACCEL),
        turn_rate in positive(MAX_TURN_RATE),
        turn_radius in prop_oneof![Just(0.0f32), positive(MAX_SIZE)],
        shield in (positive(MAX_SIZE), positive(MAX_SIZE), positive(MAX_SIZE)),
        inv_mass in prop_oneof![Just(0.0f32), positive(MAX_INV_MASS)],
    ) -> UnitSpec {
        let kind = VehicleKind::ALL[usize::from(kind)];
        let mut spec = UnitSpec::new(kind, Vec2::new(x, y));
        spec.heading = heading;
        spec.max_speed = max_speed;
        spec.max_accel = max_accel;
        spec.max_brake = max_brake;
        spec.turn_rate = turn_rate;
        spec.turn_radius = turn_radius;
        spec.shield = Vec3::new(shield.0, shield.1, shield.2);
        spec.inv_mass = inv_mass;
        spec.steer_mode = SteerMode::from_u8(steer).unwrap();
        spec
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn any_accepted_spawn_and_order_stays_finite_for_60_ticks(
        specs in prop::collection::vec(spec(), 1..5),
        goals in prop::collection::vec((coordinate(), coordinate()), 5),
    ) {
        let mut sim = sim();
        for (spec, goal) in specs.iter().zip(&goals) {
            let unit = sim.spawn(spec).unwrap();
            sim.order_move(unit, Vec2::new(goal.0, goal.1)).unwrap();
        }
        step_finite(&mut sim, 60);
    }
}
