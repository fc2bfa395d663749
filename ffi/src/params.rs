//! Per-unit parameters through the C ABI: read a live unit's
//! ([`convoy_unit_params`]), change any of them and give them back
//! ([`convoy_set_unit_params`]), all at once or not at all, checked as a
//! spawn checks them.

use convoy::glam::Vec3;
use convoy::{FactionId, MobilityClass, ParamsError, SteerMode, UnitParams};

use crate::status::{ConvoyStatus, Failure};
use crate::units::{stale, unit_of};
use crate::{ConvoySim, with_sim, with_sim_mut};

/// Steering: Force 21 drive-to with its vehicle avoidance.
pub const CONVOY_STEER_DRIVE_TO: u8 = 0;
/// Steering: a potential field around moving bodies.
pub const CONVOY_STEER_POTENTIAL_FIELD: u8 = 1;
/// Steering: reciprocal avoidance (ORCA) among neighbours and walls, the
/// default.
pub const CONVOY_STEER_RECIPROCAL: u8 = 2;

/// A unit's tuning: everything a spawn sets but its kind, position,
/// heading, altitude and goal.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConvoyUnitParams {
    /// Top speed, m/s (> 0).
    pub max_speed: f32,
    /// Largest speed gain, m/s² (> 0).
    pub max_accel: f32,
    /// Largest braking, m/s² (> 0).
    pub max_brake: f32,
    /// Largest yaw rate, rad/s (> 0).
    pub turn_rate: f32,
    /// Minimum turning radius, metres (>= 0).
    pub turn_radius: f32,
    /// Shield semi-axis forward, metres (> 0).
    pub shield_forward: f32,
    /// Shield semi-axis sideways, metres (> 0).
    pub shield_lateral: f32,
    /// Shield semi-axis up, metres (> 0).
    pub shield_vertical: f32,
    /// Inverse mass (>= 0; 0 is immovable).
    pub inv_mass: f32,
    /// How it steers, a `CONVOY_STEER_*`.
    pub steer_mode: u8,
    /// The side it is on.
    pub faction: u16,
}

/// Writes `unit`'s current parameters to `*out`.
///
/// # Safety
/// `sim` is NULL or live; `out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_unit_params(
    sim: *const ConvoySim,
    unit: u64,
    out: *mut ConvoyUnitParams,
) -> ConvoyStatus {
    with_sim(unsafe { sim.as_ref() }, |handle| {
        let out = unsafe { out.as_mut() }.ok_or_else(|| Failure::null("out"))?;
        let id = unit_of(unit);
        let vehicles = handle.sim.vehicles();
        let row = vehicles
            .row_of(id)
            .ok_or_else(|| stale(convoy::StaleUnit(id)))?;
        let columns = vehicles.columns();
        let shield = columns.shield()[row];
        *out = ConvoyUnitParams {
            max_speed: columns.max_speed()[row],
            max_accel: columns.max_accel()[row],
            max_brake: columns.max_brake()[row],
            turn_rate: columns.turn_rate()[row],
            turn_radius: columns.turn_radius()[row],
            shield_forward: shield.x,
            shield_lateral: shield.y,
            shield_vertical: shield.z,
            inv_mass: columns.inv_mass()[row],
            steer_mode: columns.steer_mode()[row],
            faction: columns.faction()[row],
        };
        Ok(())
    })
}

/// Gives `unit` the parameters `*params`, all at once: checked as a spawn
/// checks them (and a movable ground unit must stand on open ground),
/// refused with nothing changed. The next step drives with them.
///
/// # Safety
/// `sim` is NULL or live; `params` is NULL or readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_set_unit_params(
    sim: *mut ConvoySim,
    unit: u64,
    params: *const ConvoyUnitParams,
) -> ConvoyStatus {
    with_sim_mut(unsafe { sim.as_mut() }, |handle| {
        let params = unsafe { params.as_ref() }.ok_or_else(|| Failure::null("params"))?;
        let steer_mode = SteerMode::from_u8(params.steer_mode).ok_or_else(|| {
            Failure::bad(format!(
                "params `steer_mode` must be 0 to 2, was {}",
                params.steer_mode
            ))
        })?;
        let params = UnitParams {
            max_speed: params.max_speed,
            max_accel: params.max_accel,
            max_brake: params.max_brake,
            turn_rate: params.turn_rate,
            turn_radius: params.turn_radius,
            shield: Vec3::new(
                params.shield_forward,
                params.shield_lateral,
                params.shield_vertical,
            ),
            inv_mass: params.inv_mass,
            steer_mode,
            faction: FactionId(params.faction),
        };
        handle
            .sim
            .set_unit_params(unit_of(unit), &params)
            .map_err(params_failure)
    })
}

/// Puts `unit` in mobility class `mobility` (`Sim::set_mobility`): a unit
/// on its way asks for a new path to its goal on that class's map; a
/// platoon member leaves its platoon. A class the world lacks, or a
/// movable ground unit not standing on ground of the class, is
/// `CONVOY_BAD_ARGUMENT`; an unreachable goal under `Refuse` is
/// `CONVOY_UNREACHABLE`. Nothing changes then.
///
/// # Safety
/// `sim` is NULL or live.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn convoy_set_mobility(
    sim: *mut ConvoySim,
    unit: u64,
    mobility: u8,
) -> ConvoyStatus {
    with_sim_mut(unsafe { sim.as_mut() }, |handle| {
        handle
            .sim
            .set_mobility(unit_of(unit), MobilityClass(mobility))
            .map_err(params_failure)
    })
}

/// A parameter change the kernel refused.
fn params_failure(error: ParamsError) -> Failure {
    match error {
        ParamsError::Stale(stale_unit) => stale(stale_unit),
        ParamsError::Invalid(invalid) => Failure::bad(invalid),
        ParamsError::Unreachable(refused) => {
            Failure::new(ConvoyStatus::ConvoyUnreachable, refused.to_string())
        }
    }
}

/// The steer modes' numbers are the kernel's.
const _: () = {
    assert!(SteerMode::DriveTo as u8 == CONVOY_STEER_DRIVE_TO);
    assert!(SteerMode::PotentialField as u8 == CONVOY_STEER_POTENTIAL_FIELD);
    assert!(SteerMode::Reciprocal as u8 == CONVOY_STEER_RECIPROCAL);
};
