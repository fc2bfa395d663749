//! The `Sim`'s gameplay queries (units within a radius, in a rectangle, the
//! k nearest; filtered by faction and kind) give exactly what a scan of
//! every row gives, in the same order: after ticks (the hash rebuilt at the
//! end of each), and after spawns, despawns and teleports (the hash stale,
//! until the next step).

#![allow(clippy::unwrap_used)]

use convoy::glam::Vec2;
use convoy::{
    Bounds, FactionId, QueryError, QueryFilter, QueryHit, Sim, SimConfig, UnitSpec, VehicleKind,
};
use proptest::prelude::*;

const KINDS: [VehicleKind; 3] = [
    VehicleKind::Infantry,
    VehicleKind::Tracked,
    VehicleKind::RotaryWing,
];

/// A unit: where it starts, where it is sent, its kind and faction.
type Placed = (Vec2, Vec2, usize, u16);

fn point() -> impl Strategy<Value = Vec2> {
    prop_oneof![
        // A 2 m lattice: many exact ties in distance.
        4 => (-30i32..30, -30i32..30).prop_map(|(x, y)| Vec2::new(x as f32 * 2.0, y as f32 * 2.0)),
        4 => (-70f32..70.0, -70f32..70.0).prop_map(|(x, y)| Vec2::new(x, y)),
        1 => (-1e4f32..1e4, -1e4f32..1e4).prop_map(|(x, y)| Vec2::new(x, y)),
    ]
}

fn unit() -> impl Strategy<Value = Placed> {
    (point(), point(), 0..KINDS.len(), 0u16..3)
}

fn filter() -> impl Strategy<Value = QueryFilter> {
    (prop::option::of(0u16..3), prop::option::of(0..KINDS.len())).prop_map(|(faction, kind)| {
        QueryFilter {
            faction: faction.map(FactionId),
            kind: kind.map(|k| KINDS[k]),
        }
    })
}

/// What happens between the spawns and the queries.
#[derive(Clone, Copy, Debug)]
enum Then {
    /// Some ticks: the hash is the tick's.
    Step(usize),
    /// Ticks, then every third unit despawned: the rows moved, the hash is stale.
    StepThenDespawn(usize),
    /// Ticks, then one unit teleported through `columns_mut`.
    StepThenTeleport(usize),
}

fn then() -> impl Strategy<Value = Then> {
    prop_oneof![
        (0usize..4).prop_map(Then::Step),
        (1usize..3).prop_map(Then::StepThenDespawn),
        (1usize..3).prop_map(Then::StepThenTeleport),
    ]
}

fn world(units: &[Placed], then: Then) -> Sim {
    let mut config = SimConfig::new(Bounds::new(Vec2::splat(-60.0), Vec2::splat(60.0)));
    config.threads = 1;
    config.neighbour_radius = 4.0;
    config.reorder_interval = 2;
    let mut sim = Sim::new(config).unwrap();
    let mut ids = Vec::new();
    for &(at, goal, kind, faction) in units {
        let spec = UnitSpec::new(KINDS[kind], at).with_faction(FactionId(faction));
        let id = sim.spawn(&spec).unwrap();
        sim.order_move(id, goal).unwrap();
        ids.push(id);
    }
    let (Then::Step(ticks) | Then::StepThenDespawn(ticks) | Then::StepThenTeleport(ticks)) = then;
    for _ in 0..ticks {
        sim.step(1.0 / 10.0);
    }
    match then {
        Then::Step(_) => {}
        Then::StepThenDespawn(_) => {
            for &id in ids.iter().step_by(3) {
                sim.despawn(id).unwrap();
            }
        }
        Then::StepThenTeleport(_) => {
            if let Some(position) = sim.columns_mut().position.last_mut() {
                *position = Vec2::new(-2.0, 2.0);
            }
        }
    }
    sim
}

/// Every row that passes `filter` and `keep`, as hits, nearest first.
fn scan(
    sim: &Sim,
    centre: Vec2,
    filter: QueryFilter,
    keep: impl Fn(Vec2) -> bool,
) -> Vec<QueryHit> {
    let columns = sim.vehicles().columns();
    let mut hits: Vec<QueryHit> = (0..sim.vehicles().len())
        .filter(|&row| {
            filter.faction.is_none_or(|f| columns.faction()[row] == f.0)
                && filter.kind.is_none_or(|k| columns.kind()[row] == k as u8)
                && keep(columns.position()[row])
        })
        .map(|row| QueryHit {
            id: sim.vehicles().id_at(row).unwrap(),
            row,
            distance: centre.distance(columns.position()[row]),
        })
        .collect();
    hits.sort_by(|a, b| a.distance.total_cmp(&b.distance).then(a.id.cmp(&b.id)));
    hits
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn queries_equal_a_scan_of_every_row(
        units in prop::collection::vec(unit(), 0..120),
        then in then(),
        centres in prop::collection::vec(point(), 1..6),
        radius in prop_oneof![Just(0.0f32), Just(4.0), 0.0f32..40.0, Just(5e4)],
        k in prop_oneof![Just(0usize), 1usize..12, Just(500)],
        filter in filter(),
    ) {
        let sim = world(&units, then);
        let mut out = Vec::new();
        for centre in centres {
            let wanted = scan(&sim, centre, filter, |p| p.distance_squared(centre) <= radius * radius);
            sim.units_within(centre, radius, filter, &mut out).unwrap();
            prop_assert_eq!(&out, &wanted);

            let mut nearest = scan(&sim, centre, filter, |_| true);
            nearest.truncate(k);
            sim.nearest_units(centre, k, filter, &mut out).unwrap();
            prop_assert_eq!(&out, &nearest);

            let rect = Bounds::new(centre - Vec2::new(radius, 0.5 * radius), centre + Vec2::new(0.5 * radius, radius));
            let inside = |p: Vec2| p.cmpge(rect.min).all() && p.cmple(rect.max).all();
            let wanted = scan(&sim, (rect.min + rect.max) * 0.5, filter, inside);
            sim.units_in_rect(rect, filter, &mut out).unwrap();
            prop_assert_eq!(&out, &wanted);
        }
    }
}

#[test]
fn bad_query_arguments_are_refused_by_name() {
    let sim = world(&[(Vec2::ZERO, Vec2::ZERO, 0, 0)], Then::Step(1));
    let mut out = vec![];
    let all = QueryFilter::default();
    assert!(matches!(
        sim.units_within(Vec2::new(f32::NAN, 0.0), 1.0, all, &mut out),
        Err(QueryError::NotFinite {
            field: "point.x",
            ..
        })
    ));
    assert!(matches!(
        sim.units_within(Vec2::ZERO, f32::INFINITY, all, &mut out),
        Err(QueryError::NotFinite {
            field: "radius",
            ..
        })
    ));
    assert_eq!(
        sim.units_within(Vec2::ZERO, -1.0, all, &mut out),
        Err(QueryError::NegativeRadius(-1.0))
    );
    let inverted = Bounds::new(Vec2::new(1.0, 0.0), Vec2::new(0.0, 1.0));
    assert!(matches!(
        sim.units_in_rect(inverted, all, &mut out),
        Err(QueryError::InvertedRect { .. })
    ));
    assert!(matches!(
        sim.nearest_units(Vec2::new(0.0, f32::INFINITY), 1, all, &mut out),
        Err(QueryError::NotFinite {
            field: "point.y",
            ..
        })
    ));
    assert!(out.is_empty());
    sim.nearest_units(Vec2::ZERO, usize::MAX, all, &mut out)
        .unwrap();
    assert_eq!(out.len(), 1, "k is capped at the unit count");
}
