//! Polygon maps, run-time obstacles, bridges and points of interest through
//! the C ABI, called as C would and checked against the Rust API: a world
//! built from `polygon_path` steps to the same checksums as a `Sim` built
//! from the kernel's loaders, tick after tick, through the same obstacle
//! and bridge edits; a unit routes around an obstacle added through C and
//! straight again once it is removed; a unit goes round the river once its
//! bridge is removed and over a bridge added elsewhere; a platoon of a
//! faction not told of the removal drives to the bridge first, one of a
//! faction told goes round at once; a squad leader leapfrogs to a point of
//! interest given in the config; and each refusal gives its status and a
//! message naming what is wrong, and changes nothing.

#![allow(clippy::unwrap_used)]

use std::ffi::{CStr, CString};
use std::ptr::{null, null_mut};
use std::sync::Arc;

use convoy::glam::{DVec2, Vec2};
use convoy::nav::polygon::{load_mesh, load_polygon_map, rasterize};
use convoy::nav::{GraphConfig, ObstacleId, PolygonNavigator};
use convoy::{
    Bounds, BridgeSpec, FactionId, Map, PlatoonSpec, Sim, SimConfig, UnitId, UnitSpec, VehicleKind,
};
mod common;

use common::{message, refused};
use convoy_ffi::*;

use ConvoyStatus::{
    ConvoyBadArgument as Bad, ConvoyBadMap as BadMap, ConvoyIo as Io,
    ConvoyNotAPolygonMap as NotPolygon, ConvoyNullPointer as Null, ConvoyOk as Ok,
};

/// The river-crossing map: a 1 km square, a river from y = -10 to 850 at
/// x = 470 to 530, bridge 1 over it at y = 200.
const RIVER: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../profiles/maps/river_crossing.json"
);
/// Moving AI's arena as a Polyanya mesh, 49 m square.
const ARENA_MESH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../kernel/tests/data/polyanya/arena-merged.mesh"
);
const ARENA_MAP: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../profiles/maps/arena2.map");
const CLEARANCE: f32 = 4.0;
const CELL: f32 = 5.0;
const FACTIONS: u16 = 2;
const DT: f32 = 1.0 / 30.0;

fn c_path(path: &str) -> CString {
    CString::new(path).unwrap()
}

/// The config of a world on the polygon map `path`.
fn polygon_config(path: &CStr, clearance: f32, cell: f32) -> ConvoyConfig {
    let mut config = convoy_config_default();
    config.polygon_path = path.as_ptr();
    (config.clearance, config.cell_size, config.factions) = (clearance, cell, FACTIONS);
    (config.min_x, config.min_y, config.max_x, config.max_y) = (-50.0, -50.0, 1050.0, 1050.0);
    config
}

fn new_sim(config: &ConvoyConfig) -> *mut ConvoySim {
    let mut sim = null_mut();
    let status = unsafe { convoy_sim_new(config, &mut sim) };
    assert_eq!(status, Ok, "{}", message());
    sim
}

/// The same world through the Rust API: the kernel's loader, its
/// visibility graph at `clearance` for `FACTIONS` sides, its raster.
fn rust_sim(path: &str, clearance: f32, cell: f32) -> Sim {
    let map = if path.ends_with(".mesh") {
        load_mesh(path).unwrap()
    } else {
        load_polygon_map(path).unwrap()
    };
    let graph = GraphConfig {
        clearance: f64::from(clearance),
        ..GraphConfig::default()
    };
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-50.0), Vec2::splat(1050.0)));
    config.threads = 1;
    config.map = Map::Polygon {
        navigator: Arc::new(PolygonNavigator::build(&map, graph, FACTIONS).unwrap()),
        raster: Arc::new(rasterize(&map, cell).unwrap()),
    };
    Sim::new(config).unwrap()
}

fn checksum(sim: *mut ConvoySim) -> u64 {
    let mut sum = 0;
    assert_eq!(unsafe { convoy_checksum(sim, &mut sum) }, Ok);
    sum
}

