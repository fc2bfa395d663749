//! Recording a run from the vehicle columns, compactly, between ticks.
//!
//! Each recorded frame stores, for every handle slot (so a unit keeps its
//! place across the kernel's row reorders), three planar arrays:
//! `x: u16`, `y: u16` (fixed point over the world bounds: 65,534 steps, e.g.
//! 2.3 cm on the default profile's 1.5 km) and `heading: u8` (256 steps of
//! 1.4°), little-endian — [`BYTES_PER_UNIT_FRAME`] bytes per unit per frame,
//! whatever the motion, so the size of a replay is known before it is
//! recorded. Columns that change rarely (goal, drive-to, platoon, slot) are
//! stored once and then only as changes; columns a run never changes (kind,
//! top speed, shield) once. Each unit's route — the corners it has still to
//! reach, `route_next` on — is stored as a change whenever it changes (a
//! new plan, or a corner passed): routes come only from a `[map]`.

use std::f32::consts::TAU;

use convoy::data::vehicles::Columns;
use convoy::glam::Vec2;
use convoy::{Bounds, Sim};
use serde::Serialize;

use crate::CliError;

/// Bytes one unit takes in one frame: x and y as `u16`, heading as `u8`.
pub const BYTES_PER_UNIT_FRAME: usize = 5;
/// Largest quantised coordinate; `u16::MAX` marks an empty handle slot.
pub const POSITION_STEPS: f32 = 65_534.0;
/// A handle slot with no live unit in this frame.
const ABSENT: u16 = u16::MAX;

/// The columns stored once per unit, in handle-slot order.
#[derive(Clone, Debug, Default, Serialize)]
pub struct UnitTable {
    /// `VehicleKind` as `u8`.
    pub kind: Vec<u8>,
    /// Top speed, m/s.
    pub max_speed: Vec<f32>,
    /// Shield semi-axes (forward, lateral, vertical), metres.
    pub shield: Vec<[f32; 3]>,
    /// Goal at the first frame.
    pub goal: Vec<[f32; 2]>,
    /// Drive-to point at the first frame.
    pub drive_to: Vec<[f32; 2]>,
    /// Platoon index at the first frame (`u32::MAX`: none).
    pub platoon: Vec<u32>,
    /// Formation slot at the first frame (`u32::MAX`: none).
    pub slot: Vec<u32>,
}

/// A rarely-changing column's new values for one unit, from `frame` on.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Change {
    /// Frame index.
    pub frame: usize,
    /// Handle slot.
    pub unit: usize,
    /// Goal.
    pub goal: [f32; 2],
    /// Drive-to point.
    pub drive_to: [f32; 2],
    /// Platoon index.
    pub platoon: u32,
    /// Formation slot.
    pub slot: u32,
}

/// A unit's remaining route corners from `frame` on (empty: no route).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RouteChange {
    /// Frame index.
    pub frame: usize,
    /// Handle slot.
    pub unit: usize,
    /// The corners still to reach, in order; the last is the route's end.
    pub corners: Vec<[f32; 2]>,
}

/// One recorded frame's tick and the stage times of that tick.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct FrameInfo {
    /// Ticks stepped before the frame was taken.
    pub tick: u64,
    /// Milliseconds of each stage and of the whole tick (the last tick
    /// before the frame); `None` for the spawn state.
    pub stage_ms: Option<[f32; 7]>,
}

/// A run being recorded.
#[derive(Debug)]
pub struct Recorder {
    bounds: Bounds,
    slots: usize,
    units: UnitTable,
    last: Vec<Change>,
    frames: Vec<FrameInfo>,
    changes: Vec<Change>,
    /// Each handle slot's remaining corners as last recorded.
    last_routes: Vec<Vec<[f32; 2]>>,
    route_changes: Vec<RouteChange>,
    motion: Vec<u8>,
}

/// A finished recording.
#[derive(Debug)]
pub struct Recording {
    /// The rectangle positions are quantised over.
    pub bounds: Bounds,
    /// Units per frame (handle slots).
    pub slots: usize,
    /// Once-per-unit columns.
    pub units: UnitTable,
    /// Per-frame tick and stage times.
    pub frames: Vec<FrameInfo>,
    /// Changes of the rarely-changing columns.
    pub changes: Vec<Change>,
    /// Changes of the units' remaining routes.
    pub route_changes: Vec<RouteChange>,
    /// [`BYTES_PER_UNIT_FRAME`] × `slots` bytes per frame.
    pub motion: Vec<u8>,
}

