//! `Sim::checksum` hashes exactly the sections a snapshot holds (the
//! snapshot file parsed by its documented format is the oracle), on a world
//! with waiting path requests, grid searches in flight and a platoon; and
//! after its first call it allocates nothing (a counting allocator).
//!
//! Without libtest's harness (`harness = false`): the harness's own threads
//! would be counted.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use convoy::glam::Vec2;
use convoy::nav::{Cell, Mobility, WorldMap, load_map};
use convoy::{Bounds, Formation, Map, PlatoonSpec, Sim, SimConfig, UnitSpec, VehicleKind};
use xxhash_rust::xxh3::Xxh3;

mod counting_allocator;
use counting_allocator::{CountingAllocator, allocations_during};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn main() {
    let sim = busy_world();
    assert!(sim.path_searches_in_flight() > 0, "searches in flight");
    assert!(
        sim.open_path_requests() > sim.path_searches_in_flight(),
        "requests waiting"
    );
    assert_eq!(sim.checksum(), hash_of_snapshot_sections(&sim));
    let first = sim.checksum();
    let (allocations, sums) = allocations_during(|| {
        (0..10)
            .map(|_| sim.checksum())
            .fold(0u64, |all, sum| all ^ sum ^ first)
    });
    assert_eq!(sums, 0, "ten equal checksums");
    assert_eq!(allocations, 0, "allocations in ten checksums");
    println!("checksum_allocates_nothing: ok");
}

/// arena2 with 60 tanks sent across it under a small search budget, four of
/// them in a platoon.
fn busy_world() -> Sim {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../profiles/maps/arena2.map");
    let map = Arc::new(
        WorldMap::new(&load_map(path).unwrap(), Mobility::GROUND, Vec2::ZERO, 8.0).unwrap(),
    );
    let bounds = map.bounds();
    let mut config = SimConfig::new(Bounds::new(bounds.min - 50.0, bounds.max + 50.0));
    config.threads = 1;
    config.map = Map::Grid(Arc::clone(&map));
    config.max_path_nodes_per_tick = 300;
    let mut sim = Sim::new(config).unwrap();
    let grid = map.grid();
    let open: Vec<Vec2> = (0..grid.height())
        .flat_map(|y| (0..grid.width()).map(move |x| Cell::new(x, y)))
        .map(|cell| map.centre_of(cell))
        .filter(|&centre| map.is_open(centre))
        .collect();
    let ids: Vec<_> = (0..60)
        .map(|k| {
            sim.spawn(&UnitSpec::new(VehicleKind::Tracked, open[k * 37]))
                .unwrap()
        })
        .collect();
    for (k, &id) in ids.iter().enumerate().skip(4) {
        sim.order_move(id, open[open.len() - 1 - k * 53]).unwrap();
    }
    let platoon = sim
        .create_platoon(&ids[..4], &PlatoonSpec::force21(Formation::Column))
        .unwrap();
    sim.order_platoon(platoon, open[open.len() / 2], None)
        .unwrap();
    for _ in 0..3 {
        sim.step(1.0 / 60.0);
    }
    sim
}

/// XXH3 over each section of `sim`'s snapshot as its name, its length
/// (u64 LE) and its bytes, in file order (docs/snapshots.md).
fn hash_of_snapshot_sections(sim: &Sim) -> u64 {
    let mut file = Vec::new();
    sim.save(&mut file).unwrap();
    let u64_at = |at: usize| u64::from_le_bytes(file[at..at + 8].try_into().unwrap());
    let count = u32::from_le_bytes(file[12..16].try_into().unwrap()) as usize;
    let mut hasher = Xxh3::new();
    for entry in 0..count {
        let at = 16 + entry * 56;
        let name = &file[at..at + 32];
        let name = &name[..name.iter().position(|&b| b == 0).unwrap_or(32)];
        let (offset, length) = (u64_at(at + 32) as usize, u64_at(at + 40) as usize);
        hasher.update(name);
        hasher.update(&(length as u64).to_le_bytes());
        hasher.update(&file[offset..offset + length]);
    }
    hasher.digest()
}
