#!/usr/bin/env bash
# lakescope native read benchmark (issue 9, P1 + the append-table read), side by side with the anchors.
#
#   scripts/bench.sh [--work DIR] [--runs N] [--no-anchors] [--no-pure-python] [--no-build] [--keys N] [--rows N]
#   scripts/bench.sh --write [--work DIR] [--runs N] [--no-build] [--keys N]
#
# 1. (re)generates perf.pk_upsert (2,000,000 keys, 5 overlapping sorted runs per bucket, 4 buckets,
#    Parquet zstd) and perf.append_rows (5,000,000 rows) with Java Paimon 0.9 into DIR/warehouse if
#    they are missing (same writer and data as ../shared/bench/gen_perf.sh: scripts/bench/PerfTool.java);
# 2. builds `lakescope` (cargo build --release -p lakescope-cli; --no-build uses $CARGO_TARGET_DIR/release/lakescope,
#    default target/, as is);
# 3. runs, N times each and interleaved, under /usr/bin/time -v: `lakescope bench-read --threads 1`
#    (count rows, touch every column, one thread: P1) and `--threads $(nproc)` (P8), Java Paimon 0.9
#    (PerfTool bench), pypaimon 2.1 + pypaimon-rust and pure pypaimon 2.1 (scripts/bench/bench_py.py)
#    -- the anchor readers of gen_perf.sh;
# 4. the same 1-thread and all-core reads of an Iceberg table of append_rows' rows (for information):
#    written once into DIR/iceberg by pyiceberg (scripts/bench/iceberg_perf.py, the venv of
#    scripts/iceberg-oracle.sh), skipped when pyiceberg is not installed;
# 5. writes target/bench/report.md and target/bench/report.json (rows/s, peak RSS, ratios, targets,
#    and P8's speed-up of all cores over one thread).
#
# --write (P7, write throughput) instead times, N times each and interleaved (the order alternates),
# `lakescope bench-write DIR/write/lakescope.i perf.pk_upsert` against Java Paimon 0.9's
# `PerfTool writepk DIR/write/java.i` (the same table, rows and 5 commits), each under /usr/bin/time -v;
# then reads the last run's two tables back with `lakescope bench-read` and `PerfTool bench` (row
# counts and checksums must agree) and writes target/bench/write_report.{md,json}.
#
# The oracles (Python venv with pypaimon 2.1, Java Paimon 0.9 jars) are expected under
# $LAKE_TOOLS (default ~/.cache/lake-oracles), as set up by ../shared/corpus/gen; pypaimon-rust 0.4
# is installed into $LAKE_TOOLS/venv-rust on first use, exactly as gen_perf.sh does.
# Not part of `cargo test`.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
HERE="$ROOT/scripts/bench"
TOOLS="${LAKE_TOOLS:-$HOME/.cache/lake-oracles}"
WORK="${TMPDIR:-/tmp}/lakescope-perf"; RUNS=3; ANCHORS=1; PURE=1; BUILD=1; KEYS=2000000; ROWS=5000000; WRITE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --work) WORK="$2"; shift;; --runs) RUNS="$2"; shift;; --no-anchors) ANCHORS=0;;
    --no-pure-python) PURE=0;; --no-build) BUILD=0;; --keys) KEYS="$2"; shift;; --rows) ROWS="$2"; shift;;
    --write) WRITE=1;;
    -h|--help) sed -n 2,28p "$0"; exit 0;;
    *) echo "unknown argument $1" >&2; exit 2;;
  esac; shift
done
mkdir -p "$WORK/runs" "$WORK/tmp"; WORK="$(cd "$WORK" && pwd)"
WH="$WORK/warehouse"; OUT="$ROOT/target/bench"; mkdir -p "$OUT"
PY="$TOOLS/venv/bin/python"; PYR="$TOOLS/venv-rust/bin/python"
CP="$TOOLS/java/lib/*:$TOOLS/perf-classes"
JAVA_OK=0; [ -d "$TOOLS/java/lib" ] && command -v javac >/dev/null && JAVA_OK=1

