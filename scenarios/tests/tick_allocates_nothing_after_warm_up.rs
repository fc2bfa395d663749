//! The tick is sacred: after warm-up, `Sim::step` makes no heap allocation on
//! any thread. A counting global allocator watches 100 ticks of 10,000 units.
//!
//! This test runs without libtest's harness (`harness = false`): the harness
//! prints "has been running for over 60 seconds" from its own thread when a
//! loaded machine makes the test slow, and that allocation was counted.

#![allow(clippy::unwrap_used)]

use convoy::glam::Vec2;
use convoy_scenarios::Profile;

#[path = "../../kernel/tests/counting_allocator/mod.rs"]
mod counting_allocator;
use counting_allocator::{CountingAllocator, allocations_during};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn main() {
    // Each world on a thread of its own: a `Sim` makes the thread that
    // builds it a worker of its pool, and a thread can join only one pool.
    for check in [
        a_hundred_ticks_of_ten_thousand_units_allocate_nothing_after_warm_up as fn(),
        planning_on_a_map_allocates_nothing_after_warm_up,
        ticks_after_a_world_edit_allocate_nothing,
        ticks_after_an_obstacle_allocate_nothing,
        platoons_in_formation_allocate_nothing_after_warm_up,
        platoons_at_a_bridge_allocate_nothing_after_warm_up,
        a_fine_grid_rebuilds_without_allocating,
        steps_after_engine_edits_allocate_nothing,
    ] {
        std::thread::spawn(check).join().expect("the check passed");
    }
    println!("tick_allocates_nothing_after_warm_up: ok");
}

/// The arena2 profile: every order is planned by grid A* in the tick.
/// Warm-up serves the spawn orders (every search context and answer buffer
/// grows); then new orders to 200 units are planned inside counted ticks.
fn planning_on_a_map_allocates_nothing_after_warm_up() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../profiles/arena2.toml");
    let mut profile = Profile::load(std::path::Path::new(path)).unwrap();
    profile.scenario.units = 1000;
    profile.platoons.size = 0;
    let mut sim = convoy_scenarios::build(&profile, 2).unwrap();
    while sim.open_path_requests() > 0 {
        sim.step(profile.run.dt);
    }
    let (goals, ids): (Vec<_>, Vec<_>) = (0..200)
        .filter_map(|row| {
            let goal = sim.vehicles().columns().position()[row + 500];
            Some((goal, sim.vehicles().id_at(row)?))
        })
        .unzip();
    for (&id, &goal) in ids.iter().zip(&goals) {
        sim.order_move(id, goal).unwrap();
    }
    sim.reset_instruments();
    let (allocations, ()) = allocations_during(|| {
        for _ in 0..100 {
            sim.step(profile.run.dt);
        }
    });
    let (stages, _) = sim.report();
    let paths = stages.iter().find(|stage| stage.name == "paths").unwrap();
    assert!(
        paths.counters["served"] >= 200.0,
        "the planner did real work: {paths:?}"
    );
    assert_eq!(
        allocations, 0,
        "allocations inside 100 ticks of planning on a map"
    );
}

/// The arena2 profile after warm-up: walls built between ticks under
/// moving units (displaced, replanning) and across their routes; the
/// edit call may allocate, the 100 ticks after it may not.
fn ticks_after_a_world_edit_allocate_nothing() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../profiles/arena2.toml");
    let mut profile = Profile::load(std::path::Path::new(path)).unwrap();
    profile.scenario.units = 1000;
    profile.platoons.size = 0;
    let mut sim = convoy_scenarios::build(&profile, 2).unwrap();
    while sim.open_path_requests() > 0 {
        sim.step(profile.run.dt);
    }
    for row in 0..200 {
        let goal = sim.vehicles().columns().position()[row + 500];
        let id = sim.vehicles().id_at(row).unwrap();
        sim.order_move(id, goal).unwrap();
    }
    for _ in 0..30 {
        sim.step(profile.run.dt);
    }
    let map = std::sync::Arc::clone(sim.config().map.grid_map().unwrap());
    for row in (0..200).step_by(20) {
        let cell = map
            .cell_at(sim.vehicles().columns().position()[row])
            .unwrap();
        let min = convoy::nav::Cell::new(cell.x.saturating_sub(2), cell.y.saturating_sub(2));
        let (width, height) = (map.grid().width(), map.grid().height());
        let max = convoy::nav::Cell::new((cell.x + 2).min(width - 1), (cell.y + 2).min(height - 1));
        let rect = convoy::nav::CellRect::new(min, max);
        sim.set_cells(rect, convoy::nav::Terrain::Blocked).unwrap();
    }
    let mut displaced = 0;
    let (allocations, ()) = allocations_during(|| {
        for _ in 0..100 {
            sim.step(profile.run.dt);
            displaced += sim
                .events()
                .iter()
                .filter(|event| matches!(event, convoy::Event::Displaced(_)))
                .count();
        }
    });
    assert!(displaced >= 10, "walls went up under units: {displaced}");
    assert_eq!(allocations, 0, "allocations in 100 ticks after world edits");
}

