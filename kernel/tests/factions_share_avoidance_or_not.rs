//! `SimConfig::faction_avoidance`: under `Shared` (the default) a unit's
//! faction changes nothing in how it avoids; under `OwnFactionOnly` a unit
//! shares reciprocal avoidance with its own faction as before and avoids
//! another faction's unit exactly as an immovable one, so an enemy that
//! does not yield is missed even at ten steps a second, where half the
//! avoidance runs into it.

#![allow(clippy::unwrap_used)]

use convoy::glam::{Vec2, Vec3};
use convoy::{
    Bounds, FactionAvoidance, FactionId, Sim, SimConfig, SteerMode, UnitId, UnitSpec, VehicleKind,
};

const DT: f32 = 1.0 / 60.0;
const RADIUS: f32 = 1.5;

fn sim(avoidance: FactionAvoidance) -> Sim {
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-100.0), Vec2::splat(100.0)));
    config.threads = 1;
    config.faction_avoidance = avoidance;
    Sim::new(config).unwrap()
}

fn round_tank(at: Vec2, faction: u16, mode: SteerMode) -> UnitSpec {
    let mut spec = UnitSpec::new(VehicleKind::Tracked, at).with_faction(FactionId(faction));
    spec.shield = Vec3::new(RADIUS, RADIUS, 1.0);
    spec.steer_mode = mode;
    spec.max_speed = 5.0;
    spec.max_accel = 8.0;
    spec.turn_rate = 6.0;
    spec
}

/// What a head-on run of two units gave.
#[derive(Debug, PartialEq)]
struct Run {
    /// Both units' positions after every tick.
    track: Vec<[Vec2; 2]>,
    /// Their least centre distance.
    closest: f32,
    /// Overlapping pairs per 1,000 unit-ticks (separation's count).
    collisions: f64,
}

/// Two units 80 m apart sent at each other's place (the second 0.3 m off
/// the line), the second `mode`, of factions `factions`; 30 s in steps of
/// `dt`.
fn head_on(avoidance: FactionAvoidance, factions: [u16; 2], mode: SteerMode, dt: f32) -> Run {
    let mut sim = sim(avoidance);
    let a = sim
        .spawn(&round_tank(
            Vec2::new(-40.0, 0.0),
            factions[0],
            SteerMode::Reciprocal,
        ))
        .unwrap();
    let b = sim
        .spawn(&round_tank(Vec2::new(40.0, 0.3), factions[1], mode))
        .unwrap();
    sim.order_move(a, Vec2::new(40.0, 0.0)).unwrap();
    sim.order_move(b, Vec2::new(-40.0, 0.3)).unwrap();
    let at = |sim: &Sim, unit: UnitId| {
        sim.vehicles().columns().position()[sim.vehicles().row_of(unit).unwrap()]
    };
    let mut track = Vec::new();
    let mut closest = f32::INFINITY;
    for _ in 0..(30.0 / dt) as usize {
        sim.step(dt);
        let (pa, pb) = (at(&sim, a), at(&sim, b));
        closest = closest.min(pa.distance(pb));
        track.push([pa, pb]);
    }
    Run {
        track,
        closest,
        collisions: sim.quality().collisions_per_1000_unit_ticks,
    }
}

#[test]
fn under_shared_avoidance_factions_change_nothing() {
    let own = head_on(FactionAvoidance::Shared, [0, 0], SteerMode::Reciprocal, DT);
    let enemies = head_on(FactionAvoidance::Shared, [0, 1], SteerMode::Reciprocal, DT);
    assert_eq!(own, enemies);
    // One faction under the other rule shares as before.
    let allies = head_on(
        FactionAvoidance::OwnFactionOnly,
        [3, 3],
        SteerMode::Reciprocal,
        DT,
    );
    assert_eq!(own, allies);
    assert!(own.closest >= 2.0 * RADIUS - 1e-3, "{}", own.closest);
}

/// The first desired velocity of a unit driving east at 5 m/s at a unit
/// 6 m ahead (faction `faction`, immovable or not) that stands still.
fn first_choice(avoidance: FactionAvoidance, faction: u16, immovable: bool) -> Vec2 {
    let mut sim = sim(avoidance);
    let a = sim
        .spawn(&round_tank(Vec2::ZERO, 0, SteerMode::Reciprocal))
        .unwrap();
    let mut other = round_tank(Vec2::new(6.0, 0.5), faction, SteerMode::Reciprocal);
    if immovable {
        other.inv_mass = 0.0;
    }
    sim.spawn(&other).unwrap();
    sim.order_move(a, Vec2::new(40.0, 0.0)).unwrap();
    sim.step(DT);
    let row = sim.vehicles().row_of(a).unwrap();
    sim.columns_mut().velocity[row] = Vec2::new(5.0, 0.0);
    sim.step(DT);
    sim.vehicles().columns().desired_velocity()[sim.vehicles().row_of(a).unwrap()]
}

#[test]
fn another_factions_unit_is_avoided_as_an_immovable_one_is() {
    let enemy = first_choice(FactionAvoidance::OwnFactionOnly, 1, false);
    let immovable = first_choice(FactionAvoidance::Shared, 1, true);
    let shared = first_choice(FactionAvoidance::Shared, 1, false);
    let ally = first_choice(FactionAvoidance::OwnFactionOnly, 0, false);
    assert_eq!(enemy, immovable, "all of the avoidance");
    assert_eq!(ally, shared, "half, as before");
    // Taking all of it swerves further from the wish (east at 5 m/s).
    let wish = Vec2::new(5.0, 0.0);
    assert!(
        enemy.distance(wish) > shared.distance(wish),
        "{enemy} {shared}"
    );
}

/// Ten steps a second, as a lockstep RTS might tick.
const COARSE_DT: f32 = 0.1;

#[test]
fn an_enemy_that_does_not_yield_is_missed_only_when_factions_do_not_share() {
    // The second unit steers by its potential field: it avoids no unit.
    let field = SteerMode::PotentialField;
    let shared = head_on(FactionAvoidance::Shared, [0, 1], field, COARSE_DT);
    let own_only = head_on(FactionAvoidance::OwnFactionOnly, [0, 1], field, COARSE_DT);
    assert!(
        shared.collisions > 0.0,
        "half the avoidance is too little: closest {}",
        shared.closest
    );
    assert_eq!(own_only.collisions, 0.0, "closest {}", own_only.closest);
    assert!(own_only.closest > 2.0 * RADIUS, "{}", own_only.closest);
}

#[test]
fn enemies_that_both_take_all_of_it_still_pass_and_arrive() {
    let run = head_on(
        FactionAvoidance::OwnFactionOnly,
        [0, 1],
        SteerMode::Reciprocal,
        COARSE_DT,
    );
    assert_eq!(run.collisions, 0.0, "closest {}", run.closest);
    let end = run.track.last().unwrap();
    assert!(end[0].distance(Vec2::new(40.0, 0.0)) < 2.5, "{}", end[0]);
    assert!(end[1].distance(Vec2::new(-40.0, 0.3)) < 2.5, "{}", end[1]);
}
