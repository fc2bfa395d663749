//! Save games: a versioned binary snapshot of the whole simulation state.
//!
//! Force 21's lesson (Van Verth et al., Conclusions): "early save game
//! functionality is good" — a tester who can save the moment a unit gets stuck
//! can hand the bug over. A snapshot restored at tick T reproduces the
//! uninterrupted run's checksums from T on.
//!
//! # Format (version 10, little-endian)
//!
//! ```text
//! magic            8 bytes   "CONVOYSN"
//! version          u32       10
//! section count    u32       N
//! section table    N × 56 bytes:
//!     name         32 bytes  UTF-8, zero-padded
//!     offset       u64       from the start of the file
//!     length       u64       bytes
//!     checksum     u64       XXH3-64 of the section's bytes
//! table checksum   u64       XXH3-64 of everything before it
//! sections         the bytes the table points at
//! ```
//!
//! Sections: `meta` (tick, map identity, unit count, simulated seconds), one `col.<name>` per
//! vehicle column (the column's bytes, as [`crate::data::vehicles::Columns::bytes`]
//! gives them), `handles` (the handle table), `free` (free handle slots, in
//! order), `paths` (waiting path requests, oldest first), `path_searches`
//! (the grid searches in flight: slot, request, start and goal cells, work
//! done, as [`FlightRecord`] bytes; restoring replays that much work, which
//! suspends each search exactly where it was), `routes` (the
//! units' route corners), `platoons` (every platoon record, live or free, as
//! [`crate::data::platoons::Platoon`] bytes), `platoon_free` (free platoon slots)
//! `platoon_routes` (the platoons' route corners), `edits` (the grid
//! map's cell edits, oldest first: corners and terrain, five `u32` each;
//! restoring into a `Sim` built on the original map makes them again) and
//! `obstacles` (the polygon map's run-time obstacles: the next id and the
//! count, then per obstacle its id, point count and points as `f64` pairs;
//! restoring into a `Sim` built on the original map adds them again).
//! Every byte of a
//! file is covered by a checksum (the sections follow one another to the
//! file's end, nothing between or after them), so any bit flip or
//! truncation is refused;
//! a file is decoded completely and checked before anything is replaced, so
//! a refused snapshot leaves the simulation as it was.

use std::borrow::Cow;
use std::io::{Read, Write};

use bytemuck::{Pod, Zeroable};
use thiserror::Error;
use xxhash_rust::xxh3::xxh3_64;

use crate::data::platoons::{Platoon, Platoons};
use crate::stages::paths::flights::{FlightRecord, SearchFlights};
use crate::stages::paths::BATCH;
use crate::data::path_requests::{PathQueue, PathRequest};
use crate::data::routes::Routes;
use crate::nav::ClassMaps;
use crate::sim::Sim;
use crate::sim::snapshot_values as values;
use crate::nav::ObstacleId;
use crate::nav::polygon::Ring;
use crate::sim::obstacle_edits::decode_obstacles;
use crate::sim::world_edits::CellEdit;
use crate::data::vehicles::{Columns, HandleSlot, Vehicles};

/// First bytes of every snapshot.
pub const MAGIC: [u8; 8] = *b"CONVOYSN";
/// The format version this build writes and reads.
pub const VERSION: u32 = 10;

const NAME_BYTES: usize = 32;
const TABLE_ENTRY_BYTES: usize = NAME_BYTES + 3 * 8;
const HEADER_BYTES: usize = 8 + 4 + 4;

