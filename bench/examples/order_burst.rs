//! A thousand move orders in one tick on arena2 (8 m cells), as an RTS
//! gives them: `cargo run --release -p convoy-bench --example order_burst [ORDERS] [THREADS] [BUDGET] [PER_SECOND]`
//! (BUDGET: `max_path_nodes_per_tick`, cells).
//! Prints how many ticks until every order has its path, and the `paths`
//! stage's time per tick. With `PER_SECOND`, the ORDERS units are instead
//! re-ordered round-robin at that many orders a second for 20 s, and it
//! prints each order's wait for its path (p50, p99, worst).

use std::sync::Arc;
use std::time::Instant;

use convoy::glam::Vec2;
use convoy::nav::{Cell, Mobility, WorldMap, load_map};
use convoy::random::unit_f32;
use convoy::{Bounds, Map, MoveState, Sim, SimConfig, UnitSpec, VehicleKind};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let orders: u64 = args.next().and_then(|n| n.parse().ok()).unwrap_or(1000);
    let threads: usize = args.next().and_then(|n| n.parse().ok()).unwrap_or(2);
    let budget: Option<u64> = args.next().and_then(|n| n.parse().ok());
    let per_second: Option<u64> = args.next().and_then(|n| n.parse().ok());
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../profiles/maps/arena2.map");
    let grid = load_map(path)?;
    let map = Arc::new(WorldMap::new(&grid, Mobility::GROUND, Vec2::ZERO, 8.0)?);
    let bounds = map.bounds();
    let mut config = SimConfig::new(Bounds::new(bounds.min - 50.0, bounds.max + 50.0));
    config.threads = threads;
    config.map = Map::Grid(Arc::clone(&map));
    if let Some(budget) = budget {
        config.max_path_nodes_per_tick = budget;
    }
    let mut sim = Sim::new(config)?;
    let open_point = |stream: u64, draw: u64| {
        let cells = map.grid();
        (0..)
            .map(|attempt| {
                let x = unit_f32(1, stream, draw * 64 + attempt) * cells.width() as f32;
                let y = unit_f32(1, stream + 1, draw * 64 + attempt) * cells.height() as f32;
                map.centre_of(Cell::new(x as u32, y as u32))
            })
            .find(|&point| map.is_open(point))
    };
    let mut units = Vec::new();
    for k in 0..orders {
        let at = open_point(10, k).ok_or("no open cell")?;
        units.push(sim.spawn(&UnitSpec::new(VehicleKind::Tracked, at))?);
    }
    sim.reserve(units.len());
    for _ in 0..10 {
        sim.step(1.0 / 60.0);
    }
    sim.reset_instruments();
    if let Some(rate) = per_second {
        let mut draw = 0;
        let mut ordered_at = vec![None; units.len()];
        let mut waits = Vec::new();
        for tick in 0..20 * 60u64 {
            // Orders due by the end of this tick at `rate` a second.
            let due = (tick + 1) * rate / 60;
            while draw < due {
                let k = (draw % orders) as usize;
                sim.order_move(units[k], open_point(20, draw).ok_or("no open cell")?)?;
                ordered_at[k] = Some(tick);
                draw += 1;
            }
            sim.step(1.0 / 60.0);
            for (k, &unit) in units.iter().enumerate() {
                if let Some(at) =
                    ordered_at[k].filter(|_| sim.move_state(unit) != Ok(MoveState::WaitingForPath))
                {
                    waits.push((tick + 1 - at) as f64 / 60.0);
                    ordered_at[k] = None;
                }
            }
        }
        waits.sort_by(f64::total_cmp);
        let at = |q: f64| waits[((waits.len() - 1) as f64 * q) as usize];
        let (reports, _) = sim.report();
        let paths = reports
            .iter()
            .find(|report| report.name == "paths")
            .ok_or("no paths stage")?;
        println!(
            "{rate} orders a second: {} served, wait p50 {:.3} s, p99 {:.3} s, worst {:.3} s; `paths` {:.2} ms a tick (p99 {:.2})",
            waits.len(),
            at(0.5),
            at(0.99),
            at(1.0),
            paths.mean_ms,
            paths.p99_ms
        );
        return Ok(());
    }
    for (k, &unit) in units.iter().enumerate() {
        let goal = open_point(20, k as u64).ok_or("no open cell")?;
        sim.order_move(unit, goal)?;
    }
    let mut slowest_ms = 0.0f64;
    for tick in 1..=600 {
        let started = Instant::now();
        sim.step(1.0 / 60.0);
        slowest_ms = slowest_ms.max(started.elapsed().as_secs_f64() * 1e3);
        if sim.open_path_requests() == 0 {
            let paths = sim.stage_stats().paths;
            let (reports, _) = sim.report();
            let (mean_ms, p99_ms) = reports
                .iter()
                .find(|report| report.name == "paths")
                .map_or((f64::NAN, f64::NAN), |report| {
                    (report.mean_ms, report.p99_ms)
                });
            println!(
                "{orders} orders: all planned after {tick} ticks ({:.2} s of game time); `paths` {mean_ms:.2} ms a tick (p99 {p99_ms:.2}), slowest tick {slowest_ms:.1} ms; {:.0} cells of work a tick",
                f64::from(tick) / 60.0,
                paths.work_cells,
            );
            return Ok(());
        }
    }
    println!(
        "{orders} orders: {} still open after 600 ticks",
        sim.open_path_requests()
    );
    Ok(())
}
