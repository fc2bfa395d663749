//! A small SVG writer for scenes: a world-to-pixel view, grouped elements
//! with absolute pixel coordinates (so tests can read positions straight off
//! the file), a legend band and a scale bar.

use std::fmt::Write as _;

/// Pixels around the scene.
const MARGIN_PX: f64 = 10.0;
/// Height of one row of the legend under the scene.
const LEGEND_ROW_PX: f64 = 18.0;
/// Height of the title line under the legend (and room for the scale bar).
const TITLE_PX: f64 = 40.0;

/// Maps a world rectangle onto the picture, uniformly scaled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    min: [f64; 2],
    max: [f64; 2],
    /// Pixels per world unit.
    scale: f64,
    /// World y grows upwards (profiles: y north); otherwise downwards (map
    /// rows).
    y_up: bool,
    /// Leave out elements wholly outside `min..max` (a zoomed `--view`);
    /// otherwise everything is written, even what lies off the picture.
    cull: bool,
}

impl View {
    /// A view of `min..max` fitted to `width_px` pixels across.
    #[must_use]
    pub fn fit(min: [f64; 2], max: [f64; 2], width_px: u32, y_up: bool) -> View {
        let span = (max[0] - min[0]).max(f64::MIN_POSITIVE);
        View {
            min,
            max,
            scale: f64::from(width_px) / span,
            y_up,
            cull: false,
        }
    }

    /// The same view, leaving out elements wholly outside it.
    #[must_use]
    pub fn culling(self) -> View {
        View { cull: true, ..self }
    }

    /// Whether anything in the world box `lo..hi` may show.
    #[must_use]
    pub fn sees(&self, lo: [f64; 2], hi: [f64; 2]) -> bool {
        !self.cull
            || (lo[0] <= self.max[0]
                && hi[0] >= self.min[0]
                && lo[1] <= self.max[1]
                && hi[1] >= self.min[1])
    }

    /// Pixels per world unit.
    #[must_use]
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// Whether world y points up the picture.
    #[must_use]
    pub fn y_up(&self) -> bool {
        self.y_up
    }

    /// Pixel position of a world point.
    #[must_use]
    pub fn px(&self, x: f64, y: f64) -> [f64; 2] {
        let px = MARGIN_PX + (x - self.min[0]) * self.scale;
        let py = if self.y_up {
            MARGIN_PX + (self.max[1] - y) * self.scale
        } else {
            MARGIN_PX + (y - self.min[1]) * self.scale
        };
        [px, py]
    }

    /// The picture's width and the scene's height, pixels.
    fn scene_px(&self) -> [f64; 2] {
        [
            (self.max[0] - self.min[0]) * self.scale + 2.0 * MARGIN_PX,
            (self.max[1] - self.min[1]) * self.scale + 2.0 * MARGIN_PX,
        ]
    }
}

/// How a legend entry's swatch looks.
#[derive(Clone, Debug, PartialEq)]
pub struct Swatch {
    /// Label.
    pub label: String,
    /// Fill colour (CSS), or `none`.
    pub fill: &'static str,
    /// Stroke colour (CSS), or `none`.
    pub stroke: &'static str,
}

/// Where a layer began, to drop it when it had nothing to draw.
#[derive(Clone, Copy, Debug)]
pub struct LayerMark {
    body: usize,
    legend: usize,
}

/// An SVG document being written.
#[derive(Debug)]
pub struct Svg {
    view: View,
    body: String,
    legend: Vec<Swatch>,
}

/// A number as SVG writes it: two decimals, enough for pixels.
pub fn num(value: f64) -> String {
    format!("{value:.2}")
}

/// Escapes text for XML content and attribute values.
#[must_use]
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

impl Svg {
    /// An empty document over `view`.
    #[must_use]
    pub fn new(view: View) -> Svg {
        Svg {
            view,
            body: String::new(),
            legend: Vec::new(),
        }
    }

    /// The view elements are placed in.
    #[must_use]
    pub fn view(&self) -> View {
        self.view
    }

