//! Spawn and despawn keep every column in lockstep and handles stable,
//! checked against a model (a map from handle to what was spawned).

#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;

use convoy::glam::Vec2;
use convoy::{UnitId, UnitSpec, VehicleKind, Vehicles};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Op {
    Spawn(f32, f32, u8),
    Despawn(usize),
    DespawnStale(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (-1e4f32..1e4, -1e4f32..1e4, 0u8..5).prop_map(|(x, y, k)| Op::Spawn(x, y, k)),
        2 => any::<usize>().prop_map(Op::Despawn),
        1 => any::<usize>().prop_map(Op::DespawnStale),
    ]
}

proptest! {
    #[test]
    fn random_spawns_and_despawns_keep_columns_and_handles_consistent(ops in prop::collection::vec(op(), 1..200)) {
        let mut vehicles = Vehicles::default();
        let mut live: BTreeMap<UnitId, Vec2> = BTreeMap::new();
        let mut dead: Vec<UnitId> = Vec::new();
        for op in ops {
            match op {
                Op::Spawn(x, y, kind) => {
                    let position = Vec2::new(x, y);
                    let kind = VehicleKind::from_u8(kind).unwrap();
                    let id = vehicles.spawn(&UnitSpec::new(kind, position)).unwrap();
                    prop_assert!(!live.contains_key(&id), "handle {id:?} handed out twice");
                    live.insert(id, position);
                }
                Op::Despawn(pick) if !live.is_empty() => {
                    let id = *live.keys().nth(pick % live.len()).unwrap();
                    vehicles.despawn(id).unwrap();
                    live.remove(&id);
                    dead.push(id);
                }
                Op::DespawnStale(pick) if !dead.is_empty() => {
                    let id = dead[pick % dead.len()];
                    prop_assert!(vehicles.despawn(id).is_err(), "stale {id:?} was accepted");
                }
                _ => {}
            }
            vehicles.check_invariants().map_err(TestCaseError::fail)?;
            prop_assert_eq!(vehicles.len(), live.len());
            for (&id, &position) in &live {
                let row = vehicles.row_of(id).unwrap();
                prop_assert_eq!(vehicles.columns().position()[row], position);
                prop_assert_eq!(vehicles.id_at(row), Some(id));
            }
            for &id in &dead {
                prop_assert_eq!(vehicles.row_of(id), None);
            }
        }
    }
}

#[test]
fn a_despawn_moves_the_last_row_into_the_gap_and_its_handle_follows() {
    let mut vehicles = Vehicles::default();
    let ids: Vec<UnitId> = (0..3)
        .map(|i| {
            vehicles
                .spawn(&UnitSpec::new(VehicleKind::Tracked, Vec2::splat(i as f32)))
                .unwrap()
        })
        .collect();
    vehicles.despawn(ids[0]).unwrap();
    assert_eq!(vehicles.row_of(ids[2]), Some(0));
    assert_eq!(vehicles.columns().position()[0], Vec2::splat(2.0));
    let reused = vehicles
        .spawn(&UnitSpec::new(VehicleKind::Wheeled, Vec2::ZERO))
        .unwrap();
    assert_eq!(reused.index, ids[0].index, "freed slot is reused");
    assert_ne!(reused, ids[0], "but with a new generation");
    assert_eq!(vehicles.row_of(ids[0]), None);
    vehicles.check_invariants().unwrap();
}

#[test]
fn every_column_is_viewable_as_bytes_of_the_right_length() {
    let mut vehicles = Vehicles::default();
    for i in 0..7 {
        vehicles
            .spawn(&UnitSpec::new(
                VehicleKind::RotaryWing,
                Vec2::splat(i as f32),
            ))
            .unwrap();
    }
    let names: Vec<&str> = vehicles.columns().bytes().map(|(name, _)| name).collect();
    assert_eq!(names, convoy::data::vehicles::Columns::NAMES);
    let positions = vehicles
        .columns()
        .bytes()
        .find(|(name, _)| *name == "position")
        .unwrap()
        .1;
    assert_eq!(positions.len(), 7 * size_of::<Vec2>());
    assert_eq!(
        &positions[8..16],
        bytemuck_bytes_of(Vec2::splat(1.0)).as_slice()
    );
}

fn bytemuck_bytes_of(v: Vec2) -> Vec<u8> {
    [v.x.to_ne_bytes(), v.y.to_ne_bytes()].concat()
}

#[test]
fn bad_specs_are_refused_naming_the_field_and_change_nothing() {
    let mut vehicles = Vehicles::default();
    let mut spec = UnitSpec::new(VehicleKind::Tracked, Vec2::ZERO);
    spec.max_speed = 0.0;
    let error = vehicles.spawn(&spec).unwrap_err();
    assert!(error.to_string().contains("max_speed"), "{error}");
    spec = UnitSpec::new(VehicleKind::Tracked, Vec2::new(f32::NAN, 0.0));
    let error = vehicles.spawn(&spec).unwrap_err();
    assert!(error.to_string().contains("position.x"), "{error}");
    spec = UnitSpec::new(VehicleKind::Tracked, Vec2::ZERO);
    spec.inv_mass = -1.0;
    assert!(
        vehicles
            .spawn(&spec)
            .unwrap_err()
            .to_string()
            .contains("inv_mass")
    );
    assert!(vehicles.is_empty());
    vehicles.check_invariants().unwrap();
}