if [ "$JAVA_OK" = 1 ]; then
  mkdir -p "$TOOLS/perf-classes"
  javac -cp "$TOOLS/java/lib/*" -d "$TOOLS/perf-classes" "$HERE/PerfTool.java"
fi
if [ "$WRITE" = 0 ] && { [ ! -d "$WH/perf.db/pk_upsert" ] || [ ! -d "$WH/perf.db/append_rows" ]; }; then
  [ "$JAVA_OK" = 1 ] || { echo "no tables in $WH and no Java Paimon 0.9 under $TOOLS/java/lib" >&2; exit 1; }
  echo "== writing perf.pk_upsert ($KEYS keys) and perf.append_rows ($ROWS rows) with Java Paimon 0.9.0"
  rm -rf "$WH"
  JOPTS="-Xmx4g -Djava.io.tmpdir=$WORK/tmp"
  /usr/bin/time -v -o "$WORK/runs/write_pk.time" java $JOPTS -cp "$CP" PerfTool writepk "$WH" "$KEYS" 5
  /usr/bin/time -v -o "$WORK/runs/write_append.time" java $JOPTS -cp "$CP" PerfTool writeappend "$WH" "$ROWS" 5
fi
if [ "$WRITE" = 0 ] && [ "$ANCHORS" = 1 ] && [ -x "$PY" ] && [ ! -x "$PYR" ]; then
  "$PY" -m venv "$TOOLS/venv-rust" && \
  echo "$TOOLS/venv/lib/python3.11/site-packages" > "$TOOLS/venv-rust/lib/python3.11/site-packages/corpus_venv.pth" && \
  "$TOOLS/venv-rust/bin/pip" install -q --no-deps pypaimon-rust==0.4.0 || echo "pypaimon-rust not installed"
fi

if [ "$BUILD" = 1 ]; then
  echo "== cargo build --release -p lakescope-cli"
  (cd "$ROOT" && cargo build --release -p lakescope-cli)
fi
LS="${CARGO_TARGET_DIR:-$ROOT/target}/release/lakescope"

