//! A unit alone, with nothing in its way but the map, never stops short of
//! its goal: not with its centre on a wall's edge, not facing a goal that
//! flips it between backing and turning, not with its goal inside a
//! truck's turning circle, not a hair outside the arrival radius, and not
//! when pushed behind a wall close to the next corner of its route. Each
//! case is a state a crowd left units in on arena2, where they stood still
//! for minutes.

#![allow(clippy::unwrap_used)]

mod arena2;

use std::f32::consts::PI;
use std::sync::Arc;

use arena2::{CELL_M, arena2, config_on};
use convoy::geometry::seek::ARRIVE_RADIUS;
use convoy::glam::Vec2;
use convoy::nav::{Cell, WorldMap};
use convoy::stages::integrate::dynamics::drive;
use convoy::stages::integrate::motion::{Limits, Motion, REVERSE_SPEED_FRACTION};
use convoy::{Bounds, MoveState, Sim, SimConfig, UnitId, UnitSpec, VehicleKind};
use proptest::prelude::*;

const DT: f32 = 1.0 / 60.0;

fn limits_of(kind: VehicleKind) -> Limits {
    let spec = UnitSpec::new(kind, Vec2::ZERO);
    Limits {
        handling: kind.handling(),
        max_speed: spec.max_speed,
        max_accel: spec.max_accel,
        max_brake: spec.max_brake,
        turn_rate: spec.turn_rate,
        turn_radius: spec.turn_radius,
    }
}

/// The unit's velocity along `desired` after `seconds` of asking for it.
fn speed_along_after(
    kind: VehicleKind,
    heading: f32,
    desired: Vec2,
    final_heading: f32,
    seconds: f32,
) -> f32 {
    let limits = limits_of(kind);
    let mut motion = Motion {
        position: Vec2::ZERO,
        velocity: Vec2::ZERO,
        heading,
    };
    for _ in 0..(seconds / DT) as usize {
        motion = drive(motion, desired, final_heading, &limits, DT);
    }
    motion.velocity.dot(desired.normalize())
}

/// What a unit asking for `desired` must reach along it: half its wish,
/// or of its reverse speed when it backs up to its goal.
fn least_speed(kind: VehicleKind, desired: Vec2) -> f32 {
    let limits = limits_of(kind);
    0.5 * desired
        .length()
        .min(limits.max_speed * REVERSE_SPEED_FRACTION)
}

/// The kinds with Force 21's four cases. A starship neither reverses nor
/// turns in place: asked for a slow velocity behind it, it arcs round at
/// its turning radius as slowly as it is asked to go.
const GROUND_AND_AIR: [VehicleKind; 4] = [
    VehicleKind::Tracked,
    VehicleKind::Wheeled,
    VehicleKind::RotaryWing,
    VehicleKind::Infantry,
];

proptest! {
    /// Asked for one velocity long enough, every kind ends up moving along
    /// it, forward or backing up, whatever its heading and ordered facing.
    #[test]
    fn a_unit_asked_for_one_velocity_ends_up_moving_along_it(
        kind in prop::sample::select(GROUND_AND_AIR.to_vec()),
        heading in -PI..PI,
        (angle, speed) in (-PI..PI, 0.5f32..20.0),
        final_heading in prop_oneof![Just(f32::NAN), -PI..PI],
    ) {
        let desired = Vec2::from_angle(angle) * speed;
        let along = speed_along_after(kind, heading, desired, final_heading, 12.0);
        prop_assert!(along >= least_speed(kind, desired), "{along} m/s along {desired}");
    }
}

/// A tank whose ordered facing is square to its heading: judged on its
/// current heading it backed up one tick (turning away from the facing)
/// and turned in place the next (turning back), and never moved.
#[test]
fn a_tank_at_the_back_or_turn_threshold_turns_and_drives() {
    let desired = Vec2::new(3.557_872_5, 0.0);
    let along = speed_along_after(VehicleKind::Tracked, 2.502, desired, 0.938_047_5, 12.0);
    assert!(
        along >= least_speed(VehicleKind::Tracked, desired),
        "{along} m/s"
    );
}

