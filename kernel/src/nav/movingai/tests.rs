#![allow(clippy::unwrap_used)]
use super::*;
use crate::nav::grid::Mobility;

const SMALL: &str = "type octile\nheight 2\nwidth 3\nmap\n.@T\nGSW\n";

#[test]
fn a_small_map_parses_with_every_terrain_letter() {
    let map = parse_map(SMALL).unwrap();
    assert_eq!((map.width(), map.height()), (3, 2));
    use Terrain::*;
    assert_eq!(map.cells(), &[Open, Blocked, Blocked, Open, Swamp, Water]);
}

#[test]
fn crlf_and_a_missing_final_newline_parse_the_same() {
    let crlf = SMALL.replace('\n', "\r\n");
    let bare = SMALL.trim_end();
    let expected = parse_map(SMALL).unwrap();
    assert_eq!(parse_map(&crlf).unwrap(), expected);
    assert_eq!(parse_map(bare).unwrap(), expected);
    assert_eq!(parse_map(crlf.trim_end()).unwrap(), expected);
}

#[test]
fn width_before_height_is_accepted() {
    let text = "type octile\nwidth 3\nheight 2\nmap\n.@T\nGSW\n";
    assert_eq!(parse_map(text).unwrap(), parse_map(SMALL).unwrap());
}

#[test]
fn a_wrong_type_line_is_a_bad_header_on_line_1() {
    let err = parse_map("type hex\nheight 2\nwidth 3\nmap\n").unwrap_err();
    assert!(
        matches!(err, MapParseError::BadHeader { line: 1, .. }),
        "{err}"
    );
}

#[test]
fn a_missing_map_line_is_a_bad_header_on_line_4() {
    let err = parse_map("type octile\nheight 2\nwidth 3\n.@T\nGSW\n").unwrap_err();
    assert!(
        matches!(err, MapParseError::BadHeader { line: 4, .. }),
        "{err}"
    );
}

#[test]
fn an_empty_file_is_a_bad_header_on_line_1() {
    let err = parse_map("").unwrap_err();
    assert!(
        matches!(err, MapParseError::BadHeader { line: 1, .. }),
        "{err}"
    );
}

#[test]
fn a_repeated_height_line_is_a_bad_header() {
    let err = parse_map("type octile\nheight 2\nheight 3\nmap\n").unwrap_err();
    assert!(
        matches!(err, MapParseError::BadHeader { line: 3, .. }),
        "{err}"
    );
}

#[test]
fn a_non_numeric_width_is_a_bad_number_on_its_line() {
    let err = parse_map("type octile\nheight 2\nwidth x3\nmap\n").unwrap_err();
    assert_eq!(
        err,
        MapParseError::BadNumber {
            line: 3,
            what: "width",
            text: "x3".into()
        }
    );
}

#[test]
fn a_zero_height_is_a_bad_size() {
    let err = parse_map("type octile\nheight 0\nwidth 3\nmap\n").unwrap_err();
    assert!(
        matches!(err, MapParseError::BadSize { line: 4, .. }),
        "{err}"
    );
}

#[test]
fn a_width_or_height_near_2_pow_64_is_a_bad_size_not_an_overflow() {
    for (height, width) in [
        ("1", "18446744073709551615"),
        ("18446744073709551614", "1"),
        ("18446744073709551615", "18446744073709551615"),
        ("4294967296", "4294967296"),
    ] {
        let text = format!("type octile\nheight {height}\nwidth {width}\nmap\n.\n");
        let err = parse_map(&text).unwrap_err();
        assert!(
            matches!(err, MapParseError::BadSize { line: 4, .. }),
            "{height}x{width}: {err}"
        );
    }
}

#[test]
fn a_huge_header_with_no_rows_fails_without_allocating_the_map() {
    let err = parse_map("type octile\nheight 10000\nwidth 10000\nmap\n").unwrap_err();
    assert_eq!(
        err,
        MapParseError::RowCount {
            line: 5,
            expected: 10000,
            actual: 0
        }
    );
}

#[test]
fn a_short_row_is_a_row_width_error_on_its_line() {
    let err = parse_map("type octile\nheight 2\nwidth 3\nmap\n.@T\nGS\n").unwrap_err();
    assert_eq!(
        err,
        MapParseError::RowWidth {
            line: 6,
            row: 1,
            expected: 3,
            actual: 2
        }
    );
}

