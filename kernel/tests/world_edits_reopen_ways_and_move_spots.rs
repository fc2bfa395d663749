//! After a world edit (`Sim::set_cells`): a unit whose goal an edit put out
//! of reach holds in `NoPath` (or heads for a substitute goal) and goes on
//! to its goal once another edit opens a way — and only such units replan;
//! a group member's or a platoon's destination spot that an edit walls
//! moves to the nearest free open point, the others stay where they were.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use convoy::glam::{Vec2, Vec3};
use convoy::nav::{Cell, CellRect, GridMap, Mobility, Terrain, WorldMap};
use convoy::{
    Bounds, Event, Formation, Map, MoveState, PlatoonSpec, Sim, SimConfig, UnitId, UnitSpec,
    UnreachableGoals, VehicleKind,
};

const DT: f32 = 1.0 / 60.0;
/// Cells are 4 m wide.
const CELL: f32 = 4.0;

/// 40 × 30 cells of 4 m: a wall down column 20 with one gap, rows 3–5.
fn one_gap() -> Arc<WorldMap> {
    let mut map = GridMap::open(40, 30).unwrap();
    for y in (0..30).filter(|y| !(3..=5).contains(y)) {
        map.set(Cell::new(20, y), Terrain::Blocked);
    }
    Arc::new(WorldMap::new(&map, Mobility::GROUND, Vec2::ZERO, CELL).unwrap())
}

const GAP: CellRect = CellRect::new(Cell::new(20, 3), Cell::new(20, 5));
/// The breach made later, rows 14–16.
const BREACH: CellRect = CellRect::new(Cell::new(20, 14), Cell::new(20, 16));

fn sim_on(map: &Arc<WorldMap>, threads: usize, unreachable: UnreachableGoals) -> Sim {
    let bounds = map.bounds();
    let mut config = SimConfig::new(Bounds::new(bounds.min - 20.0, bounds.max + 20.0));
    config.threads = threads;
    config.map = Map::Grid(Arc::clone(map));
    config.unreachable_goals = unreachable;
    Sim::new(config).unwrap()
}

fn tank(at: Vec2) -> UnitSpec {
    let mut spec = UnitSpec::new(VehicleKind::Tracked, at);
    spec.shield = Vec3::new(1.0, 0.6, 1.0);
    spec
}

fn position(sim: &Sim, unit: UnitId) -> Vec2 {
    sim.vehicles().columns().position()[sim.vehicles().row_of(unit).unwrap()]
}

fn goal(sim: &Sim, unit: UnitId) -> Vec2 {
    sim.vehicles().columns().goal()[sim.vehicles().row_of(unit).unwrap()]
}

/// Steps until `done` or `ticks` ticks; returns the ticks taken.
fn step_until(sim: &mut Sim, ticks: usize, done: impl Fn(&Sim) -> bool) -> Option<usize> {
    for tick in 0..ticks {
        sim.step(DT);
        if done(sim) {
            return Some(tick + 1);
        }
    }
    None
}

/// The scene of the `NoPath` test: a crosser west of the wall ordered
/// east, a unit ordered into what becomes a sealed room, a bystander east
/// of the wall. Returns them and the checksum after every tick.
struct Walled {
    crosser: UnitId,
    sealed: UnitId,
    bystander: UnitId,
    sums: Vec<u64>,
    arrived_at: Option<usize>,
}

const EAST: Vec2 = Vec2::new(130.0, 62.0);
/// Inside the room cells 30–34 × 20–24 (its interior 31–33 × 21–23).
const ROOM_GOAL: Vec2 = Vec2::new(130.0, 90.0);