/// The skirmish profile (a polygon map) after warm-up: obstacles placed
/// between ticks under moving units (displaced, replanning) and across
/// their routes; the calls may allocate (the graph is rebuilt, the search
/// context grown), the 100 ticks after them may not.
fn ticks_after_an_obstacle_allocate_nothing() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../profiles/skirmish.toml");
    let mut profile = Profile::load(std::path::Path::new(path)).unwrap();
    profile.scenario.units = 1000;
    profile.platoons.size = 0;
    let mut sim = convoy_scenarios::build(&profile, 2).unwrap();
    while sim.open_path_requests() > 0 {
        sim.step(profile.run.dt);
    }
    for row in 0..200 {
        let goal = sim.vehicles().columns().position()[row + 500];
        let id = sim.vehicles().id_at(row).unwrap();
        sim.order_move(id, goal).unwrap();
    }
    for _ in 0..30 {
        sim.step(profile.run.dt);
    }
    let mut placed = 0;
    let ground: Vec<usize> = (0..200)
        .filter(|&row| sim.vehicles().columns().altitude()[row] <= 0.0)
        .step_by(40)
        .collect();
    for row in ground {
        let at = sim.vehicles().columns().position()[row];
        let square =
            [(-6.0, -6.0), (6.0, -6.0), (6.0, 6.0), (-6.0, 6.0)].map(|(x, y)| at + Vec2::new(x, y));
        placed += usize::from(sim.add_obstacle(&square).is_ok());
    }
    assert!(placed >= 3, "{placed} obstacles placed");
    let mut displaced = 0;
    let (allocations, ()) = allocations_during(|| {
        for _ in 0..100 {
            sim.step(profile.run.dt);
            displaced += sim
                .events()
                .iter()
                .filter(|event| matches!(event, convoy::Event::Displaced(_)))
                .count();
        }
    });
    assert!(displaced >= 3, "obstacles went up under units: {displaced}");
    assert_eq!(allocations, 0, "allocations in 100 ticks after obstacles");
}

/// The arena2 profile's platoons: warm-up plans and moves them (the
/// softening searches and every platoon route grow); then every platoon is
/// ordered somewhere new between ticks, and 100 ticks of planning and
/// formation movement are counted.
fn platoons_in_formation_allocate_nothing_after_warm_up() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../profiles/arena2.toml");
    let mut profile = Profile::load(std::path::Path::new(path)).unwrap();
    profile.scenario.units = 1000;
    let mut sim = convoy_scenarios::build(&profile, 2).unwrap();
    for _ in 0..100 {
        sim.step(profile.run.dt);
    }
    let platoons: Vec<_> = sim
        .platoons()
        .iter()
        .map(|(id, p)| (id, p.path_start))
        .collect();
    assert_eq!(platoons.len(), 200);
    for &(id, start) in &platoons {
        sim.order_platoon(id, start, None).unwrap();
    }
    sim.reset_instruments();
    let (allocations, ()) = allocations_during(|| {
        for _ in 0..100 {
            sim.step(profile.run.dt);
        }
    });
    let (stages, _) = sim.report();
    let formations = stages
        .iter()
        .find(|stage| stage.name == "formations")
        .unwrap();
    assert!(
        formations.counters["moving_platoons"] > 0.0,
        "platoons moved: {formations:?}"
    );
    assert_eq!(allocations, 0, "allocations inside 100 ticks of platoons");
}

