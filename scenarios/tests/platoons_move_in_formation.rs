//! Platoon movement on grid maps, over scripted routes (straight, a 90°
//! turn, a narrow gap, a swamp): formation error stays bounded, a column
//! stays on its path, no drive-to point and no unit is ever in a wall, the
//! platoon arrives with every member on its own spot, the lead can be lost,
//! reinforcements join with no swaps, formation changes morph, bad input is
//! refused, and the result is the same on 1 and 2 threads and after a
//! snapshot.

use std::sync::Arc;

use convoy::glam::Vec2;
use convoy::nav::{Cell, GridMap, Mobility, Terrain, WorldMap};
use convoy::{Formation, PlatoonId, PlatoonSpec, Sim, SimConfig, UnitId, UnitSpec, VehicleKind};
use convoy::{Phase, SlotRule};

const DT: f32 = 1.0 / 30.0;
const CELL: f32 = 4.0;

fn sim_on(map: &GridMap, threads: usize) -> Sim {
    let world = WorldMap::new(map, Mobility::GROUND, Vec2::ZERO, CELL).expect("valid");
    let mut config = SimConfig::new(world.bounds());
    config.threads = threads;
    config.map = convoy::Map::Grid(Arc::new(world));
    // Separation does not know the map and can push a unit into a wall;
    // these tests check what formations and steering do.
    config.separation_iterations = 0;
    Sim::new(config).expect("valid config")
}

fn at(x: f32, y: f32) -> Vec2 {
    Vec2::new(x, y) * CELL
}

/// Five units of `kind` standing in their slots round `lead`, facing east.
fn platoon(sim: &mut Sim, kind: VehicleKind, lead: Vec2, spec: &PlatoonSpec) -> PlatoonId {
    let members: Vec<UnitId> = (0..5)
        .map(|k| {
            let slot = lead + spec.formation.offset(k) * spec.spacing_m;
            let spec = UnitSpec::new(kind, slot);
            sim.spawn(&spec).expect("valid unit")
        })
        .collect();
    sim.create_platoon(&members, spec).expect("valid platoon")
}

/// What a scripted run saw.
#[derive(Debug, Default)]
struct Seen {
    ticks: usize,
    worst_error_m: f32,
    mean_error_m: f64,
    worst_column_gap_m: f32,
}

/// Steps until every platoon has arrived (or `ticks` run out), checking
/// at every tick that no drive-to point and no unit centre is on a
/// blocked cell, and measuring formation error and, for columns, each
/// member's distance from the platoon's path.
fn run(sim: &mut Sim, map: &GridMap, ticks: usize) -> Seen {
    let blocked = |point: Vec2| {
        let cell = Cell::new((point.x / CELL) as u32, (point.y / CELL) as u32);
        map.terrain(cell) != Some(Terrain::Open) && map.terrain(cell) != Some(Terrain::Swamp)
    };
    let mut seen = Seen::default();
    let (mut sum, mut samples) = (0.0, 0u64);
    for tick in 0..ticks {
        sim.step(DT);
        let columns = sim.vehicles().columns();
        for row in 0..sim.vehicles().len() {
            let (drive_to, position) = (columns.drive_to()[row], columns.position()[row]);
            assert!(
                !blocked(drive_to),
                "row {row} drives to {drive_to}, a wall (tick {tick})"
            );
            assert!(
                !blocked(position),
                "row {row} is in a wall at {position} (tick {tick})"
            );
        }
        let mut all_arrived = true;
        let world = Arc::clone(sim.config().map.grid_map().expect("a map"));
        for (id, platoon) in sim.platoons().iter() {
            all_arrived &= platoon.phase() == Phase::Arrived;
            // The platoon's own path never crosses a wall.
            let path = sim.platoons().path(id.index);
            let mut from = path.start;
            for &corner in path.corners {
                assert!(
                    world.segment_is_clear(from, corner),
                    "platoon {} path leg {from} -> {corner} crosses a wall (tick {tick})",
                    id.index
                );
                from = corner;
            }
            // Formation error while moving (settling is the destination
            // formation, measured by arrival).
            if platoon.phase() != Phase::Moving || tick < 60 {
                continue;
            }
            for &error in platoon.error.iter().filter(|e| e.is_finite()) {
                seen.worst_error_m = seen.worst_error_m.max(error);
                sum += f64::from(error);
                samples += 1;
            }
            if platoon.formation() == Formation::Column {
                let gap = worst_gap_from_path(sim, id);
                seen.worst_column_gap_m = seen.worst_column_gap_m.max(gap);
            }
        }
        if all_arrived {
            seen.ticks = tick;
            break;
        }
    }
    seen.mean_error_m = if samples == 0 {
        0.0
    } else {
        sum / samples as f64
    };
    seen
}