#[test]
fn a_long_row_is_a_row_width_error_on_its_line() {
    let err = parse_map("type octile\nheight 2\nwidth 3\nmap\n.@T.\nGSW\n").unwrap_err();
    assert!(
        matches!(
            err,
            MapParseError::RowWidth {
                line: 5,
                actual: 4,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn missing_rows_are_a_row_count_error_after_the_last_row() {
    let err = parse_map("type octile\nheight 3\nwidth 3\nmap\n.@T\nGSW\n").unwrap_err();
    assert_eq!(
        err,
        MapParseError::RowCount {
            line: 7,
            expected: 3,
            actual: 2
        }
    );
}

#[test]
fn an_extra_row_is_a_row_count_error_on_its_line() {
    let err = parse_map(&format!("{SMALL}...\n")).unwrap_err();
    assert_eq!(
        err,
        MapParseError::RowCount {
            line: 7,
            expected: 2,
            actual: 3
        }
    );
}

#[test]
fn a_blank_line_inside_the_grid_is_an_error() {
    let err = parse_map("type octile\nheight 2\nwidth 3\nmap\n.@T\n\nGSW\n").unwrap_err();
    assert!(
        matches!(err, MapParseError::RowWidth { line: 6, .. }),
        "{err}"
    );
}

#[test]
fn an_unknown_character_names_its_line_and_column() {
    let err = parse_map("type octile\nheight 2\nwidth 3\nmap\n.@T\nGé.\n").unwrap_err();
    assert_eq!(
        err,
        MapParseError::UnknownCharacter {
            line: 6,
            column: 2,
            found: 'é'
        }
    );
}

const SCEN: &str =
    "version 1\n0\tsmall.map\t3\t2\t0\t0\t0\t1\t1\n3 small.map 3 2 0 1 0 0 1.00000000\n";

#[test]
fn tab_and_space_separated_scenarios_parse() {
    let s = parse_scen(SCEN).unwrap();
    assert_eq!(s.len(), 2);
    assert_eq!(s[0].line, 2);
    assert_eq!((s[0].start, s[0].goal), (Cell::new(0, 0), Cell::new(0, 1)));
    assert_eq!(s[0].decimals, 0);
    assert_eq!(s[1].bucket, 3);
    assert_eq!(s[1].decimals, 8);
    assert_eq!(s[1].map, "small.map");
}

#[test]
fn version_1_0_crlf_and_no_final_newline_are_accepted() {
    let text = SCEN
        .replace("version 1\n", "version 1.0\n")
        .replace('\n', "\r\n");
    assert_eq!(
        parse_scen(text.trim_end()).unwrap(),
        parse_scen(SCEN).unwrap()
    );
}

#[test]
fn the_tolerance_is_one_unit_in_the_last_printed_decimal() {
    let s = &parse_scen("version 1\n0 m 9 9 0 0 1 1 265.764\n").unwrap()[0];
    assert!(s.matches(265.7645));
    assert!(!s.matches(265.7660));
}

#[test]
fn a_wrong_version_is_a_bad_header() {
    let err = parse_scen("version 2\n").unwrap_err();
    assert!(
        matches!(err, ScenParseError::BadHeader { line: 1, .. }),
        "{err}"
    );
    let err = parse_scen("").unwrap_err();
    assert!(
        matches!(err, ScenParseError::BadHeader { line: 1, .. }),
        "{err}"
    );
}

#[test]
fn a_short_scenario_line_is_a_column_count_error() {
    let err = parse_scen("version 1\n0 m 3 2 0 0 1 1\n").unwrap_err();
    assert_eq!(err, ScenParseError::ColumnCount { line: 2, found: 8 });
}

#[test]
fn an_unparsable_number_names_its_line_and_column() {
    let err = parse_scen("version 1\n0 m 3 2 0 0 1 1 1\n0 m 3 2 -1 0 1 1 1\n").unwrap_err();
    assert_eq!(
        err,
        ScenParseError::BadNumber {
            line: 3,
            column: 5,
            what: "start x",
            text: "-1".into()
        }
    );
    let err = parse_scen("version 1\n0 m 3 2 0 0 1 1 NaN\n").unwrap_err();
    assert!(
        matches!(
            err,
            ScenParseError::BadNumber {
                line: 2,
                column: 9,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn a_point_outside_the_declared_size_is_an_error() {
    let err = parse_scen("version 1\n0 m 3 2 0 0 3 1 1\n").unwrap_err();
    assert!(
        matches!(
            err,
            ScenParseError::OutsideMap {
                line: 2,
                which: "goal",
                x: 3,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn scenarios_on_blocked_cells_or_the_wrong_map_size_are_rejected() {
    let grid = CostGrid::new(&parse_map(SMALL).unwrap(), Mobility::GROUND).unwrap();
    assert_eq!(check_scenarios(&parse_scen(SCEN).unwrap(), &grid), Ok(()));
    let blocked = parse_scen("version 1\n0 m 3 2 0 0 1 0 1\n").unwrap();
    assert_eq!(
        check_scenarios(&blocked, &grid),
        Err(ScenParseError::Blocked {
            line: 2,
            which: "goal",
            x: 1,
            y: 0
        })
    );
    let wrong = parse_scen("version 1\n0 m 4 2 0 0 0 1 1\n").unwrap();
    assert!(matches!(
        check_scenarios(&wrong, &grid),
        Err(ScenParseError::MapSize { line: 2, .. })
    ));
}

#[test]
fn load_errors_name_the_file() {
    let err = load_map("/nonexistent/x.map").unwrap_err();
    assert!(err.to_string().contains("/nonexistent/x.map"), "{err}");
    let err = load_scen("/nonexistent/x.scen").unwrap_err();
    assert!(err.to_string().contains("/nonexistent/x.scen"), "{err}");
}