fn spawn(sim: *mut ConvoySim, kind: u8, at: Vec2) -> u64 {
    let mut unit = 0;
    let status = unsafe { convoy_spawn(sim, kind, at.x, at.y, 0, &mut unit) };
    assert_eq!(status, Ok, "{}", message());
    unit
}

/// A C world and its Rust twin, with one unit spawned in each.
struct Twins {
    c: *mut ConvoySim,
    rust: Sim,
    unit: u64,
    rust_unit: UnitId,
}

impl Twins {
    fn new(path: &str, kind: VehicleKind, at: Vec2) -> Twins {
        let path_c = c_path(path);
        let c = new_sim(&polygon_config(&path_c, CLEARANCE, CELL));
        let mut rust = rust_sim(path, CLEARANCE, CELL);
        let unit = spawn(c, kind as u8, at);
        let rust_unit = rust.spawn(&UnitSpec::new(kind, at)).unwrap();
        let twins = Twins {
            c,
            rust,
            unit,
            rust_unit,
        };
        twins.agree("after the spawn");
        twins
    }

    /// The two worlds' checksums are equal.
    fn agree(&self, when: &str) {
        assert_eq!(checksum(self.c), self.rust.checksum(), "{when}");
    }

    /// The C unit's position.
    fn position(&self) -> Vec2 {
        let (mut xy, mut rows) = (null(), 0);
        assert_eq!(unsafe { convoy_positions(self.c, &mut xy, &mut rows) }, Ok);
        let xy = unsafe { std::slice::from_raw_parts(xy, 2 * rows) };
        Vec2::new(xy[0], xy[1])
    }

    /// Orders both units to `goal` and steps both worlds until the C unit
    /// arrives (at most `ticks`), checking that the checksums agree every
    /// tick; returns the C unit's positions.
    fn travel(&mut self, goal: Vec2, ticks: usize) -> Vec<Vec2> {
        let status = unsafe { convoy_order_move(self.c, self.unit, goal.x, goal.y, null_mut()) };
        assert_eq!(status, Ok, "{}", message());
        self.rust.order_move(self.rust_unit, goal).unwrap();
        let mut track = Vec::new();
        for tick in 0..ticks {
            assert_eq!(unsafe { convoy_step(self.c, DT) }, Ok, "{}", message());
            self.rust.step(DT);
            self.agree(&format!("tick {tick} on the way to {goal}"));
            track.push(self.position());
            let mut state = 0;
            assert_eq!(
                unsafe { convoy_move_state(self.c, self.unit, &mut state) },
                Ok
            );
            assert_ne!(state, CONVOY_MOVE_NO_PATH, "no path to {goal}");
            if state == CONVOY_MOVE_ARRIVED {
                return track;
            }
        }
        panic!("the unit did not reach {goal} in {ticks} ticks, ended at {track:?}")
    }
}

impl Drop for Twins {
    fn drop(&mut self) {
        unsafe { convoy_sim_free(self.c) };
    }
}

fn flat(points: &[Vec2]) -> Vec<f32> {
    points.iter().flat_map(|p| [p.x, p.y]).collect()
}

/// How far from the line at `y` `track` strayed, metres.
fn farthest_from_y(track: &[Vec2], y: f32) -> f32 {
    track.iter().map(|p| (p.y - y).abs()).fold(0.0, f32::max)
}

/// The square from (740, 650) to (810, 750), on the east bank.
fn square() -> [Vec2; 4] {
    [
        Vec2::new(740.0, 650.0),
        Vec2::new(810.0, 650.0),
        Vec2::new(810.0, 750.0),
        Vec2::new(740.0, 750.0),
    ]
}

