#!/usr/bin/env bash
# Rewrites docs/benchmarks.md: the method text below, then tables measured now
# on this machine — `convoy-bench run` per stage (default profile at 10,000 and
# 100,000 units, the skirmish profile) and criterion's mean estimate of every
# bench, with the ratios against their peers. 20–40 minutes on 2 cores.
#   scripts/benchmarks.sh                            every criterion bench
#   BENCHES="spatial tick" scripts/benchmarks.sh     a subset
set -euo pipefail
cd "$(dirname "$0")/.."
read -r -a benches <<<"${BENCHES:-spatial pathfinding separation steering turning visgraph tick}"
target=${CARGO_TARGET_DIR:-target}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cpu=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//' || true)
machine="${cpu:-unknown CPU}, $(nproc) cores, $(rustc --version | cut -d' ' -f1-2), load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"

cargo build --release -p convoy-bench
bin="$target/release/convoy-bench"
for units in 10000 100000; do
    "$bin" run --quiet --units "$units" --json "$work/units-$units.json"
done
"$bin" run --quiet profiles/skirmish.toml --json "$work/skirmish.json"
"$bin" table "$work/units-10000.json" "$work/units-100000.json" >"$work/tick.md"
"$bin" table "$work/skirmish.json" >"$work/skirmish.md"
for bench in "${benches[@]}"; do
    touch "$work/$bench.stamp"
    cargo bench -p convoy-bench --bench "$bench" -- --warm-up-time 1 --measurement-time 3
    find "$target/criterion" -path '*/new/benchmark.json' -newer "$work/$bench.stamp" | sort >"$work/$bench.list"
done

{
cat <<'EOF'
# Benchmarks

How convoy's speed is measured, what each benchmark times and against which peer, how to run them, and the figures on the machine that last ran `scripts/benchmarks.sh`. Everything below "Current figures" is written by that script: edit the script, not this page.

## Method

- **Three instruments.** `convoy-bench run` times every stage of the whole tick on a profile against its budget ([cli.md](cli.md)); the criterion benches (`bench/benches/*.rs`) time one piece of the kernel at a time, each next to a peer library doing the same job, on the same inputs, in the same run; `scripts/bench-instructions.sh` counts each stage's instructions under valgrind's callgrind (gungraun), identical from run to run ([instruction-counts.md](instruction-counts.md)).
- **Each bench checks its answer before timing**: neighbour counts equal rstar's, path lengths equal the Moving AI optima, the peers' costs equal convoy's, overlapping pairs equal a brute-force count, two-thread batches equal one-thread ones bit for bit. A bench whose check fails panics instead of timing a wrong answer.
- **Read ratios, not absolute times.** The reference machines are shared 2-core virtual machines: wall-clock figures move by tens of percent between runs, and two hosts of the same kind can differ by 2×. A peer timed in the same run on the same inputs suffers the same noise, so the ratio is the figure to quote. For regressions use the instruction counts, `convoy-bench compare` on `run --repeat K` reports, or `scripts/ab.sh REV_A REV_B EXAMPLE [ARGS]`, which builds `bench/examples/EXAMPLE` at two revisions (`.` is the working tree) and runs them alternately (`RAYON_NUM_THREADS=1 scripts/ab.sh main . steer_once 11.3 --time`). Fewer instructions do not promise less time.
- Criterion reports a time per iteration; the tables divide it by the bench's throughput (units, queries or paths per iteration).

## The benches

| bench | times | peer, or the check |
|---|---|---|
| `spatial` | the spatial hash's counting-sort rebuild and a full neighbour pass (radius 4 m, one unit per 50 m², cell 4 m) at 10k, 100k and 1M units, rows shuffled (worst case) or in cell order (the `Sim`'s steady state); the pass on one thread and on the pool | `rstar`: bulk load and a radius query per point (skipped at 1M units); neighbour counts checked equal |
| `pathfinding` | grid A* on 60 scenario lines of arena2 and of 64room_000, as the `paths` stage runs it (jump point search on these uniform-cost maps) and cell by cell (what bounded queries and maps with terrain costs run); the Armada quadtree with rubber-banding on 64room_000; a batch of 10,000 arena2 queries (`BatchPlanner`) on 1 and 2 threads | `pathfinding::astar` on the same grid; every length checked against the scenario's optimum |
| `separation` | one shield-separation pass (a pushing sweep, the push, the measuring sweep) over 100,000 ground units at one per 50 m², rows in cell order, shields with every semi-axis 2–6 m (`one_iteration`, a jammed crowd) or 2–6 m across (`*_across_2_6m`); `two_iterations` less `one_iteration` is one more push; `exact_tests_alone` is the Perram–Wertheim contact functions alone, the floor under any exact pass | `rstar_peer_one_iteration`: the same pass the textbook way (an R-tree broad phase, the same contact functions, Jacobi pushes, a new tree to measure); overlapping pairs checked against brute force |
| `steering` | the `steering` and `integrate` stages at 100,000 units of the default profile (avoidance radius 11.3 m, about 8 neighbours), every iteration from the same columns; Force 21 avoidance (threat search and response) per unit on one thread | ORCA (`dodgy_2d` `compute_avoiding_velocity`) on the same neighbour lists |
| `turning` | turning-radius paths: rebuilding a warm `TurningPath` from 1,000 random walks of 4 and 16 points (legs 20–60 m, radius 6 m), `point_at`, one tick of a wheeled unit following its curve (`curve_drive_to`) | no peer builds this curve; every path ends at its goal and no arc is tighter than the radius |
| `visgraph` | visibility-graph builds (500 random squares, about 2,000 corners; arena2 and Berlin_0_256 traced to polygons); queries with A* and Dijkstra and exact insertion, and A* with Force 21's first/last-hit insertion; batches of 240 queries on 1 and 2 threads | `pathfinding::dijkstra` over the same graph, given start and goal edges for free; costs equal, traced lengths within octile, heuristic never cheaper, batches bit-identical |
| `tick` | `steering`, `integrate` and a whole `Sim::step` at 10k and 100k units of the default profile | no peer; desired speeds never exceed top speed, units move |
| `instructions` | instruction counts of the spatial rebuild, steering, integrate, separation (the default world, and the separation crowds at 8,000 units) and a whole `Sim::step`, one thread (gungraun, not criterion) | counts identical run to run |

