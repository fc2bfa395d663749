#!/usr/bin/env bash
# Issue 33's group figure on six starts: a box of 20 tanks ordered with
# `order_group` on arena2 against one tank sent alone from the same start,
# each start's goal 300 m away (the `group_order` example, `START=k`).
# Prints a Markdown table; "n of N" where not every tank arrived in 120 s.
#
#   scripts/group-starts.sh [STARTS...]      (default: 0 1 2 3 4 5)
#   COUNT=8 scripts/group-starts.sh          (the first 8 tanks of the box)
#
# The runs are deterministic: one run per start is the figure.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --release -p convoy-bench --example group_order
bin=target/release/examples/group_order

# Seconds until every unit of mode $2 arrived at start $1, or "n of N".
arrived() {
    local out
    out=$(START=$1 "$bin" "$2")
    if grep -q '^all arrived' <<<"$out"; then
        awk '/^all arrived/ { print $4 }' <<<"$out"
    else
        awk '/Ok\(/ { all += $NF } /Ok\(Arrived\)/ { n += $NF } END { printf "%d of %d\n", n, all }' <<<"$out"
    fi
}

echo "| start | lone tank, s | group of ${COUNT:-20}, s | group ÷ lone |"
echo "|--:|--:|--:|--:|"
for start in "${@:-0 1 2 3 4 5}"; do
    for k in $start; do
        lone=$(arrived "$k" single)
        group=$(arrived "$k" group)
        ratio=$(awk -v g="$group" -v l="$lone" 'BEGIN { if (g ~ /of/ || l ~ /of/) print "—"; else printf "%.2f\n", g / l }')
        echo "| $k | $lone | $group | $ratio |"
    done
done
