//! A cloned `Sim` (rollback) continues exactly as the original, tick by
//! tick, on a grid map with searches in flight and a platoon, on one thread
//! and on two; and it is independent: an order to the clone leaves the
//! original as it was.

#![allow(clippy::unwrap_used)]

use convoy::Sim;
use convoy::glam::Vec2;

mod busy_world;

/// The busy arena2 world after 5 ticks, rows reordered every 4.
fn busy_world(threads: usize) -> Sim {
    busy_world::busy_world(threads, |config| config.reorder_interval = 4, 5)
}

fn assert_clone_continues_alike(threads: usize) {
    let mut original = busy_world(threads);
    assert!(original.path_searches_in_flight() > 0);
    let mut copy = original.clone();
    assert_eq!(copy.checksum(), original.checksum());
    assert_eq!(copy.threads(), original.threads());
    for tick in 0..120 {
        original.step(1.0 / 60.0);
        copy.step(1.0 / 60.0);
        assert_eq!(
            copy.checksum(),
            original.checksum(),
            "tick {tick} after the clone"
        );
    }
    let before = original.checksum();
    let mut branch = original.clone();
    let unit = branch.vehicles().id_at(10).unwrap();
    branch.order_move(unit, Vec2::new(100.0, 100.0)).unwrap();
    branch.step(1.0 / 60.0);
    assert_eq!(original.checksum(), before, "the original did not move");
    original.step(1.0 / 60.0);
    assert_ne!(
        branch.checksum(),
        original.checksum(),
        "the branch took its own order"
    );
}

#[test]
fn a_clone_continues_exactly_as_the_original_on_one_thread() {
    assert_clone_continues_alike(1);
}

#[test]
fn a_clone_continues_exactly_as_the_original_in_a_pool_of_two() {
    std::thread::spawn(|| assert_clone_continues_alike(2))
        .join()
        .unwrap();
}
