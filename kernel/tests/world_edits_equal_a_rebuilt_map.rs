//! World edits against rebuilding: a map edited in place
//! (`WorldMap::set_cells`) has the regions, HPA* hierarchy, A* and HPA*
//! routes of a map built from scratch on the edited terrain; a `Sim` whose
//! map is edited (`Sim::set_cells`) moves walled units out, replans the
//! units whose route was cut (and only those), restores with its edits to
//! equal checksums, gives the same bits on 1 and 2 threads, and refuses bad
//! rectangles without changing anything.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use convoy::glam::{Vec2, Vec3};
use convoy::nav::{
    Cell, CellRect, EditError, GridMap, GridPlanner, HierarchicalPlanner, Mobility, Path, Terrain,
    WorldMap, load_map,
};
use convoy::random::unit_f32;
use convoy::{Bounds, Event, Map, MoveState, Sim, SimConfig, UnitId, UnitSpec, VehicleKind};
use proptest::prelude::*;

const DT: f32 = 1.0 / 60.0;

/// A `width` × `height` map, about a quarter walls and an eighth swamp.
fn random_map(width: u32, height: u32, seed: u64) -> GridMap {
    let mut map = GridMap::open(width, height).unwrap();
    for index in 0..u64::from(width * height) {
        let draw = unit_f32(seed, 0, index);
        let terrain = if draw < 0.25 {
            Terrain::Blocked
        } else if draw < 0.375 {
            Terrain::Swamp
        } else {
            continue;
        };
        map.set(
            Cell::new(
                (index % u64::from(width)) as u32,
                (index / u64::from(width)) as u32,
            ),
            terrain,
        );
    }
    map
}

fn terrain_of(k: u8) -> Terrain {
    [
        Terrain::Blocked,
        Terrain::Open,
        Terrain::Swamp,
        Terrain::Water,
    ][usize::from(k % 4)]
}

/// The rectangle of `size` cells at `corner`, clipped to a `width` ×
/// `height` map.
fn clipped(corner: (u32, u32), size: (u32, u32), width: u32, height: u32) -> CellRect {
    let min = Cell::new(corner.0 % width, corner.1 % height);
    let max = Cell::new(
        (min.x + size.0).min(width - 1),
        (min.y + size.1).min(height - 1),
    );
    CellRect::new(min, max)
}

/// A route's cells and cost, or none.
type Route = Option<(Vec<Cell>, f64)>;

/// A* and HPA* between `pairs` of cells.
fn routes(map: &WorldMap, pairs: &[(Cell, Cell)]) -> Vec<[Route; 2]> {
    let (mut astar, mut hpa) = (GridPlanner::new(), HierarchicalPlanner::new());
    pairs
        .iter()
        .map(|&(a, b)| {
            let direct = astar
                .find_path(map.grid(), a, b)
                .ok()
                .map(|p| (p.cells, p.cost));
            let mut path = Path::default();
            let hierarchical = hpa
                .find_path_into(map.hierarchy(), map.grid(), (a, b), &mut path)
                .ok()
                .map(|()| (path.cells, path.cost));
            [direct, hierarchical]
        })
        .collect()
}

/// Everything derived from the terrain equals a fresh build's.
fn assert_equals_rebuilt(edited: &WorldMap, seed: u64) {
    let fresh = WorldMap::new(
        edited.terrain(),
        Mobility::GROUND,
        edited.origin(),
        edited.cell_size(),
    )
    .unwrap();
    let grid = edited.grid();
    assert_eq!(grid.regions(), fresh.grid().regions(), "region labels");
    assert!(
        edited.hierarchy() == fresh.hierarchy(),
        "the HPA* hierarchy"
    );
    let (width, height) = (grid.width(), grid.height());
    let cell = |stream: u64, i: u64| {
        let draw = |s: u64, size: u32| ((unit_f32(seed, s, i) * size as f32) as u32).min(size - 1);
        Cell::new(draw(stream, width), draw(stream + 1, height))
    };
    for y in 0..height {
        for x in 0..width {
            let at = Cell::new(x, y);
            assert_eq!(grid.cost(at), fresh.grid().cost(at), "cost of {at:?}");
        }
    }
    for i in 0..200 {
        let (a, b) = (cell(10, i), cell(12, i));
        assert_eq!(
            edited.all_passable(a, b),
            fresh.all_passable(a, b),
            "{a:?} {b:?}"
        );
    }
    let pairs: Vec<(Cell, Cell)> = (0..40).map(|i| (cell(20, i), cell(22, i))).collect();
    let found = routes(edited, &pairs);
    assert_eq!(found, routes(&fresh, &pairs), "A* and HPA* routes");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn edited_small_maps_equal_maps_built_on_their_terrain(
        seed in any::<u64>(),
        width in 8u32..56,
        height in 8u32..56,
        edits in prop::collection::vec((any::<(u32, u32)>(), (0u32..14, 0u32..14), any::<u8>()), 1..6),
    ) {
        let mut map = WorldMap::new(&random_map(width, height, seed), Mobility::GROUND, Vec2::ZERO, 2.0).unwrap();
        for &(corner, size, terrain) in &edits {
            map.set_cells(clipped(corner, size, width, height), terrain_of(terrain)).unwrap();
        }
        assert_equals_rebuilt(&map, seed);
    }
}

