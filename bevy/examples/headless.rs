//! A headless Bevy app moving convoy units: two squads of six soldiers
//! (factions 0 and 1) trade places across an open field, a thirteenth unit
//! is despawned with its entity, and every arrival is printed from the
//! plugin's `SimEvent` messages. Exits 1 unless all twelve arrive within
//! 60 simulated seconds.
//!
//! ```sh
//! cargo run -p convoy-bevy --example headless
//! ```

use bevy_app::{App, Startup, Update};
use bevy_ecs::prelude::*;
use bevy_time::{Fixed, Time, TimeUpdateStrategy};
use convoy::glam::Vec2;
use convoy::{Bounds, Event, FactionId, SimConfig, UnitSpec, VehicleKind};
use convoy_bevy::{ConvoyPlugin, ConvoySim, MoveOrder, SimEvent, SpawnUnit, Unit};

/// The unit despawned after a second.
#[derive(Component)]
struct Doomed;

/// How many units arrived.
#[derive(Resource, Default)]
struct Arrivals(usize);

fn main() {
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-200.0), Vec2::splat(200.0)));
    config.threads = 1;
    let sim = match ConvoySim::from_config(config) {
        Ok(sim) => sim,
        Err(error) => {
            eprintln!("cannot build the world: {error}");
            std::process::exit(1);
        }
    };
    let mut app = App::new();
    app.add_plugins(ConvoyPlugin::default())
        .insert_resource(sim)
        .insert_resource(Time::<Fixed>::from_hz(60.0))
        // One fixed tick per update, as fast as the machine goes.
        .insert_resource(TimeUpdateStrategy::FixedTimesteps(1))
        .init_resource::<Arrivals>()
        .add_systems(Startup, spawn_squads)
        .add_systems(Update, print_arrivals);

    for tick in 1..=60 * 60 {
        app.update();
        if tick == 60 {
            despawn_doomed(app.world_mut());
        }
        if app.world().resource::<Arrivals>().0 == 12 {
            break;
        }
    }
    let arrived = app.world().resource::<Arrivals>().0;
    if arrived == 12 {
        println!("all 12 arrived");
    } else {
        println!("only {arrived} of 12 arrived");
        std::process::exit(1);
    }
}

/// Two squads facing each other 40 m apart, each ordered to the other's
/// place, and one more unit to despawn.
fn spawn_squads(mut commands: Commands) {
    for side in 0..2u16 {
        let x = if side == 0 { -20.0 } else { 20.0 };
        for k in 0..6 {
            let start = Vec2::new(x, 3.0 * k as f32 - 7.5);
            let spec = UnitSpec::new(VehicleKind::Infantry, start).with_faction(FactionId(side));
            commands.spawn((SpawnUnit(spec), MoveOrder(Vec2::new(-x, start.y))));
        }
    }
    let spec = UnitSpec::new(VehicleKind::Tracked, Vec2::new(0.0, 60.0));
    commands.spawn((SpawnUnit(spec), Doomed));
}

/// Prints each arrival with its entity and time.
fn print_arrivals(
    mut events: MessageReader<SimEvent>,
    sim: Res<ConvoySim>,
    mut arrivals: ResMut<Arrivals>,
) {
    for message in events.read() {
        if let (Event::Arrived(_), Some(entity)) = (message.event, message.entity) {
            arrivals.0 += 1;
            println!("arrived {entity} at {:.2} s", sim.time_s());
        }
    }
}

/// Despawns the doomed unit's entity: the plugin removes its unit.
fn despawn_doomed(world: &mut World) {
    let doomed: Vec<Entity> = world
        .query_filtered::<Entity, (With<Doomed>, With<Unit>)>()
        .iter(world)
        .collect();
    let before = world.resource::<ConvoySim>().vehicles().len();
    for entity in &doomed {
        world.despawn(*entity);
    }
    let after = world.resource::<ConvoySim>().vehicles().len();
    println!(
        "despawned {} unit: {after} left of {before}",
        before - after
    );
}
