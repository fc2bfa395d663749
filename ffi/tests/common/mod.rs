//! What the C ABI's tests share: reading the last error and checking a
//! refusal.

use std::ffi::CStr;

use convoy_ffi::{ConvoyStatus, convoy_last_error_message};

/// The message of the last refusal on this thread.
pub fn message() -> String {
    unsafe { CStr::from_ptr(convoy_last_error_message()) }
        .to_str()
        .unwrap()
        .to_owned()
}

/// `status` is `expected`, with a message containing `needle`.
pub fn refused(status: ConvoyStatus, expected: ConvoyStatus, needle: &str) {
    assert_eq!(status, expected, "message: {}", message());
    assert!(
        message().contains(needle),
        "{:?} lacks {needle:?}",
        message()
    );
}
