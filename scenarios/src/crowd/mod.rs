//! Crowd-quality scenarios: circles of agents sent to their antipodes,
//! blocks crossing head-on and at right angles, a crowd through a 6 m gap
//! and mixed kinds, with the same agents in every system (radius 1.5 m, top
//! speed 5 m/s, dt = 1/60 s). [`convoy_runner`] runs them on convoy and
//! [`metrics`] measures any system's run the same way, so `convoy-bench
//! quality` can put a peer beside it and the tests can assert outcomes.

pub mod convoy_runner;
pub mod metrics;
pub mod scenarios;