/// The largest distance of a member of platoon `id` from its path (sampled
/// every metre from 80 m behind its start to its end).
fn worst_gap_from_path(sim: &Sim, id: PlatoonId) -> f32 {
    let platoon = sim.platoons().get(id).expect("live");
    let view = sim.platoons().path(id.index);
    let samples: Vec<Vec2> = (-80..=view.length().ceil() as i32)
        .map(|s| view.point_at(s as f32))
        .collect();
    platoon
        .occupied()
        .map(|(_, unit)| {
            let row = sim.vehicles().row_of(unit).expect("live");
            let position = sim.vehicles().columns().position()[row];
            samples
                .iter()
                .map(|point| point.distance(position))
                .fold(f32::INFINITY, f32::min)
        })
        .fold(0.0, f32::max)
}

/// Every member of every platoon stands within the spot radius of a spot
/// no other unit has.
fn assert_on_distinct_spots(sim: &Sim) {
    let mut spots: Vec<Vec2> = Vec::new();
    for (_, platoon) in sim.platoons().iter() {
        assert_eq!(platoon.phase(), Phase::Arrived, "{platoon:?}");
        for (slot, unit) in platoon.occupied() {
            let row = sim.vehicles().row_of(unit).expect("live");
            let spot = platoon.spots[slot];
            let position = sim.vehicles().columns().position()[row];
            assert!(position.distance(spot) <= convoy::stages::formations::SPOT_RADIUS);
            spots.push(spot);
        }
    }
    for (i, a) in spots.iter().enumerate() {
        for b in &spots[..i] {
            assert!(a.distance(*b) >= 2.9, "spots {a} and {b} are shared");
        }
    }
}

fn open_map() -> GridMap {
    GridMap::open(80, 60).expect("valid size")
}

/// One scripted route: a platoon of tracked vehicles in `spec` standing in
/// its slots round `lead` (cells) is ordered to `goal` (cells); it must
/// arrive within `ticks` with every member on a spot of its own.
fn scripted(
    map: &GridMap,
    spec: &PlatoonSpec,
    (lead, goal): (Vec2, Vec2),
    facing: Option<f32>,
    ticks: usize,
) -> (Sim, Seen) {
    let mut sim = sim_on(map, 2);
    let id = platoon(&mut sim, VehicleKind::Tracked, lead * CELL, spec);
    sim.order_platoon(id, goal * CELL, facing).expect("valid");
    let seen = run(&mut sim, map, ticks);
    assert!(seen.ticks > 0, "{spec:?} never arrived: {seen:?}");
    assert_on_distinct_spots(&sim);
    (sim, seen)
}

#[test]
fn a_wedge_drives_straight_and_keeps_its_shape() {
    let route = (Vec2::new(10.0, 30.0), Vec2::new(70.0, 30.0));
    let spec = PlatoonSpec::force21(Formation::Wedge);
    let (sim, seen) = scripted(&open_map(), &spec, route, None, 3000);
    // Members spawned in their slots stay within a third of a spacing on
    // average and never more than a spacing and a third away.
    let spacing = f64::from(PlatoonSpec::default().spacing_m);
    assert!(seen.mean_error_m < spacing / 3.0, "{seen:?}");
    assert!(
        f64::from(seen.worst_error_m) < 4.0 * spacing / 3.0,
        "{seen:?}"
    );
    let quality = sim.quality();
    assert_eq!(quality.platoons_arrived, 1);
    assert!(
        quality.formation_error_mean_m > 0.0
            && quality.formation_error_p95_m >= quality.formation_error_mean_m
    );
}

