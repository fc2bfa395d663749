//! Mobility classes, the per-unit path filter: on one river map a tank
//! (ground: no water), a boat (water only), an amphibian (open ground and
//! water) and a truck that may not enter swamp each plan, steer and stay
//! on ground of their own class's map, and arrive within 1.5× of the time
//! plain A* on that class's costs says their way takes. Spawns, orders and
//! platoons refuse what a class cannot do; a group of tanks and boats gets
//! its spots on each class's own ground; a unit that changes class on its
//! way plans on its new map; cell edits, snapshots and thread counts treat
//! every class's map alike.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use convoy::glam::Vec2;
use convoy::nav::{Cell, CellRect, GridMap, GridPlanner, Mobility, Terrain, WorldMap};
use convoy::{
    Bounds, ConfigError, Formation, Map, MobilityClass, MoveState, OrderError, ParamsError,
    PlatoonError, PlatoonSpec, Sim, SimConfig, SpawnError, UnitId, UnitSpec, UnreachableGoals,
    VehicleKind,
};

const DT: f32 = 1.0 / 60.0;
/// Cell side, metres.
const CELL: f32 = 4.0;
const WIDTH: u32 = 60;
const HEIGHT: u32 = 40;
/// The river's columns.
const RIVER: std::ops::Range<u32> = 25..35;
/// The ford's rows: open ground across the river.
const FORD: std::ops::Range<u32> = 33..37;

const GROUND: MobilityClass = MobilityClass(0);
const BOAT: MobilityClass = MobilityClass(1);
const AMPHIBIAN: MobilityClass = MobilityClass(2);
const NO_SWAMP: MobilityClass = MobilityClass(3);

/// The costs of classes 1 to 3.
fn extra_classes() -> Vec<Mobility> {
    vec![
        Mobility::NAVAL,
        Mobility {
            open: Some(1.0),
            swamp: Some(3.0),
            water: Some(2.0),
        },
        Mobility {
            open: Some(1.0),
            swamp: None,
            water: None,
        },
    ]
}

/// A class's costs, class 0 included.
fn mobility_of(class: MobilityClass) -> Mobility {
    match class.0 {
        0 => Mobility::GROUND,
        k => extra_classes()[usize::from(k) - 1],
    }
}

/// Land on both banks of a north-south river, a ford near the top, a
/// swamp on the west bank between the ford and the south.
fn river_map() -> GridMap {
    let mut map = GridMap::open(WIDTH, HEIGHT).unwrap();
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let terrain = if RIVER.contains(&x) && !FORD.contains(&y) {
                Terrain::Water
            } else if (8..22).contains(&x) && (12..26).contains(&y) {
                Terrain::Swamp
            } else {
                continue;
            };
            map.set(Cell::new(x, y), terrain);
        }
    }
    map
}

fn world_map(grid: &GridMap) -> Arc<WorldMap> {
    Arc::new(WorldMap::new(grid, Mobility::GROUND, Vec2::ZERO, CELL).unwrap())
}

fn config(map: &Arc<WorldMap>, threads: usize) -> SimConfig {
    let bounds = map.bounds();
    let mut config = SimConfig::new(Bounds::new(bounds.min - 20.0, bounds.max + 20.0));
    config.map = Map::Grid(Arc::clone(map));
    config.mobility_classes = extra_classes();
    config.threads = threads;
    config
}

/// The centre of cell (`x`, `y`).
fn at(x: u32, y: u32) -> Vec2 {
    (Vec2::new(x as f32, y as f32) + 0.5) * CELL
}

fn unit(kind: VehicleKind, class: MobilityClass, position: Vec2) -> UnitSpec {
    UnitSpec::new(kind, position).with_mobility(class)
}

/// One trip: who, from where, to where.
struct Trip {
    class: MobilityClass,
    kind: VehicleKind,
    from: Vec2,
    to: Vec2,
}