fn arena2() -> Arc<WorldMap> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/data/movingai/arena2.map"
    );
    Arc::new(WorldMap::new(&load_map(path).unwrap(), Mobility::GROUND, Vec2::ZERO, 8.0).unwrap())
}

#[test]
fn edited_arena2_equals_arena2_built_on_its_terrain() {
    let mut map = WorldMap::clone(&arena2());
    let (width, height) = (map.grid().width(), map.grid().height());
    let mut edited = 0;
    for k in 0..6u64 {
        let corner = (
            (unit_f32(7, 0, k) * 1e4) as u32,
            (unit_f32(7, 1, k) * 1e4) as u32,
        );
        let size = (
            (unit_f32(7, 2, k) * 20.0) as u32,
            (unit_f32(7, 3, k) * 20.0) as u32,
        );
        let terrain = if k % 2 == 0 {
            Terrain::Blocked
        } else {
            Terrain::Open
        };
        let changed = map.set_cells(clipped(corner, size, width, height), terrain);
        edited += usize::from(changed.unwrap().is_some());
    }
    assert!(edited >= 3, "{edited} edits changed cells");
    assert_equals_rebuilt(&map, 11);
}

/// 40 × 30 cells of 4 m: a wall down column 20 with gaps at rows 3–5 and
/// 24–26.
fn two_gaps() -> Arc<WorldMap> {
    let mut map = GridMap::open(40, 30).unwrap();
    for y in (0..30).filter(|y| !(3..=5).contains(y) && !(24..=26).contains(y)) {
        map.set(Cell::new(20, y), Terrain::Blocked);
    }
    Arc::new(WorldMap::new(&map, Mobility::GROUND, Vec2::ZERO, 4.0).unwrap())
}

fn sim_on(map: &Arc<WorldMap>, threads: usize) -> Sim {
    let bounds = map.bounds();
    let mut config = SimConfig::new(Bounds::new(bounds.min - 20.0, bounds.max + 20.0));
    config.threads = threads;
    config.map = Map::Grid(Arc::clone(map));
    Sim::new(config).unwrap()
}

fn tank(at: Vec2) -> UnitSpec {
    let mut spec = UnitSpec::new(VehicleKind::Tracked, at);
    spec.shield = Vec3::new(1.0, 0.6, 1.0);
    spec
}

/// Every movable ground unit stands on a passable cell.
fn all_on_open_ground(sim: &Sim) -> bool {
    let map = sim.config().map.grid().unwrap();
    sim.vehicles()
        .columns()
        .position()
        .iter()
        .all(|&p| map.is_open(p))
}

/// Four tanks west of the wall sent east through the low gap, and one east
/// of it sent north on its own side.
fn crossing(sim: &mut Sim) -> (Vec<UnitId>, UnitId) {
    let crossers: Vec<UnitId> = (0..4)
        .map(|k| {
            sim.spawn(&tank(Vec2::new(40.0 + 8.0 * k as f32, 12.0)))
                .unwrap()
        })
        .collect();
    for (k, &unit) in crossers.iter().enumerate() {
        sim.order_move(unit, Vec2::new(120.0 + 10.0 * k as f32, 16.0))
            .unwrap();
    }
    let bystander = sim.spawn(&tank(Vec2::new(140.0, 40.0))).unwrap();
    sim.order_move(bystander, Vec2::new(140.0, 100.0)).unwrap();
    (crossers, bystander)
}

const LOW_GAP: CellRect = CellRect::new(Cell::new(20, 3), Cell::new(20, 5));

