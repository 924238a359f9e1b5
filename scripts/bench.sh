#!/usr/bin/env bash
# lakescope native read benchmark (issue 9, P1 + the append-table read), side by side with the anchors.
#
#   scripts/bench.sh [--work DIR] [--runs N] [--no-anchors] [--no-pure-python] [--no-build] [--keys N] [--rows N]
#
# 1. (re)generates perf.pk_upsert (2,000,000 keys, 5 overlapping sorted runs per bucket, 4 buckets,
#    Parquet zstd) and perf.append_rows (5,000,000 rows) with Java Paimon 0.9 into DIR/warehouse if
#    they are missing (same writer and data as ../shared/bench/gen_perf.sh: scripts/bench/PerfTool.java);
# 2. builds `lakescope` (cargo build --release -p lakescope-cli; --no-build uses target/release/lakescope as is);
# 3. runs, N times each and interleaved, under /usr/bin/time -v: `lakescope bench-read` (count rows,
#    touch every column), Java Paimon 0.9 (PerfTool bench), pypaimon 2.1 + pypaimon-rust and pure
#    pypaimon 2.1 (scripts/bench/bench_py.py) -- the anchor readers of gen_perf.sh;
# 4. writes target/bench/report.md and target/bench/report.json (rows/s, peak RSS, ratios, targets).
#
# The oracles (Python venv with pypaimon 2.1, Java Paimon 0.9 jars) are expected under
# $LAKE_TOOLS (default ~/.cache/lake-oracles), as set up by ../shared/corpus/gen; pypaimon-rust 0.4
# is installed into $LAKE_TOOLS/venv-rust on first use, exactly as gen_perf.sh does.
# Not part of `cargo test`.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
HERE="$ROOT/scripts/bench"
TOOLS="${LAKE_TOOLS:-$HOME/.cache/lake-oracles}"
WORK="${TMPDIR:-/tmp}/lakescope-perf"; RUNS=3; ANCHORS=1; PURE=1; BUILD=1; KEYS=2000000; ROWS=5000000
while [ $# -gt 0 ]; do
  case "$1" in
    --work) WORK="$2"; shift;; --runs) RUNS="$2"; shift;; --no-anchors) ANCHORS=0;;
    --no-pure-python) PURE=0;; --no-build) BUILD=0;; --keys) KEYS="$2"; shift;; --rows) ROWS="$2"; shift;;
    -h|--help) sed -n 2,18p "$0"; exit 0;;
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
if [ ! -d "$WH/perf.db/pk_upsert" ] || [ ! -d "$WH/perf.db/append_rows" ]; then
  [ "$JAVA_OK" = 1 ] || { echo "no tables in $WH and no Java Paimon 0.9 under $TOOLS/java/lib" >&2; exit 1; }
  echo "== writing perf.pk_upsert ($KEYS keys) and perf.append_rows ($ROWS rows) with Java Paimon 0.9.0"
  rm -rf "$WH"
  JOPTS="-Xmx4g -Djava.io.tmpdir=$WORK/tmp"
  /usr/bin/time -v -o "$WORK/runs/write_pk.time" java $JOPTS -cp "$CP" PerfTool writepk "$WH" "$KEYS" 5
  /usr/bin/time -v -o "$WORK/runs/write_append.time" java $JOPTS -cp "$CP" PerfTool writeappend "$WH" "$ROWS" 5
fi
if [ "$ANCHORS" = 1 ] && [ -x "$PY" ] && [ ! -x "$PYR" ]; then
  "$PY" -m venv "$TOOLS/venv-rust" && \
  echo "$TOOLS/venv/lib/python3.11/site-packages" > "$TOOLS/venv-rust/lib/python3.11/site-packages/corpus_venv.pth" && \
  "$TOOLS/venv-rust/bin/pip" install -q --no-deps pypaimon-rust==0.4.0 || echo "pypaimon-rust not installed"
fi

if [ "$BUILD" = 1 ]; then
  echo "== cargo build --release -p lakescope-cli"
  (cd "$ROOT" && cargo build --release -p lakescope-cli)
fi
LS="$ROOT/target/release/lakescope"

rm -f "$WORK"/runs/*.[0-9]*.time "$WORK"/runs/*.[0-9]*.out "$WORK"/runs/*.[0-9]*.err
run() {  # run <label> <table> <n> <cmd...>
  local label="$1" tbl="$2" n="$3"; shift 3
  local base="$WORK/runs/$label.$tbl.$n"
  /usr/bin/time -v -o "$base.time" "$@" > "$base.out" 2> "$base.err" || \
    echo "{\"error\": \"exit $?\"}" >> "$base.out"
  echo "   $label: $(tail -1 "$base.out")"
}
LOAD_BEFORE="$(cut -d' ' -f1-3 /proc/loadavg)"
for tbl in pk_upsert append_rows; do
  for i in $(seq 1 "$RUNS"); do
    echo "== perf.$tbl run $i"
    run lakescope "$tbl" "$i" "$LS" bench-read "$WH" "perf.$tbl"
    if [ "$ANCHORS" = 1 ]; then
      [ "$JAVA_OK" = 1 ] && run java "$tbl" "$i" java -Xmx4g -XX:ActiveProcessorCount=1 -cp "$CP" PerfTool bench "$WH/perf.db/$tbl"
      [ -x "$PYR" ] && run pypaimon_rust "$tbl" "$i" "$PYR" "$HERE/bench_py.py" "$WH" "perf.$tbl" native
      [ "$PURE" = 1 ] && [ -x "$PY" ] && run pypaimon "$tbl" "$i" "$PY" "$HERE/bench_py.py" "$WH" "perf.$tbl"
    fi
  done
done
LOAD_AFTER="$(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$HERE/report.py" --work "$WORK" --out "$OUT" --load "$LOAD_BEFORE" "$LOAD_AFTER" \
  --git "$(cd "$ROOT" && git rev-parse --short HEAD)$(cd "$ROOT" && git diff --quiet HEAD -- crates || echo '+dirty')"
echo "== wrote $OUT/report.md and $OUT/report.json"