fn trips() -> Vec<Trip> {
    let trip = |class, kind, from: (u32, u32), to: (u32, u32)| Trip {
        class,
        kind,
        from: at(from.0, from.1),
        to: at(to.0, to.1),
    };
    vec![
        // Across the river: by the ford.
        trip(GROUND, VehicleKind::Tracked, (5, 4), (52, 4)),
        // Along the river, under the ford's land: around it is no way, so
        // it goes south only.
        trip(BOAT, VehicleKind::Tracked, (29, 30), (30, 2)),
        // Across the river: straight through the water.
        trip(AMPHIBIAN, VehicleKind::Tracked, (5, 6), (52, 6)),
        // From the south-west to the north-west, round the swamp.
        trip(NO_SWAMP, VehicleKind::Tracked, (14, 2), (14, 30)),
    ]
}

/// The time plain A* on `class`'s costs says the trip takes at `speed`:
/// its path's length (cell centres, octile) over the speed.
fn a_star_time(grid: &GridMap, trip: &Trip, speed: f32) -> f32 {
    let costs = WorldMap::new(grid, mobility_of(trip.class), Vec2::ZERO, CELL).unwrap();
    let cell = |point: Vec2| costs.cell_at(point).unwrap();
    let path = GridPlanner::new()
        .find_path(costs.grid(), cell(trip.from), cell(trip.to))
        .unwrap();
    path.length as f32 * CELL / speed
}

/// Every trip arrives within 1.5× its class's A* time (and 10 s to start
/// and stop), never standing on ground its class's map blocks; the tank
/// and the truck never touch water or swamp, the boat never land, and the
/// amphibian swims across long before the tank has gone round by the ford.
#[test]
fn every_class_arrives_on_its_own_ground_as_a_star_on_its_costs_says() {
    let grid = river_map();
    let map = world_map(&grid);
    let mut sim = Sim::new(config(&map, 1)).unwrap();
    let trips = trips();
    let own_maps: Vec<WorldMap> = trips
        .iter()
        .map(|trip| WorldMap::new(&grid, mobility_of(trip.class), Vec2::ZERO, CELL).unwrap())
        .collect();
    let units: Vec<UnitId> = trips
        .iter()
        .map(|trip| {
            let unit = sim.spawn(&unit(trip.kind, trip.class, trip.from)).unwrap();
            assert_eq!(sim.order_move(unit, trip.to).unwrap(), trip.to);
            unit
        })
        .collect();
    let speed = UnitSpec::new(VehicleKind::Tracked, Vec2::ZERO).max_speed;
    let limits: Vec<f32> = trips
        .iter()
        .map(|trip| 1.5 * a_star_time(&grid, trip, speed) + 10.0)
        .collect();
    let mut arrived = vec![None; trips.len()];
    let mut wet = vec![false; trips.len()];
    let ticks = (limits.iter().copied().fold(0.0, f32::max) / DT) as u32;
    for tick in 1..=ticks {
        sim.step(DT);
        let positions = sim.vehicles().columns().position();
        for (k, &id) in units.iter().enumerate() {
            let here = positions[sim.vehicles().row_of(id).unwrap()];
            assert!(
                own_maps[k].is_open(here),
                "trip {k} stands at {here} at tick {tick}, off its class's ground"
            );
            wet[k] |= grid.terrain(map.cell_at(here).unwrap()) == Some(Terrain::Water);
            if arrived[k].is_none() && sim.move_state(id).unwrap() == MoveState::Arrived {
                arrived[k] = Some(tick as f32 * DT);
            }
        }
    }
    for (k, limit) in limits.iter().enumerate() {
        let time = arrived[k].unwrap_or_else(|| panic!("trip {k} never arrived in {limit} s"));
        assert!(
            time <= *limit,
            "trip {k} arrived at {time} s, later than {limit} s"
        );
    }
    assert!(wet[1] && wet[2], "the boat and the amphibian move on water");
    let (tank, amphibian) = (arrived[0].unwrap(), arrived[2].unwrap());
    assert!(
        amphibian < 0.8 * tank,
        "the amphibian crosses at {amphibian} s, the tank by the ford at {tank} s"
    );
}

