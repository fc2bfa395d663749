//! Loaders for the Moving AI benchmark formats: `.map` grids and `.scen`
//! scenario lists.
//!
//! Formats as specified in Sturtevant, *Benchmarks for Grid-Based
//! Pathfinding* (IEEE TCIAIG 2012) and on movingai.com/benchmarks/formats:
//!
//! - `.map`: `type octile`, `height N`, `width N` (either order), `map`, then
//!   `height` rows of exactly `width` characters (terrain letters in
//!   [`Terrain::from_movingai`]). `(width + 2) * (height + 2)` (the map
//!   with its one-cell border) must not exceed
//!   [`MAX_CELLS`](super::grid::MAX_CELLS); a larger or zero size is a
//!   [`MapParseError::BadSize`] naming the `map` line.
//! - `.scen`: `version 1` (or `version 1.0`), then one query per line:
//!   `bucket map width height start_x start_y goal_x goal_y optimal_length`,
//!   columns separated by tabs or spaces.
//!
//! Both accept LF or CRLF line endings, with or without a final newline, and
//! ignore blank lines after the data. Every malformed input gives a typed
//! error carrying the 1-based line number; nothing here panics on bad input.
//! [`load_map`] and [`load_scen`] add the file name.

use std::path::{Path, PathBuf};

use thiserror::Error;

use super::grid::{Cell, CostGrid, GridError, GridMap, Terrain, check_size};

/// What is wrong with the text of a `.map` file.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MapParseError {
    /// A header line is missing or not what the format requires.
    #[error("line {line}: expected {expected}, found {found:?}")]
    BadHeader {
        /// 1-based line number.
        line: usize,
        /// What the format wants there.
        expected: &'static str,
        /// What the line holds.
        found: String,
    },
    /// A header number does not parse.
    #[error("line {line}: {what} {text:?} is not a number")]
    BadNumber {
        /// 1-based line number.
        line: usize,
        /// `height` or `width`.
        what: &'static str,
        /// The text.
        text: String,
    },
    /// The header declares an impossible size.
    #[error("line {line}: {source}")]
    BadSize {
        /// 1-based line number of the `map` line.
        line: usize,
        /// Why.
        source: GridError,
    },
    /// A row is not `width` characters long.
    #[error("line {line}: row {row} has {actual} characters, the header says width {expected}")]
    RowWidth {
        /// 1-based line number.
        line: usize,
        /// 0-based map row.
        row: usize,
        /// Header width.
        expected: usize,
        /// Characters found.
        actual: usize,
    },
    /// Fewer or more rows than the header's height.
    #[error("line {line}: found {actual} rows, the header says height {expected}")]
    RowCount {
        /// 1-based line number: the first extra row, or the line after the
        /// last row when rows are missing.
        line: usize,
        /// Header height.
        expected: usize,
        /// Rows found.
        actual: usize,
    },
    /// A character that is no terrain letter.
    #[error("line {line}, column {column}: unknown terrain character {found:?}")]
    UnknownCharacter {
        /// 1-based line number.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The character.
        found: char,
    },
}

/// A `.map` file that could not be loaded.
#[derive(Debug, Error)]
pub enum MapError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is malformed.
    #[error("{}:{}", path.display(), source)]
    Parse {
        /// The file.
        path: PathBuf,
        /// What and where.
        source: MapParseError,
    },
}

/// What is wrong with the text of a `.scen` file, or with a scenario against
/// its map.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ScenParseError {
    /// The first line is not `version 1` or `version 1.0`.
    #[error("line {line}: expected \"version 1\", found {found:?}")]
    BadHeader {
        /// 1-based line number.
        line: usize,
        /// What the line holds.
        found: String,
    },
    /// A scenario line does not have nine columns.
    #[error("line {line}: expected 9 columns, found {found}")]
    ColumnCount {
        /// 1-based line number.
        line: usize,
        /// Columns found.
        found: usize,
    },
    /// A column does not parse as the number it should be.
    #[error("line {line}: column {column} {text:?} is not a valid {what}")]
    BadNumber {
        /// 1-based line number.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the column should hold.
        what: &'static str,
        /// The text.
        text: String,
    },
    /// The start or goal lies outside the map (the line's own width and
    /// height, or the map it is checked against).
    #[error("line {line}: {which} ({x}, {y}) is outside the {width}x{height} map")]
    OutsideMap {
        /// 1-based line number.
        line: usize,
        /// `start` or `goal`.
        which: &'static str,
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// Map width.
        width: u32,
        /// Map height.
        height: u32,
    },
    /// The start or goal is on a cell the mobility cannot stand on.
    #[error("line {line}: {which} ({x}, {y}) is on a blocked cell")]
    Blocked {
        /// 1-based line number.
        line: usize,
        /// `start` or `goal`.
        which: &'static str,
        /// Column.
        x: u32,
        /// Row.
        y: u32,
    },
    /// The line's map size differs from the map's.
    #[error(
        "line {line}: scenario says a {width}x{height} map, the map is {map_width}x{map_height}"
    )]
    MapSize {
        /// 1-based line number.
        line: usize,
        /// Width on the line.
        width: u32,
        /// Height on the line.
        height: u32,
        /// Map width.
        map_width: u32,
        /// Map height.
        map_height: u32,
    },
}

