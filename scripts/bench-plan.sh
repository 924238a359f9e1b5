#!/usr/bin/env bash
# P9 (issue 27): planning at scale, lakescope against Java Paimon 0.9 in the same run.
#   bash scripts/bench-plan.sh [--work DIR] [--runs N] [--no-build]
# Writes perf.plan_pk once with Java Paimon 0.9 (`PerfTool writeplan`: 1,000 partitions, 500 new
# data files per commit, 200 commits = 100,000 live files, never compacted) into DIR/plan-warehouse,
# then plans it at snapshots 2, 20 and 200 (1,000, 10,000 and 100,000 live files) — a full scan
# and a scan of 1% of the partitions (p < 10) — with `lakescope bench-plan` and `PerfTool plan`,
# alternately, each under /usr/bin/time -v (peak RSS), RUNS plans per process on freshly opened
# tables; then reads the Snapshots and Files tabs' system tables ($snapshots, $files) with both,
# in-process.
# Prints Markdown tables and writes target/bench/plan_report.md. Not part of the tests.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
HERE="$ROOT/scripts/bench"
TOOLS="${LAKE_TOOLS:-$HOME/.cache/lake-oracles}"
WORK="${TMPDIR:-/tmp}/lakescope-perf"; RUNS=5; BUILD=1
while [ $# -gt 0 ]; do
  case "$1" in
    --work) WORK="$2"; shift;; --runs) RUNS="$2"; shift;; --no-build) BUILD=0;;
    -h|--help) sed -n 2,10p "$0"; exit 0;;
    *) echo "unknown argument $1" >&2; exit 2;;
  esac; shift
done
mkdir -p "$WORK/runs" "$WORK/tmp"; WORK="$(cd "$WORK" && pwd)"
WH="$WORK/plan-warehouse"; OUT="$ROOT/target/bench"; mkdir -p "$OUT"
CP="$TOOLS/java/lib/*:$TOOLS/perf-classes"
[ -d "$TOOLS/java/lib" ] && command -v javac >/dev/null || { echo "needs Java Paimon 0.9 under $TOOLS/java/lib (scripts/oracles.sh)" >&2; exit 1; }
mkdir -p "$TOOLS/perf-classes"
javac -cp "$TOOLS/java/lib/*" -d "$TOOLS/perf-classes" "$HERE/PerfTool.java"
[ "$BUILD" = 1 ] && (cd "$ROOT" && cargo build --release -p lakescope-cli)
BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/lakescope"
JOPTS="-Xmx8g -Djava.io.tmpdir=$WORK/tmp"
if [ ! -f "$WH/perf.db/plan_pk/snapshot/snapshot-200" ]; then
  echo "== writing perf.plan_pk (1,000 partitions, 500 files a commit, 200 commits) with Java Paimon 0.9.0"
  echo "   (about 80 minutes on 2 cores; an interrupted run resumes after its latest snapshot)"
  /usr/bin/time -v -o "$WORK/runs/write_plan.time" java $JOPTS -cp "$CP" PerfTool writeplan "$WH" 1000 500 200