/// `value` in `min..min + size` as a fixed-point step.
#[must_use]
pub fn quantise_position(value: f32, min: f32, size: f32) -> u16 {
    (((value - min) / size).clamp(0.0, 1.0) * POSITION_STEPS).round() as u16
}

/// A heading as 1/256ths of a turn.
#[must_use]
pub fn quantise_heading(heading: f32) -> u8 {
    ((heading.rem_euclid(TAU) / TAU * 256.0).round() as u32 % 256) as u8
}

fn pair(value: Vec2) -> [f32; 2] {
    [value.x, value.y]
}

impl Recorder {
    /// Starts a recording of `sim`'s units, sized for `frames` frames.
    pub fn new(sim: &Sim, frames: usize) -> Result<Recorder, CliError> {
        let columns = sim.vehicles().columns();
        let slots = columns
            .handle_slot()
            .iter()
            .max()
            .map_or(0, |&slot| slot as usize + 1);
        let mut units = UnitTable::default();
        let mut last = vec![
            Change {
                frame: 0,
                unit: 0,
                goal: [0.0; 2],
                drive_to: [0.0; 2],
                platoon: u32::MAX,
                slot: u32::MAX,
            };
            slots
        ];
        units.kind = vec![0; slots];
        units.max_speed = vec![0.0; slots];
        units.shield = vec![[0.0; 3]; slots];
        for (row, &handle) in columns.handle_slot().iter().enumerate() {
            let unit = handle as usize;
            units.kind[unit] = columns.kind()[row];
            units.max_speed[unit] = columns.max_speed()[row];
            let shield = columns.shield()[row];
            units.shield[unit] = [shield.x, shield.y, shield.z];
            last[unit] = slow_columns(columns, row, 0, unit);
        }
        units.goal = last.iter().map(|change| change.goal).collect();
        units.drive_to = last.iter().map(|change| change.drive_to).collect();
        units.platoon = last.iter().map(|change| change.platoon).collect();
        units.slot = last.iter().map(|change| change.slot).collect();
        Ok(Recorder {
            bounds: sim.config().bounds,
            slots,
            units,
            last,
            frames: Vec::with_capacity(frames),
            changes: Vec::new(),
            last_routes: vec![Vec::new(); slots],
            route_changes: Vec::new(),
            motion: Vec::with_capacity(frames * slots * BYTES_PER_UNIT_FRAME),
        })
    }

    /// Appends the current state of `sim` as a frame, with the stage times
    /// of the tick that led to it.
    pub fn record(&mut self, sim: &Sim, stage_ms: Option<[f32; 7]>) -> Result<(), CliError> {
        let columns = sim.vehicles().columns();
        let frame = self.frames.len();
        let base = self.motion.len();
        self.motion
            .resize(base + self.slots * BYTES_PER_UNIT_FRAME, 0);
        let (xs, rest) = self.motion[base..].split_at_mut(2 * self.slots);
        let (ys, headings) = rest.split_at_mut(2 * self.slots);
        for empty in xs.chunks_exact_mut(2).chain(ys.chunks_exact_mut(2)) {
            empty.copy_from_slice(&ABSENT.to_le_bytes());
        }
        let (min, size) = (self.bounds.min, self.bounds.size());
        for (row, &handle) in columns.handle_slot().iter().enumerate() {
            let unit = handle as usize;
            if unit >= self.slots {
                return Err(CliError::Setup(format!(
                    "replay: unit slot {unit} appeared after the recording started with {} slots",
                    self.slots
                )));
            }
            let position = columns.position()[row];
            let x = quantise_position(position.x, min.x, size.x);
            let y = quantise_position(position.y, min.y, size.y);
            xs[2 * unit..2 * unit + 2].copy_from_slice(&x.to_le_bytes());
            ys[2 * unit..2 * unit + 2].copy_from_slice(&y.to_le_bytes());
            headings[unit] = quantise_heading(columns.heading()[row]);
            let now = slow_columns(columns, row, frame, unit);
            if !same_slow_columns(&now, &self.last[unit]) {
                self.changes.push(now);
                self.last[unit] = now;
            }
        }
        for (row, &handle) in columns.handle_slot().iter().enumerate() {
            self.record_route(sim, row, frame, handle as usize);
        }
        self.frames.push(FrameInfo {
            tick: sim.tick_count(),
            stage_ms,
        });
        Ok(())
    }

