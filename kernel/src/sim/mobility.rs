//! Mobility classes on a grid map ([`crate::nav::class_maps`]): the maps
//! a [`Sim`] builds from [`SimConfig::mobility_classes`], the unit's own
//! map that orders, spawns and world edits read, and a unit changing class
//! ([`Sim::set_mobility`]).

use std::sync::Arc;

use super::{ConfigError, Map, ParamsError, Sim, SimConfig};
use super::snapshot::SnapshotError;
use crate::data::platoons::Platoon;
use crate::data::vehicles::{
    ARRIVE_RADIUS, PathState, SpawnError, StaleUnit, UnitId, VehicleKind, Vehicles,
};
use crate::nav::{
    CellRect, ClassMaps, EditError, MAX_MOBILITY_CLASSES, MobilityClass, Terrain, WorldMap,
};

/// The maps of classes 1 and up: the configured grid map as each of
/// `config.mobility_classes` sees it.
///
/// # Errors
/// [`ConfigError::BadMobilityClass`]: classes without a grid map, more
/// than 255, or invalid costs (named by index).
pub(super) fn build_class_maps(config: &SimConfig) -> Result<Vec<Arc<WorldMap>>, ConfigError> {
    let bad = |index: usize, reason: String| ConfigError::BadMobilityClass { index, reason };
    if config.mobility_classes.is_empty() {
        return Ok(Vec::new());
    }
    let Map::Grid(map) = &config.map else {
        return Err(bad(0, "mobility classes need a grid map (`Map::Grid`)".to_owned()));
    };
    if config.mobility_classes.len() >= MAX_MOBILITY_CLASSES {
        let most = MAX_MOBILITY_CLASSES - 1;
        return Err(bad(most, format!("at most {most} classes besides class 0")));
    }
    config
        .mobility_classes
        .iter()
        .enumerate()
        .map(|(index, &mobility)| {
            map.for_mobility(mobility)
                .map(Arc::new)
                .map_err(|error| bad(index, error.to_string()))
        })
        .collect()
}

impl Sim {
    /// Puts `unit` in mobility `class` (a unit embarking, a vehicle fitted
    /// for water): from the next step it plans, steers and meets walls on
    /// that class's map. A unit on its way asks for a new path to its goal
    /// as ordered, moved to the nearest open point of its new region or
    /// refused as [`UnreachableGoals`](super::UnreachableGoals) says, as a
    /// new move order would be (it leaves its group); a platoon member
    /// leaves its platoon (a platoon's members share a class). Between
    /// steps.
    ///
    /// # Errors
    /// [`ParamsError::Stale`], or [`ParamsError::Invalid`] with
    /// [`SpawnError::NoSuchMobilityClass`] or, for a movable ground unit
    /// not standing on ground of the new class,
    /// [`SpawnError::NotOnOpenGround`]; with an unreachable goal under
    /// `UnreachableGoals::Refuse`, the order's [`OrderError`](super::OrderError) as
    /// [`ParamsError::Unreachable`]. Nothing changes then.
    pub fn set_mobility(&mut self, unit: UnitId, class: MobilityClass) -> Result<(), ParamsError> {
        let row = self.vehicles.row_of(unit).ok_or(StaleUnit(unit))?;
        let columns = self.vehicles.columns();
        if columns.mobility()[row] == class.0 {
            return Ok(());
        }
        let kind = VehicleKind::from_u8(columns.kind()[row]).expect("kinds are checked at spawn");
        let here = columns.position()[row];
        self.check_footing(kind, columns.inv_mass()[row], here, class.0)?;
        // The goal as ordered: kept aside while the unit heads elsewhere,
        // else in its request until the path is served.
        let wanted = columns.wanted_goal()[row];
        let goal = if wanted.is_nan() {
            self.paths.requested_goal(unit).unwrap_or(columns.goal()[row])
        } else {
            wanted
        };
        let on_the_way = columns.route_pending()[row] != PathState::Settled as u8
            || here.distance(columns.goal()[row]) > ARRIVE_RADIUS;
        let before = self.vehicles.columns().mobility()[row];
        self.vehicles.columns_mut().mobility[row] = class.0;
        if on_the_way && let Err(error) = self.reachable_goal(unit, goal) {
            self.vehicles.columns_mut().mobility[row] = before;
            return Err(ParamsError::Unreachable(error));
        }
        self.leave_platoon(unit).expect("checked live above");
        self.paths.cancel(&[unit]);
        let row = self.vehicles.row_of(unit).expect("checked live above");
        let columns = self.vehicles.columns_mut();
        columns.route_len[row] = 0;
        columns.route_pending[row] = PathState::Settled as u8;
        if on_the_way {
            self.order_move(unit, goal).expect("its goal was checked above");
        }
        Ok(())
    }