/// Spawns on ground a class cannot stand on, classes the world lacks,
/// classes off a grid map, platoons mixing classes and orders a class
/// cannot reach are refused, or moved to the class's own ground.
#[test]
fn spawns_platoons_and_orders_refuse_what_a_class_cannot_do() {
    let map = world_map(&river_map());
    let mut sim = Sim::new(config(&map, 1)).unwrap();
    let on_water = at(30, 10);
    let on_land = at(10, 4);
    let refused = |sim: &mut Sim, spec| sim.spawn(&spec).unwrap_err();
    assert!(matches!(
        refused(&mut sim, unit(VehicleKind::Tracked, GROUND, on_water)),
        SpawnError::NotOnOpenGround { .. }
    ));
    assert!(matches!(
        refused(&mut sim, unit(VehicleKind::Tracked, BOAT, on_land)),
        SpawnError::NotOnOpenGround { .. }
    ));
    assert_eq!(
        refused(
            &mut sim,
            unit(VehicleKind::Tracked, MobilityClass(4), on_land)
        ),
        SpawnError::NoSuchMobilityClass { class: 4, count: 4 }
    );
    assert_eq!(sim.vehicles().len(), 0);

    let mut open_field = config(&map, 1);
    open_field.map = Map::Open;
    assert!(matches!(
        Sim::new(open_field),
        Err(ConfigError::BadMobilityClass { index: 0, .. })
    ));
    let mut invalid = config(&map, 1);
    invalid.mobility_classes[2].swamp = Some(0.5);
    assert!(matches!(
        Sim::new(invalid),
        Err(ConfigError::BadMobilityClass { index: 2, .. })
    ));

    let tank = sim
        .spawn(&unit(VehicleKind::Tracked, GROUND, on_land))
        .unwrap();
    let boat = sim
        .spawn(&unit(VehicleKind::Tracked, BOAT, on_water))
        .unwrap();
    let mixed = sim.create_platoon(&[tank, boat], &PlatoonSpec::force21(Formation::Column));
    assert_eq!(
        mixed.unwrap_err(),
        PlatoonError::MixedMobility {
            unit: boat,
            class: 1,
            platoon_class: 0
        }
    );
    let platoon = sim
        .create_platoon(&[tank], &PlatoonSpec::force21(Formation::Column))
        .unwrap();
    assert!(matches!(
        sim.join_platoon(platoon, boat),
        Err(PlatoonError::MixedMobility { .. })
    ));

    // Ordered onto land, the boat goes to the nearest water instead.
    let boat_map = WorldMap::new(&river_map(), Mobility::NAVAL, Vec2::ZERO, CELL).unwrap();
    let goal = sim.order_move(boat, at(40, 10)).unwrap();
    assert!(boat_map.is_open(goal), "the boat's goal {goal} is on water");
    assert!(goal.distance(at(40, 10)) <= 7.0 * CELL);

    let mut refusing = config(&map, 1);
    refusing.unreachable_goals = UnreachableGoals::Refuse;
    let mut sim = Sim::new(refusing).unwrap();
    let boat = sim
        .spawn(&unit(VehicleKind::Tracked, BOAT, on_water))
        .unwrap();
    assert!(matches!(
        sim.order_move(boat, at(40, 10)),
        Err(OrderError::Blocked { .. })
    ));
}

/// A group order of tanks and boats to a point on land: the tanks' spots
/// lie on land, the boats' on water, and every member gets there.
#[test]
fn a_group_of_tanks_and_boats_takes_spots_on_each_class_s_ground() {
    let grid = river_map();
    let map = world_map(&grid);
    let mut sim = Sim::new(config(&map, 1)).unwrap();
    let tanks = (0..4).map(|k| sim.spawn(&unit(VehicleKind::Tracked, GROUND, at(8 + 3 * k, 30))));
    let mut units: Vec<UnitId> = tanks.collect::<Result<_, _>>().unwrap();
    for k in 0..3 {
        units.push(
            sim.spawn(&unit(VehicleKind::Tracked, BOAT, at(27 + 3 * k, 28)))
                .unwrap(),
        );
    }
    let spots = sim.order_group(&units, at(22, 8), Vec2::ZERO).unwrap();
    for (k, spot) in spots.iter().enumerate() {
        let class = if k < 4 {
            Mobility::GROUND
        } else {
            Mobility::NAVAL
        };
        let own = WorldMap::new(&grid, class, Vec2::ZERO, CELL).unwrap();
        assert!(
            own.is_open(*spot),
            "member {k}'s spot {spot} is on its class's ground"
        );
    }
    for _ in 0..(90.0 / DT) as u32 {
        sim.step(DT);
    }
    for (k, &id) in units.iter().enumerate() {
        assert_eq!(
            sim.move_state(id).unwrap(),
            MoveState::Arrived,
            "member {k}"
        );
    }
}

