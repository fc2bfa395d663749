//! `run --plot FILE.svg`: every stage's time per tick against its budget, so
//! spikes stand out at a glance. Drawn with plotters' SVG backend.

use std::path::Path;

use convoy::Stage;
use convoy::TickTrace;
use plotters::prelude::*;

use crate::CliError;

const COLOURS: [RGBColor; 7] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(60, 60, 60),
];

/// Draws one line per stage (and the whole tick) and a dashed budget line
/// for each, with `budgets_ms` in the same order as the trace columns.
pub fn plot(
    path: &Path,
    title: &str,
    trace: &[TickTrace],
    budgets_ms: [f32; 7],
) -> Result<(), CliError> {
    let failed = |reason: String| CliError::Output {
        path: path.display().to_string(),
        reason,
    };
    let top = trace
        .iter()
        .flat_map(|tick| tick.iter().copied())
        .chain(budgets_ms)
        .fold(0.0f32, f32::max)
        * 1.1;
    let root = SVGBackend::new(path, (1200, 700)).into_drawing_area();
    root.fill(&WHITE)
        .map_err(|error| failed(error.to_string()))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0..trace.len().max(1), 0.0f32..top.max(1e-3))
        .map_err(|error| failed(error.to_string()))?;
    chart
        .configure_mesh()
        .x_desc("tick")
        .y_desc("milliseconds")
        .draw()
        .map_err(|error| failed(error.to_string()))?;
    let names = Stage::ALL.map(Stage::name);
    for (column, colour) in COLOURS.iter().enumerate() {
        let name = names.get(column).copied().unwrap_or("tick");
        let series = trace
            .iter()
            .enumerate()
            .map(|(tick, times)| (tick, times[column]));
        chart
            .draw_series(LineSeries::new(series, colour))
            .map_err(|error| failed(error.to_string()))?
            .label(name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], colour));
        let budget = budgets_ms[column];
        let dashes = (0..trace.len()).step_by(8).map(move |tick| {
            PathElement::new(
                vec![(tick, budget), ((tick + 4).min(trace.len()), budget)],
                colour.stroke_width(1),
            )
        });
        chart
            .draw_series(dashes)
            .map_err(|error| failed(error.to_string()))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|error| failed(error.to_string()))?;
    root.present().map_err(|error| failed(error.to_string()))
}
