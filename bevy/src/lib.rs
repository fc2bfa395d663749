//! A Bevy plugin for the convoy kernel: the [`Sim`] lives in a resource
//! ([`ConvoySim`]) and [`ConvoyPlugin`] steps it in `FixedUpdate`, with
//! units as entities.
//!
//! - **Spawn**: an entity with a [`SpawnUnit`] (a [`UnitSpec`]) becomes a
//!   unit on the next fixed tick: the spec is replaced by a [`Unit`]
//!   holding its handle, or, if the `Sim` refuses it, removed with a
//!   [`Refused`] message naming the entity.
//! - **Order**: inserting or changing a [`MoveOrder`] on a unit calls
//!   `Sim::order_move` (a refusal is a [`Refused`] message). Everything
//!   else (group orders, stops, platoons, world edits, queries) is a call
//!   on the resource, which dereferences to the `Sim`.
//! - **Despawn**: despawning the entity, or removing its [`Unit`],
//!   despawns the unit.
//! - **Read**: after each step every unit's `Transform` takes its
//!   position, altitude and heading (on the [`GroundPlane`] chosen), and
//!   each of the tick's `Sim::events()` becomes a [`SimEvent`] message
//!   naming the entity.
//!
//! The fixed tick is `Time<Fixed>`'s timestep (Bevy's default is 64 Hz;
//! set `Time::<Fixed>::from_hz(60.0)` for convoy's usual 60). The plugin
//! adds Bevy's `TimePlugin` unless the app has it already.

use bevy_app::{App, FixedUpdate, Plugin};
use bevy_ecs::prelude::*;
use bevy_math::{Quat, Vec3};
use bevy_time::{Fixed, Time, TimePlugin};
use bevy_transform::components::Transform;
use convoy::glam::Vec2;
use convoy::{ConfigError, Event, OrderError, Sim, SimConfig, SpawnError, UnitId, UnitSpec};

/// The simulation as a Bevy resource, with the entity of each unit it
/// spawned. It dereferences to the [`Sim`]: call its orders, queries and
/// world edits directly, but spawn and despawn units through entities so
/// that events keep naming them.
#[derive(Resource)]
pub struct ConvoySim {
    sim: Sim,
    /// The entity of each live unit, by handle slot (with its generation).
    entities: Vec<Option<(u32, Entity)>>,
}

impl ConvoySim {
    /// Wraps a built `Sim` (its units, if any, have no entities).
    #[must_use]
    pub fn new(sim: Sim) -> ConvoySim {
        ConvoySim {
            sim,
            entities: Vec::new(),
        }
    }

    /// Builds a `Sim` from `config`.
    ///
    /// # Errors
    /// What [`Sim::new`] refuses.
    pub fn from_config(config: SimConfig) -> Result<ConvoySim, ConfigError> {
        Ok(ConvoySim::new(Sim::new(config)?))
    }

    /// The entity of `unit`, if it was spawned through one and lives.
    #[must_use]
    pub fn entity_of(&self, unit: UnitId) -> Option<Entity> {
        match self.entities.get(unit.index as usize) {
            Some(&Some((generation, entity))) if generation == unit.generation => Some(entity),
            _ => None,
        }
    }

    /// Records that `entity` holds `unit`.
    fn remember(&mut self, unit: UnitId, entity: Entity) {
        let slot = unit.index as usize;
        if self.entities.len() <= slot {
            self.entities.resize(slot + 1, None);
        }
        self.entities[slot] = Some((unit.generation, entity));
    }
}

impl std::ops::Deref for ConvoySim {
    type Target = Sim;

    fn deref(&self) -> &Sim {
        &self.sim
    }
}

impl std::ops::DerefMut for ConvoySim {
    fn deref_mut(&mut self) -> &mut Sim {
        &mut self.sim
    }
}

/// A unit to spawn: the next fixed tick spawns it and replaces this
/// component by a [`Unit`].
#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[require(Transform)]
pub struct SpawnUnit(pub UnitSpec);

/// The handle of the unit an entity stands for. Removing it (or
/// despawning the entity) despawns the unit.
#[derive(Component, Clone, Copy, Debug, PartialEq, Eq)]
#[require(Transform)]
pub struct Unit(pub UnitId);

/// A move order: inserted or changed on a unit, the next fixed tick orders
/// the unit to this point (metres, x east, y north).
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct MoveOrder(pub Vec2);

/// One of the last tick's events (a [`convoy::Event`]), with the entity of
/// the unit it names (`None` for a reorder, a platoon's arrival, or a unit
/// spawned without an entity).
#[derive(Message, Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimEvent {
    /// What happened.
    pub event: Event,
    /// The unit's entity.
    pub entity: Option<Entity>,
}

/// A [`SpawnUnit`] or [`MoveOrder`] the `Sim` refused; nothing changed.
#[derive(Message, Clone, Copy, Debug, PartialEq)]
pub struct Refused {
    /// The entity whose component was refused.
    pub entity: Entity,
    /// Why.
    pub reason: Refusal,
}

/// Why a component was refused: the kernel's typed error.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Refusal {
    /// The [`SpawnUnit`]'s spec (its [`SpawnUnit`] is removed).
    Spawn(SpawnError),
    /// The [`MoveOrder`].
    Order(OrderError),
}

