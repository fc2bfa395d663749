#!/usr/bin/env bash
# Fuzzes one loader for a time: scripts/fuzz.sh TARGET SECONDS [SEED]
# (targets: map scen polygon mesh visgraph profile snapshot, or `all`).
# Findings land in fuzz/regressions/TARGET/, which `cargo test` replays;
# docs/fuzzing.md records the runs. FUZZ_PROFILE=dev reuses the test
# build (CI) instead of a release build.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: scripts/fuzz.sh TARGET SECONDS [SEED]}
seconds=${2:?usage: scripts/fuzz.sh TARGET SECONDS [SEED]}
seed=${3:-1}
profile=${FUZZ_PROFILE:-release}
if [ "$profile" = dev ]; then
    # The workspace's test build, features and all: nothing to rebuild
    # after `cargo test --workspace` (see scripts/smoke.sh).
    cargo test -q --workspace --no-run
else
    cargo build --profile "$profile" -q -p convoy-fuzz
fi
folder=$([ "$profile" = dev ] && echo debug || echo "$profile")
if [ "$target" = all ]; then
    targets="map scen polygon mesh visgraph profile snapshot"
else
    targets=$target
fi
status=0
for t in $targets; do
    "target/$folder/convoy-fuzz" "$t" "$seconds" "$seed" || status=1
done
exit $status
