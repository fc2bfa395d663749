//! `quality --plot FILE.svg`: the fraction of agents arrived over simulated
//! time, one panel per scenario, convoy and ORCA in two colours: solid
//! within the arrival radius, dashed within the looser radius convoy's
//! units stop at. Drawn with plotters' SVG backend in the style of
//! `run --plot`.

use std::path::Path;

use plotters::prelude::*;

use super::QualityReport;
use crate::CliError;

/// convoy's and ORCA's colours (those of `run --plot`'s first two lines).
const COLOURS: [RGBColor; 2] = [RGBColor(31, 119, 180), RGBColor(255, 127, 14)];
/// Panels per row.
const COLUMNS: usize = 4;
/// One panel's size, pixels.
const PANEL: (u32, u32) = (420, 320);

/// Draws every scenario of `report` to `path`.
pub fn plot(path: &Path, report: &QualityReport) -> Result<(), CliError> {
    let failed = |reason: String| CliError::Output {
        path: path.display().to_string(),
        reason,
    };
    let count = report.scenarios.len().max(1);
    let columns = count.min(COLUMNS);
    let rows = count.div_ceil(columns);
    let size = (PANEL.0 * columns as u32, PANEL.1 * rows as u32 + 40);
    let root = SVGBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE)
        .map_err(|error| failed(error.to_string()))?;
    let root = root
        .titled(
            &format!(
                "Fraction of agents within {} m of their goals (solid) and within {} m (dashed): \
                 convoy blue, ORCA (dodgy_2d) orange",
                report.arrival_radius_m, report.loose_arrival_radius_m
            ),
            ("sans-serif", 20),
        )
        .map_err(|error| failed(error.to_string()))?;
    let panels = root.split_evenly((rows, columns));
    for (scenario, panel) in report.scenarios.iter().zip(&panels) {
        let limit = f64::from(scenario.time_limit_s);
        let mut chart = ChartBuilder::on(panel)
            .caption(
                format!("{} ({} agents)", scenario.name, scenario.agents),
                ("sans-serif", 16),
            )
            .margin(10)
            .x_label_area_size(32)
            .y_label_area_size(44)
            .build_cartesian_2d(0.0..limit, 0.0..1.05)
            .map_err(|error| failed(error.to_string()))?;
        chart
            .configure_mesh()
            .x_desc("simulated s")
            .y_desc("arrived")
            .draw()
            .map_err(|error| failed(error.to_string()))?;
        let systems = [("convoy", &scenario.convoy), ("dodgy", &scenario.dodgy)];
        for ((name, outcome), colour) in systems.into_iter().zip(&COLOURS) {
            let over_time = |series: &[f64]| {
                series
                    .iter()
                    .enumerate()
                    .map(|(second, &fraction)| (second as f64, fraction))
                    .collect::<Vec<_>>()
            };
            chart
                .draw_series(LineSeries::new(
                    over_time(&outcome.arrivals),
                    colour.stroke_width(2),
                ))
                .map_err(|error| failed(error.to_string()))?
                .label(name)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], colour));
            chart
                .draw_series(DashedLineSeries::new(
                    over_time(&outcome.arrivals_loose),
                    6,
                    4,
                    colour.stroke_width(1),
                ))
                .map_err(|error| failed(error.to_string()))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|error| failed(error.to_string()))?;
    }
    root.present().map_err(|error| failed(error.to_string()))
}