fi
TABLE="$WH/perf.db/plan_pk"
rss() { awk -F': ' '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$1"; }
field() { python3 -c 'import json, sys; print(json.loads(sys.stdin.read())[sys.argv[1]])' "$1"; }
{
  echo "| live files (snapshot) | scan | lakescope median ms | Java 0.9 median ms | speed ratio | lakescope peak RSS MiB | Java peak RSS MiB | files kept |"
  echo "|---|---|---|---|---|---|---|---|"
} > "$OUT/plan_report.md"
for snap in 2 20 200; do
  for scan in full "1%"; do
    if [ "$scan" = full ]; then lf=(); jf=(); else lf=(--filter "p < 10"); jf=(10); fi
    /usr/bin/time -v -o "$WORK/runs/plan_l.time" "$BIN" bench-plan "$WH" perf.plan_pk --snapshot "$snap" --runs "$RUNS" "${lf[@]}" > "$WORK/runs/plan_l.json"
    /usr/bin/time -v -o "$WORK/runs/plan_j.time" java $JOPTS -XX:ActiveProcessorCount=1 -cp "$CP" PerfTool plan "$TABLE" "$snap" "$RUNS" "${jf[@]}" > "$WORK/runs/plan_j.json"
    l=$(field median_millis < "$WORK/runs/plan_l.json"); j=$(field median_millis < "$WORK/runs/plan_j.json")
    lfiles=$(field files < "$WORK/runs/plan_l.json"); jfiles=$(field files < "$WORK/runs/plan_j.json")
    [ "$lfiles" = "$jfiles" ] || { echo "snapshot $snap $scan: lakescope kept $lfiles files, Java $jfiles" >&2; exit 1; }
    total=$(field files < <("$BIN" bench-plan "$WH" perf.plan_pk --snapshot "$snap" --runs 1))
    ratio=$(python3 -c "print(f'{$j / $l:.2f}×')")
    echo "| $total ($snap) | $scan | $l | $j | $ratio | $(rss "$WORK/runs/plan_l.time") | $(rss "$WORK/runs/plan_j.time") | $lfiles |" | tee -a "$OUT/plan_report.md"
  done
done
# The Snapshots and Files tabs: every row of plan_pk$snapshots (200) and plan_pk$files (the latest
# snapshot's live files), each read RUNS times in-process through a freshly opened table (lakescope
# `bench-plan DB.T$SYS`, Java `PerfTool systable` through a fresh catalog; JVM start-up excluded),
# medians; for information also lakescope's whole process printing every row (`scan --format jsonl`).
{
  echo
  echo "| system table (tab) | rows | lakescope median ms (in-process) | Java 0.9 median ms (in-process) | speed ratio | lakescope median ms (whole process, JSON lines out) | lakescope peak RSS MiB | Java peak RSS MiB |"
  echo "|---|---|---|---|---|---|---|---|"
} >> "$OUT/plan_report.md"
for sys in snapshots files; do
  /usr/bin/time -v -o "$WORK/runs/sys_l.time" "$BIN" bench-plan "$WH" "perf.plan_pk\$$sys" --runs "$RUNS" > "$WORK/runs/sys_l.json"
  l=$(field median_millis < "$WORK/runs/sys_l.json"); rows=$(field rows < "$WORK/runs/sys_l.json")
  ms=()
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -v -o "$WORK/runs/sys_p.time" "$BIN" scan "$WH" "perf.plan_pk\$$sys" --format jsonl > "$WORK/runs/sys_l.jsonl"
    ms+=("$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; printf "%.1f", s * 1000}' "$WORK/runs/sys_p.time")")
  done
  p=$(printf '%s\n' "${ms[@]}" | sort -n | awk '{a[NR] = $1} END {print a[int(NR / 2) + 1]}')
  printed=$(wc -l < "$WORK/runs/sys_l.jsonl")
  [ "$printed" = "$rows" ] || { echo "plan_pk\$$sys: lakescope read $rows rows, printed $printed" >&2; exit 1; }
  /usr/bin/time -v -o "$WORK/runs/sys_j.time" java $JOPTS -XX:ActiveProcessorCount=1 -cp "$CP" PerfTool systable "$WH" perf "plan_pk\$$sys" "$RUNS" > "$WORK/runs/sys_j.json"
  j=$(field median_millis < "$WORK/runs/sys_j.json"); jrows=$(field rows < "$WORK/runs/sys_j.json")
  [ "$rows" = "$jrows" ] || { echo "plan_pk\$$sys: lakescope read $rows rows, Java $jrows" >&2; exit 1; }
  ratio=$(python3 -c "print(f'{$j / $l:.2f}×')")
  echo "| \$$sys | $rows | $l | $j | $ratio | $p | $(rss "$WORK/runs/sys_l.time") | $(rss "$WORK/runs/sys_j.time") |" | tee -a "$OUT/plan_report.md"
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/plan_report.md"
echo "report: $OUT/plan_report.md"
