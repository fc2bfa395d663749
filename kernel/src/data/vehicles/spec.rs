//! What an engine gives to spawn a unit ([`UnitSpec`]) or to retune a live
//! one ([`UnitParams`]), and the one validation both go through: every value
//! checked once, at the boundary, naming the first bad field.

use glam::{Vec2, Vec3};
use thiserror::Error;

use super::{SteerMode, VehicleKind};
use crate::nav::class_maps::MobilityClass;
use crate::nav::visgraph::FactionId;
use crate::data::unit_limits::{
    MAX_ACCEL, MAX_COORDINATE, MAX_INV_MASS, MAX_SIZE, MAX_SPEED, MAX_TURN_RATE, Sign, finite, in_range,
    within_map,
};

/// What an engine gives to spawn one unit; [`UnitSpec::new`] fills the rest
/// with a kind's defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UnitSpec {
    /// Movement class.
    pub kind: VehicleKind,
    /// Ground-plane position, metres.
    pub position: Vec2,
    /// Height above the ground, metres.
    pub altitude: f32,
    /// Facing, radians from +x counter-clockwise.
    pub heading: f32,
    /// Top speed, m/s (> 0).
    pub max_speed: f32,
    /// Largest speed gain, m/s² (> 0).
    pub max_accel: f32,
    /// Largest braking, m/s² (> 0).
    pub max_brake: f32,
    /// Largest yaw rate, rad/s (> 0).
    pub turn_rate: f32,
    /// Minimum turning radius, metres (≥ 0).
    pub turn_radius: f32,
    /// Shield semi-axes (forward, lateral, vertical), metres (each > 0).
    pub shield: Vec3,
    /// Inverse mass (≥ 0; 0 is immovable).
    pub inv_mass: f32,
    /// Ordered destination; defaults to the spawn position.
    pub goal: Vec2,
    /// How steering picks the desired velocity.
    pub steer_mode: SteerMode,
    /// The side the unit is on (gameplay queries filter by it); 0 by
    /// default.
    pub faction: FactionId,
    /// Which grid map the unit plans, steers and is kept off walls on
    /// ([`crate::nav::ClassMaps`]): 0, the default, is the configured
    /// map's; `k` is [`SimConfig::mobility_classes`]`[k - 1]`'s.
    ///
    /// [`SimConfig::mobility_classes`]: crate::SimConfig::mobility_classes
    pub mobility: MobilityClass,
}

impl UnitSpec {
    /// A unit of `kind` at `position` with that kind's typical limits.
    #[must_use]
    pub fn new(kind: VehicleKind, position: Vec2) -> UnitSpec {
        // (top speed, accel, brake, yaw rate, turn radius, shield, altitude)
        let (max_speed, max_accel, max_brake, turn_rate, turn_radius, shield, altitude) = match kind
        {
            VehicleKind::Tracked => (12.0, 3.0, 6.0, 0.8, 0.0, Vec3::new(4.0, 2.0, 1.5), 0.0),
            VehicleKind::Wheeled => (22.0, 5.0, 8.0, 1.2, 6.0, Vec3::new(3.0, 1.5, 1.5), 0.0),
            VehicleKind::RotaryWing => (60.0, 10.0, 12.0, 1.0, 0.0, Vec3::new(8.0, 8.0, 2.0), 60.0),
            VehicleKind::Infantry => (3.0, 4.0, 6.0, 6.0, 0.0, Vec3::new(0.4, 0.4, 0.9), 0.0),
            VehicleKind::Starship => (80.0, 8.0, 10.0, 0.5, 40.0, Vec3::new(60.0, 25.0, 15.0), 0.0),
        };
        UnitSpec {
            kind,
            position,
            altitude,
            heading: 0.0,
            max_speed,
            max_accel,
            max_brake,
            turn_rate,
            turn_radius,
            shield,
            inv_mass: 1.0,
            goal: position,
            steer_mode: SteerMode::default(),
            faction: FactionId(0),
            mobility: MobilityClass(0),
        }
    }

    /// The same spec on another side.
    #[must_use]
    pub fn with_faction(self, faction: FactionId) -> UnitSpec {
        UnitSpec { faction, ..self }
    }

    /// The same spec in another mobility class.
    #[must_use]
    pub fn with_mobility(self, mobility: MobilityClass) -> UnitSpec {
        UnitSpec { mobility, ..self }
    }

    /// Checks every value once, at the boundary, naming the first bad field
    /// and, for a value out of range, the accepted range (the constants of
    /// [`crate::unit_limits`]).
    ///
    /// # Errors
    /// [`SpawnError::NotFinite`], [`SpawnError::NotPositive`],
    /// [`SpawnError::Negative`] or [`SpawnError::TooLarge`].
    pub fn validate(&self) -> Result<(), SpawnError> {
        within_map(["position.x", "position.y"], self.position)?;
        within_map(["goal.x", "goal.y"], self.goal)?;
        in_range("altitude", self.altitude, Sign::Any, MAX_COORDINATE)?;
        finite("heading", self.heading)?;
        self.params().validate()
    }

