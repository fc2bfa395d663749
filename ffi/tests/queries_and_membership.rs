//! The rectangle and k-nearest queries and platoon membership through the
//! C ABI: queries equal a brute-force scan of the position column (nearest
//! the centre first, ties by handle), and a unit joins a platoon in its
//! first empty slot and leaves it again.

#![allow(clippy::unwrap_used)]

use std::ptr::null;

use convoy_ffi::*;

fn world() -> *mut ConvoySim {
    let config = convoy_config_default();
    let mut sim = std::ptr::null_mut();
    assert_eq!(
        unsafe { convoy_sim_new(&config, &mut sim) },
        ConvoyStatus::ConvoyOk
    );
    sim
}

fn spawn(sim: *mut ConvoySim, kind: u8, x: f32, y: f32) -> u64 {
    let mut unit = 0;
    assert_eq!(
        unsafe { convoy_spawn(sim, kind, x, y, 0, &mut unit) },
        ConvoyStatus::ConvoyOk
    );
    unit
}

/// Every unit's handle and position, by row.
fn units_and_positions(sim: *mut ConvoySim) -> Vec<(u64, (f32, f32))> {
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
    let xy = unsafe { std::slice::from_raw_parts(xy, 2 * rows) };
    let ids = unsafe { std::slice::from_raw_parts(ids, id_rows) };
    ids.iter()
        .enumerate()
        .map(|(row, &id)| (convoy_unit_handle(id), (xy[2 * row], xy[2 * row + 1])))
        .collect()
}

/// The handles of `units` ordered by distance from `centre`, then handle.
fn by_distance(units: &[(u64, (f32, f32))], centre: (f32, f32)) -> Vec<u64> {
    let mut sorted: Vec<(f32, u64)> = units
        .iter()
        .map(|&(unit, (x, y))| ((x - centre.0).hypot(y - centre.1), unit))
        .collect();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    sorted.into_iter().map(|(_, unit)| unit).collect()
}

#[test]
fn rectangle_and_nearest_queries_equal_a_brute_force_scan() {
    let sim = world();
    for k in 0..80 {
        let kind = if k % 3 == 0 {
            CONVOY_KIND_INFANTRY
        } else {
            CONVOY_KIND_TRACKED
        };
        spawn(
            sim,
            kind,
            (k % 10) as f32 * 5.3 - 20.0,
            (k / 10) as f32 * 6.1 - 25.0,
        );
    }
    let units = units_and_positions(sim);
    let (min, max) = ((-8.0f32, -12.0f32), (14.0f32, 9.0f32));
    let inside: Vec<_> = units
        .iter()
        .copied()
        .filter(|&(_, (x, y))| x >= min.0 && x <= max.0 && y >= min.1 && y <= max.1)
        .collect();
    let centre = ((min.0 + max.0) / 2.0, (min.1 + max.1) / 2.0);
    let expected = by_distance(&inside, centre);
    assert!(expected.len() > 10);
    let (mut out, mut count) = (vec![0u64; 128], 0);
    let status = unsafe {
        convoy_units_in_rect(
            sim,
            min.0,
            min.1,
            max.0,
            max.1,
            -1,
            -1,
            out.as_mut_ptr(),
            128,
            &mut count,
        )
    };
    assert_eq!(status, ConvoyStatus::ConvoyOk);
    assert_eq!(&out[..count], &expected[..]);

    let status = unsafe {
        convoy_units_in_rect(
            sim,
            max.0,
            min.1,
            min.0,
            max.1,
            -1,
            -1,
            out.as_mut_ptr(),
            128,
            &mut count,
        )
    };
    assert_eq!(
        status,
        ConvoyStatus::ConvoyBadArgument,
        "an inverted rectangle"
    );

    let point = (3.3f32, -4.4f32);
    let expected: Vec<u64> = by_distance(&units, point).into_iter().take(7).collect();
    let status = unsafe {
        convoy_nearest_units(
            sim,
            point.0,
            point.1,
            7,
            -1,
            -1,
            out.as_mut_ptr(),
            3,
            &mut count,
        )
    };
    assert_eq!(status, ConvoyStatus::ConvoyOk);
    assert_eq!(count, 7, "the count is every hit, not the capacity");
    assert_eq!(&out[..3], &expected[..3]);
    unsafe { convoy_sim_free(sim) };
}

#[test]
fn a_unit_joins_a_platoon_in_its_first_empty_slot_and_leaves_it() {
    let sim = world();
    let members = [
        spawn(sim, CONVOY_KIND_TRACKED, 0.0, 0.0),
        spawn(sim, CONVOY_KIND_TRACKED, -12.0, 0.0),
    ];
    let spec = convoy_platoon_spec_squad(8.0);
    let mut platoon = 0;
    let status = unsafe { convoy_create_platoon(sim, members.as_ptr(), 2, &spec, &mut platoon) };
    assert_eq!(status, ConvoyStatus::ConvoyOk);
    let recruit = spawn(sim, CONVOY_KIND_TRACKED, -24.0, 0.0);
    let mut slot = 99;
    assert_eq!(
        unsafe { convoy_join_platoon(sim, platoon, recruit, &mut slot) },
        ConvoyStatus::ConvoyOk
    );
    assert_eq!(slot, 2);
    let mut state = unsafe { std::mem::zeroed::<ConvoyPlatoonState>() };
    assert_eq!(
        unsafe { convoy_platoon_state(sim, platoon, &mut state) },
        ConvoyStatus::ConvoyOk
    );
    assert_eq!(state.members, 3);
    let status = unsafe { convoy_join_platoon(sim, platoon, recruit, std::ptr::null_mut()) };
    assert_eq!(
        status,
        ConvoyStatus::ConvoyBadArgument,
        "a member cannot join twice"
    );
    assert_eq!(
        unsafe { convoy_leave_platoon(sim, members[0]) },
        ConvoyStatus::ConvoyOk
    );
    assert_eq!(
        unsafe { convoy_platoon_state(sim, platoon, &mut state) },
        ConvoyStatus::ConvoyOk
    );
    assert_eq!(state.members, 2);
    unsafe { convoy_sim_free(sim) };
}
