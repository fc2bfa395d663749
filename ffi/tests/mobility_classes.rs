//! Mobility classes through the C ABI, called as C would, on a Moving AI
//! map with a river: a boat spawned in the naval class stands and moves on
//! water only and is refused on land, a tank is refused on water (at spawn
//! and when it changes class), and bad class lists and classes the world
//! lacks are refused with a message naming them, as the kernel's calls do.

#![allow(clippy::unwrap_used)]

use std::ffi::CString;
use std::ptr::{null, null_mut};

mod common;

use common::{message, refused};
use convoy_ffi::*;

use ConvoyStatus::{ConvoyBadArgument as Bad, ConvoyNullPointer as Null, ConvoyOk as Ok};

/// Cell side, metres.
const CELL: f32 = 4.0;

/// A 30 × 20 map (Moving AI format) with water in columns 12 to 17.
fn river_map() -> CString {
    let rows: Vec<String> = (0..20)
        .map(|_| {
            (0..30)
                .map(|x| if (12..18).contains(&x) { 'W' } else { '.' })
                .collect()
        })
        .collect();
    let text = format!(
        "type octile\nheight 20\nwidth 30\nmap\n{}\n",
        rows.join("\n")
    );
    let path = std::env::temp_dir().join(format!("convoy-ffi-river-{}.map", std::process::id()));
    std::fs::write(&path, text).unwrap();
    CString::new(path.to_str().unwrap()).unwrap()
}

/// Class 1 sails: water only.
const NAVAL: ConvoyMobility = ConvoyMobility {
    open: 0.0,
    swamp: 0.0,
    water: 1.0,
};

fn config(path: &CString, classes: &[ConvoyMobility]) -> ConvoyConfig {
    let mut config = convoy_config_default();
    config.map_path = path.as_ptr();
    config.cell_size = CELL;
    (config.min_x, config.min_y, config.max_x, config.max_y) = (-20.0, -20.0, 140.0, 100.0);
    config.mobility_classes = classes.as_ptr();
    config.mobility_class_count = classes.len();
    config
}

fn spawn(sim: *mut ConvoySim, class: u8, x: f32, y: f32) -> Result<u64, ConvoyStatus> {
    let mut unit = 0;
    match unsafe { convoy_spawn_in_class(sim, CONVOY_KIND_TRACKED, x, y, 0, class, &mut unit) } {
        Ok => Result::Ok(unit),
        status => Err(status),
    }
}

#[test]
fn a_boat_keeps_to_water_and_bad_classes_are_refused() {
    let path = river_map();
    let mut sim = null_mut();
    let bad = config(
        &path,
        &[ConvoyMobility {
            water: 0.5,
            ..NAVAL
        }],
    );
    refused(
        unsafe { convoy_sim_new(&bad, &mut sim) },
        Bad,
        "mobility_classes[0]",
    );
    let mut missing = config(&path, &[NAVAL]);
    missing.mobility_classes = null();
    refused(
        unsafe { convoy_sim_new(&missing, &mut sim) },
        Null,
        "config.mobility_classes",
    );
    assert!(sim.is_null());

    let good = config(&path, &[NAVAL]);
    assert_eq!(
        unsafe { convoy_sim_new(&good, &mut sim) },
        Ok,
        "{}",
        message()
    );
    let (land, water) = ((4.5 * CELL, 10.5 * CELL), (14.5 * CELL, 2.5 * CELL));
    refused(
        spawn(sim, 1, land.0, land.1).unwrap_err(),
        Bad,
        "not on open ground",
    );
    refused(
        spawn(sim, 0, water.0, water.1).unwrap_err(),
        Bad,
        "not on open ground",
    );
    refused(spawn(sim, 2, land.0, land.1).unwrap_err(), Bad, "mobility");
    let tank = spawn(sim, 0, land.0, land.1).unwrap();
    let boat = spawn(sim, 1, water.0, water.1).unwrap();

    // Ordered onto the far bank, the boat goes to the nearest water.
    let mut goal = [0.0f32; 2];
    let status =
        unsafe { convoy_order_move(sim, boat, 25.5 * CELL, 17.5 * CELL, goal.as_mut_ptr()) };
    assert_eq!(status, Ok, "{}", message());
    let column = (goal[0] / CELL).floor();
    assert!(
        (12.0..18.0).contains(&column),
        "the boat's goal {goal:?} is on water"
    );
    for _ in 0..1200 {
        assert_eq!(unsafe { convoy_step(sim, 1.0 / 60.0) }, Ok);
    }
    let mut state = 0;
    assert_eq!(unsafe { convoy_move_state(sim, boat, &mut state) }, Ok);
    assert_eq!(state, CONVOY_MOVE_ARRIVED, "the boat arrives on water");
    refused(
        unsafe { convoy_set_mobility(sim, tank, 1) },
        Bad,
        "not on open ground",
    );
    refused(
        unsafe { convoy_set_mobility(sim, tank, 7) },
        Bad,
        "mobility",
    );
    assert_eq!(
        unsafe { convoy_set_mobility(sim, tank, 0) },
        Ok,
        "its own class again"
    );
    assert_eq!(unsafe { convoy_despawn(sim, tank) }, Ok);
    unsafe { convoy_sim_free(sim) };
}