#[test]
fn a_unit_routes_around_an_obstacle_added_through_c_and_straight_once_it_is_gone() {
    let (west, east) = (Vec2::new(600.0, 700.0), Vec2::new(950.0, 700.0));
    let mut twins = Twins::new(RIVER, VehicleKind::Tracked, west);
    let before = checksum(twins.c);
    let ring = flat(&square());
    let mut id = u32::MAX;
    let status = unsafe { convoy_add_obstacle(twins.c, ring.as_ptr(), 4, &mut id) };
    assert_eq!((status, id), (Ok, 0), "{}", message());
    assert_eq!(twins.rust.add_obstacle(&square()).unwrap(), ObstacleId(0));
    twins.agree("after the obstacle");
    assert_ne!(checksum(twins.c), before, "snapshots carry the obstacle");

    let track = twins.travel(east, 3_000);
    let inside = |p: &Vec2| (740.0..=810.0).contains(&p.x) && (650.0..=750.0).contains(&p.y);
    assert!(
        !track.iter().any(inside),
        "the unit drove into the obstacle"
    );
    let widest = farthest_from_y(&track, 700.0);
    assert!(widest > 50.0, "no detour round the obstacle: {widest} m");

    assert_eq!(unsafe { convoy_remove_obstacle(twins.c, id) }, Ok);
    twins.rust.remove_obstacle(ObstacleId(id)).unwrap();
    twins.agree("after the removal");
    refused(
        unsafe { convoy_remove_obstacle(twins.c, id) },
        Bad,
        "obstacle 0 does not exist",
    );
    let back = twins.travel(west, 3_000);
    let widest = farthest_from_y(&back, 700.0);
    assert!(
        widest < 2.0 && back.iter().any(inside),
        "the way back is not straight through the cleared square: {widest} m off y = 700"
    );
}

#[test]
fn bad_obstacles_are_refused_by_name_and_change_nothing() {
    let twins = Twins::new(RIVER, VehicleKind::Tracked, Vec2::new(600.0, 700.0));
    let sim = twins.c;
    let before = checksum(sim);
    let mut id = 7;
    let add = |points: &[f32], count: usize, id: &mut u32| unsafe {
        convoy_add_obstacle(sim, points.as_ptr(), count, id)
    };
    let ring = flat(&square());
    refused(
        unsafe { convoy_add_obstacle(null_mut(), ring.as_ptr(), 4, &mut id) },
        Null,
        "`sim`",
    );
    refused(
        unsafe { convoy_add_obstacle(sim, null(), 4, &mut id) },
        Null,
        "`points_xy`",
    );
    refused(
        unsafe { convoy_add_obstacle(sim, ring.as_ptr(), 4, null_mut()) },
        Null,
        "`out`",
    );
    refused(
        unsafe { convoy_add_obstacle(sim, null(), 0, &mut id) },
        Bad,
        "at least 3 points",
    );
    refused(add(&ring, 2, &mut id), Bad, "at least 3 points");
    let mut nan = ring.clone();
    nan[3] = f32::NAN;
    refused(add(&nan, 4, &mut id), Bad, "point 1 is not finite");
    let bow_tie = flat(&[
        Vec2::new(740.0, 650.0),
        Vec2::new(810.0, 750.0),
        Vec2::new(810.0, 650.0),
        Vec2::new(760.0, 740.0),
    ]);
    refused(add(&bow_tie, 4, &mut id), Bad, "crosses edge");
    let mut off_map = ring.clone();
    off_map[2] = 1400.0;
    refused(add(&off_map, 4, &mut id), Bad, "off the map");
    refused(
        unsafe { convoy_remove_obstacle(sim, 3) },
        Bad,
        "obstacle 3 does not exist",
    );
    assert_eq!(id, 7, "a refused obstacle writes no id");
    assert_eq!(checksum(sim), before, "refusals changed the world");

    let open = new_sim(&convoy_config_default());
    let arena2 = c_path(ARENA_MAP);
    let mut config = convoy_config_default();
    config.map_path = arena2.as_ptr();
    config.max_x = 281.0 * 8.0;
    config.max_y = 209.0 * 8.0;
    let grid = new_sim(&config);
    for world in [open, grid] {
        let before = checksum(world);
        refused(
            unsafe { convoy_add_obstacle(world, ring.as_ptr(), 4, &mut id) },
            NotPolygon,
            "polygon map",
        );
        refused(
            unsafe { convoy_remove_obstacle(world, 0) },
            NotPolygon,
            "polygon map",
        );
        let spec = bridge(2, 600.0);
        refused(
            unsafe { convoy_add_bridge(world, &spec, null(), 0) },
            NotPolygon,
            "polygon map",
        );
        refused(
            unsafe { convoy_remove_bridge(world, 1, null(), 0) },
            NotPolygon,
            "polygon map",
        );
        assert_eq!(checksum(world), before);
        unsafe { convoy_sim_free(world) };
    }
}