fn walled_run(threads: usize) -> Walled {
    let map = one_gap();
    let mut sim = sim_on(&map, threads, UnreachableGoals::Refuse);
    let crosser = sim.spawn(&tank(Vec2::new(40.0, 60.0))).unwrap();
    let sealed = sim.spawn(&tank(Vec2::new(40.0, 80.0))).unwrap();
    let bystander = sim.spawn(&tank(Vec2::new(140.0, 10.0))).unwrap();
    sim.order_move(crosser, EAST).unwrap();
    sim.order_move(sealed, ROOM_GOAL).unwrap();
    sim.order_move(bystander, Vec2::new(140.0, 40.0)).unwrap();
    let mut sums = Vec::new();
    for _ in 0..20 {
        sim.step(DT);
        sums.push(sim.checksum());
    }
    // The room: a block walled, then its interior opened again (sealed).
    sim.set_cells(
        CellRect::new(Cell::new(30, 20), Cell::new(34, 24)),
        Terrain::Blocked,
    )
    .unwrap();
    sim.set_cells(
        CellRect::new(Cell::new(31, 21), Cell::new(33, 23)),
        Terrain::Open,
    )
    .unwrap();
    assert_eq!(sim.move_state(sealed).unwrap(), MoveState::NoPath);
    // The only way east closes.
    sim.set_cells(GAP, Terrain::Blocked).unwrap();
    assert_eq!(sim.move_state(crosser).unwrap(), MoveState::NoPath);
    sim.step(DT);
    sums.push(sim.checksum());
    assert!(
        sim.events().contains(&Event::NoPath(crosser)),
        "{:?}",
        sim.events()
    );
    let held = position(&sim, crosser);
    for _ in 0..120 {
        sim.step(DT);
        sums.push(sim.checksum());
    }
    assert!(position(&sim, crosser).distance(held) < 0.5, "it holds");
    assert_eq!(sim.move_state(crosser).unwrap(), MoveState::NoPath);
    let bystander_state = sim.move_state(bystander).unwrap();
    // The wall is breached: the crosser, and only it, asks again.
    sim.set_cells(BREACH, Terrain::Open).unwrap();
    assert_eq!(sim.move_state(crosser).unwrap(), MoveState::WaitingForPath);
    assert_eq!(goal(&sim, crosser), EAST);
    assert_eq!(
        sim.move_state(sealed).unwrap(),
        MoveState::NoPath,
        "still sealed"
    );
    assert_eq!(sim.move_state(bystander).unwrap(), bystander_state);
    assert_eq!(sim.open_path_requests(), 1, "one request: the crosser's");
    let mut arrived_at = None;
    for tick in 0..60 * 90 {
        sim.step(DT);
        sums.push(sim.checksum());
        if arrived_at.is_none() && sim.move_state(crosser).unwrap() == MoveState::Arrived {
            arrived_at = Some(tick);
        }
        if tick > 60 * 5 && arrived_at.is_some() {
            break;
        }
    }
    Walled {
        crosser,
        sealed,
        bystander,
        sums,
        arrived_at,
    }
}

#[test]
fn a_unit_holding_without_a_path_goes_on_once_a_wall_is_breached() {
    let one = walled_run(1);
    assert!(one.arrived_at.is_some(), "the crosser arrives");
    let two = walled_run(2);
    assert_eq!(one.sums, two.sums, "1 and 2 threads");
    assert_eq!(
        (one.crosser, one.sealed, one.bystander),
        (two.crosser, two.sealed, two.bystander)
    );
}

#[test]
fn a_substitute_goal_gives_way_to_the_ordered_one_once_a_wall_is_breached() {
    let map = one_gap();
    let mut sim = sim_on(&map, 1, UnreachableGoals::MoveToNearest);
    let crosser = sim.spawn(&tank(Vec2::new(40.0, 60.0))).unwrap();
    sim.order_move(crosser, EAST).unwrap();
    for _ in 0..20 {
        sim.step(DT);
    }
    sim.set_cells(GAP, Terrain::Blocked).unwrap();
    let substitute = goal(&sim, crosser);
    assert!(substitute.x < 80.0, "on its own side: {substitute}");
    assert!(map.is_open(substitute));
    let row = sim.vehicles().row_of(crosser).unwrap();
    assert_eq!(sim.vehicles().columns().wanted_goal()[row], EAST);
    step_until(&mut sim, 60 * 60, |sim| {
        sim.move_state(crosser).unwrap() == MoveState::Arrived
    })
    .expect("it reaches the substitute");
    assert!(position(&sim, crosser).distance(substitute) < 2.5);
    sim.set_cells(BREACH, Terrain::Open).unwrap();
    assert_eq!(goal(&sim, crosser), EAST);
    assert!(sim.vehicles().columns().wanted_goal()[row].is_nan());
    step_until(&mut sim, 60 * 60, |sim| {
        sim.move_state(crosser).unwrap() == MoveState::Arrived
    })
    .expect("it reaches the goal as ordered");
    assert!(position(&sim, crosser).distance(EAST) < 2.5);
}

/// The cells about `point`, `half` cells each way.
fn cells_about(map: &WorldMap, point: Vec2, half: u32) -> CellRect {
    let cell = map.cell_at(point).unwrap();
    CellRect::new(
        Cell::new(cell.x.saturating_sub(half), cell.y.saturating_sub(half)),
        Cell::new(cell.x + half, cell.y + half),
    )
}

/// Whether a square of half-width `half` about `spot` lies on open cells
/// of `region` (its centre and four corners), as group spots must.
fn footprint_open(map: &WorldMap, spot: Vec2, half: f32, region: u32) -> bool {
    [
        (0.0, 0.0),
        (1.0, 1.0),
        (-1.0, 1.0),
        (1.0, -1.0),
        (-1.0, -1.0),
    ]
    .into_iter()
    .all(|(x, y)| {
        map.cell_at(spot + Vec2::new(x, y) * half)
            .is_some_and(|cell| map.grid().region(cell) == Some(region))
    })
}

