//! Which platoons of a profile never arrive, and why:
//! `cargo run --release -p convoy-bench --example platoon_arrivals [PROFILE] [UNITS] [TICKS]`.
//! Runs the profile with its orders (re-ordered on arrival, 2 threads),
//! counts each platoon's arrivals, and describes every platoon that never
//! arrived: its phase and speed, how far along its path it is, and for
//! each member its kind, whether it sees its drive-to point, its distance
//! to it and to its spot, its speed, stall clock and own route. A last
//! table counts the never-arrived platoons by phase and by what their
//! worst member is doing.

use std::collections::BTreeMap;

use convoy::geometry::angles::wrap_angle;
use convoy::{Phase, PlatoonId, Sim};
use convoy_scenarios::Profile;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args.next().unwrap_or_else(|| "profiles/arena2.toml".into());
    let units: Option<u32> = args.next().and_then(|n| n.parse().ok());
    let ticks: u64 = args.next().and_then(|n| n.parse().ok()).unwrap_or(3600);
    let mut profile = Profile::load(std::path::Path::new(&path))?;
    if let Some(units) = units {
        profile.scenario.units = units;
    }
    let mut sim = convoy_scenarios::build(&profile, 2)?;
    let mut orders = convoy_scenarios::Orders::new(&profile, &sim);
    let ids: Vec<_> = sim.platoon_views().map(|platoon| platoon.id()).collect();
    let mut arrivals = vec![0u32; ids.len()];
    let mut was_arrived = vec![false; ids.len()];
    for _ in 0..ticks {
        orders.before_step(&mut sim)?;
        sim.step(profile.run.dt);
        for (k, &id) in ids.iter().enumerate() {
            let arrived = sim.platoon(id).is_some_and(|p| p.phase() == Phase::Arrived);
            arrivals[k] += u32::from(arrived && !was_arrived[k]);
            was_arrived[k] = arrived;
        }
    }
    let never: Vec<PlatoonId> = (0..ids.len())
        .filter(|&k| arrivals[k] == 0)
        .map(|k| ids[k])
        .collect();
    let seconds = ticks as f64 * f64::from(profile.run.dt);
    let summary = orders.log().summary(seconds);
    println!(
        "{} platoons, {} never arrived; {:.1} arrivals a minute, efficiency mean {:.2} p95 {:.2}",
        ids.len(),
        never.len(),
        summary.arrivals_per_minute,
        summary.path_efficiency_mean,
        summary.path_efficiency_p95
    );
    let mut causes = BTreeMap::new();
    for &id in &never {
        *causes.entry(describe(&sim, id)).or_insert(0) += 1;
    }
    for (cause, count) in causes {
        println!("{count:5} {cause}");
    }
    Ok(())
}

/// Prints platoon `id` and its members; returns a line classifying it by
/// its phase and its worst member.
fn describe(sim: &Sim, id: PlatoonId) -> String {
    let (Some(view), Some(record)) = (sim.platoon(id), sim.platoons().get(id)) else {
        return "gone".into();
    };
    println!(
        "platoon {}: {:?} speed {:.2} travelled {:.1}/{:.1} m, goal {:.1} m away",
        id.index,
        view.phase(),
        view.speed(),
        record.travelled,
        record.route_length,
        view.position().distance(view.goal()),
    );
    let columns = sim.vehicles().columns();
    let map = sim.config().map.grid();
    let worst = record
        .error
        .iter()
        .copied()
        .filter(|e| e.is_finite())
        .fold(0.0, f32::max);
    let mut cause = format!("{:?}", view.phase());
    for (slot, unit) in view.members() {
        let Some(row) = sim.vehicles().row_of(unit) else {
            continue;
        };
        let (at, target) = (columns.position()[row], record.targets[slot]);
        let sees = map.is_none_or(|map| map.segment_is_clear(at, target));
        let off = wrap_angle((target - at).to_angle() - columns.heading()[row]).abs();
        let stalled = columns.stalled_s()[row];
        println!(
            "  slot {slot} kind {}: sees {sees}, to target {:.1} m ({off:.2} rad off its heading), to spot {:.1} m, speed {:.2}/{:.2}, stalled {stalled:.1} s, own route {}",
            columns.kind()[row],
            at.distance(target),
            at.distance(record.spots[slot]),
            columns.velocity()[row].length(),
            columns.max_speed()[row],
            columns.route_len()[row],
        );
        if record.error[slot] == worst {
            let side = if off < 0.5 {
                "ahead"
            } else if off < 2.0 {
                "aside"
            } else {
                "behind"
            };
            cause = format!(
                "{:?}, worst member kind {} sees {sees}, stalled {}, target {side}",
                view.phase(),
                columns.kind()[row],
                stalled >= 1.0,
            );
        }
    }
    cause
}
