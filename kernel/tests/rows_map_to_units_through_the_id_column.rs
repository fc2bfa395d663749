//! An engine maps rows to its entities in one pass through the `unit_id`
//! column: after every periodic reorder (announced by `Event::RowsReordered`)
//! and every despawn, the column names the unit `row_of` puts in each row.
//! With `reorder_interval` 0 rows never move and no reorder is announced.
//! Each unit's faction moves with its row and survives a snapshot.

#![allow(clippy::unwrap_used)]

use convoy::glam::Vec2;
use convoy::{Bounds, Event, FactionId, Sim, SimConfig, UnitId, UnitSpec, VehicleKind};

/// Units scattered so that spawn order is far from cell order, each sent
/// across the field, on three factions.
fn world(reorder_interval: u32) -> (Sim, Vec<UnitId>) {
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-200.0), Vec2::splat(200.0)));
    config.threads = 1;
    config.reorder_interval = reorder_interval;
    let mut sim = Sim::new(config).unwrap();
    let ids = (0..300u32)
        .map(|k| {
            let hashed = k.wrapping_mul(2_654_435_761);
            let at = Vec2::new(
                (hashed % 360) as f32 - 180.0,
                (hashed / 360 % 360) as f32 - 180.0,
            );
            let spec =
                UnitSpec::new(VehicleKind::Infantry, at).with_faction(FactionId((k % 3) as u16));
            let id = sim.spawn(&spec).unwrap();
            sim.order_move(id, -at).unwrap();
            id
        })
        .collect();
    (sim, ids)
}

fn assert_column_maps_rows(sim: &Sim, ids: &[UnitId]) {
    let column = sim.vehicles().columns().unit_id();
    assert_eq!(column.len(), sim.vehicles().len());
    for (row, &id) in column.iter().enumerate() {
        assert_eq!(
            sim.vehicles().row_of(id),
            Some(row),
            "row {row} names {id:?}"
        );
    }
    for &id in ids {
        if let Some(row) = sim.vehicles().row_of(id) {
            assert_eq!(column[row], id);
        }
    }
}

#[test]
fn after_each_reorder_the_id_column_maps_rows_as_row_of_does() {
    let (mut sim, mut ids) = world(4);
    let rows_before: Vec<_> = ids.iter().map(|&id| sim.vehicles().row_of(id)).collect();
    let mut reorders = 0;
    for tick in 0..40u64 {
        sim.step(1.0 / 30.0);
        let announced = sim.events().first() == Some(&Event::RowsReordered);
        // Tick 0 reorders the fresh spawns; then every 4th tick's end does.
        assert_eq!(announced, tick == 0 || (tick + 1) % 4 == 0, "tick {tick}");
        assert_eq!(
            sim.events()
                .iter()
                .filter(|&&e| e == Event::RowsReordered)
                .count(),
            usize::from(announced)
        );
        reorders += usize::from(announced);
        assert_column_maps_rows(&sim, &ids);
        if tick == 20 {
            for id in ids.drain(..50) {
                sim.despawn(id).unwrap();
            }
            assert_column_maps_rows(&sim, &ids);
        }
    }
    assert_eq!(reorders, 11);
    let moved = ids
        .iter()
        .zip(&rows_before[50..])
        .filter(|&(&id, &before)| sim.vehicles().row_of(id) != before)
        .count();
    assert!(moved > 100, "the reorders moved rows: {moved}");
    sim.vehicles().check_invariants().unwrap();
}

#[test]
fn with_reorders_off_rows_stay_put_and_none_is_announced() {
    let (mut sim, ids) = world(0);
    let rows: Vec<_> = ids.iter().map(|&id| sim.vehicles().row_of(id)).collect();
    for _ in 0..40 {
        sim.step(1.0 / 30.0);
        assert!(!sim.events().contains(&Event::RowsReordered));
    }
    let now: Vec<_> = ids.iter().map(|&id| sim.vehicles().row_of(id)).collect();
    assert_eq!(now, rows);
    assert_column_maps_rows(&sim, &ids);
}

#[test]
fn factions_move_with_their_rows_and_survive_a_snapshot() {
    let (mut sim, ids) = world(4);
    for _ in 0..10 {
        sim.step(1.0 / 30.0);
    }
    let faction_of = |sim: &Sim, id: UnitId| {
        sim.vehicles().columns().faction()[sim.vehicles().row_of(id).unwrap()]
    };
    for (k, &id) in ids.iter().enumerate() {
        assert_eq!(faction_of(&sim, id), (k % 3) as u16);
    }
    let mut bytes = Vec::new();
    sim.save(&mut bytes).unwrap();
    let (mut restored, _) = world(4);
    restored.restore(&mut bytes.as_slice()).unwrap();
    assert_eq!(restored.checksum(), sim.checksum());
    for (k, &id) in ids.iter().enumerate() {
        assert_eq!(faction_of(&restored, id), (k % 3) as u16);
    }
    assert_column_maps_rows(&restored, &ids);
}
