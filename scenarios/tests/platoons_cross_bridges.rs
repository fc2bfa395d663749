//! Platoons on a polygon map with a bridge (Force 21 §3, "Bridges"): one
//! platoon on a bridge at a time while the others wait at its end; a
//! platoon crosses in column and takes its own shape again beyond; nobody
//! drives into the river; the formation error stays bounded; the result
//! is the same on 1 and 2 threads and after a snapshot.

#[path = "../../kernel/tests/river/mod.rs"]
mod river;

use std::f32::consts::PI;
use std::sync::Arc;

use convoy::data::platoons::{Phase, Platoon, to_world};
use convoy::data::vehicles::NONE;
use convoy::glam::{DVec2, Vec2};
use convoy::nav::polygon::{BridgeSpec, PolygonMap, rasterize};
use convoy::nav::{Cell, FactionId, PolygonNavigator};
use convoy::{Formation, PlatoonId, PlatoonSpec, Sim, SimConfig, UnitId, UnitSpec, VehicleKind};
use river::{inside_an_obstacle, on_bridge, river};

const DT: f32 = 1.0 / 30.0;
const TICKS: usize = 9_000;

/// Routes from the visibility graph, local checks on the map's 5 m raster.
fn sim_with(nav: &Arc<PolygonNavigator>, threads: usize) -> Sim {
    let (map, _) = river();
    let mut config = SimConfig::new(convoy::Bounds::new(Vec2::splat(-50.0), Vec2::splat(1050.0)));
    config.threads = threads;
    config.map = convoy::Map::Polygon {
        navigator: Arc::clone(nav),
        raster: Arc::new(rasterize(&map, 5.0).expect("valid cell size")),
    };
    config.separation_iterations = 0;
    Sim::new(config).expect("valid config")
}

/// A wedge of four tanks of `faction` standing in its slots round `lead`,
/// facing `heading`, ordered to `goal`.
fn wedge(sim: &mut Sim, (lead, heading): (Vec2, f32), goal: Vec2, faction: u16) -> PlatoonId {
    let mut spec = PlatoonSpec::force21(Formation::Wedge);
    spec.faction = faction;
    let members: Vec<UnitId> = (0..4)
        .map(|k| {
            let offset = spec.formation.offset(k) * spec.spacing_m;
            let mut unit = UnitSpec::new(VehicleKind::Tracked, lead + to_world(offset, heading));
            unit.heading = heading;
            sim.spawn(&unit).expect("valid unit")
        })
        .collect();
    let id = sim.create_platoon(&members, &spec).expect("valid platoon");
    sim.order_platoon(id, goal, None).expect("valid order");
    id
}

/// Two wedges the same distance from the bridge (at y = 200, the only
/// crossing south of y = 850) on either bank, ordered across it in
/// opposite directions: without turns they would meet on the deck.
fn two_wedges(nav: &Arc<PolygonNavigator>, threads: usize) -> Sim {
    let mut sim = sim_with(nav, threads);
    let (west, east) = (Vec2::new(250.0, 200.0), Vec2::new(750.0, 200.0));
    wedge(&mut sim, (west, 0.0), east + Vec2::new(100.0, 0.0), 0);
    wedge(&mut sim, (east, PI), west - Vec2::new(100.0, 0.0), 0);
    sim
}

/// What a run saw.
#[derive(Debug, Default)]
struct Seen {
    /// Ticks until every platoon arrived (0: never).
    arrived_at: usize,
    /// Ticks some platoon spent stopped at the bridge's end.
    waited: usize,
    /// Whether a platoon on the bridge was ever in anything but a column.
    off_column_on_bridge: bool,
    /// Formation error while moving, mean and max, metres.
    mean_error_m: f64,
    worst_error_m: f32,
}

fn platoon_on_deck(sim: &Sim, map: &PolygonMap, platoon: &Platoon) -> bool {
    platoon.occupied().any(|(_, unit)| {
        let row = sim.vehicles().row_of(unit).expect("live");
        on_bridge(map, sim.vehicles().columns().position()[row])
    })
}

