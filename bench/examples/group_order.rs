//! A box of tanks clicked to one point on arena2 (8 m cells), as an RTS
//! player would: `cargo run --release -p convoy-bench --example group_order [MODE]`
//! with MODE `single`, `same-point`, `own-spots`, `group` (20 tanks) or
//! `mixed` (200 units of four kinds); prints arrivals over time. `START=k`
//! takes the `k`-th start (0 by default), each at least 150 m from those
//! before it, with its own goal 300 m away; `COUNT=n` (1 to 20) sends the
//! first `n` tanks of the 20-tank box instead of all of them.

use std::sync::Arc;

use convoy::glam::Vec2;
use convoy::nav::{Cell, Mobility, WorldMap, load_map};
use convoy::{Bounds, Map, MoveState, Sim, SimConfig, UnitSpec, VehicleKind};

const CELL_M: f32 = 8.0;
const SPACING_M: f32 = 10.0;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mode = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "same-point".to_owned());
    let grid = load_map(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../profiles/maps/arena2.map"
    ))?;
    let map = Arc::new(WorldMap::new(&grid, Mobility::GROUND, Vec2::ZERO, CELL_M)?);
    let skip = std::env::var("START")
        .ok()
        .and_then(|k| k.parse().ok())
        .unwrap_or(0);
    let (start, goal) = pick_start_and_goal(&map, if mode == "mixed" { 200 } else { 20 }, skip);
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-50.0), map.bounds().max + 50.0));
    config.threads = 1;
    config.map = Map::Grid(Arc::clone(&map));
    let mut sim = Sim::new(config)?;
    let part_of_box: Option<usize> = std::env::var("COUNT")
        .ok()
        .and_then(|n| n.parse().ok())
        .filter(|n| (1..=20).contains(n));
    // (tanks sent, the box their places are taken from)
    let (count, layout) = match (mode.as_str(), part_of_box) {
        ("single", _) => (1, 1),
        ("platoon", _) => (5, 5),
        ("mixed", _) => (200, 200),
        (_, Some(part)) => (part, 20),
        (_, None) => (20, 20),
    };
    let mut units = Vec::new();
    for i in 0..count {
        let offset = box_offset(i, layout);
        let kinds = [
            VehicleKind::Tracked,
            VehicleKind::Wheeled,
            VehicleKind::Infantry,
            VehicleKind::RotaryWing,
        ];
        let kind = if mode == "mixed" {
            kinds[i % 4]
        } else {
            VehicleKind::Tracked
        };
        let spec = UnitSpec::new(kind, start + offset);
        units.push((sim.spawn(&spec)?, offset));
    }
    let mut targets: Vec<Vec2> = units
        .iter()
        .map(|&(_, offset)| {
            if mode == "own-spots" {
                goal + offset
            } else {
                goal
            }
        })
        .collect();
    if mode == "platoon" {
        let ids: Vec<_> = units.iter().map(|&(unit, _)| unit).collect();
        let platoon = sim.create_platoon(&ids, &convoy::PlatoonSpec::default())?;
        sim.order_platoon(platoon, goal, None)?;
        for _ in 0..120 {
            for _ in 0..60 {
                sim.step(1.0 / 60.0);
            }
            let view = sim.platoon(platoon).ok_or("platoon gone")?;
            println!(
                "{:5.1} s: phase {:?} at {} speed {:.2}, {:.0} m to go",
                sim.time_s(),
                view.phase(),
                view.position(),
                view.speed(),
                view.position().distance(goal)
            );
            if std::env::var("MEMBERS").is_ok() {
                let columns = sim.vehicles().columns();
                for (slot, unit) in view.members() {
                    let row = sim.vehicles().row_of(unit).ok_or("gone")?;
                    println!(
                        "    slot {slot}: error {:.1} v {:.2} want {} drive_to {} at {} heading {:.2} cruise {:.2} state {:?}",
                        view.formation_error()[slot],
                        columns.velocity()[row].length(),
                        columns.desired_velocity()[row],
                        columns.drive_to()[row],
                        columns.position()[row],
                        columns.heading()[row],
                        columns.cruise_speed()[row],
                        sim.move_state(unit)
                    );
                }
            }
        }
        return Ok(());
    }
    if mode == "group" || mode == "mixed" {
        let ids: Vec<_> = units.iter().map(|&(unit, _)| unit).collect();
        targets = sim.order_group(&ids, goal, Vec2::ZERO)?;
    } else {
        for (&(unit, _), &target) in units.iter().zip(&targets) {
            sim.order_move(unit, target)?;
        }
    }
    let dt = 1.0 / 60.0;
    println!(
        "start {start} goal {goal} distance {:.0} m",
        start.distance(goal)
    );
    let mut all_arrived = None;
    let seconds: u32 = std::env::var("SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(120);
    for second in 1..=seconds {
        for _ in 0..60 {
            sim.step(dt);
            let all = units
                .iter()
                .all(|&(unit, _)| sim.move_state(unit) == Ok(MoveState::Arrived));
            if all && all_arrived.is_none() {
                all_arrived = Some(sim.time_s());
                println!("all arrived at {:.1} s", sim.time_s());
            }
        }
        if second % 10 == 0 {
            let columns = sim.vehicles().columns();
            let mut off: Vec<f32> = units
                .iter()
                .zip(&targets)
                .map(|(&(unit, _), &target)| {
                    sim.vehicles().row_of(unit).map_or(f32::INFINITY, |row| {
                        columns.position()[row].distance(target)
                    })
                })
                .collect();
            off.sort_by(f32::total_cmp);
            let within = off.iter().filter(|&&d| d <= 3.0).count();
            println!(
                "{second:4} s: within 3 m {within}/{count}, median off {:.1} m, worst {:.1} m",
                off[off.len() / 2],
                off[off.len() - 1]
            );
        }
    }
    print_states(&sim, &units);
    Ok(())
}