/// Bridge `id` over the river at `y`.
fn bridge(id: u32, y: f32) -> ConvoyBridgeSpec {
    ConvoyBridgeSpec {
        id,
        end0_x: 460.0,
        end0_y: y,
        middle_x: 500.0,
        middle_y: y,
        end1_x: 540.0,
        end1_y: y,
    }
}

/// `bridge(id, y)` for the Rust API.
fn rust_bridge(id: u32, y: f32) -> BridgeSpec {
    let y = f64::from(y);
    BridgeSpec {
        id,
        ends: [DVec2::new(460.0, y), DVec2::new(540.0, y)],
        middle: DVec2::new(500.0, y),
    }
}

#[test]
fn a_removed_bridge_sends_a_unit_round_the_river_and_a_new_one_takes_it_over() {
    let (west, east) = (Vec2::new(400.0, 200.0), Vec2::new(650.0, 200.0));
    let mut twins = Twins::new(RIVER, VehicleKind::Wheeled, west);
    let over = twins.travel(east, 3_000);
    let northmost = |track: &[Vec2]| track.iter().map(|p| p.y).fold(f32::MIN, f32::max);
    assert!(
        northmost(&over) < 300.0,
        "the bridge at y = 200 was not taken"
    );

    let faction_0 = [0u16];
    assert_eq!(
        unsafe { convoy_remove_bridge(twins.c, 1, faction_0.as_ptr(), 1) },
        Ok
    );
    twins.rust.remove_bridge(1, &[FactionId(0)]).unwrap();
    twins.agree("after the removal");
    let round = twins.travel(west, 9_000);
    assert!(
        northmost(&round) > 850.0,
        "without the bridge the way is round the river's north end, went to y = {}",
        northmost(&round)
    );

    let spec = bridge(2, 600.0);
    assert_eq!(
        unsafe { convoy_add_bridge(twins.c, &spec, faction_0.as_ptr(), 1) },
        Ok
    );
    twins
        .rust
        .add_bridge(rust_bridge(2, 600.0), &[FactionId(0)])
        .unwrap();
    twins.agree("after the new bridge");
    let new = twins.travel(Vec2::new(650.0, 600.0), 6_000);
    assert!(
        northmost(&new) < 700.0,
        "the new bridge at y = 600 was not taken, went to y = {}",
        northmost(&new)
    );
    assert!(
        new.iter()
            .any(|p| (470.0..530.0).contains(&p.x) && (p.y - 600.0).abs() < 10.0),
        "the unit never drove on the new deck"
    );
}