/// Steps until every platoon has arrived, asserting each tick that no unit
/// is in the river or another obstacle and that the members of at most one
/// platoon are on the bridge.
fn run(sim: &mut Sim, map: &PolygonMap) -> Seen {
    let mut seen = Seen::default();
    let (mut sum, mut samples) = (0.0, 0u64);
    for tick in 0..TICKS {
        sim.step(DT);
        for (row, &position) in sim.vehicles().columns().position().iter().enumerate() {
            assert!(
                !inside_an_obstacle(map, position),
                "row {row} is in an obstacle at {position} (tick {tick})"
            );
        }
        let on_deck: Vec<&Platoon> = sim
            .platoons()
            .iter()
            .map(|(_, platoon)| platoon)
            .filter(|platoon| platoon_on_deck(sim, map, platoon))
            .collect();
        assert!(
            on_deck.len() <= 1,
            "two platoons on the bridge (tick {tick})"
        );
        seen.off_column_on_bridge |= on_deck
            .iter()
            .any(|platoon| platoon.on_bridge == 1 && platoon.formation() != Formation::Column);
        let mut all_arrived = true;
        for (_, platoon) in sim.platoons().iter() {
            all_arrived &= platoon.phase() == Phase::Arrived;
            let stopped_at_bridge = platoon.phase() == Phase::Moving
                && platoon.bridge != NONE
                && platoon.on_bridge == 0
                && platoon.travelled >= platoon.travel_limit();
            seen.waited += usize::from(stopped_at_bridge);
            if platoon.phase() == Phase::Moving && tick >= 60 {
                for &error in platoon.error.iter().filter(|e| e.is_finite()) {
                    seen.worst_error_m = seen.worst_error_m.max(error);
                    sum += f64::from(error);
                    samples += 1;
                }
            }
        }
        if all_arrived {
            seen.arrived_at = tick;
            break;
        }
    }
    seen.mean_error_m = sum / samples.max(1) as f64;
    seen
}

#[test]
fn two_platoons_take_turns_on_the_bridge_and_both_arrive() {
    let (map, nav) = river();
    let mut sim = two_wedges(&nav, 2);
    let seen = run(&mut sim, &map);
    assert!(seen.arrived_at > 0, "not every platoon arrived: {seen:?}");
    // Both reach the bridge at about the same time: one waits for the
    // other to clear it.
    assert!(seen.waited > 30, "nobody waited at the bridge: {seen:?}");
    assert!(!seen.off_column_on_bridge, "{seen:?}");
    // Every unit now stands on the other bank, and the bridge is free.
    for (id, platoon) in sim.platoons().iter() {
        for (_, unit) in platoon.occupied() {
            let row = sim.vehicles().row_of(unit).expect("live");
            let x = sim.vehicles().columns().position()[row].x;
            let crossed = if id.index == 0 { x > 540.0 } else { x < 460.0 };
            assert!(
                crossed,
                "a unit of platoon {} at x = {x} never crossed",
                id.index
            );
        }
        assert_eq!((platoon.bridge, platoon.on_bridge), (NONE, 0));
        // Back in the ordered shape after the column on the bridge.
        assert_eq!(platoon.formation(), Formation::Wedge);
    }
    // Closing into a column and opening again are the error's peaks: under
    // three quarters of a spacing (9 m) on average, four at most (measured:
    // 5.9 m and 35 m).
    let spacing = PlatoonSpec::default().spacing_m;
    assert!(seen.mean_error_m < 0.75 * f64::from(spacing), "{seen:?}");
    assert!(seen.worst_error_m < 4.0 * spacing, "{seen:?}");
}

