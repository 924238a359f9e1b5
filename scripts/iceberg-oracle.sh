#!/usr/bin/env bash
# Sets up the Iceberg interop oracles idempotently, from PyPI only, in the same venv as
# scripts/oracles.sh: ${LAKE_TOOLS:-~/.cache/lake-oracles}/venv with pyiceberg 0.12.0 (+ pyarrow, and
# SQLAlchemy for the SqlCatalog behind crates/iceberg/tests/rest_server.py) and DuckDB 1.5.5 with its iceberg/avro extension wheels (loaded offline with LOAD '<path>').
# crates/iceberg/tests/write_interop.rs reads the tables lakescope writes with them.
# Needs python3 (with venv) and network access to PyPI on the first run.
set -euo pipefail
ROOT="${LAKE_TOOLS:-$HOME/.cache/lake-oracles}"
mkdir -p "$ROOT"
if [ ! -x "$ROOT/venv/bin/python" ]; then
  python3 -m venv "$ROOT/venv"
fi
PY="$ROOT/venv/bin/python"
if ! "$PY" -c "import pyiceberg, pyarrow, sqlalchemy; assert pyiceberg.__version__ == '0.12.0'" 2>/dev/null; then
  "$PY" -m pip install -q "pyiceberg[pyarrow,sql-sqlite]==0.12.0" "pyarrow>=19"
fi
if ! "$PY" -c "import duckdb, duckdb_extension_iceberg, duckdb_extension_avro" 2>/dev/null; then
  "$PY" -m pip install -q "duckdb==1.5.5" "duckdb-extension-iceberg==1.5.5" "duckdb-extension-avro==1.5.5"
fi
echo "iceberg oracles ready in $ROOT (python: $PY)"
