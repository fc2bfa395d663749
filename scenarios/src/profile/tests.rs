//! Reading and validating profiles: every error names the file and the
//! line or key.

use super::*;

const DEFAULT: &str = include_str!("../../../profiles/default.toml");

fn error_for(edit: impl Fn(&str) -> String) -> String {
    match Profile::parse(&edit(DEFAULT), "p.toml") {
        Ok(profile) => panic!("accepted a bad profile: {profile:?}"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn the_default_profile_parses_and_validates() {
    let profile = Profile::parse(DEFAULT, "default.toml").expect("default profile is valid");
    assert_eq!(profile.scenario.units, 10_000);
    assert_eq!(profile.run.ticks, 600);
    assert!((profile.run.dt - 1.0 / 60.0).abs() < 1e-6);
}

#[test]
fn an_unknown_key_is_named_with_its_table() {
    let message = error_for(|text| text.replace("gap_m = 100.0", "gap_m = 100.0\nspeling = 3"));
    assert!(message.starts_with("p.toml: key `scenario"), "{message}");
    assert!(message.contains("speling"), "{message}");
}

#[test]
fn zero_and_negative_counts_name_their_key() {
    let message = error_for(|text| text.replace("units = 10000", "units = 0"));
    assert_eq!(
        message,
        "p.toml: key `scenario.units`: must be at least 1, was 0"
    );
    let message = error_for(|text| text.replace("units = 10000", "units = -5"));
    assert!(
        message.starts_with("p.toml: key `scenario.units`:"),
        "{message}"
    );
    let message = error_for(|text| text.replace("ticks = 600", "ticks = 0"));
    assert!(message.starts_with("p.toml: key `run.ticks`:"), "{message}");
}

#[test]
fn a_map_needs_exactly_one_terrain_and_valid_polygon_settings() {
    let with_map = |map: &str| error_for(|text| format!("{text}\n[map]\n{map}\n"));
    let both = with_map("file = \"a.map\"\npolygon = \"b.json\"");
    assert!(
        both.starts_with("p.toml: key `map`: give exactly one"),
        "{both}"
    );
    let neither = with_map("cell_size_m = 4.0");
    assert!(
        neither.starts_with("p.toml: key `map`: give exactly one"),
        "{neither}"
    );
    let clearance = with_map("polygon = \"b.json\"\nclearance_m = -1.0");
    assert!(
        clearance.starts_with("p.toml: key `map.clearance_m`:"),
        "{clearance}"
    );
    let roads = with_map("polygon = \"b.json\"\nroad_cost_factor = 0.0");
    assert!(
        roads.starts_with("p.toml: key `map.road_cost_factor`:"),
        "{roads}"
    );
}

#[test]
fn zero_or_negative_dt_and_zero_threads_are_refused() {
    for dt in ["0.0", "-0.1", "nan"] {
        let message = error_for(|text| text.replace("dt = 0.016666668", &format!("dt = {dt}")));
        assert!(message.starts_with("p.toml: key `run.dt`:"), "{message}");
    }
    let message = error_for(|text| text.replace("# threads = 2", "threads = 0"));
    assert!(
        message.starts_with("p.toml: key `run.threads`:"),
        "{message}"
    );
}

#[test]
fn malformed_toml_names_the_line() {
    let message = error_for(|text| text.replace("[scenario]", "[scenario"));
    let line = DEFAULT
        .lines()
        .position(|l| l == "[scenario]")
        .expect("has [scenario]")
        + 1;
    assert!(
        message.starts_with(&format!("p.toml:{line}: ")),
        "{message}"
    );
    assert!(!message.contains('\n'), "one line: {message}");
}

#[test]
fn missing_sections_and_bad_budgets_are_named() {
    let message = error_for(|text| text.replace("frame_ms = 4.0", "frame_ms = -4.0"));
    assert!(
        message.starts_with("p.toml: key `budget.frame_ms`:"),
        "{message}"
    );
    let message = error_for(|text| text.replace("steering_ms = 1.0\n", ""));
    assert!(
        message.contains("budget") && message.contains("steering_ms"),
        "{message}"
    );
    let message = error_for(|text| text.replace("tracked = 4.0", "tracked = -1.0"));
    assert!(
        message.starts_with("p.toml: key `scenario.mix.tracked`:"),
        "{message}"
    );
}

#[test]
fn a_missing_file_is_reported_with_its_path() {
    let error = Profile::load(Path::new("/nonexistent/convoy.toml")).expect_err("no such file");
    assert!(
        error
            .to_string()
            .starts_with("/nonexistent/convoy.toml: cannot read"),
        "{error}"
    );
}

/// Values that once passed validation and then panicked, hung or ran for
/// minutes in `build` or the run: each is refused naming its key and range.
#[test]
fn absurd_values_that_once_validated_are_refused_naming_key_and_range() {
    let on_map = |map: &str| format!("{DEFAULT}\n[map]\n{map}\n");
    let cases = [
        (
            "budget.frame_ms",
            DEFAULT.replace("frame_ms = 4.0", "frame_ms = 1e300"),
            "1000000",
        ),
        (
            "budget.steering_ms",
            DEFAULT.replace("steering_ms = 1.0", "steering_ms = 1e7"),
            "1000000",
        ),
        (
            "map.clearance_m",
            on_map("polygon = \"b.json\"\nclearance_m = 1e300"),
            "10000",
        ),
        (
            "map.cell_size_m",
            on_map("file = \"arena2.map\"\ncell_size_m = 1e-45"),
            "0.001",
        ),
        (
            "map.cell_size_m",
            on_map("file = \"arena2.map\"\ncell_size_m = 1e30"),
            "10000",
        ),
        (
            "map.origin_m",
            on_map("file = \"arena2.map\"\norigin_m = [1e30, 0.0]"),
            "10000000",
        ),
        (
            "separation.iterations",
            DEFAULT.replace("iterations = 64", "iterations = 268435456"),
            "4096",
        ),
        (
            "separation.iterations",
            DEFAULT.replace("iterations = 64", "iterations = 4097"),
            "4096",
        ),
    ];
    for (key, text, range) in cases {
        let message = error_for(|_| text.clone());
        assert!(
            message.starts_with(&format!("p.toml: key `{key}`:")),
            "{key}: {message}"
        );
        assert!(message.contains(range), "{key}: the range in {message}");
    }
}

#[test]
fn the_ends_of_each_documented_range_are_accepted() {
    let text = DEFAULT
        .replace("frame_ms = 4.0", "frame_ms = 1e6")
        .replace("iterations = 64", "iterations = 4096");
    let map = "[map]\npolygon = \"b.json\"\nclearance_m = 1e4\ncell_size_m = 1e-3\n";
    Profile::parse(&format!("{text}\n{map}"), "p.toml").expect("the upper ends");
    let map = "[map]\nfile = \"a.map\"\ncell_size_m = 1e4\norigin_m = [-1e6, 1e6]\n";
    Profile::parse(&format!("{DEFAULT}\n{map}"), "p.toml").expect("the lower ends");
}

#[test]
fn budgets_of_an_unvalidated_section_saturate_instead_of_panicking() {
    let mut profile = Profile::parse(DEFAULT, "p.toml").expect("valid");
    profile.budget.frame_ms = 1e300;
    profile.budget.paths_ms = f64::NAN;
    profile.budget.steering_ms = -1.0;
    let budgets = profile.budget.budgets();
    assert_eq!(budgets.frame, Duration::MAX);
    assert_eq!(budgets.stage(Stage::Paths), Duration::ZERO);
    assert_eq!(budgets.stage(Stage::Steering), Duration::ZERO);
}
