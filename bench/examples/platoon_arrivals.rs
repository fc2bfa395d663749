//! Which platoons of a profile never arrive, and why:
//! `cargo run --release -p convoy-bench --example platoon_arrivals [PROFILE] [UNITS] [TICKS]`.
//! Runs the profile with its orders (re-ordered on arrival), counts each
//! platoon's arrivals, and describes every platoon that never arrived: its
//! phase and speed, how far along its path it is, and each member's
//! distance to its drive-to point, speed and stall clock.

use convoy::Phase;
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
    let trace: Option<usize> = std::env::var("TRACE").ok().and_then(|v| v.parse().ok());
    for tick in 0..ticks {
        if let Some(k) = trace.filter(|_| tick % 30 == 0 || tick < 5) {
            let view = sim.platoon(ids[k]).ok_or("gone")?;
            let record = sim.platoons().get(ids[k]).ok_or("gone")?;
            println!("trace {tick}: {:?} travelled {:.1}/{:.1} route_len {} pending {} goal {:.1} pos {:.1} spots0 {:.1}", view.phase(), record.travelled, record.route_length, record.route_len, record.route_pending, record.goal, record.position, record.spots[0]);
        }
        orders.before_step(&mut sim)?;
        sim.step(profile.run.dt);
        for (k, &id) in ids.iter().enumerate() {
            let arrived = sim.platoon(id).is_some_and(|p| p.phase() == Phase::Arrived);
            if arrived && !was_arrived[k] {
                arrivals[k] += 1;
            }
            was_arrived[k] = arrived;
        }
    }
    let never: Vec<usize> = (0..ids.len()).filter(|&k| arrivals[k] == 0).collect();
    let summary = orders
        .log()
        .summary(ticks as f64 * f64::from(profile.run.dt));
    println!(
        "{} platoons, {} never arrived; {:.1} arrivals a minute, efficiency mean {:.2} p95 {:.2}",
        ids.len(),
        never.len(),
        summary.arrivals_per_minute,
        summary.path_efficiency_mean,
        summary.path_efficiency_p95
    );
    let columns = sim.vehicles().columns();
    let records = sim.platoons();
    let mut kinds = std::collections::BTreeMap::new();
    for &k in &never {
        let view = sim.platoon(ids[k]).ok_or("gone")?;
        let record = records.get(ids[k]).ok_or("gone")?;
        println!(
            "platoon {k}: {:?} speed {:.2} travelled {:.1}/{:.1} m, goal {:.1} m away, formation {:?}",
            view.phase(),
            view.speed(),
            record.travelled,
            record.route_length,
            view.position().distance(view.goal()),
            view.formation()
        );
        for (slot, unit) in view.members() {
            let Some(row) = sim.vehicles().row_of(unit) else {
                continue;
            };
            let at = columns.position()[row];
            let target = record.targets[slot];
            let spot = record.spots[slot];
            let map = sim.config().map.grid();
            let clear = map.is_none_or(|map| map.segment_is_clear(at, target));
            let nearest = columns
                .position()
                .iter()
                .enumerate()
                .filter(|&(other, _)| other != row)
                .map(|(_, &p)| p.distance(at))
                .fold(f32::INFINITY, f32::min);
            let off = convoy::geometry::angles::wrap_angle(
                (target - at).to_angle() - columns.heading()[row],
            )
            .abs();
            let worst = record.error[..view.member_count()]
                .iter()
                .copied()
                .fold(0.0, f32::max);
            if record.error[slot] == worst {
                let key = format!(
                    "{:?} kind {} clear {clear} stalled {} off {}",
                    view.phase(),
                    columns.kind()[row],
                    columns.stalled_s()[row] >= 1.0,
                    if off < 0.5 {
                        "ahead"
                    } else if off < 2.0 {
                        "side"
                    } else {
                        "behind"
                    },
                );
                *kinds.entry(key).or_insert(0) += 1;
            }
            println!(
                "  slot {slot} {:?}: clear {clear} nearest {nearest:.1} desired {:.2}@{:.2} heading {:.2} to-target-dir {:.2} | to target {:.1} m, to spot {:.1} m, speed {:.2}/{:.2}, cruise {:.2}, stalled {:.1} s, own route {}, error {:.1}",
                columns.kind()[row],
                columns.desired_velocity()[row].length(),
                columns.desired_velocity()[row].to_angle(),
                columns.heading()[row],
                (target - at).to_angle(),
                at.distance(target),
                at.distance(spot),
                columns.velocity()[row].length(),
                columns.max_speed()[row],
                record.cruise[slot],
                columns.stalled_s()[row],
                columns.route_len()[row],
                record.error[slot],
            );
        }
    }
    for (key, count) in kinds {
        println!("{count:5} {key}");
    }
    Ok(())
}
