//! The error model of the C ABI: every fallible call returns a
//! [`ConvoyStatus`] and, when it is not `CONVOY_OK`, leaves a message in a
//! thread-local slot that [`convoy_last_error_message`] reads. Each entry
//! point runs its body under `std::panic::catch_unwind`, so no panic
//! unwinds into C: a caught panic is `CONVOY_PANIC`, and the `Sim` it
//! happened in refuses every later call but destroy.

use std::cell::RefCell;
use std::ffi::{CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// What a call did: `CONVOY_OK`, or why it refused (nothing was changed
/// then, except after `CONVOY_PANIC`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
// The C names are the variants in SCREAMING_SNAKE_CASE (`CONVOY_OK`, ...).
#[allow(clippy::enum_variant_names)]
pub enum ConvoyStatus {
    /// Success.
    ConvoyOk = 0,
    /// A pointer argument that must not be NULL was NULL.
    ConvoyNullPointer = 1,
    /// An argument was out of range, NaN or malformed (the message names it).
    ConvoyBadArgument = 2,
    /// A unit handle names no live unit (despawned, or from another world).
    ConvoyStaleUnit = 3,
    /// A move goal is on a blocked cell or in another region, and the `Sim`
    /// refuses such goals.
    ConvoyUnreachable = 4,
    /// A file could not be read (the message names it).
    ConvoyIo = 5,
    /// A map file is malformed (the message names the file and line).
    ConvoyBadMap = 6,
    /// Snapshot bytes are damaged, truncated or from another world.
    ConvoyBadSnapshot = 7,
    /// A panic was caught inside the library; destroy the `Sim`.
    ConvoyPanic = 8,
    /// A platoon handle names no live platoon (disbanded, or from another
    /// world).
    ConvoyStalePlatoon = 9,
    /// The call edits or reads grid cells, and the world is an open field
    /// or a polygon map.
    ConvoyNotAGridMap = 10,
    /// The call edits a polygon map's obstacles or bridges, and the world
    /// is an open field or a grid map.
    ConvoyNotAPolygonMap = 11,
}

/// A refusal on its way to C: its status and its message.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) status: ConvoyStatus,
    pub(crate) message: String,
}

impl Failure {
    /// A failure with `status` and a message.
    pub(crate) fn new(status: ConvoyStatus, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
        }
    }

    /// A NULL `name` argument.
    pub(crate) fn null(name: &str) -> Failure {
        Failure::new(ConvoyStatus::ConvoyNullPointer, format!("`{name}` is NULL"))
    }

    /// A bad argument, with the kernel's message naming it.
    pub(crate) fn bad(error: impl std::fmt::Display) -> Failure {
        Failure::new(ConvoyStatus::ConvoyBadArgument, error.to_string())
    }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Stores `message` as this thread's last error (interior NULs become
/// spaces, so the whole message survives as a C string).
fn set_last_error(message: &str) {
    let clean = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|slot| *slot.borrow_mut() = clean);
}

/// Empties this thread's last error; allocates only if it held one, so a
/// step that succeeds allocates nothing.
fn clear_last_error() {
    LAST_ERROR.with(|slot| {
        if !slot.borrow().is_empty() {
            *slot.borrow_mut() = CString::default();
        }
    });
}

/// Runs `body` behind the FFI boundary: a panic becomes `CONVOY_PANIC`,
/// a failure its status; either leaves its message for
/// [`convoy_last_error_message`]. Success clears the message.
pub(crate) fn guard(body: impl FnOnce() -> Result<(), Failure>) -> ConvoyStatus {
    let failure = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => {
            clear_last_error();
            return ConvoyStatus::ConvoyOk;
        }
        Ok(Err(failure)) => failure,
        Err(payload) => Failure::new(ConvoyStatus::ConvoyPanic, panic_message(&*payload)),
    };
    set_last_error(&failure.message);
    failure.status
}

/// The text of a panic's payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(no message)");
    format!("panic inside convoy: {text}")
}

/// The message of the last call on this thread that did not return
/// `CONVOY_OK`, as a NUL-terminated UTF-8 string; empty after a call that
/// succeeded. Owned by the library: valid until the next convoy call on
/// this thread. Never NULL.
#[unsafe(no_mangle)]
pub extern "C" fn convoy_last_error_message() -> *const c_char {
    LAST_ERROR.with(|slot| slot.borrow().as_ptr())
}
