//! Scenario profiles for convoy: a TOML profile ([`Profile`]) says how many
//! units of which kinds stand where, on which map, with which budgets and
//! orders; [`build`] makes the [`convoy::Sim`] it describes and [`Orders`]
//! gives its platoons their orders as the run goes on. The `convoy-bench`
//! command line and the integration tests run these; an engine embedding
//! convoy needs none of it.

pub mod crowd;
mod orders;
mod profile;
mod scenario;

pub use orders::{ArrivalLog, ArrivalSummary, Orders};
pub use profile::{
    BudgetSection, KindMix, Layout, MAX_BUDGET_MS, MAX_SEPARATION_ITERATIONS, MapSection,
    PathsSection, PlatoonsSection, Profile, ProfileError, RunSection, ScenarioSection,
    SeparationSection, SteeringSection, WorldSection,
};
pub use scenario::{BuildError, Placement, build, place};
