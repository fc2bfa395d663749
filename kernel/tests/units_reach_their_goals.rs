//! The minimal stages really move units: seek with arrival and kinematic
//! integration bring every unit to rest at its goal, within its limits.

#![allow(clippy::unwrap_used)]

use convoy::data::vehicles::ARRIVE_RADIUS;
use convoy::glam::Vec2;
use convoy::{Bounds, Sim, SimConfig, UnitSpec, VehicleKind};

fn open_world() -> Sim {
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-500.0), Vec2::splat(500.0)));
    config.threads = 1;
    Sim::new(config).unwrap()
}

#[test]
fn a_lone_unit_drives_to_its_goal_and_stops_there() {
    let mut sim = open_world();
    let mut spec = UnitSpec::new(VehicleKind::Wheeled, Vec2::new(-200.0, 10.0));
    spec.goal = Vec2::new(150.0, -40.0);
    let id = sim.spawn(&spec).unwrap();
    let dt = 1.0 / 60.0;
    let mut fastest = 0.0f32;
    for _ in 0..60 * 60 {
        sim.step(dt);
        let row = sim.vehicles().row_of(id).unwrap();
        fastest = fastest.max(sim.vehicles().columns().velocity()[row].length());
    }
    let row = sim.vehicles().row_of(id).unwrap();
    let columns = sim.vehicles().columns();
    assert!(
        columns.position()[row].distance(spec.goal) <= ARRIVE_RADIUS,
        "{:?}",
        columns.position()[row]
    );
    assert!(
        columns.velocity()[row].length() < 1e-3,
        "still moving: {:?}",
        columns.velocity()[row]
    );
    assert!(
        fastest <= spec.max_speed * (1.0 + 1e-6),
        "{fastest} > {}",
        spec.max_speed
    );
    assert!(
        fastest > 0.9 * spec.max_speed,
        "never reached cruising speed: {fastest}"
    );
    let heading = columns.heading()[row];
    let travel = spec.goal - spec.position;
    assert!(
        (heading - travel.y.atan2(travel.x)).abs() < 0.05,
        "faces the way it drove: {heading}"
    );
}

#[test]
fn acceleration_never_exceeds_the_unit_limit() {
    let mut sim = open_world();
    let mut spec = UnitSpec::new(VehicleKind::Tracked, Vec2::ZERO);
    spec.goal = Vec2::new(300.0, 0.0);
    let id = sim.spawn(&spec).unwrap();
    let dt = 1.0 / 30.0;
    let mut previous = Vec2::ZERO;
    for _ in 0..600 {
        sim.step(dt);
        let velocity = sim.vehicles().columns().velocity()[sim.vehicles().row_of(id).unwrap()];
        let accel = (velocity - previous).length() / dt;
        assert!(
            accel <= spec.max_accel * 1.0001,
            "accelerated at {accel} m/s²"
        );
        previous = velocity;
    }
}

#[test]
fn move_orders_go_through_the_path_queue_and_stale_units_are_refused() {
    let mut sim = open_world();
    let id = sim
        .spawn(&UnitSpec::new(VehicleKind::Infantry, Vec2::ZERO))
        .unwrap();
    sim.order_move(id, Vec2::new(20.0, 0.0)).unwrap();
    assert_eq!(sim.open_path_requests(), 1);
    assert!(sim.order_move(id, Vec2::new(f32::NAN, 0.0)).is_err());
    for _ in 0..60 * 20 {
        sim.step(1.0 / 60.0);
    }
    assert_eq!(sim.open_path_requests(), 0);
    let row = sim.vehicles().row_of(id).unwrap();
    assert!(
        sim.vehicles().columns().position()[row].distance(Vec2::new(20.0, 0.0)) <= ARRIVE_RADIUS
    );
    sim.despawn(id).unwrap();
    assert!(sim.order_move(id, Vec2::ZERO).is_err());
}

#[test]
fn immovable_units_are_not_pushed_and_overlapping_units_are() {
    let mut sim = open_world();
    let mut wall = UnitSpec::new(VehicleKind::Tracked, Vec2::ZERO);
    wall.inv_mass = 0.0;
    let wall_id = sim.spawn(&wall).unwrap();
    let tank = sim
        .spawn(&UnitSpec::new(VehicleKind::Tracked, Vec2::new(1.0, 0.0)))
        .unwrap();
    sim.step(1.0 / 60.0);
    let columns = sim.vehicles().columns();
    assert_eq!(
        columns.position()[sim.vehicles().row_of(wall_id).unwrap()],
        Vec2::ZERO
    );
    let pushed = columns.position()[sim.vehicles().row_of(tank).unwrap()];
    assert!(
        pushed.x > 1.0,
        "the movable tank was pushed east: {pushed:?}"
    );
}
