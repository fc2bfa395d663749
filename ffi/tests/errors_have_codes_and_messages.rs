//! The C ABI's refusals, called as C would: NULL pointers, stale handles,
//! bad arguments, bad files and bad snapshots each give their status code
//! and a message naming the argument, and change nothing; handles, events,
//! columns and the radius query agree with the kernel and a brute force.

#![allow(clippy::unwrap_used)]

use std::ffi::CString;
use std::ptr::{null, null_mut};

mod common;

use common::{message, refused};
use convoy_ffi::*;

fn world() -> *mut ConvoySim {
    let config = convoy_config_default();
    let mut sim = null_mut();
    assert_eq!(
        unsafe { convoy_sim_new(&config, &mut sim) },
        ConvoyStatus::ConvoyOk
    );
    sim
}

fn spawn(sim: *mut ConvoySim, x: f32, y: f32) -> u64 {
    let mut unit = 0;
    let status = unsafe { convoy_spawn(sim, CONVOY_KIND_INFANTRY, x, y, 0, &mut unit) };
    assert_eq!(status, ConvoyStatus::ConvoyOk, "{}", message());
    unit
}

#[test]
fn null_pointers_are_refused_by_name() {
    use ConvoyStatus::ConvoyNullPointer as Null;
    let mut out = 0u64;
    refused(unsafe { convoy_step(null_mut(), 0.1) }, Null, "`sim`");
    refused(unsafe { convoy_checksum(null(), &mut out) }, Null, "`sim`");
    refused(
        unsafe { convoy_spawn(null_mut(), 0, 0.0, 0.0, 0, &mut out) },
        Null,
        "`sim`",
    );
    let mut sim = null_mut();
    refused(
        unsafe { convoy_sim_new(null(), &mut sim) },
        Null,
        "`config`",
    );
    assert!(sim.is_null());
    refused(
        unsafe { convoy_sim_new(&convoy_config_default(), null_mut()) },
        Null,
        "`out`",
    );

    let sim = world();
    refused(unsafe { convoy_checksum(sim, null_mut()) }, Null, "`out`");
    refused(
        unsafe { convoy_spawn(sim, 0, 0.0, 0.0, 0, null_mut()) },
        Null,
        "`out`",
    );
    refused(unsafe { convoy_stop(sim, null(), 2) }, Null, "`units`");
    refused(unsafe { convoy_restore(sim, null(), 4) }, Null, "`bytes`");
    let mut rows = 0;
    refused(
        unsafe { convoy_positions(sim, null_mut(), &mut rows) },
        Null,
        "`xy`",
    );
    let mut events = null();
    refused(
        unsafe { convoy_events(sim, &mut events, null_mut()) },
        Null,
        "`len`",
    );
    let mut count = 0;
    let query =
        unsafe { convoy_units_within(sim, 0.0, 0.0, 1.0, -1, -1, null_mut(), 3, &mut count) };
    refused(query, Null, "`out`");
    assert_eq!(
        unsafe { convoy_stop(sim, null(), 0) },
        ConvoyStatus::ConvoyOk
    );
    assert_eq!(message(), "", "success clears the message");
    unsafe { convoy_sim_free(sim) };
    unsafe { convoy_sim_free(null_mut()) };
}

#[test]
fn bad_configs_and_map_files_name_what_is_wrong() {
    use ConvoyStatus::{ConvoyBadArgument as Bad, ConvoyBadMap, ConvoyIo};
    let mut sim = null_mut();
    let mut config = convoy_config_default();
    config.threads = 0;
    refused(unsafe { convoy_sim_new(&config, &mut sim) }, Bad, "threads");
    config = convoy_config_default();
    config.max_x = f32::NAN;
    refused(unsafe { convoy_sim_new(&config, &mut sim) }, Bad, "bounds");

    let missing = CString::new("/no/such/dir/arena9.map").unwrap();
    config = convoy_config_default();
    config.map_path = missing.as_ptr();
    refused(
        unsafe { convoy_sim_new(&config, &mut sim) },
        ConvoyIo,
        "arena9.map",
    );

    let file = std::env::temp_dir().join(format!("convoy-ffi-bad-{}.map", std::process::id()));
    std::fs::write(&file, "type octile\nheight 2\nwidth two\nmap\n..\n..\n").unwrap();
    let path = CString::new(file.to_str().unwrap()).unwrap();
    config.map_path = path.as_ptr();
    refused(
        unsafe { convoy_sim_new(&config, &mut sim) },
        ConvoyBadMap,
        "line 3",
    );
    std::fs::remove_file(&file).unwrap();

    let arena2 = concat!(env!("CARGO_MANIFEST_DIR"), "/../profiles/maps/arena2.map");
    let arena2 = CString::new(arena2).unwrap();
    config.map_path = arena2.as_ptr();
    config.cell_size = -1.0;
    refused(
        unsafe { convoy_sim_new(&config, &mut sim) },
        Bad,
        "cell size",
    );
    assert!(sim.is_null());
}

