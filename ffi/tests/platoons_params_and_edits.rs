//! Platoons, unit parameters and world edits through the C ABI, called as C
//! would: each success does what the kernel's call does (a platoon forms
//! at its first member and reports its phase, parameters read back as
//! set, a walled unit is moved off and reported), and each refusal gives
//! its status and a message naming the argument and changes nothing.

#![allow(clippy::unwrap_used)]

use std::ffi::{CStr, CString};
use std::ptr::{null, null_mut};

mod common;

use common::{message, refused};
use convoy_ffi::*;

use ConvoyStatus::{
    ConvoyBadArgument as Bad, ConvoyNotAGridMap as NotGrid, ConvoyNullPointer as Null,
    ConvoyOk as Ok, ConvoyStalePlatoon as StalePlatoon, ConvoyStaleUnit as Stale,
};

fn world(map: Option<&CStr>) -> *mut ConvoySim {
    let mut config = convoy_config_default();
    if let Some(path) = map {
        config.map_path = path.as_ptr();
        (config.min_x, config.min_y) = (-50.0, -50.0);
        (config.max_x, config.max_y) = (281.0 * 8.0 + 50.0, 209.0 * 8.0 + 50.0);
    }
    let mut sim = null_mut();
    assert_eq!(
        unsafe { convoy_sim_new(&config, &mut sim) },
        Ok,
        "{}",
        message()
    );
    sim
}

fn spawn(sim: *mut ConvoySim, kind: u8, x: f32, y: f32) -> u64 {
    let mut unit = 0;
    let status = unsafe { convoy_spawn(sim, kind, x, y, 0, &mut unit) };
    assert_eq!(status, Ok, "{}", message());
    unit
}

fn checksum(sim: *mut ConvoySim) -> u64 {
    let mut sum = 0;
    assert_eq!(unsafe { convoy_checksum(sim, &mut sum) }, Ok);
    sum
}

fn state(sim: *mut ConvoySim, platoon: u64) -> ConvoyPlatoonState {
    let mut state = unsafe { std::mem::zeroed::<ConvoyPlatoonState>() };
    assert_eq!(
        unsafe { convoy_platoon_state(sim, platoon, &mut state) },
        Ok
    );
    state
}