#[test]
fn units_whose_route_was_cut_arrive_by_a_new_route_and_only_they_replan() {
    let map = two_gaps();
    let mut sim = sim_on(&map, 1);
    let (crossers, bystander) = crossing(&mut sim);
    for _ in 0..30 {
        sim.step(DT);
    }
    assert_eq!(sim.move_state(bystander).unwrap(), MoveState::Moving);
    sim.set_cells(LOW_GAP, Terrain::Blocked).unwrap();
    for &unit in &crossers {
        assert_eq!(sim.move_state(unit).unwrap(), MoveState::WaitingForPath);
    }
    assert_eq!(
        sim.move_state(bystander).unwrap(),
        MoveState::Moving,
        "its route is clear"
    );
    let mut northmost = vec![0.0f32; crossers.len()];
    let mut arrived = 0;
    for _ in 0..60 * 120 {
        sim.step(DT);
        assert!(all_on_open_ground(&sim));
        for (k, &unit) in crossers.iter().enumerate() {
            let row = sim.vehicles().row_of(unit).unwrap();
            northmost[k] = northmost[k].max(sim.vehicles().columns().position()[row].y);
        }
        arrived = crossers
            .iter()
            .filter(|&&unit| sim.move_state(unit).unwrap() == MoveState::Arrived)
            .count();
        if arrived == crossers.len() {
            break;
        }
    }
    assert_eq!(arrived, crossers.len(), "every cut-off tank arrives");
    // The high gap spans y 96 to 108 m.
    assert!(
        northmost.iter().all(|&y| y > 90.0),
        "by the high gap: {northmost:?}"
    );
}

#[test]
fn units_on_walled_cells_move_to_the_nearest_open_cell_and_say_so() {
    let map = two_gaps();
    let mut sim = sim_on(&map, 1);
    let inside: Vec<UnitId> = (0..3)
        .map(|k| {
            sim.spawn(&tank(Vec2::new(50.0 + 5.0 * k as f32, 62.0)))
                .unwrap()
        })
        .collect();
    let outside = sim.spawn(&tank(Vec2::new(20.0, 100.0))).unwrap();
    sim.step(DT);
    let block = CellRect::new(Cell::new(11, 13), Cell::new(17, 18));
    sim.set_cells(block, Terrain::Blocked).unwrap();
    assert!(all_on_open_ground(&sim));
    let bounds = sim.config().map.grid().unwrap().rect_bounds(block);
    for &unit in &inside {
        let row = sim.vehicles().row_of(unit).unwrap();
        let at = sim.vehicles().columns().position()[row];
        // The nearest open cell's centre is half a cell outside the block.
        let gap = (at - at.clamp(bounds.min, bounds.max)).length();
        assert!((gap - 2.0).abs() < 1e-3, "{at} is {gap} m from the block");
    }
    sim.step(DT);
    let mut displaced: Vec<UnitId> = sim
        .events()
        .iter()
        .filter_map(|event| match event {
            Event::Displaced(unit) => Some(*unit),
            _ => None,
        })
        .collect();
    displaced.sort_unstable();
    assert_eq!(displaced, inside, "each once");
    assert!(!displaced.contains(&outside));
    for _ in 0..120 {
        sim.step(DT);
        assert!(all_on_open_ground(&sim));
    }
}

/// A `Sim` on arena2 whose far searches take several ticks each.
fn arena2_sim(map: &Arc<WorldMap>, threads: usize) -> Sim {
    let mut config = sim_on(map, threads).config().clone();
    config.max_path_nodes_per_tick = 500;
    Sim::new(config).unwrap()
}