    /// Stores `unit`'s remaining corners if they differ from the last
    /// ones stored.
    fn record_route(&mut self, sim: &Sim, row: usize, frame: usize, unit: usize) {
        let columns = sim.vehicles().columns();
        let (next, len) = (columns.route_next()[row], columns.route_len()[row]);
        let remaining = if next < len {
            &sim.routes().of(columns.handle_slot()[row])[next as usize..len as usize]
        } else {
            &[]
        };
        let last = &self.last_routes[unit];
        let same = remaining.len() == last.len()
            && remaining
                .iter()
                .zip(last)
                .all(|(now, then)| pair(*now).map(f32::to_bits) == then.map(f32::to_bits));
        if same {
            return;
        }
        let corners: Vec<[f32; 2]> = remaining.iter().copied().map(pair).collect();
        self.last_routes[unit].clone_from(&corners);
        self.route_changes.push(RouteChange {
            frame,
            unit,
            corners,
        });
    }

    /// The recording.
    #[must_use]
    pub fn finish(self) -> Recording {
        Recording {
            bounds: self.bounds,
            slots: self.slots,
            units: self.units,
            frames: self.frames,
            changes: self.changes,
            route_changes: self.route_changes,
            motion: self.motion,
        }
    }
}

fn slow_columns(columns: &Columns, row: usize, frame: usize, unit: usize) -> Change {
    Change {
        frame,
        unit,
        goal: pair(columns.goal()[row]),
        drive_to: pair(columns.drive_to()[row]),
        platoon: columns.platoon()[row],
        slot: columns.slot()[row],
    }
}

/// Equal values, compared bit for bit (frames differ).
fn same_slow_columns(a: &Change, b: &Change) -> bool {
    let bits = |c: &Change| {
        (
            c.goal.map(f32::to_bits),
            c.drive_to.map(f32::to_bits),
            c.platoon,
            c.slot,
        )
    };
    bits(a) == bits(b)
}