rm -f "$WORK"/runs/*.[0-9]*.time "$WORK"/runs/*.[0-9]*.out "$WORK"/runs/*.[0-9]*.err
run() {  # run <label> <table> <n> <cmd...>
  local label="$1" tbl="$2" n="$3"; shift 3
  local base="$WORK/runs/$label.$tbl.$n"
  /usr/bin/time -v -o "$base.time" "$@" > "$base.out" 2> "$base.err" || \
    echo "{\"error\": \"exit $?\"}" >> "$base.out"
  echo "   $label: $(tail -1 "$base.out")"
}
GIT_REV="$(cd "$ROOT" && git rev-parse --short HEAD)$(cd "$ROOT" && git diff --quiet HEAD -- crates || echo '+dirty')"

if [ "$WRITE" = 1 ]; then  # P7: write throughput, lakescope vs Java Paimon 0.9, interleaved
  [ "$JAVA_OK" = 1 ] || { echo "--write needs Java Paimon 0.9 under $TOOLS/java/lib" >&2; exit 1; }
  JOPTS="-Xmx4g -Djava.io.tmpdir=$WORK/tmp"   # as gen_perf.sh writes its anchor table
  rm -f "$WORK"/runs/*_write.* "$WORK"/runs/check.*
  write_lakescope() {
    rm -rf "$WORK/write/lakescope.$1"; mkdir -p "$WORK/write/lakescope.$1"
    run lakescope_write pk_upsert "$1" "$LS" bench-write "$WORK/write/lakescope.$1" perf.pk_upsert --keys "$KEYS"
  }
  write_java() {
    rm -rf "$WORK/write/java.$1"; mkdir -p "$WORK/write/java.$1"
    run java_write pk_upsert "$1" java $JOPTS -cp "$CP" PerfTool writepk "$WORK/write/java.$1" "$KEYS" 5
  }
  LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
  for i in $(seq 1 "$RUNS"); do
    echo "== write perf.pk_upsert run $i (load $(cut -d' ' -f1-3 /proc/loadavg))"
    if [ $((i % 2)) = 1 ]; then write_lakescope "$i"; write_java "$i"; else write_java "$i"; write_lakescope "$i"; fi
    # keep only the last run's tables (checked below)
    if [ "$i" -gt 1 ]; then rm -rf "$WORK/write/lakescope.$((i - 1))" "$WORK/write/java.$((i - 1))"; fi
  done
  LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "== read-back check of run $RUNS's tables"
  check() {  # check <reader> <writer> <cmd...>
    local base="$WORK/runs/check.$1.$2"; shift 2
    "$@" > "$base.out" 2> "$base.err" || echo "{\"error\": \"exit $?\"}" >> "$base.out"
    echo "   $(basename "$base"): $(tail -1 "$base.out")"
  }
  for w in lakescope java; do
    check lakescope_read "$w" "$LS" bench-read "$WORK/write/$w.$RUNS" perf.pk_upsert --threads 1
    check java_read "$w" java -Xmx4g -XX:ActiveProcessorCount=1 -cp "$CP" PerfTool bench "$WORK/write/$w.$RUNS/perf.db/pk_upsert"
  done
  (cd "$HERE" && python3 report_write.py --work "$WORK" --out "$OUT" --load "$LOAD_BEFORE" "$LOAD_AFTER" \
    --git "$GIT_REV" --keys "$KEYS")
  echo "== wrote $OUT/write_report.md and $OUT/write_report.json"
  exit 0
fi

LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
for tbl in pk_upsert append_rows; do
  for i in $(seq 1 "$RUNS"); do
    echo "== perf.$tbl run $i"
    run lakescope "$tbl" "$i" "$LS" bench-read "$WH" "perf.$tbl" --threads 1
    run lakescope_threads "$tbl" "$i" "$LS" bench-read "$WH" "perf.$tbl" --threads "$(nproc)"
    if [ "$ANCHORS" = 1 ]; then
      [ "$JAVA_OK" = 1 ] && run java "$tbl" "$i" java -Xmx4g -XX:ActiveProcessorCount=1 -cp "$CP" PerfTool bench "$WH/perf.db/$tbl"
      [ -x "$PYR" ] && run pypaimon_rust "$tbl" "$i" "$PYR" "$HERE/bench_py.py" "$WH" "perf.$tbl" native
      [ "$PURE" = 1 ] && [ -x "$PY" ] && run pypaimon "$tbl" "$i" "$PY" "$HERE/bench_py.py" "$WH" "perf.$tbl"
    fi
  done
done
ICE="$WORK/iceberg"
if [ ! -d "$ICE/warehouse/perf/append_rows" ] && [ -x "$PY" ] && "$PY" -c 'import pyiceberg' 2>/dev/null; then
  echo "== writing the Iceberg perf.append_rows with pyiceberg"
  rm -rf "$ICE"
  "$PY" "$HERE/iceberg_perf.py" "$WH" "$ICE" || { echo "   could not write it: the Iceberg read is skipped"; rm -rf "$ICE"; }
fi
if [ -d "$ICE/warehouse/perf/append_rows" ]; then
  for i in $(seq 1 "$RUNS"); do
    echo "== Iceberg perf.append_rows run $i"
    run lakescope iceberg_append_rows "$i" "$LS" bench-read "$ICE/warehouse" perf.append_rows --threads 1
    run lakescope_threads iceberg_append_rows "$i" "$LS" bench-read "$ICE/warehouse" perf.append_rows \
      --threads "$(nproc)"
  done
else
  echo "== no pyiceberg under $TOOLS/venv (scripts/iceberg-oracle.sh): the Iceberg read is skipped"
fi
LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$HERE/report.py" --work "$WORK" --out "$OUT" --load "$LOAD_BEFORE" "$LOAD_AFTER" \
  --git "$GIT_REV"
echo "== wrote $OUT/report.md and $OUT/report.json"