/// A spatial hash of 90,000 cells, at least the 65,536 from which a rebuild
/// counts and sums its grid in parallel ranges, and 20,000 units, enough
/// for the cells to be assigned and the units scattered in parallel too:
/// after one rebuild, the next allocates nothing (called from outside the
/// pool, as a bench does).
fn a_fine_grid_rebuilds_without_allocating() {
    let bounds = convoy::Bounds::new(Vec2::ZERO, Vec2::splat(300.0));
    let mut hash = convoy::data::spatial_hash::SpatialHash::new(bounds, 1.0).unwrap();
    let (width, height) = hash.dimensions();
    assert!(width * height >= 65_536, "{width} × {height} cells");
    let positions: Vec<Vec2> = (0..20_000)
        .map(|i| Vec2::new((i * 37 % 300) as f32 + 0.5, (i * 53 % 299) as f32 + 0.25))
        .collect();
    hash.reserve(positions.len());
    hash.rebuild(&positions);
    let (allocations, stats) = allocations_during(|| hash.rebuild(&positions));
    assert_eq!(stats, hash.rebuild(&positions), "the same hash each time");
    assert_eq!(
        allocations, 0,
        "allocations inside a rebuild of a fine grid"
    );
}

/// The default profile at 1,000 units after warm-up: before each of 100
/// ticks the engine knocks units back, teleports one and writes values out
/// of range through `columns_mut`; `try_step` refuses them and `step` puts
/// them right, all without allocating.
fn steps_after_engine_edits_allocate_nothing() {
    let text = include_str!("../../profiles/default.toml");
    let mut profile = Profile::parse(text, "default.toml").unwrap();
    profile.scenario.units = 1000;
    let mut sim = convoy_scenarios::build(&profile, 2).unwrap();
    for _ in 0..10 {
        sim.step(profile.run.dt);
    }
    let mut refused = 0;
    let (allocations, ()) = allocations_during(|| {
        for tick in 0..100 {
            let columns = sim.columns_mut();
            for row in (tick % 7..columns.velocity.len()).step_by(7) {
                columns.velocity[row] *= -2.0;
            }
            columns.position[tick] = Vec2::new(f32::NAN, 1e30);
            columns.max_speed[tick + 1] = -1.0;
            refused += usize::from(sim.try_step(profile.run.dt).is_err());
            sim.step(profile.run.dt);
        }
    });
    assert_eq!(refused, 100, "every bad edit was refused by try_step");
    assert!(
        sim.vehicles()
            .columns()
            .position()
            .iter()
            .all(|p| p.is_finite()),
        "step put the edits right"
    );
    assert_eq!(
        allocations, 0,
        "allocations in 100 steps after engine edits"
    );
}

fn a_hundred_ticks_of_ten_thousand_units_allocate_nothing_after_warm_up() {
    let text = include_str!("../../profiles/default.toml");
    let mut profile = Profile::parse(text, "default.toml").unwrap();
    profile.scenario.units = 10_000;
    let mut sim = convoy_scenarios::build(&profile, 2).unwrap();
    let ids: Vec<_> = (0..100)
        .filter_map(|row| sim.vehicles().id_at(row))
        .collect();
    for &id in &ids {
        sim.order_move(id, Vec2::new(0.0, 50.0)).unwrap();
    }
    for _ in 0..10 {
        sim.step(profile.run.dt);
    }
    for &id in &ids {
        sim.order_move(id, Vec2::new(0.0, -50.0)).unwrap();
    }

    let (allocations, ()) = allocations_during(|| {
        for _ in 0..100 {
            sim.step(profile.run.dt);
        }
    });

    assert_eq!(sim.open_path_requests(), 0, "every request was served");
    let (stages, _) = sim.report();
    let paths = stages.iter().find(|stage| stage.name == "paths").unwrap();
    assert!(
        paths.counters["served"] >= 200.0,
        "the path queue did real work: {paths:?}"
    );
    assert_eq!(allocations, 0, "allocations inside 100 ticks");
}

/// The river profile (a polygon map: visibility-graph planning, the raster,
/// bridge admission): warm-up runs until platoons have crossed the bridge;
/// then 300 ticks of re-orders, planning, queues at the bridge and
/// crossings are counted.
fn platoons_at_a_bridge_allocate_nothing_after_warm_up() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../profiles/river.toml");
    let profile = Profile::load(std::path::Path::new(path)).unwrap();
    let mut sim = convoy_scenarios::build(&profile, 2).unwrap();
    let mut orders = convoy_scenarios::Orders::new(&profile, &sim);
    for _ in 0..1500 {
        orders.before_step(&mut sim).unwrap();
        sim.step(profile.run.dt);
    }
    let mut held = 0;
    let (allocations, ()) = allocations_during(|| {
        for _ in 0..300 {
            sim.step(profile.run.dt);
            held += sim
                .platoons()
                .iter()
                .filter(|(_, p)| p.on_bridge == 1)
                .count();
        }
    });
    assert!(held > 0, "no platoon held the bridge in the counted ticks");
    assert_eq!(
        allocations, 0,
        "allocations inside 300 ticks on a polygon map"
    );
}