#[cfg(test)]
impl Recording {
    /// Decodes unit `unit`'s position and heading in frame `frame`, as the
    /// player does; `None` for an empty slot.
    #[must_use]
    pub fn decode(&self, frame: usize, unit: usize) -> Option<(Vec2, f32)> {
        let base = frame * self.slots * BYTES_PER_UNIT_FRAME;
        let u16_at =
            |offset: usize| u16::from_le_bytes([self.motion[offset], self.motion[offset + 1]]);
        let x = u16_at(base + 2 * unit);
        let y = u16_at(base + 2 * self.slots + 2 * unit);
        if x == ABSENT {
            return None;
        }
        let heading = self.motion[base + 4 * self.slots + unit];
        let (min, size) = (self.bounds.min, self.bounds.size());
        let position = Vec2::new(
            min.x + f32::from(x) / POSITION_STEPS * size.x,
            min.y + f32::from(y) / POSITION_STEPS * size.y,
        );
        Some((position, f32::from(heading) / 256.0 * TAU))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use convoy::{SimConfig, UnitSpec, VehicleKind};

    fn small_sim() -> (Sim, Vec<convoy::UnitId>) {
        let mut config = SimConfig::new(Bounds::new(Vec2::splat(-100.0), Vec2::splat(100.0)));
        config.threads = 1;
        let mut sim = Sim::new(config).unwrap();
        let ids = VehicleKind::ALL
            .into_iter()
            .enumerate()
            .map(|(i, kind)| {
                let mut spec =
                    UnitSpec::new(kind, Vec2::new(-60.0 + 25.0 * i as f32, 10.0 * i as f32));
                spec.goal = Vec2::new(50.0, -40.0 + 7.0 * i as f32);
                sim.spawn(&spec).unwrap()
            })
            .collect();
        (sim, ids)
    }

    #[test]
    fn decoded_frames_match_the_columns_within_one_quantisation_step() {
        let (mut sim, _) = small_sim();
        let mut recorder = Recorder::new(&sim, 4).unwrap();
        let mut expected = Vec::new();
        for _ in 0..4 {
            recorder.record(&sim, None).unwrap();
            let columns = sim.vehicles().columns();
            let mut by_slot = vec![(Vec2::ZERO, 0.0); columns.handle_slot().len()];
            for (row, &slot) in columns.handle_slot().iter().enumerate() {
                by_slot[slot as usize] = (columns.position()[row], columns.heading()[row]);
            }
            expected.push(by_slot);
            for _ in 0..20 {
                sim.step(1.0 / 60.0);
            }
        }
        let recording = recorder.finish();
        assert_eq!(
            recording.motion.len(),
            4 * 5 * BYTES_PER_UNIT_FRAME,
            "fixed size per unit and frame"
        );
        let step = 200.0 / POSITION_STEPS;
        for (frame, units) in expected.iter().enumerate() {
            for (unit, &(position, heading)) in units.iter().enumerate() {
                let (decoded, decoded_heading) = recording.decode(frame, unit).unwrap();
                assert!((decoded - position).abs().max_element() <= step * 0.5 + 1e-4);
                let turn = (decoded_heading - heading).rem_euclid(TAU);
                assert!(
                    turn.min(TAU - turn) <= TAU / 512.0 + 1e-5,
                    "{heading} vs {decoded_heading}"
                );
            }
        }
        assert!(
            expected[0][0].0 != expected[3][0].0,
            "units moved, so the frames differ"
        );
    }

    #[test]
    fn slow_columns_are_stored_only_when_they_change() {
        let (mut sim, ids) = small_sim();
        let mut recorder = Recorder::new(&sim, 3).unwrap();
        recorder.record(&sim, None).unwrap();
        sim.step(1.0 / 60.0);
        recorder.record(&sim, None).unwrap();
        sim.order_move(ids[2], Vec2::new(-90.0, 90.0)).unwrap();
        sim.step(1.0 / 60.0);
        recorder.record(&sim, None).unwrap();
        let recording = recorder.finish();
        assert_eq!(recording.changes.len(), 1, "{:?}", recording.changes);
        let change = recording.changes[0];
        assert_eq!((change.frame, change.unit), (2, ids[2].index as usize));
        assert_eq!(change.goal, [-90.0, 90.0]);
    }

    #[test]
    fn route_changes_replayed_in_order_give_every_frames_remaining_corners() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/visual/walls.toml");
        let profile = convoy_scenarios::Profile::load(&path).unwrap();
        let mut sim = convoy_scenarios::build(&profile, 1).unwrap();
        let frames = 40;
        let mut recorder = Recorder::new(&sim, frames).unwrap();
        let mut expected = Vec::new();
        for _ in 0..frames {
            recorder.record(&sim, None).unwrap();
            let columns = sim.vehicles().columns();
            let mut by_slot = vec![Vec::new(); columns.handle_slot().len()];
            for (row, &slot) in columns.handle_slot().iter().enumerate() {
                let (next, len) = (columns.route_next()[row], columns.route_len()[row]);
                by_slot[slot as usize] = sim.routes().of(slot)[..len as usize]
                    .iter()
                    .skip(next as usize)
                    .map(|point| [point.x, point.y])
                    .collect::<Vec<_>>();
            }
            expected.push(by_slot);
            sim.step(profile.run.dt);
        }
        let recording = recorder.finish();
        let mut now = vec![Vec::new(); recording.slots];
        let mut changes = recording.route_changes.iter().peekable();
        for (frame, expected) in expected.iter().enumerate() {
            while let Some(change) = changes.next_if(|change| change.frame == frame) {
                assert_ne!(now[change.unit], change.corners, "stored only on change");
                now[change.unit].clone_from(&change.corners);
            }
            assert_eq!(&now, expected, "frame {frame}");
        }
        assert!(changes.next().is_none(), "changes in frame order");
        assert!(
            expected
                .iter()
                .any(|frame| frame.iter().any(|route| route.len() > 1)),
            "the run has routes with corners to pass"
        );
        assert!(
            recording.route_changes.len() < frames * recording.slots / 2,
            "{} changes in {frames} frames of {} units",
            recording.route_changes.len(),
            recording.slots
        );
    }

    #[test]
    fn headings_wrap_to_one_turn() {
        assert_eq!(quantise_heading(0.0), 0);
        assert_eq!(quantise_heading(TAU), 0);
        assert_eq!(quantise_heading(-TAU / 4.0), 192);
        assert_eq!(quantise_heading(TAU / 2.0), 128);
    }
}
