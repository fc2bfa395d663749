//! Determinism: the same profile stepped with 1 and with 2 worker threads
//! ends bit-identical, column by column.

#![allow(clippy::unwrap_used)]

mod same_columns;

use convoy_scenarios::Profile;
use same_columns::assert_same_columns;

fn run(threads: usize, ticks: usize) -> convoy::Sim {
    let text = include_str!("../../profiles/default.toml");
    let mut profile = Profile::parse(text, "default.toml").unwrap();
    // Enough units that every parallel pass splits across threads.
    profile.scenario.units = 20_000;
    profile.scenario.gap_m = 10.0;
    let mut sim = convoy_scenarios::build(&profile, threads).unwrap();
    assert_eq!(sim.threads(), threads);
    for _ in 0..ticks {
        sim.step(profile.run.dt);
    }
    sim
}

#[test]
fn two_hundred_ticks_on_one_and_two_threads_give_bit_identical_columns() {
    let (one, two) = (run(1, 200), run(2, 200));
    assert_same_columns(&one, &two);
    assert_eq!(one.checksum(), two.checksum());
    // The run did something: units moved and pushed each other apart.
    let (stages, _) = one.report();
    let separation = stages
        .iter()
        .find(|stage| stage.name == "separation")
        .unwrap();
    assert!(separation.counters["overlaps"] > 0.0, "{separation:?}");
}
