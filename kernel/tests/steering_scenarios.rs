//! Force 21 avoidance (`SteerMode::DriveTo`, §5): pairs that must avoid each other, goals
//! behind the vehicle, degenerate input. Separation is off (0 iterations),
//! so any non-overlap is avoidance's doing, not the shield pass's.

use std::f32::consts::PI;

use convoy::data::vehicles::ARRIVE_RADIUS;
use convoy::geometry::segments::segment_distance;
use convoy::glam::Vec2;
use convoy::{Bounds, Sim, SimConfig, SteerMode, UnitId, UnitSpec, VehicleKind};

const DT: f32 = 1.0 / 30.0;

fn world(threads: usize) -> Sim {
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-600.0), Vec2::splat(600.0)));
    config.threads = threads;
    config.separation_iterations = 0;
    config.neighbour_radius = 40.0;
    Sim::new(config).expect("valid config")
}

fn spawn(sim: &mut Sim, kind: VehicleKind, at: Vec2, heading: f32, goal: Vec2) -> UnitId {
    let mut spec = UnitSpec::new(kind, at);
    spec.heading = heading;
    spec.goal = goal;
    spec.steer_mode = SteerMode::DriveTo;
    sim.spawn(&spec).expect("valid spec")
}

/// Each unit's footprint as a capsule: core segment along the heading and
/// the lateral semi-axis as radius (what avoidance promises to keep apart).
fn capsules_overlap(sim: &Sim, first: usize, second: usize) -> Option<f32> {
    let columns = sim.vehicles().columns();
    let capsule = |row: usize| {
        let shield = columns.shield()[row];
        let half = Vec2::from_angle(columns.heading()[row]) * (shield.x - shield.y).max(0.0);
        let centre = columns.position()[row];
        ((centre - half, centre + half), shield.y)
    };
    let ((a, radius_a), (b, radius_b)) = (capsule(first), capsule(second));
    let gap = segment_distance(a, b) - radius_a - radius_b;
    (gap < 0.0).then_some(gap)
}

/// Runs `ticks`, asserting no two capsules overlap at any tick end.
fn run_without_contact(sim: &mut Sim, ticks: usize, scenario: &str) {
    for tick in 0..ticks {
        sim.step(DT);
        let units = sim.vehicles().len();
        for first in 0..units {
            for second in first + 1..units {
                if let Some(gap) = capsules_overlap(sim, first, second) {
                    panic!(
                        "{scenario}: rows {first} and {second} overlap by {gap} m at tick {tick}"
                    );
                }
            }
        }
    }
}

fn assert_arrived(sim: &Sim, units: &[UnitId], scenario: &str) {
    let columns = sim.vehicles().columns();
    for &unit in units {
        let row = sim.vehicles().row_of(unit).expect("alive");
        let miss = columns.position()[row].distance(columns.goal()[row]);
        assert!(
            miss <= ARRIVE_RADIUS,
            "{scenario}: unit {unit:?} ended {miss} m from its goal"
        );
    }
}

const GROUND_KINDS: [VehicleKind; 2] = [VehicleKind::Tracked, VehicleKind::Wheeled];

/// One unit of a pair: its kind, start, facing and goal.
struct Leg {
    kind: VehicleKind,
    from: Vec2,
    heading: f32,
    to: Vec2,
}

/// Runs the pair for `ticks` with no capsule contact at any tick end, then
/// checks both arrived.
fn pair_passes_and_arrives(scenario: &str, legs: [Leg; 2], ticks: usize) {
    let mut sim = world(1);
    let units = legs.map(|leg| spawn(&mut sim, leg.kind, leg.from, leg.heading, leg.to));
    run_without_contact(&mut sim, ticks, scenario);
    assert_arrived(&sim, &units, scenario);
}

#[test]
fn a_head_on_pair_passes_without_contact_and_both_arrive() {
    for kind in GROUND_KINDS {
        let east = Leg {
            kind,
            from: Vec2::new(-150.0, 0.0),
            heading: 0.0,
            to: Vec2::new(150.0, 0.0),
        };
        let west = Leg {
            kind,
            from: Vec2::new(150.0, 0.3),
            heading: PI,
            to: Vec2::new(-150.0, 0.3),
        };
        pair_passes_and_arrives(&format!("head-on {kind:?}"), [east, west], 1200);
    }
}

#[test]
fn a_crossing_pair_passes_without_contact_and_both_arrive() {
    for kind in GROUND_KINDS {
        let east = Leg {
            kind,
            from: Vec2::new(-150.0, 0.0),
            heading: 0.0,
            to: Vec2::new(150.0, 0.0),
        };
        let north = Leg {
            kind,
            from: Vec2::new(0.0, -150.0),
            heading: PI / 2.0,
            to: Vec2::new(0.0, 150.0),
        };
        pair_passes_and_arrives(&format!("crossing {kind:?}"), [east, north], 1200);
    }
}

#[test]
fn an_overtaking_pair_passes_without_contact_and_both_arrive() {
    // A fast truck behind a slow tank on the same line.
    let tank = Leg {
        kind: VehicleKind::Tracked,
        from: Vec2::new(-200.0, 0.0),
        heading: 0.0,
        to: Vec2::new(150.0, 0.0),
    };
    let truck = Leg {
        kind: VehicleKind::Wheeled,
        from: Vec2::new(-240.0, 0.0),
        heading: 0.0,
        to: Vec2::new(250.0, 0.0),
    };
    pair_passes_and_arrives("overtaking", [tank, truck], 1800);
}

