//! `Sim::set_unit_params` checks new parameters as a spawn does: a refused
//! call changes nothing (the checksum says so); an accepted one is in the
//! columns at once and drives the unit's motion from the next tick.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use convoy::glam::{Vec2, Vec3};
use convoy::nav::{Mobility, WorldMap, parse_map};
use convoy::{
    Bounds, FactionId, Map, ParamsError, QueryFilter, Sim, SimConfig, SpawnError, SteerMode,
    UnitSpec, VehicleKind,
};

fn open_field() -> Sim {
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-500.0), Vec2::splat(500.0)));
    config.threads = 1;
    Sim::new(config).unwrap()
}

#[test]
fn refused_parameters_change_nothing_and_name_the_field() {
    let mut sim = open_field();
    let tank = sim
        .spawn(&UnitSpec::new(VehicleKind::Tracked, Vec2::ZERO))
        .unwrap();
    sim.order_move(tank, Vec2::new(200.0, 0.0)).unwrap();
    sim.step(1.0 / 60.0);
    let before = sim.checksum();
    let good = UnitSpec::new(VehicleKind::Tracked, Vec2::ZERO).params();
    let mut bad = good;
    bad.max_speed = 2.0;
    bad.shield = Vec3::new(4.0, f32::NAN, 1.0);
    assert_eq!(
        sim.set_unit_params(tank, &bad).unwrap_err().to_string(),
        "unit spec `shield.lateral` must be finite, was NaN"
    );
    bad = good;
    bad.turn_radius = -1.0;
    assert_eq!(
        sim.set_unit_params(tank, &bad),
        Err(ParamsError::Invalid(SpawnError::Negative {
            field: "turn_radius",
            value: -1.0
        }))
    );
    bad.max_speed = 0.0;
    assert!(matches!(
        sim.set_unit_params(tank, &bad),
        Err(ParamsError::Invalid(SpawnError::NotPositive {
            field: "max_speed",
            ..
        }))
    ));
    assert_eq!(sim.checksum(), before, "refusals changed nothing");
    sim.despawn(tank).unwrap();
    assert!(matches!(
        sim.set_unit_params(tank, &good),
        Err(ParamsError::Stale(_))
    ));
}

#[test]
fn a_building_on_a_wall_cannot_be_made_movable() {
    let grid = parse_map("type octile\nheight 3\nwidth 3\nmap\n...\n.@.\n...\n").unwrap();
    let map = Arc::new(WorldMap::new(&grid, Mobility::GROUND, Vec2::ZERO, 8.0).unwrap());
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-10.0), Vec2::splat(40.0)));
    config.threads = 1;
    config.map = Map::Grid(Arc::clone(&map));
    let mut sim = Sim::new(config).unwrap();
    let mut spec = UnitSpec::new(VehicleKind::Infantry, Vec2::new(12.0, 12.0));
    spec.inv_mass = 0.0;
    let building = sim.spawn(&spec).unwrap();
    let before = sim.checksum();
    spec.inv_mass = 1.0;
    assert!(matches!(
        sim.set_unit_params(building, &spec.params()),
        Err(ParamsError::Invalid(SpawnError::NotOnOpenGround { .. }))
    ));
    assert_eq!(sim.checksum(), before);
    spec.inv_mass = 0.0;
    spec.shield = Vec3::splat(3.0);
    sim.set_unit_params(building, &spec.params()).unwrap();
    assert_eq!(sim.vehicles().columns().shield()[0], Vec3::splat(3.0));
}

#[test]
fn accepted_parameters_are_in_the_columns_and_drive_the_motion() {
    let mut sim = open_field();
    let spec = UnitSpec::new(VehicleKind::Tracked, Vec2::new(0.0, -100.0));
    let slowed = sim.spawn(&spec).unwrap();
    let twin = sim
        .spawn(&UnitSpec {
            position: Vec2::new(0.0, 100.0),
            ..spec
        })
        .unwrap();
    sim.order_move(slowed, Vec2::new(300.0, -100.0)).unwrap();
    sim.order_move(twin, Vec2::new(300.0, 100.0)).unwrap();
    let mut params = spec.params();
    params.max_speed = 3.0;
    params.steer_mode = SteerMode::DriveTo;
    params.faction = FactionId(7);
    sim.set_unit_params(slowed, &params).unwrap();
    let row = sim.vehicles().row_of(slowed).unwrap();
    let columns = sim.vehicles().columns();
    assert_eq!(columns.max_speed()[row], 3.0);
    assert_eq!(columns.steer_mode()[row], SteerMode::DriveTo as u8);
    assert_eq!(columns.faction()[row], 7);
    let mut fastest = 0.0f32;
    for _ in 0..600 {
        sim.step(1.0 / 60.0);
        let row = sim.vehicles().row_of(slowed).unwrap();
        fastest = fastest.max(sim.vehicles().columns().velocity()[row].length());
    }
    let x_of = |id| sim.vehicles().columns().position()[sim.vehicles().row_of(id).unwrap()].x;
    assert!(fastest <= 3.0 + 1e-4, "drove at {fastest} m/s");
    assert!(
        x_of(slowed) > 20.0 && x_of(slowed) <= 30.0 + 1e-3,
        "10 s at 3 m/s: {}",
        x_of(slowed)
    );
    assert!(
        x_of(twin) > 60.0,
        "the twin kept its 12 m/s: {}",
        x_of(twin)
    );
    let mut hits = Vec::new();
    let ours = QueryFilter {
        faction: Some(FactionId(7)),
        kind: None,
    };
    sim.units_within(Vec2::ZERO, 1000.0, ours, &mut hits)
        .unwrap();
    assert_eq!(hits.iter().map(|hit| hit.id).collect::<Vec<_>>(), [slowed]);
}