/// A truck square to a goal 6 m off, inside its 6 m turning circle: it
/// crept forward at the cosine of 90°, too slowly to turn at all.
#[test]
fn a_truck_with_its_goal_inside_its_turning_circle_backs_and_turns() {
    let desired = Vec2::new(-2.243_127_8, 1.922_368_8);
    let along = speed_along_after(VehicleKind::Wheeled, 0.862, desired, -0.595_409_9, 12.0);
    assert!(
        along >= least_speed(VehicleKind::Wheeled, desired),
        "{along} m/s"
    );
}

fn sim_on(map: &Arc<WorldMap>) -> Sim {
    Sim::new(config_on(map)).unwrap()
}

/// Steps until `unit` arrives; whether it did within `limit_s`.
fn arrives(sim: &mut Sim, unit: UnitId, limit_s: f64) -> bool {
    let start = sim.time_s();
    while sim.time_s() - start < limit_s {
        sim.step(DT);
        if sim.move_state(unit) == Ok(MoveState::Arrived) {
            return true;
        }
    }
    false
}

/// Every `stride`-th open cell of arena2 with a blocked cell below it or to
/// its left: the edges a centre can sit exactly on (a point on a grid line
/// belongs to the cell above or right of it), with the way into the cell.
fn wall_edges(map: &WorldMap, stride: usize) -> Vec<(Vec2, f32)> {
    let grid = map.grid();
    let open = |x: i64, y: i64| {
        x >= 0 && y >= 0 && map.is_open(map.centre_of(Cell::new(x as u32, y as u32)))
    };
    let mut edges = Vec::new();
    for y in 1..i64::from(grid.height()) {
        for x in 1..i64::from(grid.width()) {
            if !open(x, y) {
                continue;
            }
            let centre = map.centre_of(Cell::new(x as u32, y as u32));
            let half = 0.5 * CELL_M;
            if !open(x, y - 1) {
                edges.push((centre - Vec2::new(0.0, half), PI / 2.0));
            }
            if !open(x - 1, y) {
                edges.push((centre - Vec2::new(half, 0.0), 0.0));
            }
        }
    }
    edges.into_iter().step_by(stride).collect()
}

/// A unit whose centre sits exactly on a wall's edge, facing the wall,
/// drives to a point three cells into the open: avoidance once pushed such
/// a centre into the wall it stood on.
#[test]
fn units_on_a_wall_edge_facing_it_drive_away_and_arrive() {
    let map = arena2();
    let mut tried = 0;
    for (edge, into_open) in wall_edges(&map, 23) {
        let goal = edge + Vec2::from_angle(into_open) * 3.0 * CELL_M;
        if !map.is_open(goal) || !map.segment_is_clear(edge + Vec2::from_angle(into_open), goal) {
            continue;
        }
        for kind in [VehicleKind::Tracked, VehicleKind::Wheeled] {
            let mut sim = sim_on(&map);
            let mut spec = UnitSpec::new(kind, edge);
            spec.heading = into_open + 0.6 - PI;
            let unit = sim.spawn(&spec).unwrap();
            sim.order_move(unit, goal).unwrap();
            assert!(
                arrives(&mut sim, unit, 20.0),
                "a {kind:?} on the edge at {edge} did not reach {goal} in 20 s"
            );
            tried += 1;
        }
    }
    assert!(tried >= 40, "only {tried} edges tried");
}

