//! Every state the tick produces restores: units at the coordinate limit
//! pushed outward by separation, a knock-back, a platoon and a group
//! ordered into corners of the map are saved after every tick or ten, and
//! each snapshot restores and continues exactly as the original.

#![allow(clippy::unwrap_used)]

use convoy::glam::Vec2;
use convoy::unit_limits::MAX_COORDINATE;
use convoy::{Bounds, Formation, PlatoonSpec, Sim, SimConfig, UnitSpec, VehicleKind};

const M: f32 = MAX_COORDINATE;

fn config() -> SimConfig {
    SimConfig::new(Bounds::new(Vec2::splat(-500.0), Vec2::splat(500.0)))
}

fn spawn(sim: &mut Sim, kind: VehicleKind, at: Vec2) -> convoy::UnitId {
    sim.spawn(&UnitSpec::new(kind, at)).unwrap()
}

/// Units at the map's limit that the tick pushes past it, and orders
/// whose slots and spots lie past it.
fn edge_world() -> Sim {
    let mut sim = Sim::new(config()).unwrap();
    // Four tanks overlapping in the (+M, +M) corner: separation pushes
    // them apart, the corner one outward.
    for offset in [
        Vec2::ZERO,
        Vec2::new(-1.0, 0.0),
        Vec2::new(0.0, -1.0),
        Vec2::splat(-1.0),
    ] {
        spawn(&mut sim, VehicleKind::Tracked, Vec2::splat(M) + offset);
    }
    // Two starships on one point at (-M, 0).
    for _ in 0..2 {
        spawn(&mut sim, VehicleKind::Starship, Vec2::new(-M, 0.0));
    }
    // A tank at (+M, 0) knocked outward at 1 km/s.
    let knocked = spawn(&mut sim, VehicleKind::Tracked, Vec2::new(M, 0.0));
    let row = sim.vehicles().row_of(knocked).unwrap();
    sim.columns_mut().velocity[row] = Vec2::new(1000.0, 300.0);
    // A platoon ordered into the (+M, -M) corner, facing out of the map.
    let members: Vec<_> = (0..6)
        .map(|k| {
            spawn(
                &mut sim,
                VehicleKind::Tracked,
                Vec2::new(M - 60.0, -M + 12.0 * k as f32),
            )
        })
        .collect();
    let platoon = sim
        .create_platoon(&members, &PlatoonSpec::force21(Formation::Wedge))
        .unwrap();
    sim.order_platoon(platoon, Vec2::new(M, -M), Some(-0.8))
        .unwrap();
    // Infantry ordered as a group next to the (-M, +M) corner (a goal
    // whose spots would lie past the limit is refused).
    let group: Vec<_> = (0..12)
        .map(|k| {
            spawn(
                &mut sim,
                VehicleKind::Infantry,
                Vec2::new(-M + 40.0, M - 2.0 * k as f32),
            )
        })
        .collect();
    sim.order_group(&group, Vec2::new(-M + 16.0, M - 16.0), Vec2::new(-1.0, 1.0))
        .unwrap();
    sim
}

fn save(sim: &Sim) -> Vec<u8> {
    let mut bytes = Vec::new();
    sim.save(&mut bytes).unwrap();
    bytes
}

#[test]
fn states_the_tick_produces_at_the_map_edge_restore_and_continue_exactly() {
    let mut sim = edge_world();
    let mut beyond = false;
    // Every tick while the piles part, then every tenth.
    for round in 0..40 {
        for _ in 0..if round < 30 { 1 } else { 10 } {
            sim.step(1.0 / 60.0);
        }
        let positions = sim.vehicles().columns().position();
        assert!(positions.iter().all(|p| p.is_finite()), "{positions:?}");
        beyond |= positions.iter().any(|p| p.abs().max_element() >= M);
        let mut restored = Sim::new(config()).unwrap();
        if let Err(error) = restored.restore(&mut save(&sim).as_slice()) {
            panic!("round {round}: the tick's own state is refused: {error}");
        }
        let mut original = sim.clone();
        for _ in 0..10 {
            original.step(1.0 / 60.0);
            restored.step(1.0 / 60.0);
        }
        assert_eq!(restored.checksum(), original.checksum(), "round {round}");
    }
    assert!(beyond, "some unit reaches the coordinate limit");
}
