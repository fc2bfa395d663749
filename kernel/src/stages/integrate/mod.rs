//! The `integrate` stage: per-kind vehicle dynamics.

mod drive_lanes;
pub mod motion;
pub mod dynamics;
pub mod walls;