#[test]
fn platoons_form_report_their_phase_and_refuse_bad_input() {
    let sim = world(None);
    let units: Vec<u64> = (0..5)
        .map(|k| spawn(sim, CONVOY_KIND_TRACKED, 20.0 + 12.0 * k as f32, 30.0))
        .collect();
    let mut spec = convoy_platoon_spec_force21();
    assert_eq!(spec.formation, CONVOY_FORMATION_WEDGE);
    let squad = convoy_platoon_spec_squad(4.0);
    assert!(squad.packed_slots && squad.bounded_search && squad.context);
    assert_eq!(squad.spacing_m, 4.0);
    let gone = spawn(sim, CONVOY_KIND_TRACKED, -40.0, 0.0);
    assert_eq!(unsafe { convoy_despawn(sim, gone) }, Ok);
    let before = checksum(sim);

    let mut id = 0;
    let create = |units: &[u64], spec: &ConvoyPlatoonSpec, id: &mut u64| unsafe {
        convoy_create_platoon(sim, units.as_ptr(), units.len(), spec, id)
    };
    refused(
        unsafe { convoy_create_platoon(sim, null(), 2, &spec, &mut id) },
        Null,
        "`units`",
    );
    refused(
        unsafe { convoy_create_platoon(sim, units.as_ptr(), 2, null(), &mut id) },
        Null,
        "`spec`",
    );
    refused(
        unsafe { convoy_create_platoon(sim, units.as_ptr(), 2, &spec, null_mut()) },
        Null,
        "`out`",
    );
    refused(create(&[], &spec, &mut id), Bad, "at least one member");
    refused(create(&[units[0]; 17], &spec, &mut id), Bad, "at most 16");
    refused(
        create(&[units[0], units[1], units[0]], &spec, &mut id),
        Bad,
        "twice",
    );
    spec.formation = 9;
    refused(create(&units, &spec, &mut id), Bad, "`formation`");
    spec.formation = CONVOY_FORMATION_LINE;
    spec.spacing_m = -1.0;
    refused(create(&units, &spec, &mut id), Bad, "spacing_m");
    spec.spacing_m = 12.0;
    refused(
        create(&[units[0], gone], &spec, &mut id),
        Stale,
        "not alive",
    );
    assert_eq!(checksum(sim), before, "refusals changed the world");

    assert_eq!(create(&units[..4], &spec, &mut id), Ok);
    refused(
        create(&units[3..], &spec, &mut id),
        Bad,
        "already in platoon",
    );
    let held = state(sim, id);
    assert_eq!(
        (held.phase, held.formation, held.members),
        (CONVOY_PHASE_HOLDING, CONVOY_FORMATION_LINE, 4)
    );
    assert_eq!((held.x, held.y), (20.0, 30.0), "formed at the first member");

    refused(
        unsafe { convoy_order_platoon(sim, id, f32::NAN, 0.0, null()) },
        Bad,
        "goal.x",
    );
    refused(
        unsafe { convoy_order_platoon(sim, id, 0.0, 0.0, &f32::INFINITY) },
        Bad,
        "facing",
    );
    refused(
        unsafe { convoy_set_formation(sim, id, 9) },
        Bad,
        "`formation`",
    );
    refused(
        unsafe { convoy_platoon_state(sim, id, null_mut()) },
        Null,
        "`out`",
    );
    assert_eq!(
        unsafe { convoy_order_platoon(sim, id, 120.0, 90.0, &0.5) },
        Ok
    );
    assert_eq!(
        unsafe { convoy_set_formation(sim, id, CONVOY_FORMATION_COLUMN) },
        Ok
    );
    let ordered = state(sim, id);
    assert_eq!(ordered.phase, CONVOY_PHASE_PLANNING);
    assert_eq!(ordered.formation, CONVOY_FORMATION_COLUMN);
    assert_eq!((ordered.goal_x, ordered.goal_y), (120.0, 90.0));
    for _ in 0..60 {
        assert_eq!(unsafe { convoy_step(sim, 1.0 / 60.0) }, Ok);
    }
    let moving = state(sim, id);
    assert_eq!(moving.phase, CONVOY_PHASE_MOVING);
    let progress = (moving.x - held.x).hypot(moving.y - held.y);
    assert!(progress > 1.0 && moving.x > held.x, "{moving:?}");

    assert_eq!(unsafe { convoy_disband_platoon(sim, id) }, Ok);
    let mut after = held;
    let stale_id = "does not exist";
    refused(
        unsafe { convoy_platoon_state(sim, id, &mut after) },
        StalePlatoon,
        stale_id,
    );
    refused(
        unsafe { convoy_disband_platoon(sim, id) },
        StalePlatoon,
        stale_id,
    );
    refused(
        unsafe { convoy_order_platoon(sim, id, 1.0, 1.0, null()) },
        StalePlatoon,
        stale_id,
    );
    assert_eq!(after, held, "a refused read writes nothing");
    // The members are solo units again: a new platoon may take them.
    assert_eq!(create(&units[2..], &spec, &mut id), Ok);
    unsafe { convoy_sim_free(sim) };
}

