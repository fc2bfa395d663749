//! A snapshot whose checksums are right but whose values are wrong (a
//! hand-edited or buggy save) is refused by name, as `spawn` would refuse
//! the unit; bytes outside the sections are refused; and a valid snapshot
//! still restores.

#![allow(clippy::unwrap_used)]

use convoy::glam::Vec2;
use convoy::{
    Bounds, Formation, PlatoonSpec, Sim, SimConfig, SnapshotError, SpawnError, UnitSpec,
    VehicleKind,
};
use xxhash_rust::xxh3::xxh3_64;

/// Header bytes before the section table, and one table entry's bytes.
const HEADER: usize = 16;
const ENTRY: usize = 56;

fn config() -> SimConfig {
    SimConfig::new(Bounds::new(Vec2::splat(-500.0), Vec2::splat(500.0)))
}

/// Six tanks, the last four in a platoon, ordered and stepped a few ticks.
fn world() -> Sim {
    let mut sim = Sim::new(config()).unwrap();
    let ids: Vec<_> = (0..6)
        .map(|k| {
            let at = Vec2::new(-100.0 + 12.0 * k as f32, 0.0);
            sim.spawn(&UnitSpec::new(VehicleKind::Tracked, at)).unwrap()
        })
        .collect();
    sim.order_move(ids[0], Vec2::new(100.0, 40.0)).unwrap();
    let platoon = sim
        .create_platoon(&ids[2..], &PlatoonSpec::force21(Formation::Column))
        .unwrap();
    sim.order_platoon(platoon, Vec2::new(150.0, -60.0), None)
        .unwrap();
    for _ in 0..5 {
        sim.step(1.0 / 60.0);
    }
    sim
}

fn save(sim: &Sim) -> Vec<u8> {
    let mut bytes = Vec::new();
    sim.save(&mut bytes).unwrap();
    bytes
}

/// Restores `bytes` into a fresh world of the same map; on refusal checks
/// the world is unchanged.
fn restore(bytes: &[u8]) -> Result<Sim, SnapshotError> {
    let mut sim = Sim::new(config()).unwrap();
    let before = sim.checksum();
    match sim.restore(&mut &bytes[..]) {
        Ok(()) => Ok(sim),
        Err(error) => {
            assert_eq!(sim.checksum(), before, "a refusal changes nothing");
            Err(error)
        }
    }
}

/// The row of the first platoon member.
fn member_row(sim: &Sim) -> usize {
    let platoon = sim.platoon_views().next().unwrap();
    let (_, member) = platoon.members().next().unwrap();
    sim.vehicles().row_of(member).unwrap()
}

/// The field a refusal names, with its row.
fn refused_field(error: SnapshotError) -> (usize, &'static str) {
    match error {
        SnapshotError::BadUnit { row, source } => match source {
            SpawnError::NotFinite { field, .. }
            | SpawnError::NotPositive { field, .. }
            | SpawnError::Negative { field, .. }
            | SpawnError::TooLarge { field, .. } => (row, field),
            other => panic!("unexpected spawn error {other:?}"),
        },
        other => panic!("expected a bad unit, got {other}"),
    }
}

/// Rewrites section `name` through `edit` and fixes its checksum and the
/// table's, so only the value checks can refuse the file.
fn edit_section(bytes: &mut [u8], name: &str, edit: impl FnOnce(&mut [u8])) {
    let count = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let table_end = HEADER + count * ENTRY;
    let entry = (0..count)
        .map(|k| HEADER + k * ENTRY)
        .find(|&at| bytes[at..at + 32].split(|&b| b == 0).next() == Some(name.as_bytes()))
        .unwrap();
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
    let (offset, length) = (word(entry + 32), word(entry + 40));
    edit(&mut bytes[offset..offset + length]);
    let sum = xxh3_64(&bytes[offset..offset + length]);
    bytes[entry + 48..entry + 56].copy_from_slice(&sum.to_le_bytes());
    let table = xxh3_64(&bytes[..table_end]);
    bytes[table_end..table_end + 8].copy_from_slice(&table.to_le_bytes());
}