#[test]
fn bad_arguments_and_stale_handles_change_nothing() {
    use ConvoyStatus::{ConvoyBadArgument as Bad, ConvoyOk, ConvoyStaleUnit as Stale};
    let sim = world();
    let mut out = 0;
    refused(
        unsafe { convoy_spawn(sim, 9, 0.0, 0.0, 0, &mut out) },
        Bad,
        "`kind`",
    );
    refused(
        unsafe { convoy_spawn(sim, 0, f32::NAN, 0.0, 0, &mut out) },
        Bad,
        "position.x",
    );
    let a = spawn(sim, 0.0, 0.0);
    let b = spawn(sim, 5.0, 0.0);
    let before = checksum(sim);

    refused(unsafe { convoy_step(sim, 0.0) }, Bad, "dt");
    refused(unsafe { convoy_step(sim, f32::NAN) }, Bad, "dt");
    refused(
        unsafe { convoy_order_move(sim, a, f32::INFINITY, 0.0, null_mut()) },
        Bad,
        "goal",
    );
    let twice = [a, b, a];
    let group =
        unsafe { convoy_order_group(sim, twice.as_ptr(), 3, 50.0, 0.0, 0.0, 0.0, null_mut()) };
    refused(group, Bad, "twice");
    let mut count = 0;
    let query =
        unsafe { convoy_units_within(sim, 0.0, 0.0, -1.0, -1, -1, null_mut(), 0, &mut count) };
    refused(query, Bad, "radius");
    let query =
        unsafe { convoy_units_within(sim, 0.0, 0.0, 1.0, 70_000, -1, null_mut(), 0, &mut count) };
    refused(query, Bad, "`faction`");
    refused(
        unsafe { convoy_restore(sim, [1u8, 2, 3].as_ptr(), 3) },
        ConvoyStatus::ConvoyBadSnapshot,
        "snapshot",
    );
    assert_eq!(checksum(sim), before, "refusals changed the world");

    assert_eq!(unsafe { convoy_despawn(sim, b) }, ConvoyOk);
    refused(unsafe { convoy_despawn(sim, b) }, Stale, "not alive");
    refused(
        unsafe { convoy_order_move(sim, b, 1.0, 1.0, null_mut()) },
        Stale,
        "not alive",
    );
    let mut state = 0;
    refused(
        unsafe { convoy_move_state(sim, b, &mut state) },
        Stale,
        "not alive",
    );
    let both = [a, b];
    refused(
        unsafe { convoy_stop(sim, both.as_ptr(), 2) },
        Stale,
        "not alive",
    );
    let c = spawn(sim, 9.0, 9.0);
    assert_eq!(c as u32, b as u32, "the slot is reused");
    assert_ne!(c, b, "with a new generation");
    refused(
        unsafe { convoy_move_state(sim, b, &mut state) },
        Stale,
        "not alive",
    );
    unsafe { convoy_sim_free(sim) };
}

fn checksum(sim: *mut ConvoySim) -> u64 {
    let mut sum = 0;
    assert_eq!(
        unsafe { convoy_checksum(sim, &mut sum) },
        ConvoyStatus::ConvoyOk
    );
    sum
}