/// Each kind's members by movement state at the end.
fn print_states(sim: &Sim, units: &[(convoy::UnitId, Vec2)]) {
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    for &(unit, _) in units {
        let kind = sim
            .vehicles()
            .row_of(unit)
            .map(|row| sim.vehicles().columns().kind()[row]);
        let kind = kind.and_then(VehicleKind::from_u8);
        if std::env::var("STUCK").is_ok() && sim.move_state(unit) == Ok(MoveState::Stuck) {
            let row = sim.vehicles().row_of(unit).unwrap_or(0);
            let columns = sim.vehicles().columns();
            println!(
                "  stuck {kind:?} at {} alt {} want {} drive_to {} goal {} v {}",
                columns.position()[row],
                columns.altitude()[row],
                columns.desired_velocity()[row],
                columns.drive_to()[row],
                columns.goal()[row],
                columns.velocity()[row]
            );
        }
        *counts
            .entry(format!("{kind:?} {:?}", sim.move_state(unit)))
            .or_default() += 1;
    }
    for (what, count) in counts {
        println!("  {what}: {count}");
    }
}

/// Unit `i`'s place in a box of `count`: 5 wide for 20, 20 wide for 200.
fn box_offset(i: usize, count: usize) -> Vec2 {
    let files = if count > 20 { 20 } else { 5 };
    let ranks = count.div_ceil(files);
    let centred = |k: usize, n: usize| k as f32 - (n as f32 - 1.0) / 2.0;
    Vec2::new(centred(i % files, files), centred(i / files, ranks)) * SPACING_M
}

/// The `skip`-th start whose box is open and has a goal about 300 m away
/// in its region, each start 150 m or more from the ones before it.
fn pick_start_and_goal(map: &WorldMap, count: usize, skip: usize) -> (Vec2, Vec2) {
    let box_open = |centre: Vec2| (0..count).all(|i| map.is_open(centre + box_offset(i, count)));
    let grid = map.grid();
    let cells = || (0..grid.height()).flat_map(|y| (0..grid.width()).map(move |x| Cell::new(x, y)));
    let goal_for = |start: Vec2| {
        let from = map.cell_at(start)?;
        cells().map(|cell| map.centre_of(cell)).find(|&goal| {
            (goal.distance(start) - 300.0).abs() < 4.0
                && box_open(goal)
                && map
                    .cell_at(goal)
                    .is_some_and(|cell| grid.connected(from, cell))
                && !map.segment_is_clear(start, goal)
        })
    };
    let mut taken: Vec<Vec2> = Vec::new();
    for start in cells().map(|cell| map.centre_of(cell)) {
        if !box_open(start) || taken.iter().any(|&other| other.distance(start) < 150.0) {
            continue;
        }
        if let Some(goal) = goal_for(start) {
            if taken.len() == skip {
                return (start, goal);
            }
            taken.push(start);
        }
    }
    panic!("arena2 has no {skip}-th open box with a goal 300 m away");
}