#[test]
fn unit_params_read_back_as_set_or_change_nothing() {
    let sim = world(None);
    let unit = spawn(sim, CONVOY_KIND_WHEELED, 0.0, 0.0);
    let mut params = unsafe { std::mem::zeroed::<ConvoyUnitParams>() };
    assert_eq!(unsafe { convoy_unit_params(sim, unit, &mut params) }, Ok);
    assert_eq!(
        (params.max_speed, params.turn_radius, params.steer_mode),
        (22.0, 6.0, CONVOY_STEER_RECIPROCAL),
        "a wheeled unit's defaults"
    );
    let before = checksum(sim);
    let mut bad = params;
    bad.shield_lateral = 0.0;
    refused(
        unsafe { convoy_set_unit_params(sim, unit, &bad) },
        Bad,
        "shield.lateral",
    );
    bad = params;
    bad.steer_mode = 7;
    refused(
        unsafe { convoy_set_unit_params(sim, unit, &bad) },
        Bad,
        "steer_mode",
    );
    refused(
        unsafe { convoy_set_unit_params(sim, unit, null()) },
        Null,
        "`params`",
    );
    refused(
        unsafe { convoy_unit_params(sim, unit, null_mut()) },
        Null,
        "`out`",
    );
    assert_eq!(checksum(sim), before, "refusals changed the world");

    let mut tuned = params;
    (tuned.max_speed, tuned.shield_forward) = (9.5, 2.5);
    (tuned.steer_mode, tuned.faction) = (CONVOY_STEER_DRIVE_TO, 3);
    assert_eq!(unsafe { convoy_set_unit_params(sim, unit, &tuned) }, Ok);
    let mut read = params;
    assert_eq!(unsafe { convoy_unit_params(sim, unit, &mut read) }, Ok);
    assert_eq!(read, tuned);
    let mut found = [0u64; 2];
    let mut count = 0;
    let query = unsafe {
        convoy_units_within(sim, 0.0, 0.0, 1.0, 3, -1, found.as_mut_ptr(), 2, &mut count)
    };
    assert_eq!((query, count, found[0]), (Ok, 1, unit), "faction 3 now");

    assert_eq!(unsafe { convoy_despawn(sim, unit) }, Ok);
    refused(
        unsafe { convoy_set_unit_params(sim, unit, &tuned) },
        Stale,
        "not alive",
    );
    refused(
        unsafe { convoy_unit_params(sim, unit, &mut read) },
        Stale,
        "not alive",
    );
    unsafe { convoy_sim_free(sim) };
}

#[test]
fn world_edits_wall_a_unit_off_its_cell_and_refuse_bad_rectangles() {
    let open = world(None);
    let (mut x, mut y) = (0, 0);
    refused(
        unsafe { convoy_set_cells(open, 0, 0, 1, 1, CONVOY_TERRAIN_BLOCKED) },
        NotGrid,
        "grid map",
    );
    refused(
        unsafe { convoy_cell_at(open, 0.0, 0.0, &mut x, &mut y) },
        NotGrid,
        "grid map",
    );
    unsafe { convoy_sim_free(open) };

    let arena2 = concat!(env!("CARGO_MANIFEST_DIR"), "/../profiles/maps/arena2.map");
    let arena2 = CString::new(arena2).unwrap();
    let sim = world(Some(&arena2));
    let tank = spawn(sim, CONVOY_KIND_TRACKED, 700.0, 700.0);
    refused(
        unsafe { convoy_cell_at(sim, 700.0, 700.0, null_mut(), &mut y) },
        Null,
        "`cell_x`",
    );
    refused(
        unsafe { convoy_cell_at(sim, -10.0, 700.0, &mut x, &mut y) },
        Bad,
        "off the grid map",
    );
    assert_eq!(
        unsafe { convoy_cell_at(sim, 700.0, 700.0, &mut x, &mut y) },
        Ok
    );
    assert_eq!((x, y), (87, 87), "8 m cells from the origin");
    let before = checksum(sim);
    refused(
        unsafe { convoy_set_cells(sim, x, y, x, y, 4) },
        Bad,
        "`terrain`",
    );
    refused(
        unsafe { convoy_set_cells(sim, x, y, x - 1, y, CONVOY_TERRAIN_BLOCKED) },
        Bad,
        "`rect`",
    );
    refused(
        unsafe { convoy_set_cells(sim, 280, 0, 281, 0, CONVOY_TERRAIN_BLOCKED) },
        Bad,
        "`rect`",
    );
    assert_eq!(checksum(sim), before, "refusals changed the world");

    assert_eq!(
        unsafe { convoy_set_cells(sim, x, y, x, y, CONVOY_TERRAIN_BLOCKED) },
        Ok
    );
    assert_ne!(checksum(sim), before, "the edit is part of the state");
    assert_eq!(unsafe { convoy_step(sim, 1.0 / 60.0) }, Ok);
    let (mut events, mut len) = (null(), 0);
    assert_eq!(unsafe { convoy_events(sim, &mut events, &mut len) }, Ok);
    let events = unsafe { std::slice::from_raw_parts(events, len) };
    let displaced: Vec<u64> = events
        .iter()
        .filter(|event| event.kind == CONVOY_EVENT_DISPLACED)
        .map(|event| event.id)
        .collect();
    assert_eq!(displaced, [tank]);
    let (mut xy, mut rows) = (null(), 0);
    assert_eq!(unsafe { convoy_positions(sim, &mut xy, &mut rows) }, Ok);
    let xy = unsafe { std::slice::from_raw_parts(xy, 2) };
    let (mut after_x, mut after_y) = (0, 0);
    assert_eq!(
        unsafe { convoy_cell_at(sim, xy[0], xy[1], &mut after_x, &mut after_y) },
        Ok
    );
    assert_ne!((after_x, after_y), (x, y), "the tank left the walled cell");
    assert!(
        after_x.abs_diff(x) <= 1 && after_y.abs_diff(y) <= 1,
        "to a neighbour"
    );
    unsafe { convoy_sim_free(sim) };
}

