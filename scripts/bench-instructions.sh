#!/usr/bin/env bash
# Instruction counts per stage of the tick, under valgrind's callgrind, with
# gungraun (bench/benches/instructions.rs). Deterministic: the same binary
# gives the same counts on every run, so CI on a noisy shared machine can
# compare them exactly.
#
# One-time setup (done here when missing):
#   * valgrind              apt-get install -y valgrind   (as root)
#   * gungraun-runner       cargo install gungraun-runner --version <the
#                           gungraun version in Cargo.lock> --locked
#
# Arguments are passed to gungraun, e.g.
#   scripts/bench-instructions.sh --save-baseline=main
#   scripts/bench-instructions.sh --baseline=main --callgrind-limits='ir=1%'
# (exit code 3 when a limit is exceeded).
set -euo pipefail
cd "$(dirname "$0")/.."

# The runner must be exactly the library's version, or gungraun refuses to run.
version=$(awk '/^name = "gungraun"$/ { getline; gsub(/"/, "", $3); print $3 }' Cargo.lock)
if [[ -z "$version" ]]; then
    echo "bench-instructions: gungraun is not in Cargo.lock" >&2
    exit 1
fi
installed=$(gungraun-runner --version 2>/dev/null | awk '{ print $NF }' || true)
if [[ "$installed" != "$version" ]]; then
    echo "bench-instructions: installing gungraun-runner $version (found: ${installed:-none})"
    cargo install gungraun-runner --version "$version" --locked
fi

if ! command -v valgrind >/dev/null; then
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
        echo "bench-instructions: installing valgrind"
        apt-get update -qq
        apt-get install -y -qq valgrind
    else
        echo "bench-instructions: valgrind is missing; install it (e.g. sudo apt-get install -y valgrind)" >&2
        exit 1
    fi
fi

# gungraun exits 3 when a regression limit is exceeded: report, then pass it on.
status=0
cargo bench -p convoy-bench --bench instructions -- "$@" || status=$?

target=$(cargo metadata --format-version 1 --no-deps \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
echo
echo "bench-instructions: results under ${GUNGRAUN_HOME:-$target/gungraun}/convoy-bench/instructions/"
echo "  (callgrind.*.out profiles per benchmark; the previous run is kept as *.old"
echo "   and the next run prints the difference against it)"
exit "$status"
