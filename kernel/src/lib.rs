#![doc = include_str!("../../README.md")]

pub mod angles;
pub mod ellipsoid;
pub mod formation;
pub mod instrument;
pub mod nav;
pub mod parallel;
pub mod profile;
pub mod random;
pub mod scenario;
pub mod separation;
pub mod sim;
pub mod snapshot;
pub mod spatial;
pub mod steer;
pub mod vehicles;

pub use formation::{Formation, PlatoonError, PlatoonId, PlatoonSpec};
pub use glam;
pub use instrument::{Budgets, Stage, TimingReport};
pub use profile::{Profile, ProfileError};
pub use sim::{BadStep, ConfigError, OrderError, Quality, Sim, SimConfig};
pub use spatial::{Bounds, SpatialHash};
pub use vehicles::{SpawnError, StaleUnit, UnitId, UnitSpec, VehicleKind, Vehicles};
pub use wide;