#[test]
fn a_valid_snapshot_restores_and_continues_exactly() {
    let mut sim = world();
    let mut restored = restore(&save(&sim)).unwrap();
    for _ in 0..30 {
        sim.step(1.0 / 60.0);
        restored.step(1.0 / 60.0);
    }
    assert_eq!(restored.checksum(), sim.checksum());
}

#[test]
fn a_negative_infinite_top_speed_is_refused_by_row_and_field() {
    let mut sim = world();
    sim.columns_mut().max_speed[1] = f32::NEG_INFINITY;
    assert_eq!(
        refused_field(restore(&save(&sim)).unwrap_err()),
        (1, "max_speed")
    );
}

#[test]
fn a_platoon_member_turning_at_minus_one_is_refused() {
    let mut sim = world();
    let row = member_row(&sim);
    sim.columns_mut().turn_rate[row] = -1.0;
    assert_eq!(
        refused_field(restore(&save(&sim)).unwrap_err()),
        (row, "turn_rate")
    );
}

#[test]
fn a_top_speed_of_1e20_is_refused() {
    let mut sim = world();
    sim.columns_mut().max_speed[4] = 1e20;
    let error = restore(&save(&sim)).unwrap_err();
    assert!(error.to_string().contains("at most 1000"), "{error}");
    assert_eq!(refused_field(error), (4, "max_speed"));
}

#[test]
fn a_negative_inverse_mass_is_refused() {
    let mut sim = world();
    sim.vehicles_mut().inv_mass[2] = -1.0;
    assert_eq!(
        refused_field(restore(&save(&sim)).unwrap_err()),
        (2, "inv_mass")
    );
}

#[test]
fn nan_in_a_bookkeeping_column_is_refused() {
    let mut sim = world();
    sim.vehicles_mut().drive_to[3] = Vec2::new(0.0, f32::NAN);
    assert_eq!(
        refused_field(restore(&save(&sim)).unwrap_err()),
        (3, "drive_to.y")
    );
    let mut sim = world();
    sim.vehicles_mut().position[0].x = 3e7;
    assert_eq!(
        refused_field(restore(&save(&sim)).unwrap_err()),
        (0, "position.x")
    );
}

#[test]
fn a_non_finite_clock_or_route_corner_is_refused() {
    let sim = world();
    let mut bytes = save(&sim);
    edit_section(&mut bytes, "meta", |meta| {
        meta[24..32].copy_from_slice(&f64::NAN.to_le_bytes());
    });
    let error = restore(&bytes).unwrap_err();
    assert!(
        matches!(&error, SnapshotError::BadValue { what, .. } if what == "meta.time_s"),
        "{error}"
    );
    let mut bytes = save(&sim);
    edit_section(&mut bytes, "routes", |points| {
        points[4..8].copy_from_slice(&f32::INFINITY.to_le_bytes());
    });
    let error = restore(&bytes).unwrap_err();
    assert!(
        matches!(&error, SnapshotError::BadValue { what, .. } if what == "routes[0]"),
        "{error}"
    );
}

#[test]
fn a_platoon_record_out_of_range_is_refused() {
    let sim = world();
    // Words of the record (see `Platoon`): `route_length` the 19th (a
    // negative length once sent a platoon 10³⁰ m back along its path),
    // `route_pending` the 20th, `spacing_m` the 21st.
    let cases = [
        (18, (-8e30f32).to_le_bytes(), "route_length"),
        (19, 29_001u32.to_le_bytes(), "route_pending"),
        (20, 1e30f32.to_le_bytes(), "spacing_m"),
    ];
    for (word, value, field) in cases {
        let mut bytes = save(&sim);
        edit_section(&mut bytes, "platoons", |records| {
            records[word * 4..(word + 1) * 4].copy_from_slice(&value);
        });
        let error = restore(&bytes).unwrap_err();
        let expected = format!("platoons[0].{field}");
        assert!(
            matches!(&error, SnapshotError::BadValue { what, .. } if *what == expected),
            "{error}"
        );
    }
}

#[test]
fn bytes_after_the_last_section_are_refused() {
    let mut bytes = save(&world());
    bytes.extend_from_slice(b"tail");
    assert!(matches!(restore(&bytes), Err(SnapshotError::StrayBytes(4))));
}