/// Why a snapshot was refused; the simulation is unchanged.
#[derive(Debug, Error)]
pub enum SnapshotError {
    /// Reading failed.
    #[error("cannot read snapshot: {0}")]
    Io(#[from] std::io::Error),
    /// The file does not start with the snapshot magic bytes.
    #[error("not a convoy snapshot (bad magic bytes)")]
    BadMagic,
    /// Written by another format version.
    #[error(
        "snapshot format version {found} is not supported (this build reads version {VERSION})"
    )]
    UnsupportedVersion {
        /// The file's version.
        found: u32,
    },
    /// The file ends early.
    #[error("snapshot is truncated: {needed} bytes needed, {available} present")]
    Truncated {
        /// Bytes the header or table promise.
        needed: usize,
        /// Bytes present.
        available: usize,
    },
    /// A checksum does not match: the bytes were damaged.
    #[error("snapshot is corrupted: checksum mismatch in {0}")]
    Corrupted(String),
    /// A required section is absent.
    #[error("snapshot lacks section `{0}`")]
    MissingSection(String),
    /// Taken in another world.
    #[error("snapshot belongs to map {found:016x}, this world is map {expected:016x}")]
    WrongMap {
        /// This simulation's map identity.
        expected: u64,
        /// The snapshot's.
        found: u64,
    },
    /// Checksums match but the contents contradict each other.
    #[error("snapshot is inconsistent: {0}")]
    Inconsistent(String),
    /// A unit's value breaks a rule [`Sim::spawn`] keeps (the ranges of
    /// [`crate::unit_limits`]).
    #[error("snapshot row {row}: {source}")]
    BadUnit {
        /// The unit's row.
        row: usize,
        /// The rule it breaks, naming the field.
        source: crate::SpawnError,
    },
    /// A value outside the unit columns (a route corner, a platoon record,
    /// a path goal, the clock) is not finite or out of range.
    #[error("snapshot value `{what}` is {value}: {rule}")]
    BadValue {
        /// The section and element, such as `routes[12]`.
        what: String,
        /// The value (for a point, its larger coordinate's magnitude).
        value: f64,
        /// The rule it breaks.
        rule: &'static str,
    },
    /// Bytes lie between or after the sections, outside every checksum.
    #[error("snapshot has {0} bytes outside its sections")]
    StrayBytes(usize),
}

/// The `meta` section.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
struct Meta {
    tick: u64,
    map_identity: u64,
    units: u64,
    /// Simulated seconds so far (moving bodies' clock).
    time_s: f64,
}

/// The decoded state, ready to replace a simulation's.
pub(crate) struct State {
    pub(crate) tick: u64,
    pub(crate) time_s: f64,
    pub(crate) vehicles: Vehicles,
    pub(crate) path_queue: PathQueue,
    pub(crate) flights: Vec<FlightRecord>,
    pub(crate) routes: Routes,
    pub(crate) platoons: Platoons,
    pub(crate) edits: Vec<CellEdit>,
    /// The next obstacle id and the run-time obstacles.
    pub(crate) obstacles: (ObstacleId, Vec<(ObstacleId, Ring)>),
}

/// Every section of `sim`'s state, in file order. Also what
/// [`Sim::checksum`] hashes.
pub(crate) fn state_sections(sim: &Sim) -> Vec<(String, Cow<'_, [u8]>)> {
    let meta = Meta {
        tick: sim.tick,
        map_identity: sim.map_identity(),
        units: sim.vehicles.len() as u64,
        time_s: sim.time_s,
    };
    let (slots, free) = sim.vehicles.handle_parts();
    let requests: Vec<PathRequest> = sim.paths.queue.pending().copied().collect();
    let mut sections = vec![(
        "meta".to_owned(),
        Cow::Owned(bytemuck::bytes_of(&meta).to_vec()),
    )];
    for (name, bytes) in sim.vehicles.columns().bytes() {
        sections.push((format!("col.{name}"), Cow::Borrowed(bytes)));
    }
    sections.push((
        "handles".to_owned(),
        Cow::Borrowed(bytemuck::cast_slice(slots)),
    ));
    sections.push(("free".to_owned(), Cow::Borrowed(bytemuck::cast_slice(free))));
    sections.push((
        "paths".to_owned(),
        Cow::Owned(bytemuck::cast_slice(&requests).to_vec()),
    ));
    sections.push((
        "path_searches".to_owned(),
        Cow::Owned(bytemuck::cast_slice(&sim.paths.flight_records()).to_vec()),
    ));
    sections.push((
        "routes".to_owned(),
        Cow::Borrowed(bytemuck::cast_slice(sim.paths.routes.as_slice())),
    ));
    let platoons = &sim.platoons;
    sections.push((
        "platoons".to_owned(),
        Cow::Borrowed(bytemuck::cast_slice(platoons.records())),
    ));
    sections.push((
        "platoon_free".to_owned(),
        Cow::Borrowed(bytemuck::cast_slice(&platoons.free)),
    ));
    sections.push((
        "platoon_routes".to_owned(),
        Cow::Borrowed(bytemuck::cast_slice(platoons.routes().as_slice())),
    ));
    sections.push((
        "edits".to_owned(),
        Cow::Borrowed(bytemuck::cast_slice(sim.cell_edits())),
    ));
    let mut obstacles = Vec::with_capacity(sim.obstacles_section_len());
    sim.feed_obstacles(|bytes| obstacles.extend_from_slice(bytes));
    sections.push(("obstacles".to_owned(), Cow::Owned(obstacles)));
    sections
}

