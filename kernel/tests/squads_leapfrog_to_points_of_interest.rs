//! Company of Heroes leapfrogging: an element leader of a squad runs to a
//! point of interest near its slot, holds there, and rejoins; the squad
//! keeps its course (its slots hang from the platoon's own position, the
//! virtual leader) and still arrives, and a save taken mid-leap continues
//! exactly.

#![allow(clippy::unwrap_used)]

use convoy::glam::Vec2;
use convoy::{
    Bounds, Event, PlatoonId, PlatoonSpec, Sim, SimConfig, UnitId, UnitSpec, VehicleKind,
};

const DT: f32 = 1.0 / 60.0;
/// On the squad's straight way east, between the lanes its members keep
/// (about 4.5 m from each).
const COVER: Vec2 = Vec2::new(100.0, -5.5);
const GOAL: Vec2 = Vec2::new(200.0, 0.0);
/// A member this near a point stands on it (the stage's spot radius).
const ON_POINT_M: f32 = 3.0;

fn squad_world(points: Vec<Vec2>, threads: usize) -> (Sim, Vec<UnitId>, PlatoonId) {
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-300.0), Vec2::splat(300.0)));
    config.threads = threads;
    config.points_of_interest = points;
    let mut sim = Sim::new(config).unwrap();
    let units: Vec<UnitId> = (0..6)
        .map(|k| {
            let at = Vec2::new(-6.0 * (k / 2) as f32, 6.0 * (k % 2) as f32 - 3.0);
            sim.spawn(&UnitSpec::new(VehicleKind::Infantry, at))
                .unwrap()
        })
        .collect();
    let platoon = sim
        .create_platoon(&units, &PlatoonSpec::squad(6.0))
        .unwrap();
    sim.order_platoon(platoon, GOAL, Some(0.0)).unwrap();
    (sim, units, platoon)
}

fn position(sim: &Sim, unit: UnitId) -> Vec2 {
    sim.vehicles().columns().position()[sim.vehicles().row_of(unit).unwrap()]
}

/// Steps until the platoon arrives (or 120 s pass): the seconds taken and
/// how many ticks each member stood on the cover.
fn run(sim: &mut Sim, units: &[UnitId], platoon: PlatoonId) -> (f64, Vec<usize>) {
    let mut on_cover = vec![0; units.len()];
    while sim.time_s() < 120.0 {
        sim.step(DT);
        for (ticks, &unit) in on_cover.iter_mut().zip(units) {
            *ticks += usize::from(position(sim, unit).distance(COVER) <= ON_POINT_M);
        }
        if sim.events().contains(&Event::PlatoonArrived(platoon)) {
            return (sim.time_s(), on_cover);
        }
    }
    (f64::INFINITY, on_cover)
}

#[test]
fn an_element_leader_holds_at_the_cover_and_the_squad_still_arrives() {
    let (mut plain, units, platoon) = squad_world(Vec::new(), 1);
    let (plain_s, plain_on_cover) = run(&mut plain, &units, platoon);
    assert!(plain_s.is_finite(), "the squad never arrived without cover");
    assert!(
        plain_on_cover.iter().all(|&ticks| ticks == 0),
        "without cover no member passes that point"
    );

    let (mut sim, units, platoon) = squad_world(vec![COVER], 1);
    let (leapfrog_s, on_cover) = run(&mut sim, &units, platoon);
    let hold_ticks = (PlatoonSpec::squad(6.0).leapfrog_hold_s / DT) as usize;
    let longest = on_cover.iter().copied().max().unwrap();
    assert!(
        longest >= hold_ticks,
        "members stood on the cover {on_cover:?} ticks, a leader holds {hold_ticks}"
    );
    assert!(
        leapfrog_s <= 1.5 * plain_s,
        "the squad took {leapfrog_s:.1} s with a leapfrog, {plain_s:.1} s without"
    );
    for &unit in &units {
        let last = position(&sim, unit).distance(COVER);
        assert!(last > ON_POINT_M, "a member stayed on the cover");
    }
}

#[test]
fn a_save_taken_mid_leap_continues_exactly() {
    let (mut sim, units, platoon) = squad_world(vec![COVER], 2);
    while units
        .iter()
        .all(|&unit| position(&sim, unit).distance(COVER) > ON_POINT_M)
    {
        sim.step(DT);
        assert!(sim.time_s() < 60.0, "no leader reached the cover");
    }
    let mut bytes = Vec::new();
    sim.save(&mut bytes).unwrap();
    let mut restored = squad_world(vec![COVER], 1).0;
    restored.restore(&mut bytes.as_slice()).unwrap();
    let (left, right) = (
        run(&mut sim, &units, platoon),
        run(&mut restored, &units, platoon),
    );
    assert_eq!(left, right);
    assert!(left.0.is_finite());
    assert_eq!(restored.checksum(), sim.checksum());
}

#[test]
fn points_of_interest_outside_the_world_are_refused_by_index() {
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-300.0), Vec2::splat(300.0)));
    config.points_of_interest = vec![COVER, Vec2::new(f32::NAN, 0.0)];
    let Err(error) = Sim::new(config) else {
        panic!("a NaN point is accepted");
    };
    assert!(error.to_string().contains("point of interest 1"), "{error}");
}
