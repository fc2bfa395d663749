//! `convoy-bench replay`: run a profile, record its units every K ticks from
//! the vehicle columns (between ticks, outside `Sim::step`), and write one
//! self-contained HTML file that plays the run back on a canvas — scripts,
//! styles and data inline, no network.
//!
//! The units' encoding is in [`record`], the map's under them in [`map`];
//! the player (`player.html`) is plain JavaScript. With the URL hash
//! `#selftest` the player draws the first and last frames, then writes what
//! it drew into `<pre id="selftest">`, so a headless browser's `--dump-dom`
//! can check it (see `bench/tests/replay_browser.rs`); `#selftest&probe=X,Y;…`
//! and `&unit=U` add the colours the map paints at those world points and
//! under and beside unit U.

pub mod map;
pub mod record;

use std::path::PathBuf;

use base64::Engine as _;
use clap::Args;
use convoy::Stage;
use serde::Serialize;

use self::map::MapLayer;
use self::record::{
    BYTES_PER_UNIT_FRAME, Change, FrameInfo, POSITION_STEPS, Recorder, Recording, RouteChange,
    UnitTable,
};
use crate::CliError;
use crate::render::layers::{KIND_COLOURS, KIND_SHAPES, REPLAY_LAYERS, kind_name};
use crate::render::{build_sim, load_profile};

/// The player page; `@@TITLE@@`, `@@DATA@@` and `@@MOTION@@` are filled in.
const PLAYER: &str = include_str!("player.html");

/// Options of `convoy-bench replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// Profile TOML file; the embedded default profile when absent.
    profile: Option<PathBuf>,
    /// Ticks to run (default: the profile's `run.ticks`).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(1..))]
    ticks: Option<i64>,
    /// Record a frame every K ticks (and the spawn state).
    #[arg(long, value_name = "K", default_value_t = 1, allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(1..))]
    every: i64,
    /// The HTML file to write.
    #[arg(long, value_name = "FILE.html")]
    out: PathBuf,
    /// Units to spawn (overrides `scenario.units`).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(1..=i64::from(u32::MAX)))]
    units: Option<i64>,
    /// Worker threads (default one per core; the run is the same whatever
    /// the count).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = clap::value_parser!(i64).range(1..=1024))]
    threads: Option<i64>,
}

