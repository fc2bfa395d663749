#!/usr/bin/env bash
# The workspace builds for x86-64-v3 (.cargo/config.toml); a baseline x86-64
# build must give the same bits (docs/determinism.md). Runs three profiles
# for 60 ticks in both builds and compares their checksums. Used by CI; on
# other architectures there is nothing to compare.
#
# The checksums come from `convoy-checksums` (scenarios/src/bin), which runs
# a profile as `convoy-bench run` does but needs only the kernel and the
# profiles: the baseline build compiles no CLI, plotting or profiling
# crates. The x86-64-v3 binary is the one the workspace's test build makes
# (nothing to rebuild after `cargo test --workspace`; see scripts/smoke.sh);
# the baseline build enables the kernel's `internals` feature as that one
# does.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ $(uname -m) != x86_64 ]]; then
    echo "same-bits: not an x86-64 host, nothing to compare"
    exit 0
fi
cargo test --quiet --workspace --no-run
RUSTFLAGS="-C target-cpu=x86-64" cargo build --quiet -p convoy-scenarios --bin convoy-checksums \
    --features convoy/internals --target-dir target/baseline-x86-64
profiles=(profiles/default.toml profiles/skirmish.toml profiles/orbits.toml)
v3=$(target/debug/convoy-checksums 60 "${profiles[@]}")
baseline=$(target/baseline-x86-64/debug/convoy-checksums 60 "${profiles[@]}")
if [[ "$v3" != "$baseline" ]]; then
    echo "same-bits: the builds differ" >&2
    diff <(echo "$v3") <(echo "$baseline") | sed 's/^</x86-64-v3:/; s/^>/baseline: /' >&2
    exit 1
fi
while read -r profile checksum; do
    echo "same-bits: $profile: checksum $checksum in both builds"
done <<<"$v3"
