//! Units spawned on one point, the fuzzer's hostile crowd: times the first
//! ticks and prints what each unit's neighbour search examined:
//! `cargo run --release -p convoy-bench --example one_point [UNITS] [TICKS] [THREADS] [KIND]`
//! (1,000,000 infantry, one tick, two threads by default; KIND `starship`
//! piles starships, whose shields are wider than a hash cell).

use std::time::Instant;

use convoy::glam::Vec2;
use convoy::{Bounds, Sim, SimConfig, UnitSpec, VehicleKind};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mut arg = |default: usize| args.next().and_then(|a| a.parse().ok()).unwrap_or(default);
    let (units, ticks, threads) = (arg(1_000_000), arg(1), arg(2));
    let kind = match std::env::args().nth(4).as_deref() {
        Some("starship") => VehicleKind::Starship,
        _ => VehicleKind::Infantry,
    };
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-5000.0), Vec2::splat(5000.0)));
    config.threads = threads;
    let mut sim = Sim::new(config)?;
    let spec = UnitSpec::new(kind, Vec2::ZERO);
    let ids = (0..units)
        .map(|_| sim.spawn(&spec))
        .collect::<Result<Vec<_>, _>>()?;
    for &id in ids.iter().step_by(97) {
        sim.order_move(id, Vec2::new(200.0, 0.0))?;
    }
    for tick in 0..ticks {
        let start = Instant::now();
        sim.step(1.0 / 60.0);
        let seconds = start.elapsed().as_secs_f64();
        let finite = sim
            .vehicles()
            .columns()
            .position()
            .iter()
            .all(|p| p.is_finite());
        println!("tick {tick}: {seconds:.2} s, positions finite: {finite}");
    }
    let stats = sim.stage_stats();
    println!("steering: {:?}", stats.steering);
    println!("separation: {:?}", stats.separation);
    let (stages, _) = sim.report();
    for stage in stages {
        println!("{}: mean {:.1} ms", stage.name, stage.mean_ms);
    }
    Ok(())
}
