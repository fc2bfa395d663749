//! Steering and vehicle dynamics: the `steering` and `integrate` stages.
//!
//! `seek` turns each unit's drive-to point into a desired velocity;
//! `dynamics` moves units toward it within their limits. Force 21 §5's
//! per-kind behaviour, avoidance and potential fields build on these.

pub mod dynamics;
pub mod seek;
pub mod turning;

/// Within this distance of its drive-to point a vehicle has arrived
/// (Force 21 §5: 2.5 m).
pub const ARRIVE_RADIUS: f32 = 2.5;