/// Where a platoon of four tanks of `faction`, west of the river at
/// y = 200, goes when ordered across after bridge 1 was removed with only
/// faction 0 told: its positions until it arrives.
fn platoon_after_the_bridge_fell(faction: u16) -> Vec<Vec2> {
    let river = c_path(RIVER);
    let sim = new_sim(&polygon_config(&river, CLEARANCE, CELL));
    let units: Vec<u64> = (0..4)
        .map(|k| {
            spawn(
                sim,
                CONVOY_KIND_TRACKED,
                Vec2::new(300.0 - 12.0 * k as f32, 200.0),
            )
        })
        .collect();
    let mut spec = convoy_platoon_spec_force21();
    (spec.faction, spec.formation) = (faction, CONVOY_FORMATION_COLUMN);
    let mut platoon = 0;
    let status = unsafe { convoy_create_platoon(sim, units.as_ptr(), 4, &spec, &mut platoon) };
    assert_eq!(status, Ok, "{}", message());
    assert_eq!(
        unsafe { convoy_remove_bridge(sim, 1, [0u16].as_ptr(), 1) },
        Ok
    );
    assert_eq!(
        unsafe { convoy_order_platoon(sim, platoon, 700.0, 200.0, null()) },
        Ok
    );
    let mut track = Vec::new();
    let mut state = unsafe { std::mem::zeroed::<ConvoyPlatoonState>() };
    for _ in 0..30 * 400 {
        assert_eq!(unsafe { convoy_step(sim, DT) }, Ok);
        assert_eq!(
            unsafe { convoy_platoon_state(sim, platoon, &mut state) },
            Ok
        );
        track.push(Vec2::new(state.x, state.y));
        if state.phase == CONVOY_PHASE_ARRIVED {
            break;
        }
    }
    assert_eq!(
        state.phase,
        CONVOY_PHASE_ARRIVED,
        "ended at {:?}",
        track.last()
    );
    unsafe { convoy_sim_free(sim) };
    track
}

#[test]
fn only_the_factions_told_of_a_removed_bridge_plan_round_it_at_once() {
    let near_the_bridge = |p: &Vec2| (430.0..470.0).contains(&p.x) && p.y < 300.0;
    let told = platoon_after_the_bridge_fell(0);
    assert!(
        !told.iter().any(near_the_bridge),
        "faction 0 knew the bridge was gone, yet drove to it"
    );
    let untold = platoon_after_the_bridge_fell(1);
    let at_bridge = untold.iter().position(near_the_bridge);
    let north = untold.iter().position(|p| p.y > 850.0);
    assert!(
        matches!((at_bridge, north), (Some(a), Some(n)) if a < n),
        "faction 1 should find the bridge gone, then go round: first at it {at_bridge:?}, north {north:?}"
    );
}

#[test]
fn bad_bridges_are_refused_by_name_and_change_nothing() {
    let twins = Twins::new(RIVER, VehicleKind::Tracked, Vec2::new(600.0, 700.0));
    let sim = twins.c;
    let before = checksum(sim);
    let both = [0u16, 1];
    let spec = bridge(2, 600.0);
    let add = |spec: &ConvoyBridgeSpec, known: &[u16]| unsafe {
        convoy_add_bridge(sim, spec, known.as_ptr(), known.len())
    };
    refused(
        unsafe { convoy_add_bridge(null_mut(), &spec, both.as_ptr(), 2) },
        Null,
        "`sim`",
    );
    refused(
        unsafe { convoy_add_bridge(sim, null(), both.as_ptr(), 2) },
        Null,
        "`spec`",
    );
    refused(
        unsafe { convoy_add_bridge(sim, &spec, null(), 2) },
        Null,
        "`known_to`",
    );
    refused(
        add(&bridge(1, 600.0), &both),
        Bad,
        "bridge 1: the id is already used",
    );
    let mut nan = spec;
    nan.middle_y = f32::NAN;
    refused(add(&nan, &both), Bad, "bridge 2: a point is not finite");
    refused(add(&spec, &[0, 2]), Bad, "faction 2 does not exist");
    refused(
        unsafe { convoy_remove_bridge(sim, 9, both.as_ptr(), 2) },
        Bad,
        "bridge 9 does not exist",
    );
    refused(
        unsafe { convoy_remove_bridge(sim, 1, null(), 1) },
        Null,
        "`known_to`",
    );
    refused(
        unsafe { convoy_remove_bridge(sim, 1, [5u16].as_ptr(), 1) },
        Bad,
        "faction 5 does not exist",
    );
    assert_eq!(checksum(sim), before, "refusals changed the world");
}

