#!/usr/bin/env bash
# The README's performance table: the default profile at several unit counts,
# each run written as JSON, then printed as Markdown by `convoy-bench table`.
#   scripts/perf-table.sh [UNITS...]      (default: 10000 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --release -p convoy-bench
out=$(mktemp -d)
reports=()
for units in "${@:-10000 100000}"; do
    for n in $units; do
        target/release/convoy-bench run --quiet --units "$n" --json "$out/units-$n.json"
        reports+=("$out/units-$n.json")
    done
done
target/release/convoy-bench table "${reports[@]}"