    /// Opens a group for one layer (`<g class="layer" id="layer-NAME" …>`)
    /// and returns a mark for [`Svg::discard_layer`].
    pub fn open_layer(&mut self, name: &str, style: &str) -> LayerMark {
        let mark = LayerMark {
            body: self.body.len(),
            legend: self.legend.len(),
        };
        let _ = writeln!(self.body, r#"<g class="layer" id="layer-{name}" {style}>"#);
        mark
    }

    /// Closes the group opened by [`Svg::open_layer`].
    pub fn close_layer(&mut self) {
        self.body.push_str("</g>\n");
    }

    /// Forgets everything written since `mark`: a layer with no data.
    pub fn discard_layer(&mut self, mark: LayerMark) {
        self.body.truncate(mark.body);
        self.legend.truncate(mark.legend);
    }

    /// Writes `<tag attr="value" …/>`; values are escaped.
    pub fn element(&mut self, tag: &str, attributes: &[(&str, String)]) {
        self.body.push('<');
        self.body.push_str(tag);
        for (name, value) in attributes {
            let _ = write!(self.body, r#" {name}="{}""#, escape(value));
        }
        self.body.push_str("/>\n");
    }

    /// A polyline through world points.
    pub fn polyline(&mut self, class: &str, points: impl IntoIterator<Item = [f64; 2]>) {
        let points = self.points(points);
        self.element(
            "polyline",
            &[("class", class.to_owned()), ("points", points)],
        );
    }

    /// An axis-aligned rectangle with world corner `min` and world size.
    pub fn rect(&mut self, class: &str, min: [f64; 2], size: [f64; 2]) {
        if !self.view.sees(min, [min[0] + size[0], min[1] + size[1]]) {
            return;
        }
        let a = self.view.px(min[0], min[1]);
        let b = self.view.px(min[0] + size[0], min[1] + size[1]);
        self.element(
            "rect",
            &[
                ("class", class.to_owned()),
                ("x", num(a[0].min(b[0]))),
                ("y", num(a[1].min(b[1]))),
                ("width", num((b[0] - a[0]).abs())),
                ("height", num((b[1] - a[1]).abs())),
            ],
        );
    }

    /// A circle of `radius_px` pixels at a world point.
    pub fn circle(&mut self, class: &str, centre: [f64; 2], radius_px: f64) {
        if !self.view.sees(centre, centre) {
            return;
        }
        let [cx, cy] = self.view.px(centre[0], centre[1]);
        self.element(
            "circle",
            &[
                ("class", class.to_owned()),
                ("cx", num(cx)),
                ("cy", num(cy)),
                ("r", num(radius_px)),
            ],
        );
    }

    /// One `<path>` of straight segments between world points.
    pub fn segments(&mut self, class: &str, segments: impl IntoIterator<Item = [[f64; 2]; 2]>) {
        let mut d = String::new();
        for [a, b] in segments {
            let lo = [a[0].min(b[0]), a[1].min(b[1])];
            let hi = [a[0].max(b[0]), a[1].max(b[1])];
            if !self.view.sees(lo, hi) {
                continue;
            }
            let (a, b) = (self.view.px(a[0], a[1]), self.view.px(b[0], b[1]));
            let _ = write!(
                d,
                "M{} {}L{} {}",
                num(a[0]),
                num(a[1]),
                num(b[0]),
                num(b[1])
            );
        }
        if !d.is_empty() {
            self.element("path", &[("class", class.to_owned()), ("d", d)]);
        }
    }

    /// A dark text label, haloed in the background colour so it reads over
    /// anything, whose baseline starts `offset_px` pixels right of and above
    /// a world point.
    pub fn text(&mut self, class: &str, at: [f64; 2], offset_px: f64, text: &str) {
        if !self.view.sees(at, at) {
            return;
        }
        let [x, y] = self.view.px(at[0], at[1]);
        let _ = writeln!(
            self.body,
            r##"<text class="{}" x="{}" y="{}" fill="#222" stroke="#fbfbf8" stroke-width="3" paint-order="stroke">{}</text>"##,
            escape(class),
            num(x + offset_px),
            num(y - offset_px),
            escape(text)
        );
    }

    /// Adds an entry to the legend.
    pub fn legend(&mut self, swatch: Swatch) {
        self.legend.push(swatch);
    }

    /// World points as an SVG `points` attribute, in pixels.
    pub fn points(&self, points: impl IntoIterator<Item = [f64; 2]>) -> String {
        let mut out = String::new();
        for [x, y] in points {
            let [px, py] = self.view.px(x, y);
            if !out.is_empty() {
                out.push(' ');
            }
            let _ = write!(out, "{},{}", num(px), num(py));
        }
        out
    }

    /// The whole document: title, scene, legend band and a scale bar whose
    /// length is a round number of `unit`s.
    #[must_use]
    pub fn finish(self, title: &str, unit: &str) -> String {
        let [width, scene_height] = self.view.scene_px();
        let legend = self.legend_layout(width);
        let rows = legend.last().map_or(1, |&(_, row, _)| row + 1);
        let height = scene_height + LEGEND_ROW_PX * rows as f64 + TITLE_PX;
        let mut out = String::new();
        let _ = writeln!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" font-family="sans-serif" font-size="12">"#,
            w = num(width),
            h = num(height)
        );
        let _ = writeln!(out, "<title>{}</title>", escape(title));
        let _ = writeln!(
            out,
            r##"<rect class="background" x="0" y="0" width="{}" height="{}" fill="#fbfbf8"/>"##,
            num(width),
            num(height)
        );
        let _ = writeln!(
            out,
            r#"<clipPath id="scene-clip"><rect x="0" y="0" width="{}" height="{}"/></clipPath><g class="scene" clip-path="url(#scene-clip)">"#,
            num(width),
            num(scene_height)
        );
        out.push_str(&self.body);
        out.push_str("</g>\n");
        let _ = writeln!(out, r#"<g class="legend">"#);
        for (x, row, swatch) in legend {
            let y = scene_height + 6.0 + LEGEND_ROW_PX * row as f64;
            let _ = writeln!(
                out,
                r#"<rect class="swatch" x="{}" y="{}" width="14" height="10" fill="{}" stroke="{}"/><text x="{}" y="{}">{}</text>"#,
                num(x),
                num(y),
                swatch.fill,
                swatch.stroke,
                num(x + 18.0),
                num(y + 9.5),
                escape(&swatch.label)
            );
        }
        out.push_str("</g>\n");
        self.write_scale_bar(&mut out, scene_height, unit);
        let _ = writeln!(
            out,
            r##"<text class="title" x="{}" y="{}" fill="#333">{}</text>"##,
            num(MARGIN_PX),
            num(height - 8.0),
            escape(title)
        );
        out.push_str("</svg>\n");
        out
    }

    /// Each legend entry's x and row: left to right after the scale bar,
    /// wrapping at the picture's width.
    fn legend_layout(&self, width: f64) -> Vec<(f64, usize, &Swatch)> {
        let left = MARGIN_PX + 150.0;
        let (mut x, mut row) = (left, 0);
        let mut out = Vec::with_capacity(self.legend.len());
        for swatch in &self.legend {
            let entry_px = 7.0 * swatch.label.chars().count() as f64 + 30.0;
            if x + entry_px > width && x > left {
                x = left;
                row += 1;
            }
            out.push((x, row, swatch));
            x += entry_px;
        }
        out
    }

    fn write_scale_bar(&self, out: &mut String, top: f64, unit: &str) {
        let length = round_length(100.0 / self.view.scale);
        let bar_px = length * self.view.scale;
        let (x, y) = (MARGIN_PX, top + 16.0);
        let _ = writeln!(
            out,
            r##"<g class="scale-bar" data-length="{length}" data-length-px="{}"><path d="M{x0} {y1}V{y}H{x1}V{y1}" fill="none" stroke="#222" stroke-width="1.5"/><text x="{x0}" y="{ty}">{length} {unit}</text></g>"##,
            num(bar_px),
            x0 = num(x),
            x1 = num(x + bar_px),
            y = num(y),
            y1 = num(y - 5.0),
            ty = num(y + 14.0),
        );
    }
}

/// The largest 1, 2 or 5 × 10^k not above `at_most` (at least 1e-3).
#[must_use]
pub fn round_length(at_most: f64) -> f64 {
    let at_most = at_most.max(1e-3);
    let decade = 10f64.powf(at_most.log10().floor());
    [5.0, 2.0, 1.0]
        .into_iter()
        .map(|step| step * decade)
        .find(|&length| length <= at_most)
        .unwrap_or(decade)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_y_up_view_puts_north_at_the_top() {
        let view = View::fit([0.0, 0.0], [100.0, 50.0], 200, true);
        assert_eq!(view.px(0.0, 50.0), [MARGIN_PX, MARGIN_PX]);
        assert_eq!(view.px(100.0, 0.0), [MARGIN_PX + 200.0, MARGIN_PX + 100.0]);
        let down = View::fit([0.0, 0.0], [100.0, 50.0], 200, false);
        assert_eq!(down.px(0.0, 0.0), [MARGIN_PX, MARGIN_PX]);
    }

    #[test]
    fn scale_bar_lengths_are_round_and_never_longer_than_asked() {
        for (at_most, expected) in [(137.0, 100.0), (99.0, 50.0), (3.3, 2.0), (0.7, 0.5)] {
            assert!((round_length(at_most) - expected).abs() < 1e-9, "{at_most}");
        }
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape(r#"a<b & "c">"#), "a&lt;b &amp; &quot;c&quot;&gt;");
    }
}