#[test]
fn a_walled_group_spot_moves_to_the_nearest_free_open_lattice_point() {
    let map = one_gap();
    let mut sim = sim_on(&map, 1, UnreachableGoals::MoveToNearest);
    let group: Vec<UnitId> = (0..6)
        .map(|k| {
            sim.spawn(&tank(Vec2::new(100.0 + 6.0 * k as f32, 12.0)))
                .unwrap()
        })
        .collect();
    let spots = sim
        .order_group(&group, Vec2::new(131.0, 69.0), Vec2::Y)
        .unwrap();
    for _ in 0..10 {
        sim.step(DT);
    }
    // The back rank's east end, nearest the group coming from the south.
    let target = (0..group.len())
        .min_by(|&a, &b| {
            (spots[a].y, -spots[a].x)
                .partial_cmp(&(spots[b].y, -spots[b].x))
                .unwrap()
        })
        .unwrap();
    let walled = cells_about(&map, spots[target], 0);
    sim.set_cells(walled, Terrain::Blocked).unwrap();
    let edited = sim.config().map.grid().unwrap().clone();
    let moved = goal(&sim, group[target]);
    assert_ne!(moved, spots[target]);
    for (k, &unit) in group.iter().enumerate().filter(|&(k, _)| k != target) {
        assert_eq!(goal(&sim, unit), spots[k], "member {k} keeps its spot");
    }
    // Against every lattice point of the block's frame about the old spot.
    let spacing = 2.0 * 2.0 * 1.0;
    let region = edited
        .grid()
        .region(edited.cell_at(position(&sim, group[target])).unwrap())
        .unwrap();
    // The frame as the order stored it.
    let row = sim.vehicles().row_of(group[target]).unwrap();
    let forward = Vec2::from_angle(sim.vehicles().columns().final_heading()[row]);
    let left = forward.perp();
    let free = |point: Vec2| {
        footprint_open(&edited, point, 0.5 * spacing, region)
            && (0..group.len())
                .filter(|&k| k != target)
                .all(|k| spots[k].distance(point) >= 0.999 * spacing)
    };
    let nearest = (-24..=24)
        .flat_map(|i| (-24..=24).map(move |j| (i, j)))
        .map(|(i, j)| spots[target] + (forward * i as f32 + left * j as f32) * spacing)
        .filter(|&point| free(point))
        .map(|point| point.distance(spots[target]))
        .fold(f32::INFINITY, f32::min);
    assert!(free(moved), "{moved} is open and free");
    assert!(
        (moved.distance(spots[target]) - nearest).abs() < 1e-3,
        "{moved} is {} m away, the nearest free point {nearest} m",
        moved.distance(spots[target])
    );
    step_until(&mut sim, 60 * 60, |sim| {
        sim.move_state(group[target]).unwrap() == MoveState::Arrived
    })
    .expect("the moved member arrives");
    assert!(position(&sim, group[target]).distance(moved) < 2.5);
}

#[test]
fn a_walled_platoon_spot_moves_and_the_others_stay() {
    let map = one_gap();
    let mut sim = sim_on(&map, 1, UnreachableGoals::MoveToNearest);
    let members: Vec<UnitId> = (0..4)
        .map(|k| {
            sim.spawn(&tank(Vec2::new(110.0, 10.0 + 8.0 * k as f32)))
                .unwrap()
        })
        .collect();
    let platoon = sim
        .create_platoon(&members, &PlatoonSpec::force21(Formation::Line))
        .unwrap();
    sim.order_platoon(platoon, Vec2::new(130.0, 80.0), Some(0.0))
        .unwrap();
    for _ in 0..10 {
        sim.step(DT);
    }
    let before = *sim.platoon(platoon).unwrap().spots();
    let target = 2;
    let walled = cells_about(&map, before[target], 0);
    sim.set_cells(walled, Terrain::Blocked).unwrap();
    let edited = sim.config().map.grid().unwrap().clone();
    let view = sim.platoon(platoon).unwrap();
    let after = *view.spots();
    let goal_cell = edited.cell_at(view.goal()).unwrap();
    assert_ne!(after[target], before[target]);
    let spot_cell = edited.cell_at(after[target]).unwrap();
    assert!(
        edited.grid().connected(goal_cell, spot_cell),
        "{}",
        after[target]
    );
    for slot in (0..members.len()).filter(|&slot| slot != target) {
        assert_eq!(after[slot], before[slot], "slot {slot} keeps its spot");
    }
    assert_eq!(goal(&sim, members[target]), after[target]);
    // The platoon's goal itself walled: it moves to open ground too.
    let goal_before = view.goal();
    sim.set_cells(cells_about(&edited, goal_before, 1), Terrain::Blocked)
        .unwrap();
    let view = sim.platoon(platoon).unwrap();
    let edited = sim.config().map.grid().unwrap().clone();
    assert!(edited.is_open(view.goal()), "{}", view.goal());
    for (slot, unit) in view.members() {
        let spot = view.spots()[slot];
        assert!(edited.grid().connected(
            edited.cell_at(view.goal()).unwrap(),
            edited.cell_at(spot).unwrap()
        ));
        assert_eq!(goal(&sim, unit), spot);
    }
    step_until(&mut sim, 60 * 90, |sim| {
        sim.events().contains(&Event::PlatoonArrived(platoon))
    })
    .expect("the platoon arrives");
}
