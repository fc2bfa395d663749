//! Save games: a snapshot taken at tick T and restored into a fresh world
//! reproduces the uninterrupted run's checksums from T on; damaged, truncated,
//! wrong-version and wrong-map snapshots are refused and change nothing.

#![allow(clippy::unwrap_used)]

use convoy::Sim;
use convoy::glam::Vec2;
use convoy::random::hash3;
use convoy::sim::snapshot::{SnapshotError, VERSION};
use convoy_scenarios::Profile;

fn profile(units: u32) -> Profile {
    let mut profile =
        Profile::parse(include_str!("../../profiles/default.toml"), "default.toml").unwrap();
    profile.scenario.units = units;
    profile.scenario.gap_m = 10.0;
    profile
}

fn world(units: u32, threads: usize) -> Sim {
    convoy_scenarios::build(&profile(units), threads).unwrap()
}

fn snapshot_of(sim: &Sim) -> Vec<u8> {
    let mut bytes = Vec::new();
    sim.save(&mut bytes).unwrap();
    bytes
}

/// Steps `sim` `ticks` times, returning the checksum after each tick.
fn checksums(sim: &mut Sim, ticks: usize) -> Vec<u64> {
    (0..ticks)
        .map(|_| {
            sim.step(1.0 / 60.0);
            sim.checksum()
        })
        .collect()
}

/// A 3,000-unit world with orders waiting and some units despawned, so the
/// handle table, free list and path queue all carry state.
fn busy_world(threads: usize) -> Sim {
    let mut sim = world(3000, threads);
    let ids: Vec<_> = (0..40)
        .filter_map(|row| sim.vehicles().id_at(row * 7))
        .collect();
    for (i, &id) in ids.iter().enumerate() {
        if i % 4 == 0 {
            sim.despawn(id).unwrap();
        } else {
            sim.order_move(id, Vec2::new(i as f32, -(i as f32)))
                .unwrap();
        }
    }
    sim
}

#[test]
fn a_run_restored_at_several_ticks_reproduces_every_later_checksum() {
    for save_at in [0usize, 13, 40] {
        let mut original = busy_world(2);
        checksums(&mut original, save_at);
        let snapshot = snapshot_of(&original);
        // Restored into a fresh world on another thread count.
        let mut restored = world(3000, 1);
        restored.restore(&mut snapshot.as_slice()).unwrap();
        assert_eq!(
            restored.checksum(),
            original.checksum(),
            "restored state at tick {save_at}"
        );
        assert_eq!(
            checksums(&mut restored, 60),
            checksums(&mut original, 60),
            "the run restored at tick {save_at} follows the uninterrupted run"
        );
    }
}

#[test]
fn flipped_bits_and_truncations_are_always_refused_and_change_nothing() {
    let mut source = world(500, 1);
    checksums(&mut source, 5);
    let snapshot = snapshot_of(&source);
    let mut target = world(500, 1);
    let before = target.checksum();
    for trial in 0..300u64 {
        let mut damaged = snapshot.clone();
        let at = (hash3(9, 0, trial) % damaged.len() as u64) as usize;
        let bit = 1u8 << (hash3(9, 1, trial) % 8);
        damaged[at] ^= bit;
        let error = target.restore(&mut damaged.as_slice()).unwrap_err();
        assert!(
            matches!(error, SnapshotError::Corrupted(_) | SnapshotError::BadMagic),
            "flip at byte {at}: {error}"
        );
        let length = (hash3(9, 2, trial) % snapshot.len() as u64) as usize;
        let error = target.restore(&mut &snapshot[..length]).unwrap_err();
        assert!(
            matches!(
                error,
                SnapshotError::Truncated { .. } | SnapshotError::Corrupted(_)
            ),
            "truncated to {length}: {error}"
        );
    }
    assert_eq!(
        target.checksum(),
        before,
        "refused snapshots left the world untouched"
    );
}

#[test]
fn another_format_version_is_refused_by_name() {
    let mut snapshot = snapshot_of(&world(100, 1));
    snapshot[8..12].copy_from_slice(&(VERSION + 1).to_le_bytes());
    // Re-seal the table so only the version is wrong.
    let count = u32::from_le_bytes(snapshot[12..16].try_into().unwrap()) as usize;
    let table_end = 16 + count * 56;
    let sealed = xxhash_rust::xxh3::xxh3_64(&snapshot[..table_end]);
    snapshot[table_end..table_end + 8].copy_from_slice(&sealed.to_le_bytes());
    let error = world(100, 1).restore(&mut snapshot.as_slice()).unwrap_err();
    assert!(
        matches!(error, SnapshotError::UnsupportedVersion { found } if found == VERSION + 1),
        "{error}"
    );
}

#[test]
fn a_snapshot_from_another_map_is_refused() {
    let snapshot = snapshot_of(&world(100, 1));
    let mut elsewhere = profile(100);
    elsewhere.world.margin_m += 1.0;
    let mut other = convoy_scenarios::build(&elsewhere, 1).unwrap();
    let error = other.restore(&mut snapshot.as_slice()).unwrap_err();
    assert!(matches!(error, SnapshotError::WrongMap { .. }), "{error}");
}

#[test]
fn garbage_is_not_a_snapshot() {
    let error = world(10, 1)
        .restore(&mut b"hello world, not a save".as_slice())
        .unwrap_err();
    assert!(matches!(error, SnapshotError::BadMagic), "{error}");
    let error = world(10, 1).restore(&mut b"CONV".as_slice()).unwrap_err();
    assert!(matches!(error, SnapshotError::Truncated { .. }), "{error}");
}

/// The arena2 profile (platoons planning on the grid map) cut to 400 units, with a
/// work budget small enough that grid searches are suspended at most tick
/// ends.
fn arena2(threads: usize) -> Sim {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../profiles/arena2.toml");
    let mut profile = Profile::load(std::path::Path::new(file)).unwrap();
    profile.scenario.units = 400;
    profile.paths.max_expanded_nodes_per_tick = 300;
    convoy_scenarios::build(&profile, threads).unwrap()
}

#[test]
fn a_run_restored_with_searches_in_flight_reproduces_every_later_checksum() {
    for save_at in [1usize, 6, 25] {
        let mut original = arena2(2);
        checksums(&mut original, save_at);
        assert!(
            original.path_searches_in_flight() > 0,
            "no search in flight at tick {save_at}"
        );
        let snapshot = snapshot_of(&original);
        let mut restored = arena2(1);
        restored.restore(&mut snapshot.as_slice()).unwrap();
        assert_eq!(
            restored.path_searches_in_flight(),
            original.path_searches_in_flight()
        );
        assert_eq!(restored.checksum(), original.checksum());
        assert_eq!(
            checksums(&mut restored, 40),
            checksums(&mut original, 40),
            "the run restored at tick {save_at} with searches in flight follows the uninterrupted run"
        );
    }
}