/// Writes `sim` as a snapshot.
pub(crate) fn write(sim: &Sim, writer: &mut impl Write) -> std::io::Result<()> {
    let sections = state_sections(sim);
    let mut header = Vec::with_capacity(HEADER_BYTES + sections.len() * TABLE_ENTRY_BYTES + 8);
    header.extend_from_slice(&MAGIC);
    header.extend_from_slice(&VERSION.to_le_bytes());
    header.extend_from_slice(&(sections.len() as u32).to_le_bytes());
    let mut offset = (HEADER_BYTES + sections.len() * TABLE_ENTRY_BYTES + 8) as u64;
    for (name, bytes) in &sections {
        let mut padded = [0u8; NAME_BYTES];
        assert!(
            name.len() <= NAME_BYTES,
            "section name `{name}` is longer than {NAME_BYTES} bytes"
        );
        padded[..name.len()].copy_from_slice(name.as_bytes());
        header.extend_from_slice(&padded);
        header.extend_from_slice(&offset.to_le_bytes());
        header.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        header.extend_from_slice(&xxh3_64(bytes).to_le_bytes());
        offset += bytes.len() as u64;
    }
    let table_checksum = xxh3_64(&header);
    header.extend_from_slice(&table_checksum.to_le_bytes());
    writer.write_all(&header)?;
    for (_, bytes) in &sections {
        writer.write_all(bytes)?;
    }
    writer.flush()
}

/// Whether [`read`] checks the columns an engine writes through
/// [`Sim::columns_mut`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum EditedColumns {
    /// As every other value.
    Check,
    /// Not: a copy of a `Sim` whose edits its next step checks.
    Unchecked,
}

/// Reads and fully checks a snapshot taken in the world `map_identity`
/// (the engine's columns as `edited` says).
pub(crate) fn read(
    reader: &mut impl Read,
    map_identity: u64,
    edited: EditedColumns,
) -> Result<State, SnapshotError> {
    let mut file = Vec::new();
    reader.read_to_end(&mut file)?;
    let sections = parse_table(&file)?;
    let section = |name: &str| -> Result<&[u8], SnapshotError> {
        sections
            .iter()
            .find(|(found, _)| found == name)
            .map(|&(_, bytes)| bytes)
            .ok_or_else(|| SnapshotError::MissingSection(name.to_owned()))
    };
    let meta: Meta = decode_one(section("meta")?, "meta")?;
    if meta.map_identity != map_identity {
        return Err(SnapshotError::WrongMap {
            expected: map_identity,
            found: meta.map_identity,
        });
    }
    let rows = usize::try_from(meta.units).map_err(|_| inconsistent("unit count overflows"))?;
    let lookup = |name: &str| section(&format!("col.{name}")).ok();
    let columns = Columns::from_bytes(rows, lookup).map_err(SnapshotError::Inconsistent)?;
    let slots: Vec<HandleSlot> = decode_many(section("handles")?, "handles")?;
    let free: Vec<u32> = decode_many(section("free")?, "free")?;
    let vehicles =
        Vehicles::from_parts(columns, slots, free).map_err(SnapshotError::Inconsistent)?;
    values::check_units(&vehicles, edited)?;
    values::check_clock(meta.time_s)?;
    let requests: Vec<PathRequest> = decode_many(section("paths")?, "paths")?;
    values::check_requests(&requests)?;
    let flights: Vec<FlightRecord> = decode_many(section("path_searches")?, "path_searches")?;
    let route_points: Vec<glam::Vec2> = decode_many(section("routes")?, "routes")?;
    check_routes(&vehicles, &route_points)?;
    values::check_points("routes", &route_points)?;
    let platoons = decode_platoons(&section)?;
    check_members(&vehicles, &platoons)?;
    values::check_platoons(&platoons)?;
    let edits: Vec<CellEdit> = decode_many(section("edits")?, "edits")?;
    let obstacles = decode_obstacles(section("obstacles")?)?;
    Ok(State {
        edits,
        obstacles,
        platoons,
        tick: meta.tick,
        time_s: meta.time_s,
        vehicles,
        path_queue: PathQueue::from_requests(requests),
        flights,
        routes: Routes::from_points(route_points),
    })
}