#[test]
fn a_side_by_side_pair_converging_slightly_passes_without_contact() {
    for kind in GROUND_KINDS {
        // Abreast, 6 m apart (2 m between hulls), each bound for a point
        // beyond the other's lane: their courses cross at a shallow angle.
        let left = Leg {
            kind,
            from: Vec2::new(0.0, 6.0),
            heading: 0.0,
            to: Vec2::new(300.0, -6.0),
        };
        let right = Leg {
            kind,
            from: Vec2::ZERO,
            heading: 0.0,
            to: Vec2::new(300.0, 12.0),
        };
        pair_passes_and_arrives(&format!("side by side {kind:?}"), [left, right], 1500);
    }
}

#[test]
fn a_tank_with_its_goal_behind_turns_in_place_first() {
    let mut sim = world(1);
    let tank = spawn(
        &mut sim,
        VehicleKind::Tracked,
        Vec2::ZERO,
        0.0,
        Vec2::new(-80.0, 0.0),
    );
    // Until it faces within 45° of the goal it must not leave the spot.
    let mut ticks = 0;
    loop {
        sim.step(DT);
        ticks += 1;
        let row = sim.vehicles().row_of(tank).expect("alive");
        let columns = sim.vehicles().columns();
        let facing = Vec2::from_angle(columns.heading()[row]);
        if facing.dot(Vec2::NEG_X) >= (PI / 4.0).cos() - 1e-4 {
            break;
        }
        assert!(
            columns.position()[row].length() < 1e-3,
            "moved {} m while still facing away",
            columns.position()[row].length()
        );
        assert!(ticks < 300, "never turned around");
    }
    for _ in 0..900 {
        sim.step(DT);
    }
    assert_arrived(&sim, &[tank], "tank, goal behind");
}

#[test]
fn a_truck_with_its_goal_behind_backs_while_turning_never_tighter_than_its_radius() {
    let mut sim = world(1);
    let truck = spawn(
        &mut sim,
        VehicleKind::Wheeled,
        Vec2::ZERO,
        0.0,
        Vec2::new(-120.0, 10.0),
    );
    let row = sim.vehicles().row_of(truck).expect("alive");
    let radius = sim.vehicles().columns().turn_radius()[row];
    assert!(radius > 0.0);
    let mut reversed = false;
    for tick in 0..1500 {
        let columns = sim.vehicles().columns();
        let (before, heading_before) = (columns.position()[row], columns.heading()[row]);
        sim.step(DT);
        let columns = sim.vehicles().columns();
        let (after, heading_after) = (columns.position()[row], columns.heading()[row]);
        let travelled = before.distance(after);
        let turned = wrap(heading_after - heading_before).abs();
        // Arc length ≥ radius × angle: never tighter than the radius, and
        // no turning at all while standing still.
        assert!(
            turned <= travelled / radius + 1e-5,
            "tick {tick}: turned {turned} rad over {travelled} m"
        );
        let forward = Vec2::from_angle(heading_after);
        reversed |= columns.velocity()[row].dot(forward) < -0.1;
    }
    assert!(reversed, "the three-point turn never used reverse");
    assert_arrived(&sim, &[truck], "truck, goal behind");
}

fn wrap(angle: f32) -> f32 {
    (angle + PI).rem_euclid(2.0 * PI) - PI
}

#[test]
fn coincident_units_at_rest_produce_no_nan() {
    let mut sim = world(2);
    for kind in VehicleKind::ALL {
        // Stacked on one point; half want to stay, half to leave.
        spawn(&mut sim, kind, Vec2::ZERO, 0.0, Vec2::ZERO);
        spawn(&mut sim, kind, Vec2::ZERO, 0.0, Vec2::new(50.0, 0.0));
    }
    for _ in 0..300 {
        sim.step(DT);
    }
    let columns = sim.vehicles().columns();
    for row in 0..sim.vehicles().len() {
        assert!(columns.position()[row].is_finite(), "row {row} position");
        assert!(columns.velocity()[row].is_finite(), "row {row} velocity");
        assert!(columns.heading()[row].is_finite(), "row {row} heading");
        assert!(
            columns.desired_velocity()[row].is_finite(),
            "row {row} desire"
        );
    }
}

#[test]
fn a_huge_dt_is_clamped_and_a_bad_one_refused_with_nothing_changed() {
    let mut sim = world(1);
    spawn(
        &mut sim,
        VehicleKind::RotaryWing,
        Vec2::ZERO,
        0.0,
        Vec2::new(1e5, 0.0),
    );
    let max_dt = sim.config().max_dt;
    sim.try_step(1e9)
        .expect("a huge dt is clamped, not refused");
    let columns = sim.vehicles().columns();
    let travelled = columns.position()[0].length();
    let top = columns.max_speed()[0];
    assert!(
        travelled <= top * max_dt * 1.0001,
        "travelled {travelled} m in one clamped step"
    );
    assert!((sim.time_s() - f64::from(max_dt)).abs() < 1e-9);
    let before = sim.checksum();
    for bad in [f32::NAN, -1.0, 0.0, f32::INFINITY] {
        let error = sim.try_step(bad).expect_err("refused");
        assert!(error.to_string().contains("dt"), "{error}");
        assert_eq!(sim.checksum(), before, "a refused step changed the state");
    }
}