    /// Refuses a unit of `kind` and inverse mass `inv_mass` at `position`
    /// in mobility `class` that this world lacks, or, when it is a movable
    /// ground unit, whose class's map has no open ground there: walls only
    /// stop units that stand on open ground.
    pub(super) fn check_footing(
        &self,
        kind: VehicleKind,
        inv_mass: f32,
        position: glam::Vec2,
        class: u8,
    ) -> Result<(), SpawnError> {
        let classes = self.class_maps();
        if usize::from(class) >= classes.count() {
            return Err(SpawnError::NoSuchMobilityClass { class, count: classes.count() });
        }
        let grounded = inv_mass > 0.0 && !kind.handling().flies;
        match classes.of(class) {
            Some(map) if grounded && !map.is_open(position) => Err(SpawnError::NotOnOpenGround {
                x: position.x,
                y: position.y,
            }),
            _ => Ok(()),
        }
    }

    /// Every mobility class's map.
    pub(crate) fn class_maps(&self) -> ClassMaps<'_> {
        ClassMaps::new(self.config.map.grid(), &self.class_maps)
    }

    /// The map of the unit in `row`: its mobility class's.
    pub(crate) fn map_of_row(&self, row: usize) -> Option<&WorldMap> {
        let class = self.vehicles.columns().mobility()[row];
        self.class_maps().of(class)
    }

    /// The map of mobility `class`, shared; `None` without a grid map.
    pub(super) fn class_map(&self, class: u8) -> Option<Arc<WorldMap>> {
        match usize::from(class).checked_sub(1) {
            Some(k) => self.class_maps.get(k).cloned(),
            None => self.config.map.grid_map().cloned(),
        }
    }

    /// The map of the mobility class `platoon`'s members share.
    pub(super) fn platoon_map(&self, platoon: &Platoon) -> Option<Arc<WorldMap>> {
        let row = platoon
            .occupied()
            .find_map(|(_, unit)| self.vehicles.row_of(unit));
        self.class_map(row.map_or(0, |row| self.vehicles.columns().mobility()[row]))
    }

    /// Gives `rect` the terrain `terrain` on the maps of classes 1 and up
    /// (class 0's map is the config's, edited by the caller).
    pub(super) fn edit_class_maps(&mut self, rect: CellRect, terrain: Terrain) -> Result<(), EditError> {
        for map in &mut self.class_maps {
            Arc::make_mut(map).set_cells(rect, terrain)?;
        }
        Ok(())
    }

    /// The maps of classes 1 and up built on `base` (a restored world's
    /// class 0 map, edits and all).
    pub(super) fn class_maps_on(&self, base: &WorldMap) -> Result<Vec<Arc<WorldMap>>, String> {
        self.config
            .mobility_classes
            .iter()
            .map(|&mobility| base.for_mobility(mobility).map(Arc::new).map_err(|error| error.to_string()))
            .collect()
    }

    /// Refuses restored `vehicles` of a mobility class this world lacks.
    pub(super) fn check_mobility(&self, vehicles: &Vehicles) -> Result<(), SnapshotError> {
        let count = self.class_maps().count();
        let bad = vehicles
            .columns()
            .mobility()
            .iter()
            .position(|&class| usize::from(class) >= count);
        match bad {
            Some(row) => Err(SnapshotError::BadUnit {
                row,
                source: SpawnError::NoSuchMobilityClass {
                    class: vehicles.columns().mobility()[row],
                    count,
                },
            }),
            None => Ok(()),
        }
    }
}
