//! The plugin in a headless `App`: entities with a `SpawnUnit` become
//! units, `MoveOrder`s move them, their `Transform`s follow the `Sim`, each
//! arrival comes back once as a `SimEvent` naming the entity, bad
//! components are refused with the kernel's error, despawned entities
//! despawn their units, and the headless example prints what it promises.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::process::Command;

use bevy_app::{App, Update};
use bevy_ecs::prelude::*;
use bevy_math::Vec3;
use bevy_time::{Fixed, Time, TimeUpdateStrategy};
use bevy_transform::components::Transform;
use convoy::glam::Vec2;
use convoy::{Bounds, Event, MoveState, OrderError, SimConfig, SpawnError, UnitSpec, VehicleKind};
use convoy_bevy::{
    ConvoyPlugin, ConvoySim, GroundPlane, MoveOrder, Refusal, Refused, SimEvent, SpawnUnit, Unit,
};

/// Every `SimEvent` and `Refused` message, in order.
#[derive(Resource, Default)]
struct Seen {
    events: Vec<SimEvent>,
    refused: Vec<Refused>,
}

fn collect(
    mut seen: ResMut<Seen>,
    mut events: MessageReader<SimEvent>,
    mut refused: MessageReader<Refused>,
) {
    seen.events.extend(events.read().copied());
    seen.refused.extend(refused.read().copied());
}

/// An app on an open field stepping one 60 Hz tick per update.
fn app(ground: GroundPlane) -> App {
    let mut app = App::new();
    app.add_plugins(ConvoyPlugin { ground })
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1))
        .init_resource::<Seen>()
        .add_systems(Update, collect);
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-500.0), Vec2::splat(500.0)));
    config.threads = 1;
    app.insert_resource(ConvoySim::from_config(config).unwrap());
    app
}

fn goal(k: usize) -> Vec2 {
    Vec2::new(30.0, 6.0 * k as f32 - 15.0)
}

#[test]
fn spawned_entities_arrive_with_their_transforms_and_one_event_each() {
    let mut app = app(GroundPlane::Xy);
    let entities: Vec<Entity> = (0..6)
        .map(|k| {
            let start = Vec2::new(-20.0, 4.0 * k as f32);
            let spec = UnitSpec::new(VehicleKind::Infantry, start);
            app.world_mut()
                .spawn((SpawnUnit(spec), MoveOrder(goal(k))))
                .id()
        })
        .collect();
    let mut updates = 0;
    while updates < 60 * 60 && arrivals(&app).len() < entities.len() {
        app.update();
        updates += 1;
    }
    let mut arrived = arrivals(&app);
    arrived.sort_unstable();
    let mut expected = entities.clone();
    expected.sort_unstable();
    assert_eq!(arrived, expected, "each entity arrives exactly once");
    // A few more ticks: nobody arrives twice.
    for _ in 0..30 {
        app.update();
    }
    assert_eq!(arrivals(&app).len(), entities.len());
    assert!(app.world().resource::<Seen>().refused.is_empty());

    for (k, &entity) in entities.iter().enumerate() {
        let world = app.world();
        assert!(
            world.get::<SpawnUnit>(entity).is_none(),
            "the spec is used up"
        );
        let Unit(unit) = *world.get::<Unit>(entity).unwrap();
        let sim = world.resource::<ConvoySim>();
        assert_eq!(sim.entity_of(unit), Some(entity));
        assert_eq!(sim.move_state(unit).unwrap(), MoveState::Arrived);
        let row = sim.vehicles().row_of(unit).unwrap();
        let position = sim.vehicles().columns().position()[row];
        let heading = sim.vehicles().columns().heading()[row];
        let transform = world.get::<Transform>(entity).unwrap();
        assert_eq!(
            transform.translation,
            Vec3::new(position.x, position.y, 0.0),
            "the transform is the unit's position"
        );
        let forward = transform.rotation * Vec3::X;
        assert!((forward - Vec3::new(heading.cos(), heading.sin(), 0.0)).length() < 1e-4);
        assert!(
            position.distance(goal(k)) < 2.5,
            "unit {k} stands {} m from its goal",
            position.distance(goal(k))
        );
    }
}

