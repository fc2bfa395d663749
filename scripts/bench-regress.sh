#!/usr/bin/env bash
# Benchmark regression check: runs every shipped profile K times and compares
# each against its saved baseline with `convoy-bench compare`, which fails
# (exit 1) when a stage's p50 regressed past the threshold beyond the runs'
# noise.
#
#   scripts/bench-regress.sh --save          # record baselines in bench-baseline/
#   scripts/bench-regress.sh                 # compare against them
#
# Environment: REPEAT (default 5), TICKS (default 300), THRESHOLD percent
# (default 10), BASELINE_DIR (default bench-baseline).
set -euo pipefail
cd "$(dirname "$0")/.."
repeat=${REPEAT:-5}
ticks=${TICKS:-300}
threshold=${THRESHOLD:-10}
baseline_dir=${BASELINE_DIR:-bench-baseline}
mode=${1:-compare}

cargo build --quiet --release -p convoy-bench
bench=target/release/convoy-bench
mkdir -p "$baseline_dir"
status=0
for profile in profiles/*.toml; do
    name=$(basename "$profile" .toml)
    if [ "$mode" = "--save" ]; then
        "$bench" run "$profile" --quiet --ticks "$ticks" --repeat "$repeat" --json "$baseline_dir/$name.json"
        echo "baseline: $baseline_dir/$name.json"
    else
        [ -f "$baseline_dir/$name.json" ] || { echo "no baseline for $name: run with --save first" >&2; exit 2; }
        new=$(mktemp --suffix=.json)
        "$bench" run "$profile" --quiet --ticks "$ticks" --repeat "$repeat" --json "$new"
        echo "== $name"
        "$bench" compare "$baseline_dir/$name.json" "$new" --threshold "$threshold" || status=$?
        rm -f "$new"
    fi
done
exit "$status"