/// A scene with every class moving, a ford walled off mid-run and a
/// stretch of river filled in: every class's routes afterwards equal those
/// of a `Sim` built on the edited map; a snapshot taken after the edit
/// restores to the same checksums, and 1 and 2 threads give the same bits.
/// A world with other classes refuses the snapshot.
#[test]
fn edits_snapshots_and_threads_treat_every_class_alike() {
    let grid = river_map();
    let map = world_map(&grid);
    let scene = |threads| {
        let mut sim = Sim::new(config(&map, threads)).unwrap();
        let units: Vec<UnitId> = trips()
            .iter()
            .map(|trip| sim.spawn(&unit(trip.kind, trip.class, trip.from)).unwrap())
            .collect();
        (sim, units)
    };
    let ford = CellRect::new(
        Cell::new(RIVER.start, FORD.start),
        Cell::new(RIVER.end - 1, FORD.end - 1),
    );
    let filled = CellRect::new(Cell::new(RIVER.start, 10), Cell::new(RIVER.end - 1, 12));
    let run = |threads| {
        let (mut sim, units) = scene(threads);
        for (trip, &id) in trips().iter().zip(&units) {
            sim.order_move(id, trip.to).unwrap();
        }
        for _ in 0..120 {
            sim.step(DT);
        }
        sim.set_cells(ford, Terrain::Blocked).unwrap();
        sim.set_cells(filled, Terrain::Open).unwrap();
        for _ in 0..120 {
            sim.step(DT);
        }
        (sim, units)
    };
    let (mut one, units) = run(1);
    let (two, _) = run(2);
    assert_eq!(one.checksum(), two.checksum(), "1 and 2 threads");

    // Fresh orders on the edited world plan as on a world built edited.
    let mut edited_grid = grid.clone();
    for cell in ford.cells() {
        edited_grid.set(cell, Terrain::Blocked);
    }
    for cell in filled.cells() {
        edited_grid.set(cell, Terrain::Open);
    }
    let mut rebuilt = Sim::new(config(&world_map(&edited_grid), 1)).unwrap();
    let positions: Vec<Vec2> = units
        .iter()
        .map(|&id| one.vehicles().columns().position()[one.vehicles().row_of(id).unwrap()])
        .collect();
    let twins: Vec<UnitId> = trips()
        .iter()
        .zip(&positions)
        .map(|(trip, &here)| rebuilt.spawn(&unit(trip.kind, trip.class, here)).unwrap())
        .collect();
    // Each goal's way depends on the edits: the tank and the truck cross
    // on the filled stretch now, the boat cannot pass it, the amphibian
    // drives over it.
    let goals = [at(52, 20), at(30, 2), at(52, 14), at(52, 8)];
    for ((&id, &twin), &goal) in units.iter().zip(&twins).zip(&goals) {
        assert_eq!(one.order_move(id, goal), rebuilt.order_move(twin, goal));
    }
    for _ in 0..30 {
        one.step(DT);
        rebuilt.step(DT);
    }
    for (k, (&id, &twin)) in units.iter().zip(&twins).enumerate() {
        assert_eq!(
            route_of(&one, id),
            route_of(&rebuilt, twin),
            "trip {k}'s route"
        );
    }

    let mut bytes = Vec::new();
    one.save(&mut bytes).unwrap();
    let (mut restored, _) = scene(1);
    restored.restore(&mut bytes.as_slice()).unwrap();
    assert_eq!(restored.checksum(), one.checksum());
    for _ in 0..120 {
        one.step(DT);
        restored.step(DT);
    }
    assert_eq!(
        restored.checksum(),
        one.checksum(),
        "120 ticks after the restore"
    );

    let mut fewer = config(&map, 1);
    fewer.mobility_classes.pop();
    let mut other = Sim::new(fewer).unwrap();
    assert!(other.restore(&mut bytes.as_slice()).is_err());
}