/// The entities of the `Arrived` events so far.
fn arrivals(app: &App) -> Vec<Entity> {
    let seen = app.world().resource::<Seen>();
    seen.events
        .iter()
        .filter(|message| matches!(message.event, Event::Arrived(_)))
        .map(|message| message.entity.unwrap())
        .collect()
}

#[test]
fn bad_components_are_refused_and_despawns_remove_units() {
    let mut app = app(GroundPlane::Xz);
    let bad_spec = UnitSpec::new(VehicleKind::Tracked, Vec2::new(f32::NAN, 0.0));
    let bad = app.world_mut().spawn(SpawnUnit(bad_spec)).id();
    let spec = UnitSpec::new(VehicleKind::Tracked, Vec2::new(10.0, 20.0));
    let kept = app.world_mut().spawn(SpawnUnit(spec)).id();
    let far = UnitSpec::new(VehicleKind::Tracked, Vec2::new(80.0, 20.0));
    let gone = app.world_mut().spawn(SpawnUnit(far)).id();
    app.update();
    app.update();

    let seen = app.world().resource::<Seen>();
    assert_eq!(seen.refused.len(), 1, "{:?}", seen.refused);
    assert_eq!(seen.refused[0].entity, bad);
    assert!(matches!(
        seen.refused[0].reason,
        Refusal::Spawn(SpawnError::NotFinite {
            field: "position.x",
            ..
        })
    ));
    assert!(app.world().get::<SpawnUnit>(bad).is_none(), "not retried");
    assert!(app.world().get::<Unit>(bad).is_none());
    assert_eq!(app.world().resource::<ConvoySim>().vehicles().len(), 2);

    // Y up: the unit at (10, 20) stands at x 10, z -20, facing +X (east).
    let transform = *app.world().get::<Transform>(kept).unwrap();
    assert_eq!(transform.translation, Vec3::new(10.0, 0.0, -20.0));
    assert!((transform.rotation * Vec3::X - Vec3::X).length() < 1e-5);

    app.world_mut()
        .entity_mut(kept)
        .insert(MoveOrder(Vec2::new(f32::INFINITY, 0.0)));
    app.update();
    let seen = app.world().resource::<Seen>();
    assert_eq!(seen.refused.len(), 2);
    assert_eq!(seen.refused[1].entity, kept);
    assert!(matches!(
        seen.refused[1].reason,
        Refusal::Order(OrderError::BadGoal(_))
    ));

    let Unit(gone_unit) = *app.world().get::<Unit>(gone).unwrap();
    app.world_mut().despawn(gone);
    app.update();
    let sim = app.world().resource::<ConvoySim>();
    assert_eq!(
        sim.vehicles().len(),
        1,
        "the despawned entity's unit is gone"
    );
    assert!(sim.move_state(gone_unit).is_err(), "its handle is stale");
    assert_eq!(sim.entity_of(gone_unit), None);
    let Unit(kept_unit) = *app.world().get::<Unit>(kept).unwrap();
    assert_eq!(sim.entity_of(kept_unit), Some(kept));
}

#[test]
fn the_headless_example_prints_every_arrival() {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let example: PathBuf = deps.join("../examples/headless");
    assert!(
        example.is_file(),
        "{} is missing: `cargo test -p convoy-bevy` builds the examples",
        example.display()
    );
    let run = Command::new(&example).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{}\n{stdout}", run.status);
    let arrivals = stdout
        .lines()
        .filter(|line| line.starts_with("arrived "))
        .count();
    assert_eq!(arrivals, 12, "{stdout}");
    assert!(
        stdout.contains("despawned 1 unit: 12 left of 13"),
        "{stdout}"
    );
    assert_eq!(stdout.lines().last(), Some("all 12 arrived"), "{stdout}");
}
