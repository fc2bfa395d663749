//! Small geometry shared by the stages and the planners.
//!
//! - [`angles`]: angle wrapping and eight-lane `atan2` and direction.
//! - [`bounds`]: axis-aligned world bounds.
//! - [`ellipsoid`]: shield ellipsoids and their exact contact test
//!   (Perram–Wertheim).
//! - [`segments`]: distances between segments.
//! - [`turning`]: a polyline's corners bent to a vehicle's turning circle.

pub mod angles;
pub mod bounds;
pub mod ellipsoid;
pub mod lanes;
pub mod polyline;
pub mod seek;
pub mod segments;
pub mod turning;
