#!/usr/bin/env bash
# Sets up the Iceberg interop oracles idempotently, from PyPI only, in the same venv as
# scripts/oracles.sh: ${LAKE_TOOLS:-~/.cache/lake-oracles}/venv with pyiceberg 0.12.0 (+ pyarrow, and
# SQLAlchemy for the SqlCatalog behind crates/iceberg/tests/rest_server.py) and DuckDB 1.5.5 with its iceberg/avro extension wheels (loaded offline with LOAD '<path>').
# crates/iceberg/tests/write_interop.rs reads the tables lakescope writes with them. Also
# lakana-server 0.20.0, the Iceberg REST catalog of the REST tests, in $LAKE_TOOLS/lakana-venv.
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
# The Iceberg REST catalog the tests start (../shared/catalogs/iceberg-rest-server-lakana.sh), in the
# venv that script uses: installed here, once, so that tests starting several servers at once never
# race to create it (the script installs it on first use, which a fresh machine's parallel tests
# turned into failed starts).
LAKANA="$ROOT/lakana-venv"
if ! "$LAKANA/bin/python" -c 'import importlib.metadata as m,sys; sys.exit(m.version("lakana-server")!="0.20.0")' 2>/dev/null; then
  [ -x "$LAKANA/bin/python" ] || python3 -m venv "$LAKANA"
  "$LAKANA/bin/python" -m pip install -q "lakana-server==0.20.0"
fi
echo "iceberg oracles ready in $ROOT (python: $PY; lakana-server: $LAKANA)"