/// Far orders on arena2 under a small path budget (searches stay in
/// flight), with edits while they fly: checksums per tick.
fn arena2_run(threads: usize, save_at: Option<u64>) -> (Vec<u64>, Option<Vec<u8>>) {
    let map = arena2();
    let mut sim = arena2_sim(&map, threads);
    let mut saved = None;
    let open: Vec<Vec2> = (0..4000u64)
        .map(|i| {
            map.bounds().min
                + Vec2::new(unit_f32(3, 0, i), unit_f32(3, 1, i))
                    * (map.bounds().max - map.bounds().min)
        })
        .filter(|&p| map.is_open(p))
        .collect();
    let units: Vec<UnitId> = open
        .iter()
        .take(60)
        .map(|&p| sim.spawn(&tank(p)).unwrap())
        .collect();
    for (k, &unit) in units.iter().enumerate() {
        let _ = sim.order_move(unit, open[open.len() - 1 - k]);
    }
    let mut sums = Vec::new();
    let mut edits_in_flight = 0;
    for tick in 0..240u64 {
        if tick % 40 == 5 {
            edits_in_flight += usize::from(sim.path_searches_in_flight() > 0);
            let at = open[tick as usize];
            let cell = map.cell_at(at).unwrap();
            let rect = CellRect::new(
                Cell::new(cell.x.saturating_sub(3), cell.y.saturating_sub(3)),
                Cell::new((cell.x + 3).min(280), (cell.y + 3).min(208)),
            );
            sim.set_cells(
                rect,
                if tick % 80 == 5 {
                    Terrain::Blocked
                } else {
                    Terrain::Swamp
                },
            )
            .unwrap();
        }
        if Some(tick) == save_at {
            let mut bytes = Vec::new();
            sim.save(&mut bytes).unwrap();
            saved = Some(bytes);
        }
        sim.step(DT);
        sums.push(sim.checksum());
    }
    assert!(
        edits_in_flight >= 2,
        "{edits_in_flight} edits met searches in flight"
    );
    (sums, saved)
}

#[test]
fn edits_give_the_same_bits_on_any_thread_count_and_restore_exactly() {
    let save_at = 130;
    let (one, saved) = arena2_run(1, Some(save_at));
    let (two, _) = arena2_run(2, None);
    assert_eq!(one, two, "1 and 2 threads");
    // A Sim built on the original map takes the snapshot's edits.
    let mut restored = arena2_sim(&arena2(), 2);
    restored.restore(&mut saved.unwrap().as_slice()).unwrap();
    let mut sums = Vec::new();
    for tick in save_at..240 {
        // The run's later edits, made again.
        if tick % 40 == 5 {
            break;
        }
        restored.step(DT);
        sums.push(restored.checksum());
    }
    assert!(sums.len() > 10);
    assert_eq!(sums, one[save_at as usize..save_at as usize + sums.len()]);
}

#[test]
fn restoring_a_snapshot_from_before_an_edit_restores_the_map() {
    let map = two_gaps();
    let mut sim = sim_on(&map, 1);
    crossing(&mut sim);
    sim.step(DT);
    let mut before = Vec::new();
    sim.save(&mut before).unwrap();
    let checksum = sim.checksum();
    sim.set_cells(LOW_GAP, Terrain::Blocked).unwrap();
    assert_ne!(sim.checksum(), checksum);
    sim.restore(&mut before.as_slice()).unwrap();
    assert_eq!(sim.checksum(), checksum);
    assert_eq!(sim.config().map.grid().unwrap().terrain(), map.terrain());
    // A clone of an edited Sim continues as it does.
    sim.set_cells(LOW_GAP, Terrain::Blocked).unwrap();
    let mut copy = sim.clone();
    for _ in 0..30 {
        sim.step(DT);
        copy.step(DT);
        assert_eq!(sim.checksum(), copy.checksum());
    }
}

#[test]
fn bad_rectangles_and_maps_without_cells_are_refused_with_nothing_changed() {
    let map = two_gaps();
    let mut sim = sim_on(&map, 1);
    crossing(&mut sim);
    sim.step(DT);
    let checksum = sim.checksum();
    let refused = [
        CellRect::new(Cell::new(0, 0), Cell::new(40, 3)),
        CellRect::new(Cell::new(39, 29), Cell::new(39, 30)),
        CellRect::new(Cell::new(5, 5), Cell::new(4, 5)),
        CellRect::new(Cell::new(u32::MAX, 0), Cell::new(u32::MAX, 0)),
    ];
    for rect in refused {
        let error = sim.set_cells(rect, Terrain::Blocked).unwrap_err();
        assert_eq!(
            error,
            EditError::OutsideMap {
                rect,
                width: 40,
                height: 30
            }
        );
        assert!(error.to_string().contains("`rect`"), "{error}");
        assert_eq!(sim.checksum(), checksum);
        assert_eq!(sim.config().map.grid().unwrap().terrain(), map.terrain());
    }
    let mut open = Sim::new(SimConfig::new(Bounds::new(
        Vec2::splat(-50.0),
        Vec2::splat(50.0),
    )))
    .unwrap();
    let error = open.set_cells(LOW_GAP, Terrain::Blocked).unwrap_err();
    assert_eq!(error, EditError::NotAGridMap);
}
