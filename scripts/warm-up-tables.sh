#!/usr/bin/env bash
# Writes the tiny tables the app reads once at start (crates/engine/warm-up/tables.sql, with the
# release CLI) into crates/engine/warm-up/warehouse, and the list of their files that
# crates/engine/src/warm_up.rs embeds (crates/engine/warm-up/files.rs).
#   bash scripts/warm-up-tables.sh
set -euo pipefail
cd "$(dirname "$0")/.."
dir=crates/engine/warm-up
cargo build --release -q -p lakescope-cli
rm -rf "$dir/warehouse"
mkdir -p "$dir/warehouse"
target/release/lakescope sql --warehouse "$dir/warehouse" -f "$dir/tables.sql" >/dev/null
{
  echo "// Written by scripts/warm-up-tables.sh: the files of warehouse/, as (key, bytes)."
  echo "const FILES: &[(&str, &[u8])] = &["
  (cd "$dir/warehouse" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) | while read -r key; do
    echo "    (\"$key\", include_bytes!(\"warehouse/$key\")),"
  done
  echo "];"
} > "$dir/files.rs"
echo "wrote $(grep -c include_bytes "$dir/files.rs") files into $dir/warehouse"