/// A unit pushed to where the next corner of its route is near but behind
/// a wall asks for a new path once it stalls, and arrives: near corners
/// once counted as seen, and it stood there for good.
#[test]
fn a_unit_pushed_behind_a_wall_near_its_next_corner_finds_a_new_way() {
    let map = arena2();
    let grid = map.grid();
    let centres: Vec<Vec2> = (0..grid.height())
        .flat_map(|y| (0..grid.width()).map(move |x| Cell::new(x, y)))
        .map(|cell| map.centre_of(cell))
        .filter(|&centre| map.is_open(centre))
        .collect();
    let mut tried = 0;
    for &start in centres.iter().step_by(97) {
        let goal = start + Vec2::new(240.0, -180.0);
        let (Some(from), Some(to)) = (map.cell_at(start), map.cell_at(goal)) else {
            continue;
        };
        if !map.is_open(goal) || !grid.connected(from, to) {
            continue;
        }
        for kind in [VehicleKind::Tracked, VehicleKind::Wheeled] {
            let mut sim = sim_on(&map);
            let unit = sim.spawn(&UnitSpec::new(kind, start)).unwrap();
            sim.order_move(unit, goal).unwrap();
            sim.step(DT);
            let row = sim.vehicles().row_of(unit).unwrap();
            let columns = sim.vehicles().columns();
            if columns.route_len()[row] < 2 {
                continue;
            }
            let slot = columns.handle_slot()[row];
            let corner = sim.routes().of(slot)[columns.route_next()[row] as usize];
            // A push across the wall: an open spot in the corner's region,
            // within 20 m of it, that does not see it.
            let pushed = centres.iter().copied().find(|&spot| {
                spot.distance(corner) <= 20.0
                    && !map.segment_is_clear(spot, corner)
                    && grid.connected(map.cell_at(spot).unwrap(), to)
            });
            let Some(pushed) = pushed else {
                continue;
            };
            sim.columns_mut().position[row] = pushed;
            assert!(
                arrives(&mut sim, unit, 120.0),
                "a {kind:?} pushed to {pushed}, its corner {corner} behind a wall, did not reach {goal}"
            );
            tried += 1;
        }
        if tried >= 12 {
            break;
        }
    }
    assert!(tried >= 12, "only {tried} pushes tried");
}

/// A truck asks for its goal only within the 2.5 m it counts as arrived:
/// braking to stop on that radius, it once stopped a fraction of a
/// millimetre outside it. Every goal of a ring arrives.
#[test]
fn trucks_reach_their_arrival_radius_from_every_side() {
    let map = arena2();
    let start = (0..map.grid().height())
        .flat_map(|y| (0..map.grid().width()).map(move |x| Cell::new(x, y)))
        .map(|cell| map.centre_of(cell))
        .find(|&centre| {
            (0..16).all(|k| {
                map.segment_is_clear(
                    centre,
                    centre + Vec2::from_angle(k as f32 * PI / 8.0) * 40.0,
                )
            })
        })
        .unwrap();
    for k in 0..16 {
        let mut sim = sim_on(&map);
        let truck = sim
            .spawn(&UnitSpec::new(VehicleKind::Wheeled, start))
            .unwrap();
        let goal = start + Vec2::from_angle(k as f32 * PI / 8.0) * 30.0;
        sim.order_move(truck, goal).unwrap();
        assert!(
            arrives(&mut sim, truck, 30.0),
            "a truck did not reach {goal}"
        );
    }
}

/// A truck facing east with its goal a few metres to a side, ahead or
/// behind: inside its turning circle it backs and turns, and at the angle
/// where it would change gear it once chattered between forward and
/// reverse, never gaining the speed to turn (the goal 6 m to its left).
/// It stops within the arrival radius and stands still.
#[test]
fn trucks_reach_goals_close_beside_and_behind_them() {
    for dx in (-8..=8).step_by(2) {
        for dy in (-8..=8).step_by(2) {
            let offset = Vec2::new(dx as f32, dy as f32);
            if offset.length() <= 3.0 {
                continue;
            }
            let mut config = SimConfig::new(Bounds::new(Vec2::splat(-100.0), Vec2::splat(100.0)));
            config.threads = 1;
            let mut sim = Sim::new(config).unwrap();
            let truck = sim
                .spawn(&UnitSpec::new(VehicleKind::Wheeled, Vec2::ZERO))
                .unwrap();
            sim.order_move(truck, offset).unwrap();
            assert!(
                arrives(&mut sim, truck, 15.0),
                "a truck did not reach {offset} in 15 s"
            );
            // Then it stands still, within the arrival radius (and the few
            // cm its brakes take): off to a side it does not shuffle closer.
            for _ in 0..(10.0 / DT) as usize {
                sim.step(DT);
            }
            let row = sim.vehicles().row_of(truck).unwrap();
            let columns = sim.vehicles().columns();
            let off = columns.position()[row].distance(offset);
            assert!(
                off <= ARRIVE_RADIUS + 0.1,
                "a truck stopped {off} m from {offset}"
            );
            assert_eq!(
                columns.velocity()[row],
                Vec2::ZERO,
                "a truck at {offset} still shuffles"
            );
        }
    }
}
