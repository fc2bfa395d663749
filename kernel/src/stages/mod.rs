//! The six stages of a tick, in the order `Sim::step` runs them. Each owns
//! its scratch and takes the columns it reads and writes; none calls another.

pub mod formations;
pub mod integrate;
pub mod paths;
pub mod separation;
pub mod spatial;
pub mod steering;
