//! Company of Heroes formation context (Kozlowski & Ross, "Squad
//! formations"): a squad picks its shape from the ground under its
//! leader — a staggered column on a road, a wide wedge in the open, a
//! tight wedge where the ground is confined — on the river-crossing map,
//! whose raster marks the cells its roads pass over.

// Shared with the bridge tests; this one needs only the map.
#[allow(dead_code)]
mod river;

use std::f32::consts::FRAC_PI_2;
use std::sync::Arc;

use convoy::data::platoons::to_world;
use convoy::glam::Vec2;
use convoy::nav::polygon::rasterize;
use convoy::{Formation, PlatoonId, PlatoonSpec, Sim, SimConfig, UnitId, UnitSpec, VehicleKind};
use river::river;

const DT: f32 = 1.0 / 30.0;

fn sim() -> Sim {
    let (map, nav) = river();
    let mut config = SimConfig::new(convoy::Bounds::new(Vec2::splat(-50.0), Vec2::splat(1050.0)));
    config.map = convoy::Map::Polygon {
        navigator: nav,
        raster: Arc::new(rasterize(&map, 5.0).expect("valid cell size")),
    };
    config.separation_iterations = 0;
    Sim::new(config).expect("valid config")
}

/// A squad of five infantry standing in `standing` round `lead`, facing
/// `heading`, ordered to `goal`.
fn squad(
    sim: &mut Sim,
    (lead, standing): (Vec2, Formation),
    heading: f32,
    goal: Vec2,
) -> PlatoonId {
    let spec = PlatoonSpec::squad(4.0);
    let members: Vec<UnitId> = (0..5)
        .map(|k| {
            let offset = standing.offset(k) * spec.spacing_m;
            let mut unit = UnitSpec::new(VehicleKind::Infantry, lead + to_world(offset, heading));
            unit.heading = heading;
            sim.spawn(&unit).expect("valid unit")
        })
        .collect();
    let id = sim.create_platoon(&members, &spec).expect("valid platoon");
    sim.order_platoon(id, goal, None).expect("valid order");
    id
}

/// The shapes each squad held over `ticks`, once settled into each
/// (after its first 2 s), in order, without repeats.
fn shapes_held(sim: &mut Sim, ids: &[PlatoonId], ticks: usize) -> Vec<Vec<Formation>> {
    let mut held = vec![Vec::new(); ids.len()];
    for tick in 0..ticks {
        sim.step(DT);
        for (id, held) in ids.iter().zip(&mut held) {
            let shape = sim.platoons().get(*id).expect("live").formation();
            if tick >= 60 && held.last() != Some(&shape) {
                held.push(shape);
            }
        }
    }
    held
}

#[test]
fn a_squad_on_the_road_closes_into_a_staggered_column() {
    let (map, _) = river();
    let raster = rasterize(&map, 5.0).expect("valid cell size");
    // The western road runs along y = 150 from x = 0 to 300.
    assert!(raster.on_road(Vec2::new(150.0, 150.0)));
    assert!(!raster.on_road(Vec2::new(150.0, 170.0)));
    let mut sim = sim();
    let id = squad(
        &mut sim,
        (Vec2::new(40.0, 150.0), Formation::WideWedge),
        0.0,
        Vec2::new(280.0, 150.0),
    );
    let held = shapes_held(&mut sim, &[id], 600);
    assert_eq!(
        held[0],
        vec![Formation::StaggeredColumn],
        "on the road throughout"
    );
}

#[test]
fn a_squad_in_the_open_spreads_into_a_wide_wedge_and_one_beside_the_river_tightens() {
    let mut sim = sim();
    // Open ground north-west of the swamp, far from any road or wall.
    let open = squad(
        &mut sim,
        (Vec2::new(800.0, 750.0), Formation::WideWedge),
        FRAC_PI_2,
        Vec2::new(800.0, 820.0),
    );
    // Walking north along the river's west bank (x = 470), 5.5 m from the
    // water: two spacings (8 m) to the east is in the river, and so would
    // be members of a wide wedge, so the squad starts in a column. (Bound
    // past the river's end, so its destination spots are all on open
    // ground.)
    let bank = squad(
        &mut sim,
        (Vec2::new(464.5, 500.0), Formation::Column),
        FRAC_PI_2,
        Vec2::new(464.5, 950.0),
    );
    let held = shapes_held(&mut sim, &[open, bank], 600);
    assert_eq!(held[0], vec![Formation::WideWedge], "open ground");
    assert_eq!(held[1], vec![Formation::TightWedge], "beside the river");
    let walked = sim.platoons().get(bank).expect("live").position.y - 500.0;
    assert!(walked > 30.0, "the bank squad walked {walked} m north");
}
