#!/usr/bin/env bash
# Prints the raw and gzip -9 sizes of the wasm + JS payload of a Trunk dist/ folder: the SQL engine
# the SQL tab fetches on first use, the ORC worker fetched on the first ORC file, then (last) the
# explorer's first load (app wasm + JS + CSS).
#   bash scripts/payload-size.sh [dist]
set -euo pipefail
dist=${1:-dist}
shopt -s nullglob
worker=("$dist"/lakescope-sql-worker*)
orc=("$dist"/lakescope-orc-worker*)
first=()
for f in "$dist"/*.wasm "$dist"/*.js "$dist"/*.css; do
  case $(basename "$f") in lakescope-sql-worker* | lakescope-orc-worker*) ;; *) first+=("$f") ;; esac
done
((${#first[@]})) || { echo "no .wasm/.js files in $dist (run trunk build --release first)" >&2; exit 1; }

# total LABEL FILES...: prints each file and the sum.
total() {
  local label=$1 raw=0 gz=0 r g f
  shift
  for f in "$@"; do
    r=$(stat -c %s "$f")
    g=$(gzip -9 -c "$f" | wc -c)
    printf '  %-48s %9d bytes  gzip %8d\n' "$(basename "$f")" "$r" "$g"
    raw=$((raw + r)) gz=$((gz + g))
  done
  printf '%s: %d KiB raw, %d KiB gzip -9\n' "$label" $(( (raw + 1023) / 1024 )) $(( (gz + 1023) / 1024 ))
}

if ((${#worker[@]})); then
  total "SQL engine (lazy, SQL tab)" "${worker[@]}"
fi
if ((${#orc[@]})); then
  total "ORC worker (lazy, first ORC file)" "${orc[@]}"
fi
# last line: the first-load figure test.sh reports
total "first load (wasm+js+css)" "${first[@]}"
