//! The Armada guarantee: after every tick of every shipped profile no two
//! shields overlap by more than 1e-3 of the smaller shield's smallest
//! semi-axis, and separation never stops at its iteration cap. Units are
//! capped at 10,000 per profile (the 100,000-unit stress profile included,
//! at a tenth) to keep the suite short.

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use convoy_scenarios::Profile;

const UNITS: u32 = 10_000;
const TICKS: u64 = 600;
/// The deepest overlap left after a tick, relative to the smaller shield's
/// smallest semi-axis.
const MAX_OVERLAP_REL: f64 = 1e-3;

fn shipped_profiles() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../profiles");
    let mut profiles: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    profiles.sort();
    profiles
}

#[test]
fn no_two_shields_overlap_after_any_tick_of_any_shipped_profile() {
    let profiles = shipped_profiles();
    assert!(profiles.len() >= 3, "profiles found: {profiles:?}");
    for path in profiles {
        let mut profile = Profile::load(&path).unwrap();
        profile.scenario.units = profile.scenario.units.min(UNITS);
        let mut sim = convoy_scenarios::build(&profile, 2).unwrap();
        let orders = convoy_scenarios::Orders::new(&profile, &sim);
        for _ in 0..TICKS {
            orders.before_step(&mut sim).unwrap();
            sim.step(profile.run.dt);
        }
        let separation = sim.stage_stats().separation;
        assert!(
            separation.max_overlap_rel <= MAX_OVERLAP_REL,
            "{}: shields overlap by {} of the smaller shield after a tick",
            path.display(),
            separation.max_overlap_rel
        );
        assert_eq!(
            separation.capped_ticks,
            0.0,
            "{}: separation hit its cap (at most {} pushes a tick)",
            path.display(),
            separation.max_iterations
        );
    }
}