#[test]
fn a_bridge_crossing_is_the_same_on_one_and_two_threads_and_after_a_snapshot() {
    let (_, nav) = river();
    let (mut one, mut two) = (two_wedges(&nav, 1), two_wedges(&nav, 2));
    // Step until a platoon holds the bridge and another waits for it.
    let mut held = false;
    for _ in 0..TICKS {
        one.step(DT);
        two.step(DT);
        assert_eq!(one.checksum(), two.checksum());
        let holds = |sim: &Sim| sim.platoons().iter().any(|(_, p)| p.on_bridge == 1);
        let waits = |sim: &Sim| {
            sim.platoons().iter().any(|(_, p)| {
                p.bridge != NONE && p.on_bridge == 0 && p.travelled >= p.travel_limit()
            })
        };
        if holds(&one) && waits(&one) {
            held = true;
            break;
        }
    }
    assert!(
        held,
        "no tick with one platoon on the bridge and one waiting"
    );
    let mut saved = Vec::new();
    one.save(&mut saved).expect("valid");
    let mut restored = sim_with(&nav, 2);
    restored.restore(&mut saved.as_slice()).expect("valid");
    for _ in 0..600 {
        one.step(DT);
        restored.step(DT);
    }
    assert_eq!(restored.checksum(), one.checksum());
}

/// Every unit that does not fly: its row and position.
fn ground_units(sim: &Sim) -> impl Iterator<Item = (usize, Vec2)> + '_ {
    let columns = sim.vehicles().columns();
    (0..sim.vehicles().len())
        .filter(move |&row| {
            VehicleKind::from_u8(columns.kind()[row]).is_none_or(|kind| !kind.handling().flies)
        })
        .map(move |row| (row, columns.position()[row]))
}

/// The `river` profile: platoons scattered over both banks of the polygon
/// map (on its raster's open cells) and ordered across it. No ground unit
/// starts or ever stands in the river or a building, and platoons queue at
/// the bridge.
#[test]
fn the_river_profile_keeps_ground_units_out_of_the_river_and_the_buildings() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../profiles/river.toml");
    let profile =
        convoy_scenarios::Profile::load(std::path::Path::new(path)).expect("the profile loads");
    let mut sim = convoy_scenarios::build(&profile, 2).expect("the profile builds");
    let mut orders = convoy_scenarios::Orders::new(&profile, &sim);
    let (map, _) = river();
    let mut queued_at_bridge = 0;
    for tick in 0..2400 {
        orders.before_step(&mut sim).expect("valid orders");
        sim.step(profile.run.dt);
        if tick % 10 != 0 {
            continue;
        }
        for (row, position) in ground_units(&sim) {
            assert!(
                !inside_an_obstacle(&map, position),
                "row {row} is in an obstacle at {position} (tick {tick})"
            );
        }
        queued_at_bridge += sim
            .platoons()
            .iter()
            .filter(|(_, p)| {
                p.bridge != NONE && p.on_bridge == 0 && p.travelled >= p.travel_limit()
            })
            .count();
    }
    assert!(queued_at_bridge > 0, "no platoon ever waited at the bridge");
}