#[test]
fn a_paced_group_reports_its_id_and_arrives_once() {
    let mut config = convoy_config_default();
    config.group_pace = 2;
    let mut sim = null_mut();
    refused(
        unsafe { convoy_sim_new(&config, &mut sim) },
        Bad,
        "group_pace",
    );
    assert!(sim.is_null());
    config.group_pace = 1;
    assert_eq!(
        unsafe { convoy_sim_new(&config, &mut sim) },
        Ok,
        "{}",
        message()
    );
    let units = [
        spawn(sim, CONVOY_KIND_TRACKED, 0.0, 0.0),
        spawn(sim, CONVOY_KIND_WHEELED, 0.0, 12.0),
    ];
    let mut spots = [0.0f32; 4];
    let status = unsafe {
        convoy_order_group(
            sim,
            units.as_ptr(),
            units.len(),
            120.0,
            0.0,
            1.0,
            0.0,
            spots.as_mut_ptr(),
        )
    };
    assert_eq!(status, Ok, "{}", message());
    let mut group = 7;
    assert_eq!(unsafe { convoy_group_of(sim, units[1], &mut group) }, Ok);
    assert_eq!(group, 0, "the first group takes id 0");
    let mut arrivals = Vec::new();
    for tick in 0..60 * 40 {
        assert_eq!(unsafe { convoy_step(sim, 1.0 / 60.0) }, Ok, "{}", message());
        let (mut events, mut len) = (null(), 0);
        assert_eq!(unsafe { convoy_events(sim, &mut events, &mut len) }, Ok);
        let events = unsafe { std::slice::from_raw_parts(events, len) };
        arrivals.extend(
            events
                .iter()
                .filter(|event| event.kind == CONVOY_EVENT_GROUP_ARRIVED)
                .map(|event| (tick, event.id)),
        );
    }
    assert_eq!(arrivals.len(), 1, "{arrivals:?}");
    assert_eq!(arrivals[0].1, u64::from(group));
    assert_eq!(
        unsafe { convoy_order_move(sim, units[0], 0.0, 0.0, null_mut()) },
        Ok
    );
    assert_eq!(unsafe { convoy_group_of(sim, units[0], &mut group) }, Ok);
    assert_eq!(group, CONVOY_NO_GROUP, "a move order leaves the group");
    unsafe { convoy_sim_free(sim) };
}