/// The route corners `unit` follows now.
fn route_of(sim: &Sim, unit: UnitId) -> Vec<Vec2> {
    let columns = sim.vehicles().columns();
    let row = sim.vehicles().row_of(unit).unwrap();
    let len = columns.route_len()[row] as usize;
    sim.routes().of(columns.handle_slot()[row])[..len].to_vec()
}

/// A tank on its way to the far bank by the ford becomes an amphibian: its
/// new route crosses the water and it arrives before it would have. A
/// class it cannot stand in, a class the world lacks, or (under `Refuse`)
/// a goal out of reach is refused with nothing changed; a platoon member
/// that changes class leaves its platoon.
#[test]
fn a_unit_that_changes_class_on_its_way_plans_on_its_new_map() {
    let grid = river_map();
    let map = world_map(&grid);
    let ground = WorldMap::new(&grid, Mobility::GROUND, Vec2::ZERO, CELL).unwrap();
    let arrival = |switch: bool| {
        let mut sim = Sim::new(config(&map, 1)).unwrap();
        let tank = sim
            .spawn(&unit(VehicleKind::Tracked, GROUND, at(5, 6)))
            .unwrap();
        sim.order_move(tank, at(52, 6)).unwrap();
        for _ in 0..60 {
            sim.step(DT);
        }
        if switch {
            sim.set_mobility(tank, AMPHIBIAN).unwrap();
            sim.step(DT);
            assert_eq!(
                sim.move_state(tank).unwrap(),
                MoveState::Moving,
                "its path is served"
            );
            // With no corners (route length 0) it drives straight at its goal.
            let row = sim.vehicles().row_of(tank).unwrap();
            let here = sim.vehicles().columns().position()[row];
            let way: Vec<Vec2> = std::iter::once(here)
                .chain(route_of(&sim, tank))
                .chain(std::iter::once(at(52, 6)))
                .collect();
            let wet = way
                .windows(2)
                .any(|leg| !ground.segment_is_clear(leg[0], leg[1]));
            assert!(wet, "the amphibian's way {way:?} crosses the river");
        }
        (1..=(120.0 / DT) as u32)
            .find(|_| {
                sim.step(DT);
                sim.move_state(tank).unwrap() == MoveState::Arrived
            })
            .expect("the tank arrives")
    };
    let (by_ford, swimming) = (arrival(false), arrival(true));
    assert!(
        swimming < by_ford,
        "{swimming} ticks swimming, {by_ford} by the ford"
    );

    let mut refusing = config(&map, 1);
    refusing.unreachable_goals = UnreachableGoals::Refuse;
    let mut sim = Sim::new(refusing).unwrap();
    let tank = sim
        .spawn(&unit(VehicleKind::Tracked, GROUND, at(5, 6)))
        .unwrap();
    let swimmer = sim
        .spawn(&unit(VehicleKind::Tracked, AMPHIBIAN, at(30, 10)))
        .unwrap();
    sim.order_move(swimmer, at(40, 10)).unwrap();
    let before = sim.checksum();
    assert!(matches!(
        sim.set_mobility(tank, BOAT),
        Err(ParamsError::Invalid(SpawnError::NotOnOpenGround { .. }))
    ));
    assert!(matches!(
        sim.set_mobility(tank, MobilityClass(9)),
        Err(ParamsError::Invalid(SpawnError::NoSuchMobilityClass {
            class: 9,
            count: 4
        }))
    ));
    assert!(matches!(
        sim.set_mobility(swimmer, BOAT),
        Err(ParamsError::Unreachable(OrderError::Blocked { .. }))
    ));
    assert_eq!(sim.checksum(), before, "refusals change nothing");

    let other = sim
        .spawn(&unit(VehicleKind::Tracked, GROUND, at(8, 6)))
        .unwrap();
    let platoon = sim
        .create_platoon(&[tank, other], &PlatoonSpec::force21(Formation::Column))
        .unwrap();
    sim.set_mobility(other, AMPHIBIAN).unwrap();
    let members: Vec<UnitId> = sim
        .platoon(platoon)
        .unwrap()
        .members()
        .map(|(_, unit)| unit)
        .collect();
    assert_eq!(members, [tank]);
}
