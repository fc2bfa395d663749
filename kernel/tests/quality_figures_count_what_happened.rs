//! The movement-quality figures (`Sim::quality`, the report's `quality`
//! object) count what happened, checked against the columns and the stage
//! counters.

use convoy::data::vehicles::{ARRIVE_RADIUS, STUCK_AFTER_S};
use convoy::glam::{Vec2, Vec3};
use convoy::{Bounds, Sim, SimConfig, UnitSpec, VehicleKind};

const DT: f32 = 0.05;

fn world() -> Sim {
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-300.0), Vec2::splat(300.0)));
    config.threads = 1;
    Sim::new(config).expect("valid config")
}

#[test]
fn a_unit_whose_goal_is_walled_off_becomes_stuck_after_ten_seconds_and_others_arrive() {
    let mut sim = world();
    // An immovable block sitting on the goal: separation keeps the tank out
    // of it, so the tank can never come within the arrival radius.
    let mut wall = UnitSpec::new(VehicleKind::Tracked, Vec2::new(100.0, 0.0));
    wall.shield = Vec3::new(20.0, 20.0, 5.0);
    wall.inv_mass = 0.0;
    sim.spawn(&wall).expect("valid spec");
    let mut tank = UnitSpec::new(VehicleKind::Tracked, Vec2::ZERO);
    tank.goal = Vec2::new(100.0, 0.0);
    let tank = sim.spawn(&tank).expect("valid spec");
    let mut free = UnitSpec::new(VehicleKind::Tracked, Vec2::new(0.0, -100.0));
    free.goal = Vec2::new(60.0, -100.0);
    let free = sim.spawn(&free).expect("valid spec");

    let mut first_stuck_at = None;
    for tick in 1..=1200 {
        sim.step(DT);
        if first_stuck_at.is_none() && sim.quality().stuck > 0 {
            first_stuck_at = Some(tick);
        }
    }
    let quality = sim.quality();
    let columns = sim.vehicles().columns();
    let row = |id| sim.vehicles().row_of(id).expect("alive");
    // The tank stalled short of the wall, the free unit arrived; the wall
    // sits on its own goal (its spawn point), so it counts as arrived too.
    assert!(columns.position()[row(tank)].distance(Vec2::new(100.0, 0.0)) > ARRIVE_RADIUS);
    assert!(columns.position()[row(free)].distance(Vec2::new(60.0, -100.0)) <= ARRIVE_RADIUS);
    assert_eq!(quality.stuck, 1, "{quality:?}");
    assert_eq!(quality.arrived, 2, "{quality:?}");
    // Stuck only after ten seconds without progress: the tank drove for a
    // while first, so the first stuck tick is later than 10 s from the start.
    let stuck_at = first_stuck_at.expect("the tank got stuck") as f32 * DT;
    assert!(stuck_at > STUCK_AFTER_S, "stuck after {stuck_at} s");
}

#[test]
fn collisions_are_the_overlaps_separation_found_per_thousand_unit_ticks() {
    // Avoidance looks no farther than 1 cm, so the columns do collide.
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-300.0), Vec2::splat(300.0)));
    config.threads = 1;
    config.neighbour_radius = 0.01;
    config.cell_size = Some(8.0);
    let mut sim = Sim::new(config).expect("valid config");
    // Two columns of tanks driving through each other, head on.
    for lane in 0..10 {
        let y = lane as f32 * 3.0;
        let mut east = UnitSpec::new(VehicleKind::Tracked, Vec2::new(-60.0, y));
        east.goal = Vec2::new(60.0, y);
        sim.spawn(&east).expect("valid spec");
        let mut west = UnitSpec::new(VehicleKind::Tracked, Vec2::new(60.0, y + 0.5));
        west.heading = std::f32::consts::PI;
        west.goal = Vec2::new(-60.0, y + 0.5);
        sim.spawn(&west).expect("valid spec");
    }
    let ticks = 400;
    for _ in 0..ticks {
        sim.step(DT);
    }
    let (stages, _) = sim.report();
    let separation = stages
        .iter()
        .find(|stage| stage.name == "separation")
        .expect("a separation stage");
    // The stage reports the mean overlaps per tick; quality reports them per
    // 1,000 unit-ticks.
    let overlaps_per_tick = separation.counters["overlaps"];
    let units = sim.vehicles().len() as f64;
    let expected = overlaps_per_tick * 1000.0 / units;
    assert!(expected > 0.0, "the columns never touched");
    let quality = sim.quality();
    assert!(
        (quality.collisions_per_1000_unit_ticks - expected).abs() < 1e-9 * expected.max(1.0),
        "{quality:?} vs {expected}"
    );
    assert!(quality.mean_speed_fraction > 0.0 && quality.mean_speed_fraction <= 1.0);
}

/// Members trailing their moving slots keep making way toward them: a
/// platoon driving for a minute without a new order has no stuck unit
/// (progress is the way made toward the drive-to point, not a new closest
/// distance to it, which a member at a steady lag never reaches).
#[test]
fn members_keeping_pace_behind_moving_slots_are_never_stuck() {
    let mut sim = world();
    let members: Vec<_> = (0..5)
        .map(|k| {
            let spec = UnitSpec::new(
                VehicleKind::Tracked,
                Vec2::new(-250.0 - 12.0 * k as f32, 0.0),
            );
            sim.spawn(&spec).expect("valid spec")
        })
        .collect();
    let spec = convoy::PlatoonSpec::force21(convoy::Formation::Column);
    let platoon = sim.create_platoon(&members, &spec).expect("valid platoon");
    sim.order_platoon(platoon, Vec2::new(250.0, 0.0), None)
        .expect("valid order");
    let mut moving_ticks = 0;
    for tick in 0..1200 {
        sim.step(DT);
        assert_eq!(sim.quality().stuck, 0, "tick {tick}");
        let state = sim.platoons().get(platoon).expect("live");
        moving_ticks += usize::from(state.speed > 0.0);
    }
    // It drove for longer than the stuck limit.
    assert!(
        moving_ticks as f32 * DT > 2.0 * STUCK_AFTER_S,
        "{moving_ticks}"
    );
}