/// The `skirmish` profile cut to 400 platoons on its polygon field: no
/// ground unit ever stands on a blocked cell of the field's 6 m raster —
/// in the river, a building or a forest — although wheeled units cut
/// corners on their turning circles and members drive at unseen slots
/// while their own paths wait in the queue (`integrate` stops them at
/// walls: without that, units stood on blocked cells from tick 200 on and
/// one drove 6 m into a building); and platoons take turns on both
/// bridges.
#[test]
fn the_skirmish_keeps_ground_units_off_blocked_cells_and_crosses_both_bridges() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../profiles/skirmish.toml");
    let mut profile =
        convoy_scenarios::Profile::load(std::path::Path::new(path)).expect("the profile loads");
    profile.scenario.units = 2000;
    // Orders anywhere on the field, so platoons have the river to cross.
    profile.platoons.order_range_m = 0.0;
    let mut sim = convoy_scenarios::build(&profile, 2).expect("the profile builds");
    let mut orders = convoy_scenarios::Orders::new(&profile, &sim);
    let field = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../profiles/maps/skirmish_field.json"
    );
    let map = convoy::nav::polygon::load_polygon_map(field).expect("the field loads");
    let raster =
        rasterize(&map, profile.map.as_ref().expect("a map").cell_size_m).expect("valid cell size");
    let mut crossed = std::collections::BTreeSet::new();
    for tick in 0..1800 {
        orders.before_step(&mut sim).expect("valid orders");
        sim.step(profile.run.dt);
        for (_, platoon) in sim.platoons().iter() {
            if platoon.on_bridge == 1 {
                crossed.insert(platoon.bridge);
            }
        }
        for (row, position) in ground_units(&sim) {
            assert!(
                raster.is_open(position),
                "row {row} stands on a blocked cell at {position} (tick {tick})"
            );
        }
    }
    let (stages, _) = sim.report();
    let integrate = stages
        .iter()
        .find(|stage| stage.name == "integrate")
        .expect("a stage");
    let stopped_at_walls = integrate.counters["stopped_at_walls"];
    assert!(
        stopped_at_walls > 0.0,
        "no wall ever stopped a unit: the test tests nothing"
    );
    assert_eq!(crossed.len(), 2, "bridges crossed: {crossed:?}");
}

/// Bridges removed at run time (Force 21 §3): each faction plans with what
/// it knows. Faction 0 is told of the removal: ordered again, it plans
/// round the river's north end at once. Faction 1 is not: it drives on to
/// the bridge, finds it gone, learns so and replans. Nobody crosses on the
/// removed deck, and both arrive on the east bank.
#[test]
fn a_removed_bridge_is_planned_around_by_those_told_and_discovered_by_the_others() {
    let (map, _) = river();
    let config = convoy::nav::GraphConfig {
        clearance: 4.0,
        road_cost_factor: 0.5,
    };
    let nav = Arc::new(PolygonNavigator::build(&map, config, 2).expect("the graph builds"));
    let mut sim = sim_with(&nav, 2);
    let goal = Vec2::new(850.0, 250.0);
    let told = wedge(&mut sim, (Vec2::new(250.0, 150.0), 0.0), goal, 0);
    let not_told = wedge(&mut sim, (Vec2::new(250.0, 250.0), 0.0), goal, 1);
    let crossing = |sim: &Sim, id: PlatoonId| sim.platoons().get(id).expect("live").bridge;
    // Both first plan over the bridge (id 1).
    for _ in 0..60 {
        sim.step(DT);
    }
    assert_eq!((crossing(&sim, told), crossing(&sim, not_told)), (1, 1));
    sim.remove_bridge(1, &[FactionId(0)])
        .expect("bridge 1 exists");
    // A snapshot is of this world: refused by one whose bridge stands,
    // taken by one where it was removed alike.
    let mut saved = Vec::new();
    sim.save(&mut saved).expect("in memory");
    let mut other = sim_with(&nav, 2);
    assert!(matches!(
        other.restore(&mut saved.as_slice()),
        Err(convoy::sim::snapshot::SnapshotError::WrongMap { .. })
    ));
    other
        .remove_bridge(1, &[FactionId(0)])
        .expect("bridge 1 exists");
    other
        .restore(&mut saved.as_slice())
        .expect("the same world");
    assert_eq!(other.checksum(), sim.checksum());
    let believes = |sim: &Sim, faction| {
        let nav = sim.config().map.polygon().expect("a polygon map");
        nav.believes(FactionId(faction), 1)
            .expect("known bridge and faction")
    };
    assert!(!believes(&sim, 0) && believes(&sim, 1));
    // Ordered again, each plans with what its faction knows.
    sim.order_platoon(told, goal, None).expect("valid order");
    sim.order_platoon(not_told, goal, None)
        .expect("valid order");
    for _ in 0..60 {
        sim.step(DT);
    }
    assert_eq!((crossing(&sim, told), crossing(&sim, not_told)), (NONE, 1));
    let mut discovered_at = None;
    let mut arrived = false;
    for tick in 0..TICKS * 2 {
        sim.step(DT);
        for &position in sim.vehicles().columns().position() {
            assert!(
                !on_bridge(&map, position),
                "a unit on the removed bridge (tick {tick})"
            );
            assert!(
                !inside_an_obstacle(&map, position),
                "a unit in the river at {position}"
            );
        }
        // The told platoon's route goes round.
        assert_eq!(crossing(&sim, told), NONE, "tick {tick}");
        if discovered_at.is_none() && !believes(&sim, 1) {
            discovered_at = Some(tick);
            assert_eq!(crossing(&sim, not_told), NONE, "it gave the bridge up");
        }
        arrived = sim
            .platoons()
            .iter()
            .all(|(_, p)| p.phase() == Phase::Arrived);
        if arrived {
            break;
        }
    }
    let discovered_at = discovered_at.expect("faction 1 learnt of the removal");
    // It learnt at the bridge, not at once: the tanks drove there first.
    assert!(
        discovered_at > 300,
        "faction 1 learnt at tick {discovered_at}"
    );
    assert!(arrived, "not every platoon arrived");
    for &position in sim.vehicles().columns().position() {
        assert!(position.x > 540.0, "a unit at {position} never crossed");
    }
}