/// The searches in flight rebuilt on the classes' `maps` (see
/// [`SearchFlights::from_records`]); searches without a grid map are
/// inconsistent.
pub(crate) fn rebuild_flights(
    records: &[FlightRecord],
    maps: ClassMaps<'_>,
) -> Result<SearchFlights, SnapshotError> {
    match maps.base() {
        Some(_) => SearchFlights::from_records(records, maps, BATCH)
            .map_err(SnapshotError::Inconsistent),
        None if records.is_empty() => Ok(SearchFlights::default()),
        None => Err(inconsistent(
            "grid searches in flight in a world without a grid map",
        )),
    }
}

/// Every unit's route must fit the route buffer.
fn check_routes(vehicles: &Vehicles, points: &[glam::Vec2]) -> Result<(), SnapshotError> {
    let columns = vehicles.columns();
    for (row, (&slot, &len)) in columns
        .handle_slot()
        .iter()
        .zip(columns.route_len())
        .enumerate()
    {
        let end = (slot as usize + 1) * crate::data::routes::ROUTE_POINTS;
        let fits = len as usize <= crate::data::routes::ROUTE_POINTS && (len == 0 || end <= points.len());
        if !fits {
            return Err(inconsistent(&format!(
                "row {row} has a route of {len} points past the route buffer"
            )));
        }
    }
    Ok(())
}

/// The platoon sections, with their reservations rebuilt.
fn decode_platoons<'a>(
    section: &impl Fn(&str) -> Result<&'a [u8], SnapshotError>,
) -> Result<Platoons, SnapshotError> {
    let records: Vec<Platoon> = decode_many(section("platoons")?, "platoons")?;
    let free: Vec<u32> = decode_many(section("platoon_free")?, "platoon_free")?;
    let points: Vec<glam::Vec2> = decode_many(section("platoon_routes")?, "platoon_routes")?;
    let fits = points.len() >= records.len() * crate::data::routes::ROUTE_POINTS
        && records
            .iter()
            .all(|platoon| platoon.route_len as usize <= crate::data::routes::ROUTE_POINTS);
    if !fits {
        return Err(inconsistent("a platoon route runs past the route buffer"));
    }
    values::check_points("platoon_routes", &points)?;
    Platoons::from_parts(records, free, Routes::from_points(points))
        .map_err(SnapshotError::Inconsistent)
}

/// Every unit's platoon and slot must name a live platoon listing it.
fn check_members(vehicles: &Vehicles, platoons: &Platoons) -> Result<(), SnapshotError> {
    let columns = vehicles.columns();
    for row in 0..vehicles.len() {
        let (platoon, slot) = (columns.platoon()[row], columns.slot()[row]);
        if platoon == crate::data::vehicles::NONE {
            continue;
        }
        let listed = platoons
            .records()
            .get(platoon as usize)
            .filter(|record| record.live == 1)
            .and_then(|record| record.members.get(slot as usize))
            .is_some_and(|&member| Some(member) == vehicles.id_at(row));
        if !listed {
            return Err(inconsistent(&format!(
                "row {row} claims slot {slot} of platoon {platoon}, which does not list it"
            )));
        }
    }
    Ok(())
}

fn inconsistent(message: &str) -> SnapshotError {
    SnapshotError::Inconsistent(message.to_owned())
}