#[test]
fn a_mesh_map_steps_as_the_rust_api_steps_it() {
    // A soldier across the arena, from one of Polyanya's queries to its
    // goal (61 m the shortest way).
    let (start, goal) = (Vec2::new(7.5, 47.5), Vec2::new(44.5, 3.5));
    let mesh = c_path(ARENA_MESH);
    let config = polygon_config(&mesh, 0.5, 1.0);
    let c = new_sim(&config);
    let mut rust = rust_sim(ARENA_MESH, 0.5, 1.0);
    let unit = spawn(c, CONVOY_KIND_INFANTRY, start);
    let rust_unit = rust
        .spawn(&UnitSpec::new(VehicleKind::Infantry, start))
        .unwrap();
    assert_eq!(
        unsafe { convoy_order_move(c, unit, goal.x, goal.y, null_mut()) },
        Ok
    );
    rust.order_move(rust_unit, goal).unwrap();
    let mut state = CONVOY_MOVE_WAITING_FOR_PATH;
    for tick in 0..60 * 30 {
        assert_eq!(unsafe { convoy_step(c, DT) }, Ok);
        rust.step(DT);
        assert_eq!(checksum(c), rust.checksum(), "tick {tick}");
        assert_eq!(unsafe { convoy_move_state(c, unit, &mut state) }, Ok);
        if state == CONVOY_MOVE_ARRIVED {
            break;
        }
    }
    assert_eq!(state, CONVOY_MOVE_ARRIVED, "the soldier never arrived");
    unsafe { convoy_sim_free(c) };
}

#[test]
fn bad_polygon_configs_name_what_is_wrong_and_build_nothing() {
    let river = c_path(RIVER);
    let arena2 = c_path(ARENA_MAP);
    let mut sim = null_mut();
    let mut try_new = |config: &ConvoyConfig, expected, needle: &str| {
        refused(
            unsafe { convoy_sim_new(config, &mut sim) },
            expected,
            needle,
        );
        assert!(sim.is_null());
    };
    let good = polygon_config(&river, CLEARANCE, CELL);

    let mut config = good;
    config.map_path = arena2.as_ptr();
    try_new(&config, Bad, "both `map_path` and `polygon_path`");
    let missing = c_path("/no/such/dir/river.json");
    config = good;
    config.polygon_path = missing.as_ptr();
    try_new(&config, Io, "/no/such/dir/river.json");
    let missing_mesh = c_path("/no/such/dir/arena.mesh");
    config.polygon_path = missing_mesh.as_ptr();
    try_new(&config, Io, "/no/such/dir/arena.mesh");
    let broken = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("broken.json");
    std::fs::write(&broken, "{\"containers\": [[[0, 0], [10, 0], [10, 10]]]}").unwrap();
    let broken = c_path(broken.to_str().unwrap());
    config.polygon_path = broken.as_ptr();
    try_new(&config, BadMap, "broken.json");
    let not_utf8 = CString::new(vec![0xff, b'.', b'j']).unwrap();
    config.polygon_path = not_utf8.as_ptr();
    try_new(&config, Bad, "`polygon_path` is not UTF-8");

    for clearance in [-1.0, f32::NAN, 2e4] {
        config = good;
        config.clearance = clearance;
        try_new(&config, Bad, "`clearance`");
    }
    config = good;
    config.clearance = 600.0;
    try_new(&config, Bad, "`clearance`: no free space");
    config = good;
    config.factions = 0;
    try_new(&config, Bad, "`factions`");
    config = good;
    config.cell_size = 0.0;
    try_new(&config, Bad, "`cell_size`");

    config = good;
    config.points_of_interest_count = 2;
    try_new(&config, Null, "`config.points_of_interest_xy`");
    let points = [100.0, 100.0, 1200.0, 0.0];
    config.points_of_interest_xy = points.as_ptr();
    try_new(&config, Bad, "point of interest 1");
    let points = [100.0, 100.0, f32::NAN, 0.0];
    config.points_of_interest_xy = points.as_ptr();
    try_new(&config, Bad, "point of interest 1");
}

