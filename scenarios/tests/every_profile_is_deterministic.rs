//! Lockstep determinism: every shipped profile, run for 600 ticks with its
//! platoons' later orders, passes through the same checksums with 1, 2 and
//! 4 worker threads. Units are
//! capped at 2,000 per profile to keep the suite short; the thread-count
//! independence does not depend on the count (see also
//! `results_do_not_depend_on_thread_count.rs` at 20,000 units).

#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use convoy_scenarios::Profile;

const UNITS: u32 = 2000;
const CHECK_EVERY: u64 = 50;

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

fn checksums(profile: &Profile, threads: usize) -> Vec<u64> {
    let mut sim = convoy_scenarios::build(profile, threads).unwrap();
    let mut orders = convoy_scenarios::Orders::new(profile, &sim);
    (1..=profile.run.ticks)
        .filter_map(|tick| {
            orders.before_step(&mut sim).unwrap();
            sim.step(profile.run.dt);
            tick.is_multiple_of(CHECK_EVERY).then(|| sim.checksum())
        })
        .collect()
}

#[test]
fn every_shipped_profile_gives_the_same_checksums_on_one_two_and_four_threads() {
    let profiles = shipped_profiles();
    assert!(profiles.len() >= 3, "profiles found: {profiles:?}");
    for path in profiles {
        let mut profile = Profile::load(&path).unwrap();
        profile.scenario.units = profile.scenario.units.min(UNITS);
        let one = checksums(&profile, 1);
        assert_eq!(one.len() as u64, profile.run.ticks / CHECK_EVERY);
        assert_eq!(
            checksums(&profile, 2),
            one,
            "{}: 2 threads differ from 1",
            path.display()
        );
        assert_eq!(
            checksums(&profile, 4),
            one,
            "{}: 4 threads differ from 1",
            path.display()
        );
        assert!(
            one.windows(2).all(|w| w[0] != w[1]),
            "{}: the state changes",
            path.display()
        );
    }
}