/// Checks header, table and every section checksum; returns the sections.
fn parse_table(file: &[u8]) -> Result<Vec<(String, &[u8])>, SnapshotError> {
    let need = |needed: usize| {
        if file.len() < needed {
            Err(SnapshotError::Truncated {
                needed,
                available: file.len(),
            })
        } else {
            Ok(())
        }
    };
    need(MAGIC.len())?;
    if file[..MAGIC.len()] != MAGIC {
        return Err(SnapshotError::BadMagic);
    }
    need(HEADER_BYTES)?;
    let count = u32::from_le_bytes(array_at(file, 12)) as usize;
    let table_end = count
        .checked_mul(TABLE_ENTRY_BYTES)
        .and_then(|table| table.checked_add(HEADER_BYTES))
        .ok_or_else(|| SnapshotError::Corrupted("section count".to_owned()))?;
    need(table_end + 8)?;
    if u64::from_le_bytes(array_at(file, table_end)) != xxh3_64(&file[..table_end]) {
        return Err(SnapshotError::Corrupted("section table".to_owned()));
    }
    // The version is read only once the table checksum vouches for it.
    let version = u32::from_le_bytes(array_at(file, 8));
    if version != VERSION {
        return Err(SnapshotError::UnsupportedVersion { found: version });
    }
    let sections = (0..count)
        .map(|index| {
            let entry = HEADER_BYTES + index * TABLE_ENTRY_BYTES;
            let name_bytes = &file[entry..entry + NAME_BYTES];
            let name_length = name_bytes
                .iter()
                .position(|&b| b == 0)
                .unwrap_or(NAME_BYTES);
            let name = String::from_utf8_lossy(&name_bytes[..name_length]).into_owned();
            let offset = u64::from_le_bytes(array_at(file, entry + NAME_BYTES));
            let length = u64::from_le_bytes(array_at(file, entry + NAME_BYTES + 8));
            let checksum = u64::from_le_bytes(array_at(file, entry + NAME_BYTES + 16));
            let end = offset
                .checked_add(length)
                .and_then(|end| usize::try_from(end).ok());
            let end =
                end.ok_or_else(|| SnapshotError::Corrupted(format!("section `{name}` bounds")))?;
            need(end)?;
            let bytes = &file[offset as usize..end];
            if xxh3_64(bytes) != checksum {
                return Err(SnapshotError::Corrupted(format!("section `{name}`")));
            }
            Ok((name, offset as usize, bytes))
        })
        .collect::<Result<Vec<_>, _>>()?;
    check_tiling(file.len(), table_end + 8, &sections)?;
    Ok(sections
        .into_iter()
        .map(|(name, _, bytes)| (name, bytes))
        .collect())
}

/// The sections follow one another from `start` to the file's end
/// (`file_len`), so every byte is under a checksum.
fn check_tiling(
    file_len: usize,
    start: usize,
    sections: &[(String, usize, &[u8])],
) -> Result<(), SnapshotError> {
    let mut at = start;
    for &(ref name, offset, bytes) in sections {
        if offset < at {
            return Err(SnapshotError::Corrupted(format!("section `{name}` overlaps")));
        }
        if offset > at {
            return Err(SnapshotError::StrayBytes(offset - at));
        }
        at += bytes.len();
    }
    match file_len - at {
        0 => Ok(()),
        stray => Err(SnapshotError::StrayBytes(stray)),
    }
}

/// The `N` bytes at `at`; callers have checked the length.
fn array_at<const N: usize>(file: &[u8], at: usize) -> [u8; N] {
    let mut bytes = [0; N];
    bytes.copy_from_slice(&file[at..at + N]);
    bytes
}

fn decode_one<T: Pod>(bytes: &[u8], name: &str) -> Result<T, SnapshotError> {
    bytemuck::try_pod_read_unaligned(bytes).map_err(|_| {
        SnapshotError::Inconsistent(format!("section `{name}` has {} bytes", bytes.len()))
    })
}

fn decode_many<T: Pod>(bytes: &[u8], name: &str) -> Result<Vec<T>, SnapshotError> {
    if !bytes.len().is_multiple_of(size_of::<T>()) {
        return Err(SnapshotError::Inconsistent(format!(
            "section `{name}` has {} bytes, not a multiple of {}",
            bytes.len(),
            size_of::<T>()
        )));
    }
    Ok(bytemuck::pod_collect_to_vec(bytes))
}
