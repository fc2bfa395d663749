#![doc = include_str!("../../README.md")]

/// Declares modules that are private to the crate, or public but hidden from
/// the docs with the `internals` feature (for the workspace's benches and
/// tests, which measure stages on their own; not a stable API).
macro_rules! internal_modules {
    ($($name:ident),* $(,)?) => {
        $(
            #[cfg(feature = "internals")]
            #[doc(hidden)]
            pub mod $name;
            #[cfg(not(feature = "internals"))]
            mod $name;
        )*
    };
}

internal_modules!(data, geometry, instrument, parallel, sim, stages);

pub mod nav;
pub mod random;

pub use data::platoons::{
    Formation, MAX_LOOKAHEAD_S, MAX_MEMBERS, MAX_SPACING_M, Phase, PlatoonError, PlatoonId,
    PlatoonSpec, SlotRule, Softening,
};
pub use data::unit_limits;
pub use data::vehicles::{
    Columns, GroupId, PathState, SpawnError, StaleUnit, SteerMode, UnitId, UnitParams, UnitSpec,
    VehicleKind, Vehicles,
};
pub use geometry::bounds::Bounds;
pub use glam;
pub use instrument::{
    Budgets, FormationsFigures, IntegrateFigures, PathsFigures, SeparationFigures, SpatialFigures,
    Stage, StageStats, SteeringFigures, TickTrace, TimingReport,
};
pub use nav::class_maps::MobilityClass;
pub use nav::polygon::BridgeSpec;
pub use nav::visgraph::{BridgeError, FactionId, ObstacleError, ObstacleId};
pub use rayon;
pub use sim::snapshot::SnapshotError;
pub use sim::{
    ConfigError, EngineColumns, Event, FactionAvoidance, GroupPace, Map, MoveState, OrderError,
    ParamsError, PlatoonView, Quality, QueryError, QueryFilter, QueryHit, Sim, SimConfig,
    StepError, UnreachableGoals,
};
pub use stages::steering::field::{Disc, OrbitingBody};