/// A `.scen` file that could not be loaded.
#[derive(Debug, Error)]
pub enum ScenError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is malformed.
    #[error("{}:{}", path.display(), source)]
    Parse {
        /// The file.
        path: PathBuf,
        /// What and where.
        source: ScenParseError,
    },
}

/// One query of a `.scen` file.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// 1-based line number in the file.
    pub line: usize,
    /// Difficulty bucket.
    pub bucket: u32,
    /// The map file named by the line.
    pub map: String,
    /// Map width the line declares.
    pub width: u32,
    /// Map height the line declares.
    pub height: u32,
    /// Start cell.
    pub start: Cell,
    /// Goal cell.
    pub goal: Cell,
    /// The optimal octile length the file prints.
    pub optimal_length: f64,
    /// Decimals the file prints for it.
    pub decimals: u32,
}

impl Scenario {
    /// How far a computed length may be from [`Scenario::optimal_length`]:
    /// one unit in the last printed decimal (the files sometimes truncate
    /// rather than round) plus 1e-6.
    #[must_use]
    pub fn tolerance(&self) -> f64 {
        10f64.powi(-(self.decimals.min(300) as i32)) + 1e-6
    }

    /// Whether `length` matches the optimal length within
    /// [`Scenario::tolerance`].
    #[must_use]
    pub fn matches(&self, length: f64) -> bool {
        (length - self.optimal_length).abs() <= self.tolerance()
    }
}

/// Lines of `text` with 1-based numbers, `\r\n` or `\n` terminated.
fn numbered_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines().enumerate().map(|(i, l)| (i + 1, l))
}

fn header_value<'a>(
    line: Option<(usize, &'a str)>,
    last_line: usize,
    expected: &'static str,
) -> Result<(usize, &'a str), MapParseError> {
    let (number, text) = line.ok_or(MapParseError::BadHeader {
        line: last_line + 1,
        expected,
        found: String::new(),
    })?;
    Ok((number, text.trim()))
}

/// Parses the text of a `.map` file.
pub fn parse_map(text: &str) -> Result<GridMap, MapParseError> {
    let mut lines = numbered_lines(text);
    let (line, t) = header_value(lines.next(), 0, "\"type octile\"")?;
    if t.split_whitespace().collect::<Vec<_>>() != ["type", "octile"] {
        return Err(MapParseError::BadHeader {
            line,
            expected: "\"type octile\"",
            found: t.to_owned(),
        });
    }
    let mut width = None;
    let mut height = None;
    let mut last = line;
    for _ in 0..2 {
        let (line, t) = header_value(lines.next(), last, "\"height N\" or \"width N\"")?;
        last = line;
        let mut words = t.split_whitespace();
        let (key, value) = (words.next(), words.next());
        let (slot, what) = match key {
            Some("height") if height.is_none() => (&mut height, "height"),
            Some("width") if width.is_none() => (&mut width, "width"),
            _ => {
                return Err(MapParseError::BadHeader {
                    line,
                    expected: "\"height N\" or \"width N\"",
                    found: t.to_owned(),
                });
            }
        };
        let value = match (value, words.next()) {
            (Some(v), None) => v,
            _ => {
                return Err(MapParseError::BadHeader {
                    line,
                    expected: "\"height N\" or \"width N\"",
                    found: t.to_owned(),
                });
            }
        };
        let n: u64 = value.parse().map_err(|_| MapParseError::BadNumber {
            line,
            what,
            text: value.to_owned(),
        })?;
        *slot = Some(n);
    }
    let (map_line, t) = header_value(lines.next(), last, "\"map\"")?;
    if t != "map" {
        return Err(MapParseError::BadHeader {
            line: map_line,
            expected: "\"map\"",
            found: t.to_owned(),
        });
    }
    let (Some(width), Some(height)) = (width, height) else {
        // Both header lines were read and each filled a distinct slot.
        return Err(MapParseError::BadHeader {
            line: map_line,
            expected: "height and width",
            found: t.to_owned(),
        });
    };
    let (width, height) = check_size(width, height).map_err(|source| MapParseError::BadSize {
        line: map_line,
        source,
    })?;
    let (w, h) = (width as usize, height as usize);
    // Never trust the header with a big allocation: the text bounds the map.
    let mut terrain = Vec::with_capacity((w * h).min(text.len()));
    let mut rows = 0usize;
    let mut last = map_line;
    for (line, row) in lines {
        if row.is_empty() {
            if rows < h {
                // A blank line where a row should be: a row of width 0.
                return Err(MapParseError::RowWidth {
                    line,
                    row: rows,
                    expected: w,
                    actual: 0,
                });
            }
            // Blank lines after the last row are allowed.
            continue;
        }
        if rows == h {
            return Err(MapParseError::RowCount {
                line,
                expected: h,
                actual: rows + 1,
            });
        }
        let bytes = row.as_bytes();
        for (i, &c) in bytes.iter().enumerate() {
            if let Some(t) = Terrain::from_movingai(c) {
                if i < w {
                    terrain.push(t);
                }
            } else {
                return Err(MapParseError::UnknownCharacter {
                    line,
                    column: row[..i].chars().count() + 1,
                    found: row[i..].chars().next().unwrap_or('\u{fffd}'),
                });
            }
        }
        if bytes.len() != w {
            return Err(MapParseError::RowWidth {
                line,
                row: rows,
                expected: w,
                actual: bytes.len(),
            });
        }
        rows += 1;
        last = line;
    }
    if rows != h {
        return Err(MapParseError::RowCount {
            line: last + 1,
            expected: h,
            actual: rows,
        });
    }
    GridMap::new(width, height, terrain).map_err(|source| MapParseError::BadSize {
        line: map_line,
        source,
    })
}

