//! `Sim::checksum` hashes exactly the sections a snapshot holds (the
//! snapshot file parsed by its documented format is the oracle), on a world
//! with waiting path requests, grid searches in flight and a platoon; and
//! after its first call it allocates nothing (a counting allocator).
//!
//! Without libtest's harness (`harness = false`): the harness's own threads
//! would be counted.

#![allow(clippy::unwrap_used)]

use convoy::Sim;
use xxhash_rust::xxh3::Xxh3;

mod busy_world;
mod counting_allocator;
use busy_world::busy_world;
use counting_allocator::{CountingAllocator, allocations_during};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn main() {
    let sim = busy_world(1, |_| {}, 3);
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