/// What the player reads besides the motion bytes.
#[derive(Serialize)]
struct Header<'a> {
    name: &'a str,
    source: &'a str,
    dt: f32,
    every: u64,
    slots: usize,
    units: usize,
    bounds: [[f32; 2]; 2],
    cell_size: f32,
    stages: Vec<&'static str>,
    budgets_ms: [f32; 7],
    layers: Vec<&'static str>,
    kinds: Vec<&'static str>,
    kind_colours: [&'static str; 5],
    kind_shapes: [&'static [[f64; 2]]; 5],
    bytes_per_unit_frame: usize,
    position_steps: f32,
    unit: &'a UnitTable,
    frames: &'a [FrameInfo],
    changes: &'a [Change],
    routes: &'a [RouteChange],
    map: Option<&'a MapLayer>,
}

/// Records the run and writes the player.
pub fn replay(args: &ReplayArgs) -> Result<(), CliError> {
    let (mut profile, source) = load_profile(args.profile.as_deref())?;
    let mut sim = build_sim(&mut profile, &source, args.units, args.threads)?;
    // The parsers admit only positive values.
    let ticks = args.ticks.map_or(profile.run.ticks, |ticks| ticks as u64);
    let every = args.every as u64;
    let frames = (ticks / every) as usize + 1;
    sim.trace_ticks(ticks as usize);
    let mut recorder = Recorder::new(&sim, frames)?;
    recorder.record(&sim, None)?;
    let mut map = MapLayer::of(&profile, &sim)?;
    let mut orders = convoy_scenarios::Orders::new(&profile, &sim);
    for tick in 1..=ticks {
        orders
            .before_step(&mut sim)
            .map_err(|error| CliError::Setup(format!("{source}: {error}")))?;
        sim.step(profile.run.dt);
        if tick.is_multiple_of(every) {
            let stage_ms = sim.trace().last().copied();
            recorder.record(&sim, stage_ms)?;
            if let Some(map) = &mut map {
                map.record(&sim, (tick / every) as usize);
            }
        }
    }
    let recording = recorder.finish();
    let budgets = sim.budgets();
    let mut budgets_ms = [budgets.frame.as_secs_f32() * 1e3; 7];
    for (slot, budget) in budgets_ms.iter_mut().zip(budgets.stages) {
        *slot = budget.as_secs_f32() * 1e3;
    }
    let cell_size = sim
        .config()
        .cell_size
        .unwrap_or(sim.config().neighbour_radius);
    let header = Header {
        name: &profile.name,
        source: &source,
        dt: profile.run.dt,
        every,
        slots: recording.slots,
        units: sim.vehicles().len(),
        bounds: [
            [recording.bounds.min.x, recording.bounds.min.y],
            [recording.bounds.max.x, recording.bounds.max.y],
        ],
        cell_size,
        stages: Stage::ALL
            .map(Stage::name)
            .into_iter()
            .chain(["tick"])
            .collect(),
        budgets_ms,
        layers: map
            .iter()
            .flat_map(MapLayer::layer_names)
            .chain(REPLAY_LAYERS)
            .collect(),
        kinds: (0..5).map(kind_name).collect(),
        kind_colours: KIND_COLOURS,
        kind_shapes: KIND_SHAPES,
        bytes_per_unit_frame: BYTES_PER_UNIT_FRAME,
        position_steps: POSITION_STEPS,
        unit: &recording.units,
        frames: &recording.frames,
        changes: &recording.changes,
        routes: &recording.route_changes,
        map: map.as_ref(),
    };
    let title = format!("{}: {} units, {ticks} ticks", profile.name, header.units);
    let page = page(&title, &header, &recording)?;
    std::fs::write(&args.out, page).map_err(|error| CliError::Output {
        path: args.out.display().to_string(),
        reason: error.to_string(),
    })
}

/// The player with the recording inlined.
fn page(title: &str, header: &Header<'_>, recording: &Recording) -> Result<String, CliError> {
    let data = serde_json::to_string(header)
        .map_err(|error| CliError::Setup(format!("replay: cannot encode the header: {error}")))?
        // `<` appears only inside JSON strings, where `\u003c` means the
        // same: the script element cannot be closed early.
        .replace('<', "\\u003c");
    let motion = base64::engine::general_purpose::STANDARD.encode(&recording.motion);
    let title = crate::render::svg::escape(title);
    Ok(fill(
        PLAYER,
        &[
            ("@@TITLE@@", &title),
            ("@@DATA@@", &data),
            ("@@MOTION@@", &motion),
        ],
    ))
}

/// `template` with each placeholder replaced, in order; text inside the
/// values is never searched, so a value may contain anything.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let extra: usize = values.iter().map(|(_, value)| value.len()).sum();
    let mut out = String::with_capacity(template.len() + extra);
    let mut rest = template;
    for (placeholder, value) in values {
        let (before, after) = rest
            .split_once(placeholder)
            .expect("the player template holds each placeholder once, in order");
        out.push_str(before);
        out.push_str(value);
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_player_template_holds_each_placeholder_once() {
        for placeholder in ["@@TITLE@@", "@@DATA@@", "@@MOTION@@"] {
            assert_eq!(PLAYER.matches(placeholder).count(), 1, "{placeholder}");
        }
        let page = fill(
            PLAYER,
            &[
                ("@@TITLE@@", "@@DATA@@"),
                ("@@DATA@@", "{}"),
                ("@@MOTION@@", ""),
            ],
        );
        assert!(page.contains("<title>@@DATA@@</title>"));
    }
}
