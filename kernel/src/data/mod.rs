//! What the stages share: the vehicle columns and their handles, the units'
//! routes, the platoons, the path-request queue and the spatial hash. The
//! stages read and write these; none of them owns another stage's scratch.

pub mod path_requests;
pub mod platoons;
pub mod points_of_interest;
pub mod routes;
pub mod spatial_hash;
pub mod unit_limits;
pub mod vehicles;
