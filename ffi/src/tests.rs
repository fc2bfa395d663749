//! A panic behind the boundary: caught, reported as `CONVOY_PANIC` with its
//! message, and the `Sim` it happened in refuses every later call.

use std::ffi::CStr;

use convoy::UnitId;

use super::*;
use crate::units::{handle_of, unit_of};

fn message() -> String {
    unsafe { CStr::from_ptr(convoy_last_error_message()) }
        .to_string_lossy()
        .into_owned()
}

#[test]
fn a_panic_is_caught_reported_and_poisons_its_sim() {
    let mut sim = std::ptr::null_mut();
    let status = unsafe { convoy_sim_new(&convoy_config_default(), &mut sim) };
    assert_eq!(status, ConvoyStatus::ConvoyOk);
    let status = with_sim_mut(unsafe { sim.as_mut() }, |_| panic!("boom at row 7"));
    assert_eq!(status, ConvoyStatus::ConvoyPanic);
    assert_eq!(message(), "panic inside convoy: boom at row 7");
    let mut sum = 0;
    assert_eq!(unsafe { convoy_step(sim, 0.1) }, ConvoyStatus::ConvoyPanic);
    assert!(message().contains("destroy it"), "{}", message());
    assert_eq!(
        unsafe { convoy_checksum(sim, &mut sum) },
        ConvoyStatus::ConvoyPanic
    );
    unsafe { convoy_sim_free(sim) };
}

#[test]
fn handles_pack_the_generation_high_and_the_index_low() {
    let unit = UnitId {
        index: 7,
        generation: 3,
    };
    assert_eq!(handle_of(unit), 3 << 32 | 7);
    assert_eq!(unit_of(handle_of(unit)), unit);
    let id = ConvoyUnitId {
        index: 7,
        generation: 3,
    };
    assert_eq!(convoy_unit_handle(id), 3 << 32 | 7);
}
