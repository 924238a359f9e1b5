#!/usr/bin/env bash
# Prints the raw and gzip -9 sizes of the wasm + JS payload of a Trunk dist/ folder.
#   bash scripts/payload-size.sh [dist]
set -euo pipefail
dist=${1:-dist}
shopt -s nullglob
files=("$dist"/*.wasm "$dist"/*.js)
((${#files[@]})) || { echo "no .wasm/.js files in $dist (run trunk build --release first)" >&2; exit 1; }
raw=0 gz=0
for f in "${files[@]}"; do
  r=$(stat -c %s "$f")
  g=$(gzip -9 -c "$f" | wc -c)
  printf '  %-48s %9d bytes  gzip %8d\n' "$(basename "$f")" "$r" "$g"
  raw=$((raw + r)) gz=$((gz + g))
done
printf 'wasm+js: %d KiB raw, %d KiB gzip -9\n' $(( (raw + 1023) / 1024 )) $(( (gz + 1023) / 1024 ))