    /// The per-unit parameters this spec sets ([`UnitParams`]).
    #[must_use]
    pub fn params(&self) -> UnitParams {
        UnitParams {
            max_speed: self.max_speed,
            max_accel: self.max_accel,
            max_brake: self.max_brake,
            turn_rate: self.turn_rate,
            turn_radius: self.turn_radius,
            shield: self.shield,
            inv_mass: self.inv_mass,
            steer_mode: self.steer_mode,
            faction: self.faction,
        }
    }
}

/// What a live unit's parameters can be changed to with
/// `Sim::set_unit_params`: everything [`UnitSpec`] sets but the kind, the
/// position, heading and altitude (columns an engine writes directly) and the
/// goal (an order). Checked as a spawn checks them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UnitParams {
    /// Top speed, m/s (> 0).
    pub max_speed: f32,
    /// Largest speed gain, m/s² (> 0).
    pub max_accel: f32,
    /// Largest braking, m/s² (> 0).
    pub max_brake: f32,
    /// Largest yaw rate, rad/s (> 0).
    pub turn_rate: f32,
    /// Minimum turning radius, metres (≥ 0).
    pub turn_radius: f32,
    /// Shield semi-axes (forward, lateral, vertical), metres (each > 0).
    pub shield: Vec3,
    /// Inverse mass (≥ 0; 0 is immovable).
    pub inv_mass: f32,
    /// How steering picks the desired velocity.
    pub steer_mode: SteerMode,
    /// The side the unit is on.
    pub faction: FactionId,
}

impl UnitParams {
    /// Checks every value, naming the first bad field (the names
    /// [`UnitSpec::validate`] gives).
    pub fn validate(&self) -> Result<(), SpawnError> {
        in_range("max_speed", self.max_speed, Sign::Positive, MAX_SPEED)?;
        in_range("max_accel", self.max_accel, Sign::Positive, MAX_ACCEL)?;
        in_range("max_brake", self.max_brake, Sign::Positive, MAX_ACCEL)?;
        in_range("turn_rate", self.turn_rate, Sign::Positive, MAX_TURN_RATE)?;
        in_range("turn_radius", self.turn_radius, Sign::NotNegative, MAX_SIZE)?;
        in_range("shield.forward", self.shield.x, Sign::Positive, MAX_SIZE)?;
        in_range("shield.lateral", self.shield.y, Sign::Positive, MAX_SIZE)?;
        in_range("shield.vertical", self.shield.z, Sign::Positive, MAX_SIZE)?;
        in_range("inv_mass", self.inv_mass, Sign::NotNegative, MAX_INV_MASS)
    }
}

/// Why a spawn was refused; nothing was added.
#[derive(Clone, Copy, Debug, PartialEq, Error)]
pub enum SpawnError {
    /// A value was NaN or infinite.
    #[error("unit spec `{field}` must be finite, was {value}")]
    NotFinite {
        /// The offending field.
        field: &'static str,
        /// Its value.
        value: f32,
    },
    /// A value that must be positive was not.
    #[error("unit spec `{field}` must be greater than 0, was {value}")]
    NotPositive {
        /// The offending field.
        field: &'static str,
        /// Its value.
        value: f32,
    },
    /// A value that must not be negative was.
    #[error("unit spec `{field}` must not be negative, was {value}")]
    Negative {
        /// The offending field.
        field: &'static str,
        /// Its value.
        value: f32,
    },
    /// A value's magnitude exceeds its limit (the constants of
    /// [`crate::unit_limits`]).
    #[error("unit spec `{field}` must be at most {max} in magnitude, was {value}")]
    TooLarge {
        /// The offending field.
        field: &'static str,
        /// Its value.
        value: f32,
        /// The largest accepted magnitude.
        max: f32,
    },
    /// The handle table is full (2³² − 1 slots).
    #[error("no free unit handle: {0} units already live")]
    Full(usize),
    /// A movable ground unit would start on a blocked cell of the map, or
    /// off it (immovable units, such as buildings placed as units, and
    /// flying ones may).
    #[error(
        "unit spec `position` ({x}, {y}) is not on open ground of the map: a movable ground unit must start on an open cell"
    )]
    NotOnOpenGround {
        /// The position's x.
        x: f32,
        /// The position's y.
        y: f32,
    },
    /// The unit's mobility class is not one of the `Sim`'s.
    #[error(
        "unit spec `mobility` {class} is not a mobility class of this world (it has {count}: 0 and one per `SimConfig::mobility_classes` entry)"
    )]
    NoSuchMobilityClass {
        /// The class asked for.
        class: u8,
        /// How many classes the world has.
        count: usize,
    },
}

