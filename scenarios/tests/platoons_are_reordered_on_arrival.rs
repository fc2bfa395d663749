//! Profiles that measure arrival: with `reorder_on_arrival` a platoon gets
//! its next order the tick after it arrives, and each arrival's path
//! efficiency is at least 1 (no platoon beats its slowest member's top
//! speed along the shortest path).

#![allow(clippy::unwrap_used)]

use convoy::Phase;
use convoy_scenarios::Profile;

const PROFILE: &str = r#"
name = "shuttle"
description = "tank platoons crossing an open field and back, re-ordered on arrival"

[run]
ticks = 3600
dt = 0.016666668
seed = 11

[scenario]
layout = "crossing"
units = 10
area_per_unit_m2 = 400.0
gap_m = 60.0

[scenario.mix]
tracked = 1.0

[platoons]
size = 5
spacing_m = 14.0
reorder_on_arrival = true
reorder_every_s = 50.0

[world]
neighbour_radius_m = 12.0
margin_m = 200.0

[budget]
frame_ms = 16.6
spatial_ms = 0.5
paths_ms = 1.0
formations_ms = 0.5
steering_ms = 1.0
integrate_ms = 0.5
separation_ms = 1.2
"#;

#[test]
fn platoons_are_reordered_on_arrival_and_never_beat_the_shortest_path() {
    let profile = Profile::parse(PROFILE, "shuttle").unwrap();
    let mut sim = convoy_scenarios::build(&profile, 1).unwrap();
    let mut orders = convoy_scenarios::Orders::new(&profile, &sim);
    let ids: Vec<_> = sim.platoon_views().map(|platoon| platoon.id()).collect();
    let mut arrivals_seen = vec![0u32; ids.len()];
    for _ in 0..profile.run.ticks {
        orders.before_step(&mut sim).unwrap();
        // Whoever had arrived was re-ordered just now.
        for &id in &ids {
            assert_ne!(sim.platoon(id).unwrap().phase(), Phase::Arrived);
        }
        sim.step(profile.run.dt);
        for (seen, &id) in arrivals_seen.iter_mut().zip(&ids) {
            *seen += u32::from(sim.platoon(id).unwrap().phase() == Phase::Arrived);
        }
    }
    // Every platoon arrives, and some arrive again: their next order came
    // on arrival (the 50 s time-out allows one order at most otherwise).
    let total: u32 = arrivals_seen.iter().sum();
    assert!(
        arrivals_seen.iter().all(|&count| count >= 1) && total > 2,
        "arrivals per platoon: {arrivals_seen:?}"
    );
    let log = orders.log();
    assert_eq!(log.arrivals, u64::from(total));
    assert_eq!(log.efficiency.len() as u64, log.arrivals);
    for &efficiency in &log.efficiency {
        assert!(
            efficiency.is_finite() && efficiency >= 1.0,
            "path efficiency {efficiency}"
        );
    }
    // One simulated minute: arrivals per minute is the count.
    let summary = log.summary(sim.time_s());
    assert!((summary.arrivals_per_minute - f64::from(total)).abs() < 1e-3);
}

/// The shipped arena2 (grid) and skirmish (polygon) profiles at 250 units:
/// 50 platoons of five mixed kinds, each clicked to a point within 100 m
/// whose path is at most 200 m. Nearly every platoon finishes its first
/// leg within the minute the profile allows it (members pinned near their
/// spots take the place where they stand; stragglers are waited for by
/// their own top speed).
#[test]
fn nearly_every_platoon_of_arena2_and_skirmish_arrives_within_its_first_minute() {
    for name in ["arena2", "skirmish"] {
        let file = format!("{}/../profiles/{name}.toml", env!("CARGO_MANIFEST_DIR"));
        let mut profile = Profile::load(std::path::Path::new(&file)).unwrap();
        profile.scenario.units = 250;
        let mut sim = convoy_scenarios::build(&profile, 2).unwrap();
        let mut orders = convoy_scenarios::Orders::new(&profile, &sim);
        let ids: Vec<_> = sim.platoon_views().map(|platoon| platoon.id()).collect();
        let mut arrived = vec![false; ids.len()];
        for _ in 0..3600 {
            orders.before_step(&mut sim).unwrap();
            sim.step(profile.run.dt);
            for (arrived, &id) in arrived.iter_mut().zip(&ids) {
                *arrived |= sim.platoon(id).unwrap().phase() == Phase::Arrived;
            }
        }
        let count = arrived.iter().filter(|&&arrived| arrived).count();
        assert!(
            count >= 47,
            "{name}: {count} of {} platoons arrived",
            ids.len()
        );
    }
}
