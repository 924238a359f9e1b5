#!/usr/bin/env bash
# The whole benchmark suite of issue 9 in one command, side by side with its anchors:
#   P1 native merge-on-read and the append-table read (scripts/bench.sh),
#   P7 write throughput and P10 bytes written against Java Paimon 0.9 (scripts/bench.sh --write),
#   P2, P3, P4, P6 in headless Chromium (scripts/bench-browser.sh; it builds the release app),
#   P5 the explorer's first load (scripts/payload-size.sh on that release app).
#
#   bash scripts/bench-all.sh [--runs N] [--work DIR]
#
# The oracles (Java Paimon 0.9, pypaimon 2.1) are set up by ../shared/corpus/gen as for the tests;
# npm packages are installed by bench-browser.sh. Writes target/bench/suite.md: the machine, the
# date and each part's report (target/bench/{report,write_report,browser_report}.md).
# Not part of the normal test command.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
RUNS=3; WORK="${TMPDIR:-/tmp}/lakescope-perf"
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS="$2"; shift;; --work) WORK="$2"; shift;;
    -h|--help) sed -n 2,13p "$0"; exit 0;;
    *) echo "unknown argument $1" >&2; exit 2;;
  esac; shift
done
OUT="$ROOT/target/bench"; APP="$ROOT/target/bench-browser/app"; mkdir -p "$OUT"

echo "== P1: native reads"
bash "$ROOT/scripts/bench.sh" --work "$WORK" --runs "$RUNS"
echo "== P7, P10: writes (rows/s and bytes)"
bash "$ROOT/scripts/bench.sh" --write --work "$WORK" --runs "$RUNS" --no-build
echo "== P2, P3, P4, P6: in the browser (builds the release app into $APP)"
bash "$ROOT/scripts/bench-browser.sh" --work "$WORK" --runs "$RUNS"
echo "== P5: the explorer's first load"
bash "$ROOT/scripts/payload-size.sh" "$APP" | tee "$OUT/payload.txt"

{
  echo "# lakescope benchmark suite ($(date -u +%Y-%m-%d), $(cd "$ROOT" && git rev-parse --short HEAD))"
  echo
  echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs)), $(free -g | awk '/Mem:/ {print $2}') GiB RAM, $(uname -sr); load at the end: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  for part in report write_report browser_report; do
    [ -f "$OUT/$part.md" ] && { cat "$OUT/$part.md"; echo; }
  done
  echo "## P5: first load (target ≤ 2.5 MB gzip)"
  echo
  echo '```'
  cat "$OUT/payload.txt"
  echo '```'
} > "$OUT/suite.md"
echo "report: $OUT/suite.md"
