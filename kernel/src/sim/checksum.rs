//! `Sim::checksum`: XXH3-64 over the sections a snapshot holds, each as its
//! name, its length (`u64`, little-endian) and its bytes, streamed from the
//! state where it lies, so nothing is allocated. A streaming hash of
//! consecutive pieces equals the hash of their concatenation, so the value
//! is the hash of the snapshot's sections in file order.

use xxhash_rust::xxh3::Xxh3;

use super::Sim;
use crate::data::path_requests::PathRequest;
use crate::stages::paths::flights::FlightRecord;

/// The hasher, fed one section at a time.
struct Sections(Xxh3);

impl Sections {
    /// A section's name (the concatenation of `name`) and byte length.
    fn head(&mut self, name: &[&str], len: usize) {
        for part in name {
            self.0.update(part.as_bytes());
        }
        self.0.update(&(len as u64).to_le_bytes());
    }

    /// A whole section.
    fn add(&mut self, name: &[&str], bytes: &[u8]) {
        self.head(name, bytes.len());
        self.0.update(bytes);
    }

    /// A section of the records `records()` gives, hashed one by one.
    fn add_records<T: bytemuck::Pod, I: Iterator<Item = T>>(&mut self, name: &str, records: impl Fn() -> I) {
        self.head(&[name], records().count() * size_of::<T>());
        for record in records() {
            self.0.update(bytemuck::bytes_of(&record));
        }
    }
}

impl Sim {
    /// A 64-bit XXH3 hash of the whole simulation state: every section a
    /// snapshot holds (tick, map identity, unit count and clock, every
    /// column, the handle table, the path queue and searches in flight,
    /// routes, platoons, cell edits and run-time obstacles). Equal checksums
    /// mean bit-identical state.
    /// Allocates nothing.
    #[must_use]
    pub fn checksum(&self) -> u64 {
        let mut sections = Sections(Xxh3::new());
        // The `meta` section: tick, map identity, units, seconds.
        let mut meta = [0u8; 32];
        let fields = [
            self.tick.to_ne_bytes(),
            self.map_identity().to_ne_bytes(),
            (self.vehicles.len() as u64).to_ne_bytes(),
            self.time_s.to_ne_bytes(),
        ];
        for (place, field) in meta.chunks_exact_mut(8).zip(fields) {
            place.copy_from_slice(&field);
        }
        sections.add(&["meta"], &meta);
        for (name, bytes) in self.vehicles.columns().bytes() {
            sections.add(&["col.", name], bytes);
        }
        let (slots, free) = self.vehicles.handle_parts();
        sections.add(&["handles"], bytemuck::cast_slice(slots));
        sections.add(&["free"], bytemuck::cast_slice(free));
        sections.add_records::<PathRequest, _>("paths", || self.paths.queue.pending().copied());
        sections.add_records::<FlightRecord, _>("path_searches", || self.paths.flights.each_record());
        sections.add(&["routes"], bytemuck::cast_slice(self.paths.routes.as_slice()));
        let platoons = &self.platoons;
        sections.add(&["platoons"], bytemuck::cast_slice(platoons.records()));
        sections.add(&["platoon_free"], bytemuck::cast_slice(&platoons.free));
        sections.add(&["platoon_routes"], bytemuck::cast_slice(platoons.routes().as_slice()));
        sections.add(&["edits"], bytemuck::cast_slice(self.cell_edits()));
        sections.head(&["obstacles"], self.obstacles_section_len());
        self.feed_obstacles(|bytes| sections.0.update(bytes));
        sections.0.digest()
    }
}