/// How a unit's ground position maps onto its `Transform`. Either way the
/// unit's local +X axis points along its heading.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GroundPlane {
    /// 2-D: translation (x, y, altitude), rotated about +Z by the heading.
    #[default]
    Xy,
    /// 3-D with Y up: translation (x, altitude, -y), rotated about +Y by
    /// the heading (north is -Z, Bevy's forward).
    Xz,
}

impl GroundPlane {
    /// The translation and rotation of a unit at `position`, `altitude`,
    /// `heading`.
    #[must_use]
    pub fn place(self, position: Vec2, altitude: f32, heading: f32) -> (Vec3, Quat) {
        match self {
            GroundPlane::Xy => (
                Vec3::new(position.x, position.y, altitude),
                Quat::from_rotation_z(heading),
            ),
            GroundPlane::Xz => (
                Vec3::new(position.x, altitude, -position.y),
                Quat::from_rotation_y(heading),
            ),
        }
    }
}

/// The plugin's systems, in `FixedUpdate`: order yours before or after
/// them.
#[derive(SystemSet, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConvoySystems;

/// Steps a [`ConvoySim`] resource in `FixedUpdate` (insert one; nothing
/// runs without it), spawning, ordering and despawning units through
/// entities, mirroring them into `Transform`s and sending [`SimEvent`]s.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConvoyPlugin {
    /// How positions map onto `Transform`s.
    pub ground: GroundPlane,
}

/// The plugin's [`GroundPlane`], for the mirroring system.
#[derive(Resource, Clone, Copy)]
struct Ground(GroundPlane);

impl Plugin for ConvoyPlugin {
    fn build(&self, app: &mut App) {
        if !app.is_plugin_added::<TimePlugin>() {
            app.add_plugins(TimePlugin);
        }
        app.insert_resource(Ground(self.ground))
            .add_message::<SimEvent>()
            .add_message::<Refused>()
            .add_observer(despawn_unit)
            .add_systems(
                FixedUpdate,
                (spawn_units, order_units, step, mirror_transforms)
                    .chain()
                    .in_set(ConvoySystems)
                    .run_if(resource_exists::<ConvoySim>),
            );
    }
}

/// Spawns the unit of every new [`SpawnUnit`].
fn spawn_units(
    mut commands: Commands,
    mut sim: ResMut<ConvoySim>,
    specs: Query<(Entity, &SpawnUnit)>,
    mut refused: MessageWriter<Refused>,
) {
    for (entity, SpawnUnit(spec)) in &specs {
        let mut entity_commands = commands.entity(entity);
        entity_commands.remove::<SpawnUnit>();
        match sim.spawn(spec) {
            Ok(unit) => {
                sim.remember(unit, entity);
                entity_commands.insert(Unit(unit));
            }
            Err(error) => {
                refused.write(Refused {
                    entity,
                    reason: Refusal::Spawn(error),
                });
            }
        }
    }
}

/// Orders every unit whose [`MoveOrder`] is new or changed.
fn order_units(
    mut sim: ResMut<ConvoySim>,
    orders: Query<(Entity, &Unit, &MoveOrder), Changed<MoveOrder>>,
    mut refused: MessageWriter<Refused>,
) {
    for (entity, &Unit(unit), &MoveOrder(goal)) in &orders {
        if let Err(error) = sim.order_move(unit, goal) {
            refused.write(Refused {
                entity,
                reason: Refusal::Order(error),
            });
        }
    }
}

/// Steps the `Sim` by the fixed timestep and sends its events.
fn step(mut sim: ResMut<ConvoySim>, time: Res<Time<Fixed>>, mut events: MessageWriter<SimEvent>) {
    // A zero timestep (a paused fixed clock) is refused by `try_step`:
    // nothing moves then.
    if sim.try_step(time.timestep().as_secs_f32()).is_err() {
        return;
    }
    let sim = &*sim;
    events.write_batch(sim.events().iter().map(|&event| SimEvent {
        event,
        entity: match event {
            Event::Arrived(unit)
            | Event::NoPath(unit)
            | Event::Stuck(unit)
            | Event::Unstuck(unit)
            | Event::Displaced(unit) => sim.entity_of(unit),
            Event::RowsReordered | Event::PlatoonArrived(_) | Event::GroupArrived(_) => None,
        },
    }));
}

/// Writes every unit's position, altitude and heading into its
/// `Transform`.
fn mirror_transforms(
    sim: Res<ConvoySim>,
    ground: Res<Ground>,
    mut units: Query<(&Unit, &mut Transform)>,
) {
    let vehicles = sim.vehicles();
    let columns = vehicles.columns();
    for (&Unit(unit), mut transform) in &mut units {
        if let Some(row) = vehicles.row_of(unit) {
            let (translation, rotation) = ground.0.place(
                columns.position()[row],
                columns.altitude()[row],
                columns.heading()[row],
            );
            transform.translation = translation;
            transform.rotation = rotation;
        }
    }
}

/// Despawns the unit of an entity that loses its [`Unit`] (or is
/// despawned).
fn despawn_unit(removed: On<Remove<Unit>>, units: Query<&Unit>, sim: Option<ResMut<ConvoySim>>) {
    let (Ok(&Unit(unit)), Some(mut sim)) = (units.get(removed.entity), sim) else {
        return;
    };
    // A unit already gone from the `Sim` (a restore, or a despawn through
    // the resource) has nothing left to remove.
    if sim.despawn(unit).is_ok() && sim.entity_of(unit) == Some(removed.entity) {
        sim.entities[unit.index as usize] = None;
    }
}
