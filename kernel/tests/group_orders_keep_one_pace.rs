//! Under `GroupPace::Slowest` a group order travels as one body: fast
//! members keep to the slowest member's pace instead of racing ahead, the
//! group arrives about when its slowest kind alone would, its arrival is
//! one `GroupArrived` event after the last member's, a save taken on the
//! way continues exactly, and `order_move` or `stop` takes a unit out of
//! its group.

#![allow(clippy::unwrap_used)]

use convoy::glam::Vec2;
use convoy::{
    Bounds, Event, GroupId, GroupPace, MoveState, Sim, SimConfig, UnitId, UnitSpec, VehicleKind,
};

const DT: f32 = 1.0 / 60.0;
/// Tanks and trucks, alternating in a 4 × 4 block 12 m apart.
const MEMBERS: usize = 16;
const GOAL: Vec2 = Vec2::new(250.0, 0.0);

fn open_ground(threads: usize) -> Sim {
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-200.0), Vec2::splat(500.0)));
    config.threads = threads;
    config.group_pace = GroupPace::Slowest;
    Sim::new(config).unwrap()
}

fn kind_of(i: usize) -> VehicleKind {
    if i.is_multiple_of(2) {
        VehicleKind::Tracked
    } else {
        VehicleKind::Wheeled
    }
}

fn spawn_block(sim: &mut Sim) -> Vec<UnitId> {
    (0..MEMBERS)
        .map(|i| {
            let at = Vec2::new((i % 4) as f32, (i / 4) as f32 - 1.5) * 12.0;
            sim.spawn(&UnitSpec::new(kind_of(i), at)).unwrap()
        })
        .collect()
}

fn position(sim: &Sim, unit: UnitId) -> Vec2 {
    sim.vehicles().columns().position()[sim.vehicles().row_of(unit).unwrap()]
}

/// The largest gap along the way between the group's most and least
/// advanced members, over every tick until the first one arrives; and the
/// seconds until every member has arrived.
fn spread_and_time(sim: &mut Sim, units: &[UnitId]) -> (f32, f64) {
    let mut spread: f32 = 0.0;
    let mut first_arrived = false;
    while sim.time_s() < 180.0 {
        sim.step(DT);
        let along: Vec<f32> = units.iter().map(|&unit| position(sim, unit).x).collect();
        let states: Vec<MoveState> = units
            .iter()
            .map(|&unit| sim.move_state(unit).unwrap())
            .collect();
        first_arrived |= states.contains(&MoveState::Arrived);
        if !first_arrived {
            let (low, high) = along
                .iter()
                .fold((f32::MAX, f32::MIN), |(l, h), &x| (l.min(x), h.max(x)));
            spread = spread.max(high - low);
        }
        if states.iter().all(|&state| state == MoveState::Arrived) {
            return (spread, sim.time_s());
        }
    }
    (spread, f64::INFINITY)
}

#[test]
fn trucks_keep_to_the_tanks_pace_and_the_group_arrives_with_its_tanks() {
    let mut alone = open_ground(1);
    let tank = alone
        .spawn(&UnitSpec::new(VehicleKind::Tracked, Vec2::ZERO))
        .unwrap();
    alone.order_move(tank, GOAL).unwrap();
    let (_, tank_s) = spread_and_time(&mut alone, &[tank]);

    let mut separately = open_ground(1);
    let units = spawn_block(&mut separately);
    let spots = separately.order_group(&units, GOAL, Vec2::X).unwrap();
    for (&unit, &spot) in units.iter().zip(&spots) {
        separately.order_move(unit, spot).unwrap();
        assert_eq!(
            separately.group_of(unit),
            Ok(None),
            "order_move leaves the group"
        );
    }
    let (loose_spread, _) = spread_and_time(&mut separately, &units);

    let mut grouped = open_ground(1);
    let units = spawn_block(&mut grouped);
    grouped.order_group(&units, GOAL, Vec2::X).unwrap();
    let (spread, group_s) = spread_and_time(&mut grouped, &units);
    // The block is 36 m deep; ordered one by one, trucks lead by 130 m.
    assert!(
        spread <= 50.0 && loose_spread >= 1.5 * spread,
        "the group spread over {spread:.1} m, units ordered one by one over {loose_spread:.1} m"
    );
    assert!(
        group_s <= 1.3 * tank_s,
        "the group took {group_s:.1} s, a lone tank {tank_s:.1} s"
    );
}