/// 80 s at 60 Hz: the squad passes the cover (100 m east) and arrives.
const SQUAD_TICKS: usize = 60 * 80;

/// A squad of six soldiers ordered 200 m east in a world with
/// `points` of interest; returns the most ticks any member stood on
/// `cover` and the checksum at the end.
fn squad_run(points: &[f32], cover: Vec2) -> (usize, u64) {
    let mut config = convoy_config_default();
    config.points_of_interest_xy = points.as_ptr();
    config.points_of_interest_count = points.len() / 2;
    let sim = new_sim(&config);
    let units: Vec<u64> = (0..6)
        .map(|k| {
            let at = Vec2::new(-6.0 * (k / 2) as f32, 6.0 * (k % 2) as f32 - 3.0);
            spawn(sim, CONVOY_KIND_INFANTRY, at)
        })
        .collect();
    let spec = convoy_platoon_spec_squad(6.0);
    let mut platoon = 0;
    let status = unsafe { convoy_create_platoon(sim, units.as_ptr(), 6, &spec, &mut platoon) };
    assert_eq!(status, Ok, "{}", message());
    assert_eq!(
        unsafe { convoy_order_platoon(sim, platoon, 200.0, 0.0, &0.0) },
        Ok
    );
    let mut on_cover = [0usize; 6];
    for _ in 0..SQUAD_TICKS {
        assert_eq!(unsafe { convoy_step(sim, 1.0 / 60.0) }, Ok);
        let (mut xy, mut rows) = (null(), 0);
        assert_eq!(unsafe { convoy_positions(sim, &mut xy, &mut rows) }, Ok);
        let xy = unsafe { std::slice::from_raw_parts(xy, 2 * rows) };
        for (ticks, pair) in on_cover.iter_mut().zip(xy.chunks_exact(2)) {
            *ticks += usize::from(Vec2::new(pair[0], pair[1]).distance(cover) <= 3.0);
        }
    }
    let sum = checksum(sim);
    unsafe { convoy_sim_free(sim) };
    (on_cover.into_iter().max().unwrap_or(0), sum)
}

/// The same squad through the Rust API; its checksum at the end.
fn rust_squad_checksum(points: Vec<Vec2>) -> u64 {
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-1000.0), Vec2::splat(1000.0)));
    config.threads = 1;
    config.points_of_interest = points;
    let mut sim = Sim::new(config).unwrap();
    let units: Vec<UnitId> = (0..6)
        .map(|k| {
            let at = Vec2::new(-6.0 * (k / 2) as f32, 6.0 * (k % 2) as f32 - 3.0);
            sim.spawn(&UnitSpec::new(VehicleKind::Infantry, at))
                .unwrap()
        })
        .collect();
    let platoon = sim
        .create_platoon(&units, &PlatoonSpec::squad(6.0))
        .unwrap();
    sim.order_platoon(platoon, Vec2::new(200.0, 0.0), Some(0.0))
        .unwrap();
    for _ in 0..SQUAD_TICKS {
        sim.step(1.0 / 60.0);
    }
    sim.checksum()
}

#[test]
fn a_squad_leader_leapfrogs_to_a_point_of_interest_from_the_config() {
    // On the squad's way east, between the lanes its members keep.
    let cover = Vec2::new(100.0, -5.5);
    let (plain, plain_sum) = squad_run(&[], cover);
    assert_eq!(plain, 0, "without the point nobody stands there");
    let (held, sum) = squad_run(&[-400.0, 300.0, cover.x, cover.y], cover);
    let hold_ticks = (convoy_platoon_spec_squad(6.0).leapfrog_hold_s * 60.0) as usize;
    assert!(
        held >= hold_ticks,
        "a leader stood on the cover {held} ticks, it holds {hold_ticks}"
    );
    assert_ne!(sum, plain_sum);
    assert_eq!(
        sum,
        rust_squad_checksum(vec![Vec2::new(-400.0, 300.0), cover]),
        "the C world's points are the Rust world's"
    );
}
