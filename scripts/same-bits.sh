#!/usr/bin/env bash
# The workspace builds for x86-64-v3 (.cargo/config.toml); a baseline x86-64
# build must give the same bits (docs/determinism.md). Runs three profiles
# for 60 ticks in both builds and compares their checksums. Used by CI; on
# other architectures there is nothing to compare.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $(uname -m) != x86_64 ]]; then
    echo "same-bits: not an x86-64 host, nothing to compare"
    exit 0
fi
cargo build --quiet -p convoy-bench
RUSTFLAGS="-C target-cpu=x86-64" cargo build --quiet -p convoy-bench --target-dir target/baseline-x86-64
report=$(mktemp --suffix=.json)
trap 'rm -f "$report"' EXIT
checksum() {
    "$1" run --quiet --ticks 60 --json "$report" "${@:2}"
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["checksum"])' "$report"
}
for profile in profiles/default.toml profiles/skirmish.toml profiles/orbits.toml; do
    v3=$(checksum target/debug/convoy-bench "$profile")
    baseline=$(checksum target/baseline-x86-64/debug/convoy-bench "$profile")
    if [[ "$v3" != "$baseline" ]]; then
        echo "same-bits: $profile: x86-64-v3 build $v3, baseline x86-64 build $baseline" >&2
        exit 1
    fi
    echo "same-bits: $profile: checksum $v3 in both builds"
done