fn parse_number<T: std::str::FromStr>(
    text: &str,
    line: usize,
    column: usize,
    what: &'static str,
) -> Result<T, ScenParseError> {
    text.parse().map_err(|_| ScenParseError::BadNumber {
        line,
        column,
        what,
        text: text.to_owned(),
    })
}

/// Parses the text of a `.scen` file. Start and goal are checked against the
/// width and height each line declares; [`check_scenarios`] checks them
/// against the actual map.
pub fn parse_scen(text: &str) -> Result<Vec<Scenario>, ScenParseError> {
    let mut lines = numbered_lines(text);
    let (line, header) = lines.next().unwrap_or((1, ""));
    let words: Vec<&str> = header.split_whitespace().collect();
    if !matches!(words.as_slice(), ["version", "1" | "1.0"]) {
        return Err(ScenParseError::BadHeader {
            line,
            found: header.to_owned(),
        });
    }
    let mut scenarios = Vec::new();
    let mut columns: Vec<&str> = Vec::with_capacity(9);
    for (line, text) in lines {
        columns.clear();
        columns.extend(text.split_whitespace());
        if columns.is_empty() {
            continue;
        }
        if columns.len() != 9 {
            return Err(ScenParseError::ColumnCount {
                line,
                found: columns.len(),
            });
        }
        let n = |column: usize, what| parse_number::<u32>(columns[column - 1], line, column, what);
        let bucket = n(1, "bucket")?;
        let width = n(3, "width")?;
        let height = n(4, "height")?;
        let start = Cell::new(n(5, "start x")?, n(6, "start y")?);
        let goal = Cell::new(n(7, "goal x")?, n(8, "goal y")?);
        let length_text = columns[8];
        let optimal_length: f64 = parse_number(length_text, line, 9, "length")?;
        if !(optimal_length.is_finite() && optimal_length >= 0.0) {
            return Err(ScenParseError::BadNumber {
                line,
                column: 9,
                what: "length",
                text: length_text.to_owned(),
            });
        }
        let decimals = length_text
            .split_once('.')
            .map_or(0, |(_, frac)| frac.len() as u32);
        for (which, p) in [("start", start), ("goal", goal)] {
            if p.x >= width || p.y >= height {
                return Err(ScenParseError::OutsideMap {
                    line,
                    which,
                    x: p.x,
                    y: p.y,
                    width,
                    height,
                });
            }
        }
        scenarios.push(Scenario {
            line,
            bucket,
            map: columns[1].to_owned(),
            width,
            height,
            start,
            goal,
            optimal_length,
            decimals,
        });
    }
    Ok(scenarios)
}

/// Checks scenarios against the cost grid they will run on: the declared map
/// size matches, and start and goal are on the map and passable.
pub fn check_scenarios(scenarios: &[Scenario], grid: &CostGrid) -> Result<(), ScenParseError> {
    for s in scenarios {
        if (s.width, s.height) != (grid.width(), grid.height()) {
            return Err(ScenParseError::MapSize {
                line: s.line,
                width: s.width,
                height: s.height,
                map_width: grid.width(),
                map_height: grid.height(),
            });
        }
        for (which, p) in [("start", s.start), ("goal", s.goal)] {
            if !grid.contains(p) {
                return Err(ScenParseError::OutsideMap {
                    line: s.line,
                    which,
                    x: p.x,
                    y: p.y,
                    width: grid.width(),
                    height: grid.height(),
                });
            }
            if !grid.passable(p) {
                return Err(ScenParseError::Blocked {
                    line: s.line,
                    which,
                    x: p.x,
                    y: p.y,
                });
            }
        }
    }
    Ok(())
}

/// Loads a `.map` file.
pub fn load_map(path: impl AsRef<Path>) -> Result<GridMap, MapError> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|source| MapError::Io {
        path: path.to_owned(),
        source,
    })?;
    parse_map(&text).map_err(|source| MapError::Parse {
        path: path.to_owned(),
        source,
    })
}

/// Loads a `.scen` file (see [`parse_scen`]).
pub fn load_scen(path: impl AsRef<Path>) -> Result<Vec<Scenario>, ScenError> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|source| ScenError::Io {
        path: path.to_owned(),
        source,
    })?;
    parse_scen(&text).map_err(|source| ScenError::Parse {
        path: path.to_owned(),
        source,
    })
}

#[cfg(test)]
mod tests;