/// A swamp strip across the route slows the members (a third of their
/// speed); the platoon slows with them, arrives later than over open
/// ground, and keeps its members within a spacing of their slots on
/// average.
#[test]
fn a_platoon_crosses_a_swamp() {
    let cross = |swamp: bool| {
        let mut map = open_map();
        for y in (0..60).filter(|_| swamp) {
            for x in 35..45 {
                map.set(Cell::new(x, y), Terrain::Swamp);
            }
        }
        let route = (Vec2::new(15.0, 30.0), Vec2::new(65.0, 30.0));
        scripted(
            &map,
            &PlatoonSpec::force21(Formation::Wedge),
            route,
            None,
            6000,
        )
        .1
    };
    let (open, swamp) = (cross(false), cross(true));
    // 40 m at a third of the speed: well over 4 s (120 ticks) later.
    assert!(swamp.ticks > open.ticks + 120, "{open:?} {swamp:?}");
    assert!(
        swamp.mean_error_m < f64::from(PlatoonSpec::default().spacing_m),
        "{swamp:?}"
    );
}

#[test]
fn losing_the_lead_does_not_stop_the_platoon_and_a_reinforcement_takes_the_hole() {
    let map = open_map();
    for rule in [SlotRule::Fixed, SlotRule::Packed] {
        let mut sim = sim_on(&map, 2);
        let mut spec = PlatoonSpec::force21(Formation::Wedge);
        spec.slots = rule;
        let id = platoon(&mut sim, VehicleKind::Tracked, at(10.0, 30.0), &spec);
        sim.order_platoon(id, at(70.0, 30.0), None).expect("valid");
        for _ in 0..120 {
            sim.step(DT);
        }
        let before = sim.platoons().get(id).expect("valid").members;
        sim.despawn(before[0]).expect("valid");
        let after = sim.platoons().get(id).expect("valid").members;
        let moved = (1..5).filter(|&slot| after[slot] != before[slot]).count();
        match rule {
            // Fixed: the lead slot stays empty, nobody moves.
            SlotRule::Fixed => assert_eq!(moved, 0),
            // Packed: only the last member moves, into the hole.
            SlotRule::Packed => {
                assert_eq!(after[0], before[4]);
                assert_eq!(moved, 1);
            }
        }
        let recruit = sim
            .spawn(&UnitSpec::new(VehicleKind::Tracked, at(5.0, 30.0)))
            .expect("valid");
        let slot = sim.join_platoon(id, recruit).expect("valid");
        let joined = sim.platoons().get(id).expect("valid").members;
        assert_eq!(joined[slot], recruit);
        assert_eq!(
            (0..16)
                .filter(|&s| s != slot && joined[s] != after[s])
                .count(),
            0
        );
        let seen = run(&mut sim, &map, 4000);
        assert!(
            seen.ticks > 0,
            "{rule:?}: never arrived after losing the lead: {seen:?}"
        );
        assert_on_distinct_spots(&sim);
    }
}

#[test]
fn a_formation_change_morphs_instead_of_jumping() {
    let map = open_map();
    let mut sim = sim_on(&map, 1);
    let id = platoon(
        &mut sim,
        VehicleKind::Tracked,
        at(20.0, 30.0),
        &PlatoonSpec::force21(Formation::Wedge),
    );
    for _ in 0..200 {
        sim.step(DT);
    }
    let target = |sim: &Sim| sim.platoons().get(id).expect("valid").targets[4];
    let mut last = target(&sim);
    sim.set_formation(id, Formation::Line).expect("valid");
    let spacing = PlatoonSpec::force21(Formation::Wedge).spacing_m;
    for _ in 0..120 {
        sim.step(DT);
        let now = target(&sim);
        // The full jump is 1.4 spacings; no tick moves it a tenth of that.
        assert!(now.distance(last) < 0.14 * spacing, "{last} → {now}");
        last = now;
    }
    let platoon = sim.platoons().get(id).expect("valid");
    let line = platoon.position
        + convoy::data::platoons::to_world(Formation::Line.offset(4) * spacing, platoon.heading);
    assert!(last.distance(line) < 1e-3, "{last} vs {line}");
}

