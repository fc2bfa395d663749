#!/usr/bin/env bash
# Runs the default profile for 60 ticks and checks that the JSON report has
# every stage with its timing figures. Used by CI.
set -euo pipefail
cd "$(dirname "$0")/.."
report=$(mktemp --suffix=.json)
trap 'rm -f "$report"' EXIT
# The dev profile (optimised kernel) reuses the test build: no release
# build. `cargo test --workspace --no-run` selects what CI's test step
# selects, so after it this builds nothing; `cargo run -p convoy-bench`
# would resolve features for that one package and rebuild the kernel and
# every crate above it.
cargo test --quiet --workspace --no-run
target/debug/convoy-bench run --ticks 60 --json "$report"
python3 - "$report" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
expected = ["spatial", "paths", "formations", "steering", "integrate", "separation"]
names = [stage["name"] for stage in report["stages"]]
assert names == expected, f"stages {names}, expected {expected}"
keys = ["budget_ms", "mean_ms", "p50_ms", "p95_ms", "p99_ms", "max_ms", "over_budget_ticks"]
for figures in report["stages"] + [report["tick"]]:
    missing = [key for key in keys if key not in figures]
    assert not missing, f"{figures['name']} lacks {missing}"
for key in ["schema", "machine", "threads", "profile", "units", "ticks", "checksum"]:
    assert key in report, f"report lacks {key}"
assert report["ticks"] == 60, report["ticks"]
quality = ["arrived", "collisions_per_1000_unit_ticks", "mean_speed_fraction", "stuck",
           "formation_error_mean_m", "formation_error_p95_m", "platoons_arrived"]
missing = [key for key in quality if key not in report["quality"]]
assert not missing, f"quality lacks {missing}"
print(f"smoke: {report['units']} units, {report['ticks']} ticks, every stage reported, checksum {report['checksum']}")
PY
