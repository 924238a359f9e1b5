#!/usr/bin/env bash
# The whole benchmark suite (issues 9 and 27) in one command, side by side with its anchors:
#   P1 native merge-on-read and the append-table read, P8 the same reads on every core (scripts/bench.sh;
#   with pyiceberg installed also an Iceberg table of the append rows, for information),
#   P7 write throughput and P10 bytes written against Java Paimon 0.9 (scripts/bench.sh --write),
#   P9 planning a 100,000-file table against Java Paimon 0.9 (scripts/bench-plan.sh; the table is
#   written once, about 80 minutes, and kept in the work folder),
#   P2, P3, P4, P6, P8 in the browser (the P2/P3 reads on a pool of Web Workers, cold and warm, over HTTP and
#   from OPFS) and P11 (deep links cold and on a second visit; P11_ANCHOR_APP=DIST adds another build
#   beside it) in headless Chromium (scripts/bench-browser.sh; it builds the release app),
#   P5 the explorer's first load (scripts/payload-size.sh on that release app),
#   P12 a long session in one page (tests/e2e/bench_long_session.mjs on that app, with the SQL engine),
#   and the build cost: a cold release build of the CLI and an incremental one (scripts/bench-build.sh,
#   about 25 minutes on 2 cores; --no-build-cost skips it).
#   --no-plan skips P9 (on a machine whose work folder lacks its table, writing it takes ~80 minutes).
#
#   bash scripts/bench-all.sh [--runs N] [--work DIR] [--no-build-cost] [--no-plan]
#
# The oracles (Java Paimon 0.9, pypaimon 2.1) are set up by ../shared/corpus/gen as for the tests;
# npm packages are installed by bench-browser.sh. Writes target/bench/suite.md: the machine, the
# date and each part's report (target/bench/{report,write_report,plan_report,build_report,browser_report}.md).
# Not part of the normal test command.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
RUNS=3; WORK="${TMPDIR:-/tmp}/lakescope-perf"; BUILD_COST=1; PLAN=1
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS="$2"; shift;; --work) WORK="$2"; shift;; --no-build-cost) BUILD_COST=0;; --no-plan) PLAN=0;;
    -h|--help) sed -n 2,22p "$0"; exit 0;;
    *) echo "unknown argument $1" >&2; exit 2;;
  esac; shift
done
OUT="$ROOT/target/bench"; APP="$ROOT/target/bench-browser/app"; mkdir -p "$OUT"

echo "== P1: native reads"
bash "$ROOT/scripts/bench.sh" --work "$WORK" --runs "$RUNS"
echo "== P7, P10: writes (rows/s and bytes)"
bash "$ROOT/scripts/bench.sh" --write --work "$WORK" --runs "$RUNS" --no-build
if [ "$PLAN" = 1 ]; then
  echo "== P9: planning at scale"
  bash "$ROOT/scripts/bench-plan.sh" --work "$WORK" --runs "$RUNS" --no-build
else
  rm -f "$OUT/plan_report.md"
fi
if [ "$BUILD_COST" = 1 ]; then
  echo "== Build cost: a cold and an incremental release build of the CLI"
  bash "$ROOT/scripts/bench-build.sh" --target "$WORK/build-cost"
fi
echo "== P2, P3, P4, P6, P8, P11: in the browser (builds the release app into $APP)"
bash "$ROOT/scripts/bench-browser.sh" --work "$WORK" --runs "$RUNS" --p11 --p8-app ${P11_ANCHOR_APP:+--anchor-app "$P11_ANCHOR_APP"}
echo "== P5: the explorer's first load"
bash "$ROOT/scripts/payload-size.sh" "$APP" | tee "$OUT/payload.txt"
echo "== P12: a long session in one page (memory after round 1 and at the end)"
[ -f "$APP/lakescope-sql-worker_loader.js" ] || bash "$ROOT/scripts/build-sql-worker.sh" "$APP"
(cd "$ROOT/tests/e2e" && { [ -d node_modules ] || npm ci --no-audit --no-fund; })
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$PORT" --bind 127.0.0.1 --directory "$APP" >"$OUT/p12-http.log" 2>&1 &
HTTP_PID=$!
trap 'kill "$HTTP_PID" 2>/dev/null || true' EXIT
sleep 1
(cd "$ROOT/tests/e2e" && LAKESCOPE_URL="http://127.0.0.1:$PORT/" node bench_long_session.mjs) | tee "$OUT/p12.jsonl"
kill "$HTTP_PID" 2>/dev/null || true

{
  echo "# lakescope benchmark suite ($(date -u +%Y-%m-%d), $(cd "$ROOT" && git rev-parse --short HEAD))"
  echo
  echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs)), $(free -g | awk '/Mem:/ {print $2}') GiB RAM, $(uname -sr); load at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  for part in report write_report plan_report build_report browser_report; do
    if [ "$part" = build_report ] && [ "$BUILD_COST" = 0 ]; then
      echo "Build cost: not measured in this run (--no-build-cost)."; echo; continue
    fi
    if [ "$part" = plan_report ] && [ "$PLAN" = 0 ]; then
      echo "P9: not measured in this run (--no-plan)."; echo; continue
    fi
    [ -f "$OUT/$part.md" ] && { cat "$OUT/$part.md"; echo; }
  done
  echo "## P5: first load (target ≤ 2.5 MB gzip)"
  echo
  echo '```'
  cat "$OUT/payload.txt"
  echo '```'
  echo
  echo "## P12: a long session (memory at the end ≤ 1.5× after round 1)"
  echo
  echo '```'
  tail -n 1 "$OUT/p12.jsonl"
  echo '```'
} > "$OUT/suite.md"
echo "report: $OUT/suite.md"
