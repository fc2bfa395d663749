#!/usr/bin/env bash
# Times two builds of convoy alternately: A, B, A, B, ... On a shared machine
# timings drift within minutes, so only interleaved runs compare.
# Instruction counts are no stand-in: fewer instructions can run slower.
#
#   scripts/ab.sh REV_A REV_B EXAMPLE [ARGS...]
#
# REV is a git revision, or `.` for the working tree. Each revision's
# bench/examples/EXAMPLE.rs is built in release in a git worktree under
# target/ab/ (kept for later runs; `rm -rf target/ab && git worktree prune`
# removes them), then each binary runs ROUNDS times (default 4) with ARGS,
# alternating, and every output line is printed after its revision. The
# examples' own environment passes through, e.g. one thread, steadier here:
#
#   RAYON_NUM_THREADS=1 scripts/ab.sh main . steer_once 11.3 --time
#   scripts/ab.sh HEAD~1 HEAD separate_once across --time
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 3 ]; then
    sed -n '8,18p' "$0" >&2
    exit 2
fi
rev_a=$1 rev_b=$2 example=$3
shift 3
rounds=${ROUNDS:-4}

# Builds EXAMPLE at REV and prints the binary's path.
build() {
    local rev=$1 commit tree
    if [ "$rev" = . ]; then
        cargo build --quiet --release -p convoy-bench --example "$example" >&2
        echo "$PWD/target/release/examples/$example"
        return
    fi
    commit=$(git rev-parse --verify --quiet "$rev^{commit}") || {
        echo "ab: no revision $rev" >&2
        exit 2
    }
    tree=$PWD/target/ab/$commit
    [ -d "$tree/src" ] || git worktree add --quiet --detach "$tree/src" "$commit" >&2
    # Built from inside the worktree, so its own .cargo/config.toml applies.
    (cd "$tree/src" && CARGO_TARGET_DIR=$tree/target \
        cargo build --quiet --release -p convoy-bench --example "$example" >&2)
    echo "$tree/target/release/examples/$example"
}

binary_a=$(build "$rev_a")
binary_b=$(build "$rev_b")
for round in $(seq "$rounds"); do
    for side in a b; do
        if [ $side = a ]; then rev=$rev_a binary=$binary_a; else rev=$rev_b binary=$binary_b; fi
        "$binary" "$@" | sed "s|^|round $round, $rev: |"
    done
done