#[test]
fn bad_platoon_input_is_refused_with_nothing_changed() {
    let map = open_map();
    let mut sim = sim_on(&map, 1);
    let id = platoon(
        &mut sim,
        VehicleKind::Tracked,
        at(20.0, 30.0),
        &PlatoonSpec::default(),
    );
    let solo = sim
        .spawn(&UnitSpec::new(VehicleKind::Tracked, at(5.0, 5.0)))
        .expect("valid");
    let member = sim.platoons().get(id).expect("valid").members[1];
    let checksum = sim.checksum();
    assert!(
        sim.order_platoon(id, Vec2::new(f32::NAN, 0.0), None)
            .is_err()
    );
    assert!(sim.order_platoon(id, at(500.0, 5.0), None).is_err());
    assert!(
        sim.order_platoon(id, at(50.0, 5.0), Some(f32::INFINITY))
            .is_err()
    );
    assert!(sim.create_platoon(&[], &PlatoonSpec::default()).is_err());
    assert!(
        sim.create_platoon(&[solo, solo], &PlatoonSpec::default())
            .is_err()
    );
    assert!(
        sim.create_platoon(&[solo, member], &PlatoonSpec::default())
            .is_err()
    );
    let bad = PlatoonSpec {
        spacing_m: -1.0,
        ..PlatoonSpec::default()
    };
    let error = sim.create_platoon(&[solo], &bad).expect_err("refused");
    assert!(error.to_string().contains("spacing_m"), "{error}");
    sim.disband_platoon(id).expect("valid");
    let after_disband = sim.checksum();
    assert_ne!(checksum, after_disband);
    assert!(sim.order_platoon(id, at(50.0, 5.0), None).is_err());
    assert_eq!(sim.checksum(), after_disband);
}

#[test]
fn platoons_are_bit_identical_on_one_and_two_threads_and_survive_a_snapshot() {
    let mut map = open_map();
    for y in 10..50 {
        map.set(Cell::new(40, y), Terrain::Blocked);
    }
    let build = |threads| {
        let mut sim = sim_on(&map, threads);
        for k in 0..12 {
            let mut spec = if k % 2 == 0 {
                PlatoonSpec::force21(Formation::ALL[k % 9])
            } else {
                PlatoonSpec::squad(6.0)
            };
            spec.slots = SlotRule::Packed;
            let kind = [
                VehicleKind::Tracked,
                VehicleKind::Wheeled,
                VehicleKind::Infantry,
            ][k % 3];
            let id = platoon(
                &mut sim,
                kind,
                at(13.0 + 2.0 * k as f32, 5.0 + 4.5 * k as f32),
                &spec,
            );
            sim.order_platoon(id, at(70.0, 55.0 - 4.5 * k as f32), None)
                .expect("valid");
        }
        sim
    };
    let (mut one, mut two) = (build(1), build(2));
    for _ in 0..300 {
        one.step(DT);
        two.step(DT);
    }
    assert_eq!(one.checksum(), two.checksum());
    let mut saved = Vec::new();
    one.save(&mut saved).expect("valid");
    let mut restored = build(1);
    restored.restore(&mut saved.as_slice()).expect("valid");
    assert_eq!(restored.checksum(), one.checksum());
    for _ in 0..300 {
        one.step(DT);
        restored.step(DT);
    }
    assert_eq!(restored.checksum(), one.checksum());
    assert_eq!(
        restored.quality().platoons_arrived,
        one.quality().platoons_arrived
    );
}

/// A block fills the north-west: the path runs east below it, turns 90°
/// at its corner and runs north. A column must snake along the path.
#[test]
fn a_column_snakes_round_a_right_angle_turn_on_its_path() {
    let mut map = open_map();
    for y in 16..60 {
        for x in 0..40 {
            map.set(Cell::new(x, y), Terrain::Blocked);
        }
    }
    let route = (Vec2::new(20.0, 8.0), Vec2::new(50.0, 50.0));
    let spec = PlatoonSpec::force21(Formation::Column);
    let (_, seen) = scripted(&map, &spec, route, None, 6000);
    assert!(seen.worst_column_gap_m < 8.0, "{seen:?}");
}