#[test]
fn the_radius_query_equals_a_brute_force_scan_and_truncates_to_capacity() {
    let sim = world();
    let units: Vec<u64> = (0..60)
        .map(|k| {
            spawn(
                sim,
                (k % 10) as f32 * 3.7 - 15.0,
                (k / 10) as f32 * 4.1 - 11.0,
            )
        })
        .collect();
    let (mut xy, mut rows, mut ids, mut id_rows) = (null(), 0, null(), 0);
    unsafe {
        assert_eq!(
            convoy_positions(sim, &mut xy, &mut rows),
            ConvoyStatus::ConvoyOk
        );
        assert_eq!(
            convoy_unit_ids(sim, &mut ids, &mut id_rows),
            ConvoyStatus::ConvoyOk
        );
    }
    assert_eq!((rows, id_rows), (60, 60));
    let xy = unsafe { std::slice::from_raw_parts(xy, 2 * rows) };
    let ids = unsafe { std::slice::from_raw_parts(ids, rows) };
    let handles: Vec<u64> = ids.iter().map(|&id| convoy_unit_handle(id)).collect();
    assert_eq!(handles, units, "row k holds the k-th spawn before any step");

    let (centre, radius) = ((2.0f32, -1.0f32), 9.5f32);
    let mut expected: Vec<(f32, u64)> = (0..rows)
        .map(|row| {
            (
                (xy[2 * row] - centre.0).hypot(xy[2 * row + 1] - centre.1),
                handles[row],
            )
        })
        .filter(|&(distance, _)| distance <= radius)
        .collect();
    expected.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let expected: Vec<u64> = expected.into_iter().map(|(_, unit)| unit).collect();
    assert!(expected.len() > 8);

    let mut out = vec![0u64; 64];
    let mut count = 0;
    let all = unsafe {
        convoy_units_within(
            sim,
            centre.0,
            centre.1,
            radius,
            -1,
            -1,
            out.as_mut_ptr(),
            64,
            &mut count,
        )
    };
    assert_eq!(all, ConvoyStatus::ConvoyOk);
    assert_eq!(&out[..count], &expected[..]);
    out.fill(0);
    let few = unsafe {
        convoy_units_within(
            sim,
            centre.0,
            centre.1,
            radius,
            -1,
            -1,
            out.as_mut_ptr(),
            5,
            &mut count,
        )
    };
    assert_eq!(few, ConvoyStatus::ConvoyOk);
    assert_eq!(
        count,
        expected.len(),
        "the count is every hit, not the capacity"
    );
    assert_eq!(&out[..5], &expected[..5]);
    assert!(
        out[5..].iter().all(|&unit| unit == 0),
        "wrote past the capacity"
    );
    unsafe { convoy_sim_free(sim) };
}

#[test]
fn events_name_the_units_that_arrived() {
    let sim = world();
    let units = [spawn(sim, 0.0, 0.0), spawn(sim, 0.0, 10.0)];
    let mut spots = [f32::NAN; 4];
    let order = unsafe {
        convoy_order_group(
            sim,
            units.as_ptr(),
            2,
            20.0,
            5.0,
            0.0,
            0.0,
            spots.as_mut_ptr(),
        )
    };
    assert_eq!(order, ConvoyStatus::ConvoyOk);
    assert!(spots.iter().all(|v| v.is_finite()));
    let mut arrived = Vec::new();
    for _ in 0..60 * 30 {
        assert_eq!(
            unsafe { convoy_step(sim, 1.0 / 60.0) },
            ConvoyStatus::ConvoyOk
        );
        let (mut events, mut len) = (null(), 0);
        assert_eq!(
            unsafe { convoy_events(sim, &mut events, &mut len) },
            ConvoyStatus::ConvoyOk
        );
        let events = unsafe { std::slice::from_raw_parts(events, len) };
        arrived.extend(
            events
                .iter()
                .filter(|e| e.kind == CONVOY_EVENT_ARRIVED)
                .map(|e| e.id),
        );
    }
    arrived.sort_unstable();
    assert_eq!(arrived, units.to_vec(), "each unit arrives exactly once");
    for unit in units {
        let mut state = 0;
        assert_eq!(
            unsafe { convoy_move_state(sim, unit, &mut state) },
            ConvoyStatus::ConvoyOk
        );
        assert_eq!(state, CONVOY_MOVE_ARRIVED);
    }
    unsafe { convoy_sim_free(sim) };
}
