//! Runs one crowd-quality scenario on convoy alone and prints its outcome:
//! `cargo run --release -p convoy-bench --example crowd_once blocks-head-on [THREADS]`.

use convoy_scenarios::crowd::{convoy_runner, scenarios};

fn main() {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "circle-24".to_owned());
    let threads = args.next().and_then(|t| t.parse().ok()).unwrap_or(1);
    let Some(scenario) = scenarios::build(&name) else {
        eprintln!(
            "unknown scenario `{name}`; known: {}",
            scenarios::NAMES.join(", ")
        );
        std::process::exit(2);
    };
    match convoy_runner::run(&scenario, threads) {
        Ok(outcome) => {
            let fmt = |t: Option<f64>| t.map_or("-".to_owned(), |t| format!("{t:.1}"));
            let arrivals = &outcome.arrivals;
            let at = |s: usize| arrivals.get(s).copied().unwrap_or(f64::NAN);
            println!(
                "{name}: t95 {} t100 {} arrived {}/{} stuck {} coll/1k {:.3} deepest {:.3} speed {:.2} | at 60 s {:.3} 90 s {:.3} 120 s {:.3} | {:.3} ms/tick",
                fmt(outcome.time_to_95_s),
                fmt(outcome.time_to_100_s),
                outcome.arrived_at_end,
                outcome.agents,
                outcome.stuck_at_end,
                outcome.collisions_per_1000_unit_ticks,
                outcome.deepest_interpenetration_m,
                outcome.mean_speed_fraction,
                at(60),
                at(90),
                at(120),
                outcome.wall_ms_per_tick,
            );
        }
        Err(error) => {
            eprintln!("error: {error}");
            std::process::exit(2);
        }
    }
}