#[test]
fn the_group_arrives_once_after_its_last_member() {
    let mut sim = open_ground(2);
    let units = spawn_block(&mut sim);
    sim.order_group(&units, GOAL, Vec2::X).unwrap();
    let group = sim
        .group_of(units[0])
        .unwrap()
        .expect("a group of 16 has an id");
    assert!(
        units
            .iter()
            .all(|&unit| sim.group_of(unit) == Ok(Some(group)))
    );
    let mut last_member_at = None;
    let mut group_arrived_at = Vec::new();
    while sim.time_s() < 180.0 {
        sim.step(DT);
        for event in sim.events() {
            match *event {
                Event::Arrived(unit) if units.contains(&unit) => {
                    last_member_at = Some(sim.tick_count())
                }
                Event::GroupArrived(id) => {
                    assert_eq!(id, group);
                    group_arrived_at.push(sim.tick_count());
                }
                _ => {}
            }
        }
    }
    assert!(
        units
            .iter()
            .all(|&unit| sim.move_state(unit) == Ok(MoveState::Arrived))
    );
    assert_eq!(
        group_arrived_at,
        vec![last_member_at.unwrap()],
        "one GroupArrived, with the last arrival"
    );
}

#[test]
fn stop_takes_units_out_of_their_group_and_free_ids_are_reused() {
    let mut sim = open_ground(1);
    let units = spawn_block(&mut sim);
    let (first, second) = units.split_at(MEMBERS / 2);
    sim.order_group(first, GOAL, Vec2::X).unwrap();
    sim.order_group(second, -GOAL, Vec2::X).unwrap();
    let (a, b) = (
        sim.group_of(first[0]).unwrap().unwrap(),
        sim.group_of(second[0]).unwrap().unwrap(),
    );
    assert_eq!((a, b), (GroupId(0), GroupId(1)), "the smallest free ids");
    sim.stop(first).unwrap();
    assert!(first.iter().all(|&unit| sim.group_of(unit) == Ok(None)));
    let lone = sim
        .spawn(&UnitSpec::new(VehicleKind::Tracked, Vec2::new(-50.0, 0.0)))
        .unwrap();
    sim.order_group(&[lone], GOAL, Vec2::X).unwrap();
    assert_eq!(sim.group_of(lone), Ok(None), "a group of one paces nobody");
    sim.order_group(first, GOAL, Vec2::X).unwrap();
    assert_eq!(
        sim.group_of(first[0]),
        Ok(Some(a)),
        "the stopped group's id is free again"
    );
}

#[test]
fn a_group_saved_on_its_way_continues_exactly_after_a_restore() {
    let mut sim = open_ground(2);
    let units = spawn_block(&mut sim);
    sim.order_group(&units, GOAL, Vec2::X).unwrap();
    for _ in 0..300 {
        sim.step(DT);
    }
    let mut bytes = Vec::new();
    sim.save(&mut bytes).unwrap();
    let mut restored = open_ground(1);
    restored.restore(&mut bytes.as_slice()).unwrap();
    assert_eq!(restored.checksum(), sim.checksum());
    for _ in 0..1500 {
        sim.step(DT);
        restored.step(DT);
        assert_eq!(restored.events(), sim.events());
    }
    assert_eq!(restored.checksum(), sim.checksum());
    assert!(
        units
            .iter()
            .all(|&unit| sim.move_state(unit) == Ok(MoveState::Arrived))
    );
}