## Commands

```sh
scripts/benchmarks.sh                          # every table below; rewrites this page
BENCHES="spatial tick" scripts/benchmarks.sh   # a subset of the criterion benches
cargo bench -p convoy-bench --bench spatial -- --warm-up-time 1 --measurement-time 3
cargo bench -p convoy-bench --bench separation -- one_iteration    # a criterion filter
cargo bench -p convoy-bench --bench tick -- --profile-time 5       # flamegraph.svg per bench under target/criterion/
scripts/perf-table.sh 10000 100000             # the per-stage tick table alone
scripts/bench-instructions.sh --save-baseline=main
scripts/bench-instructions.sh --baseline=main --callgrind-limits='ir=1%'   # exit 3 past 1 %
scripts/bench-regress.sh --save                # baseline: every shipped profile, 5 runs each
scripts/bench-regress.sh                       # candidate: compared, exit 1 on a regression
scripts/group-starts.sh                        # 20 tanks as a group against one alone, six starts on arena2
```

The benches read the Moving AI maps from `../shared/data/movingai/`.

## Current figures

EOF
python3 - "$work" "$machine" "${benches[@]}" <<'PY'
import json, os, sys
work, machine, benches = sys.argv[1], sys.argv[2], sys.argv[3:]
def fmt(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale: return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"
rep = {n: json.load(open(f"{work}/{n}.json")) for n in ("units-10000", "units-100000", "skirmish")}
big = rep["units-100000"]
print(f"Machine: {machine}.\n")
print(f"### The tick, per stage\n\n`convoy-bench run --quiet --units N --json FILE` for N = 10,000 and 100,000 (the default profile: 600 ticks at 60 Hz, {big['threads']} threads), printed by `convoy-bench table`; milliseconds per tick:\n")
print(open(f"{work}/tick.md").read())
print(f"At 100,000 units the tick's p50 is {big['tick']['p50_ms'] / (1000 / 60):.2f}× a 60 Hz frame (16.7 ms). The default profile has no map: its `paths` stage only writes drive-to points.\n")
sk = rep["skirmish"]; q = sk["quality"]
print(f"`convoy-bench run profiles/skirmish.toml` ({sk['units']:,} units in platoons on a polygon field with a river, bridges and roads; {sk['threads']} threads):\n")
print(open(f"{work}/skirmish.md").read())
print(f"Quality: {q['arrived']:,} units arrived, {q['collisions_per_1000_unit_ticks']:.1f} collisions per 1,000 unit-ticks, mean speed {q['mean_speed_fraction']:.3f} of top speed, {q['stuck']} stuck, formation error {q['formation_error_mean_m']:.1f} m mean and {q['formation_error_p95_m']:.1f} m p95.\n")
per = dict(spatial="unit", pathfinding="query", separation="unit", steering="unit", turning="path", visgraph="query", tick="unit")
peers = dict(
    spatial=[(f"{n:,} units, {o}: {w}", f"spatial/{n}/{a}/{o}", f"spatial/{n}/{b}/{o}") for n in (10000, 100000) for o in ("shuffled", "cell_ordered")
             for w, a, b in (("neighbour pass (1 thread) vs rstar", "convoy_neighbours", "rstar_neighbours"), ("rebuild vs rstar bulk load", "convoy_rebuild", "rstar_bulk_load"))],
    pathfinding=[(f"{m}: grid A* {w} vs `pathfinding::astar`", f"grid_astar/{m}/{a}", f"grid_astar/{m}/pathfinding") for m in ("arena2", "64room_000")
                 for w, a in (("(jump points)", "convoy"), ("cell by cell", "convoy_cell_by_cell"))]
                + [("64room_000: quadtree vs grid A* cell by cell", "quadtree/64room_000/quadtree", "grid_astar/64room_000/convoy_cell_by_cell"),
                   ("64room_000: quadtree vs grid A* (jump points)", "quadtree/64room_000/quadtree", "grid_astar/64room_000/convoy"),
                   ("arena2 batch of 10,000: 2 threads vs 1", "batched/arena2/threads_2", "batched/arena2/threads_1")],
    separation=[(f"{c}: convoy vs rstar peer", f"separation/one_iteration{s}/100000", f"separation/rstar_peer_one_iteration{s}/100000")
                for c, s in (("jammed", ""), ("2–6 m across", "_across_2_6m"))],
    steering=[("Force 21 avoidance vs ORCA (`dodgy_2d`)", "steering/100000/force21_avoidance", "steering/100000/orca_avoidance")],
    visgraph=[(f"random map: {w} vs `pathfinding::dijkstra`", f"visgraph_query/random_2000_corners/{a}", "visgraph_query/random_2000_corners/pathfinding_dijkstra_insertion_free")
              for w, a in (("A* exact", "astar_exact"), ("Dijkstra exact", "dijkstra_exact"))]
             + [("batch of 240: 2 threads vs 1", "visgraph_batch/random_2000_corners/threads_2", "visgraph_batch/random_2000_corners/threads_1")])
for bench in benches:
    rows = {}
    for path in open(f"{work}/{bench}.list").read().split():
        meta = json.load(open(path))
        mean = json.load(open(os.path.join(os.path.dirname(path), "estimates.json")))["mean"]["point_estimate"]
        elements = (meta.get("throughput") or {}).get("Elements")
        rows[meta["full_id"]] = (mean, elements)
    print(f"### `{bench}`\n\n`cargo bench -p convoy-bench --bench {bench} -- --warm-up-time 1 --measurement-time 3`, criterion's mean:\n")
    if not rows:
        print("(no results: the bench did not run)\n"); continue
    print(f"| benchmark | time | per {per.get(bench, 'element')} |\n|---|---:|---:|")
    for name, (mean, elements) in sorted(rows.items()):
        print(f"| `{name}` | {fmt(mean)} | {fmt(mean / elements) if elements else '—'} |")
    pairs = [(label, a, b) for label, a, b in peers.get(bench, []) if a in rows and b in rows]
    if pairs:
        print("\n| comparison | first | second | second ÷ first |\n|---|---:|---:|---:|")
        for label, a, b in pairs:
            print(f"| {label} | {fmt(rows[a][0])} | {fmt(rows[b][0])} | {rows[b][0] / rows[a][0]:.2f}× |")
    print()
PY
} >"$work/benchmarks.md"
mv "$work/benchmarks.md" docs/benchmarks.md
echo "benchmarks: wrote docs/benchmarks.md"