/// The raster the tick's local checks read follows the bridges: after a
/// removal the deck's cells are river again and the line of sight across
/// is cut, after an addition the new deck's cells open and the line across
/// is clear — each time exactly the raster of the map with the bridges
/// that stand.
#[test]
fn the_raster_follows_removed_and_added_bridges() {
    let (map, nav) = river();
    let mut sim = sim_with(&nav, 1);
    let raster = |sim: &Sim| Arc::clone(sim.config().map.grid_map().expect("a raster"));
    let deck_is_open = |sim: &Sim, deck: [DVec2; 3]| {
        let world = raster(sim);
        let across = world.segment_is_clear(deck[0].as_vec2(), deck[2].as_vec2());
        let cells_open = (0..=100).all(|k| {
            let p = deck[0].lerp(deck[2], f64::from(k) / 100.0).as_vec2();
            world.grid().passable(world.cell_at(p).expect("on the map"))
        });
        assert_eq!(across, cells_open, "line of sight and cells disagree");
        across
    };
    let same_as_drawn = |sim: &Sim, bridges: Vec<BridgeSpec>| {
        let expected = rasterize(
            &PolygonMap {
                bridges,
                ..map.clone()
            },
            5.0,
        )
        .expect("valid cell size");
        let world = raster(sim);
        let differing = (0..expected.grid().height())
            .flat_map(|y| (0..expected.grid().width()).map(move |x| Cell::new(x, y)))
            .filter(|&cell| world.grid().cost(cell) != expected.grid().cost(cell))
            .count();
        assert_eq!(differing, 0, "cells differ from the map's own raster");
        assert_eq!(world.identity(), expected.identity());
    };
    let first = map.bridges[0];
    assert!(deck_is_open(&sim, first.deck()));
    same_as_drawn(&sim, vec![first]);

    sim.remove_bridge(first.id, &[FactionId(0)])
        .expect("bridge 1 exists");
    assert!(
        !deck_is_open(&sim, first.deck()),
        "the removed deck is river"
    );
    same_as_drawn(&sim, vec![]);

    let second = BridgeSpec {
        id: 2,
        ends: [DVec2::new(460.0, 600.0), DVec2::new(540.0, 600.0)],
        middle: DVec2::new(500.0, 600.0),
    };
    assert!(
        !deck_is_open(&sim, second.deck()),
        "river before the bridge"
    );
    sim.add_bridge(second, &[FactionId(0)])
        .expect("a new bridge");
    assert!(deck_is_open(&sim, second.deck()), "the added deck is open");
    assert!(!deck_is_open(&sim, first.deck()));
    same_as_drawn(&sim, vec![second]);
}