/// A 3-cell gap in a long wall: the line formation squeezes through (the
/// Force 21 pull toward the path), and the squad version through its
/// bounded searches.
#[test]
fn a_line_squeezes_through_a_narrow_gap_both_ways() {
    let mut map = open_map();
    for y in (0..60).filter(|y| !(28..31).contains(y)) {
        map.set(Cell::new(40, y), Terrain::Blocked);
    }
    let squad = PlatoonSpec {
        context: false,
        formation: Formation::Line,
        ..PlatoonSpec::squad(6.0)
    };
    for spec in [PlatoonSpec::force21(Formation::Line), squad] {
        let route = (Vec2::new(20.0, 29.5), Vec2::new(60.0, 29.5));
        let (sim, _) = scripted(&map, &spec, route, None, 9000);
        let (stages, _) = sim.report();
        let formations = stages
            .iter()
            .find(|stage| stage.name == "formations")
            .expect("reported");
        assert!(
            formations.counters["softened_slots"] > 0.0,
            "{spec:?}: the gap squeezed some slot: {formations:?}"
        );
    }
}

/// A U-turn round the end of a wall, in a vee.
#[test]
fn a_vee_makes_a_u_turn_round_a_wall() {
    let mut map = open_map();
    for x in 0..60 {
        map.set(Cell::new(x, 30), Terrain::Blocked);
    }
    let route = (Vec2::new(30.0, 20.0), Vec2::new(30.0, 40.0));
    let spec = PlatoonSpec::force21(Formation::Vee);
    let (_, seen) = scripted(&map, &spec, route, Some(std::f32::consts::PI), 9000);
    assert!(seen.mean_error_m < 8.0, "{seen:?}");
}

#[test]
fn platoons_ordered_to_one_place_get_distinct_spots_and_all_arrive() {
    let map = open_map();
    let mut sim = sim_on(&map, 2);
    let ids: Vec<PlatoonId> = (0..4)
        .map(|k| {
            platoon(
                &mut sim,
                VehicleKind::Tracked,
                at(12.0, 10.0 + 12.0 * k as f32),
                &PlatoonSpec::force21(Formation::Wedge),
            )
        })
        .collect();
    for &id in &ids {
        sim.order_platoon(id, at(60.0, 30.0), Some(0.0))
            .expect("valid");
    }
    let seen = run(&mut sim, &map, 9000);
    assert!(seen.ticks > 0, "never arrived: {seen:?}");
    assert_on_distinct_spots(&sim);
}

/// A platoon ordered to the point where it stands has a route of no
/// length that ends at its goal: it arrives, and asks for no more paths.
#[test]
fn a_platoon_ordered_to_where_it_stands_arrives_and_asks_for_nothing_more() {
    let map = open_map();
    let mut sim = sim_on(&map, 2);
    let spec = PlatoonSpec::force21(Formation::Wedge);
    let id = platoon(&mut sim, VehicleKind::Tracked, at(30.0, 30.0), &spec);
    let here = sim.platoon(id).expect("live").position();
    sim.order_platoon(id, here, None).expect("valid");
    for _ in 0..300 {
        sim.step(DT);
    }
    assert_eq!(sim.platoon(id).expect("live").phase(), Phase::Arrived);
    assert_eq!(sim.open_path_requests(), 0);
}

/// The arena2 profile (400 units, 80 platoons, re-ordered every 10 s) on
/// arena2: no platoon's path ever crosses a wall, though a platoon stands
/// off its cell's centre when it plans (string pulling sees the first
/// corner from the centre).
#[test]
fn arena2_platoon_paths_never_cross_a_wall() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../profiles/arena2.toml");
    let mut profile = convoy_scenarios::Profile::load(std::path::Path::new(file)).expect("loads");
    profile.scenario.units = 400;
    let mut sim = convoy_scenarios::build(&profile, 2).expect("builds");
    let mut orders = convoy_scenarios::Orders::new(&profile, &sim);
    let world = Arc::clone(sim.config().map.grid_map().expect("a map"));
    let mut legs = 0;
    for tick in 0..900 {
        orders.before_step(&mut sim).expect("valid orders");
        sim.step(profile.run.dt);
        if tick % 10 != 0 {
            continue;
        }
        for (id, _) in sim.platoons().iter() {
            let path = sim.platoons().path(id.index);
            let mut from = path.start;
            for &corner in path.corners {
                assert!(
                    world.segment_is_clear(from, corner),
                    "tick {tick}: platoon {} leg {from} -> {corner} crosses a wall",
                    id.index
                );
                legs += 1;
                from = corner;
            }
        }
    }
    assert!(legs > 1000, "{legs} legs checked");
}
