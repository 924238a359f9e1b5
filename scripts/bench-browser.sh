#!/usr/bin/env bash
# lakescope browser benchmark (issue 9 P2, P3, P4, P6; issue 27 P11) in headless Chromium over loopback HTTP.
#
#   scripts/bench-browser.sh [--work DIR] [--runs N] [--app DIST | --no-app] [--latency MS] [--no-build]
#                            [--profile CARGO_PROFILE] [--only CASE_SUBSTRING[,…]] [--p11 [--anchor-app DIST]]
#                            [--p8-app]
#
# 1. npm ci in tests/bench-browser (DuckDB-Wasm, parquet-wasm, hyparquet + hyparquet-compressors,
#    playwright-core, esbuild; versions pinned by its package-lock.json);
# 2. builds the wasm entry point tests/bench-browser/wasm (cargo profile wasm-release, as the app;
#    wasm-bindgen --target web; wasm-opt -Oz with the app's flags, ~6 min here) into
#    target/bench-browser/pkg (--profile release: opt-level 3, no wasm-opt, for comparison) and
#    bundles the page (tests/bench-browser/page) with esbuild into target/bench-browser/www;
# 3. makes sure the tables and Java Paimon 0.9's P1 figure exist: runs `scripts/bench.sh --runs 1
#    --no-pure-python` if DIR/warehouse is missing, or target/bench/report.json when P2 runs (same DIR default:
#    $TMPDIR/lakescope-perf), then writes the warehouse's static-host index (scripts/gen-index.py);
# 4. P4 needs the app: --app DIST uses a built dist/, otherwise `trunk build --release` into
#    target/bench-browser/app (--no-app skips P4);
# 5. runs tests/bench-browser/run.mjs: every case N times, interleaved, each in a fresh headless
#    Chromium; P4 behind a loopback server that delays every response by --latency ms (default 50);
#    writes target/bench/browser_report.md and target/bench/browser_report.json;
# 6. --p11: also P11, deep links on a server sending the README's caching headers, cold and on a second
#    visit in the same browser profile, for the app and, interleaved in the same run, for --anchor-app
#    (another build, e.g. main's, to compare with);
# 7. --p8-app: also P8 in the app, the Data tab of the perf tables read whole with ?threads=1 and with
#    every core (the page and its scan workers), a first read and a second one in the same page.
# Not part of the normal test command.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
HERE="$ROOT/tests/bench-browser"; OUT="$ROOT/target/bench-browser"
WORK="${TMPDIR:-/tmp}/lakescope-perf"; RUNS=3; APP=""; NO_APP=0; LATENCY=50; BUILD=1; PROFILE=wasm-release; ONLY=""
P11=(); ANCHOR_APP=(); P8_APP=()
while [ $# -gt 0 ]; do
  case "$1" in
    --work) WORK="$2"; shift;; --runs) RUNS="$2"; shift;; --app) APP="$2"; shift;; --no-app) NO_APP=1;;
    --latency) LATENCY="$2"; shift;; --no-build) BUILD=0;; --profile) PROFILE="$2"; shift;; --only) ONLY="$2"; shift;;
    --p11) P11=(--p11);; --p8-app) P8_APP=(--p8-app);; --anchor-app) ANCHOR_APP=(--anchor-app "$(cd "$2" && pwd)"); shift;;
    -h|--help) sed -n 2,29p "$0"; exit 0;;
    *) echo "unknown argument $1" >&2; exit 2;;
  esac; shift
done
mkdir -p "$OUT/pkg" "$OUT/www" "$WORK"; WORK="$(cd "$WORK" && pwd)"

echo "== npm ci (tests/bench-browser)"
(cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error)

if [ "$BUILD" = 1 ]; then
  echo "== wasm entry point (cargo profile $PROFILE, wasm-bindgen, wasm-opt -Oz for wasm-release)"
  (cd "$ROOT" && CARGO_NET_OFFLINE=true cargo build -p lakescope-bench-wasm --target wasm32-unknown-unknown --profile "$PROFILE")
  TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
  wasm-bindgen --target web --no-typescript --out-dir "$OUT/pkg" \
    "$TARGET_DIR/wasm32-unknown-unknown/$PROFILE/lakescope_bench_wasm.wasm"
  [ "$PROFILE" != wasm-release ] || wasm-opt -Oz --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-reference-types --enable-multivalue --enable-mutable-globals \
    -o "$OUT/pkg/lakescope_bench_wasm_bg.wasm" "$OUT/pkg/lakescope_bench_wasm_bg.wasm"
fi
echo "== page bundle (esbuild)"
cp "$HERE/page/bench.html" "$HERE/page/scan-worker.js" "$OUT/www/"
"$HERE/node_modules/.bin/esbuild" "$HERE/page/bench.js" --bundle --format=esm --log-level=warning \
  --outfile="$OUT/www/bench.js"

# Java's P1 figure is P2's anchor: needed only when the P2 case is among those run (--only).
NEED_JAVA=0; IFS=, read -ra PARTS <<< "$ONLY,"; for part in "${PARTS[@]:-}"; do [[ "p2.lakescope" == *"$part"* ]] && NEED_JAVA=1; done
if [ ! -d "$WORK/warehouse/perf.db/pk_upsert" ] || { [ "$NEED_JAVA" = 1 ] && [ ! -f "$ROOT/target/bench/report.json" ]; }; then
  echo "== tables and the Java Paimon 0.9 P1 figure: scripts/bench.sh --runs 1 --no-pure-python"
  "$ROOT/scripts/bench.sh" --work "$WORK" --runs 1 --no-pure-python
fi
python3 "$ROOT/scripts/gen-index.py" "$WORK/warehouse"

APP_ARGS=()
if [ "$NO_APP" = 0 ]; then
  if [ -z "$APP" ]; then
    echo "== app release build (trunk build --release)"
    APP="$OUT/app"
    (cd "$ROOT" && CARGO_NET_OFFLINE=true TRUNK_SKIP_VERSION_CHECK=true trunk build --release --dist "$APP")
  fi
  APP_ARGS=(--app "$(cd "$APP" && pwd)")
fi

GIT_REV="$(cd "$ROOT" && git rev-parse --short HEAD)$(cd "$ROOT" && git diff --quiet HEAD -- crates tests/bench-browser || echo '+dirty')"
echo "== running (load $(cut -d' ' -f1-3 /proc/loadavg))"
node "$HERE/run.mjs" --warehouse "$WORK/warehouse" --www "$OUT/www" --pkg "$OUT/pkg" "${APP_ARGS[@]}" \
  --out "$ROOT/target/bench" --runs "$RUNS" --latency "$LATENCY" --anchors "$ROOT/target/bench/report.json" --git "$GIT_REV" \
  --profile "$PROFILE" --only "$ONLY" "${P11[@]}" "${ANCHOR_APP[@]}" "${P8_APP[@]}"
