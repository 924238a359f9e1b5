#!/usr/bin/env bash
# Sets up the interop oracles idempotently, from PyPI only, under ${LAKE_TOOLS:-~/.cache/lake-oracles}:
#   venv/           python venv with pypaimon 2.1.0 + pyarrow (reads tables lakescope wrote)
#   formats/        pylance, paimon-mosaic and vortex-data (pypaimon's lance, mosaic and vortex
#                   file formats)
#   java/lib/       Java Paimon 0.9.0 (shaded bridge jar from the pypaimon==0.2.0 sdist) + Hadoop
#                   client jars and snappy-java (from the pyspark==4.1.0 sdist)
#   java/lakescope-classes/   tests/oracles/ReadJava.java compiled against them
# Needs python3 (with venv), a JDK 17 (javac/java) and network access to PyPI on the first run.
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
ROOT="${LAKE_TOOLS:-$HOME/.cache/lake-oracles}"
mkdir -p "$ROOT"
if [ ! -x "$ROOT/venv/bin/python" ]; then
  python3 -m venv "$ROOT/venv"
fi
PY="$ROOT/venv/bin/python"
if ! "$PY" -c "import pypaimon, pyarrow" 2>/dev/null; then
  "$PY" -m pip install -q "pypaimon==2.1.0" "pyarrow>=19" "fastavro" "numpy"
fi
# The extra data file formats pypaimon 2.1 writes (file.format lance / mosaic / vortex), for the
# tests of how lakescope treats such tables; beside the venv (--no-deps: they use the venv's
# pyarrow and numpy), put on sys.path by tests that need them. pypaimon 2.1's vortex writer
# imports `substrait.algebra_pb2`: substrait 0.28 has it (with its protobuf dependencies).
if [ ! -d "$ROOT/formats/lance" ] || [ ! -d "$ROOT/formats/mosaic" ] || [ ! -d "$ROOT/formats/vortex" ]; then
  "$PY" -m pip install -q --no-deps --upgrade --target "$ROOT/formats" "pylance==14.0.2" "paimon-mosaic==0.2.0" \
    "vortex-data==0.93.0" "substrait==0.28.0" "substrait-protobuf==0.79.0" "substrait-extensions==0.79.0" \
    "protobuf==6.33.6"
fi
LIB="$ROOT/java/lib"
mkdir -p "$LIB" "$ROOT/java/dl"
if [ ! -f "$LIB/paimon-python-java-bridge-0.9.0.jar" ]; then
  "$PY" -m pip download -q --no-deps --no-binary :all: pypaimon==0.2.0 -d "$ROOT/java/dl"
  tar xzf "$ROOT/java/dl/pypaimon-0.2.0.tar.gz" -C "$LIB" --strip-components=3 \
    pypaimon-0.2.0/deps/jars/paimon-python-java-bridge-0.9.0.jar
fi
if [ ! -f "$LIB/hadoop-client-runtime-3.4.2.jar" ]; then
  "$PY" -m pip download -q --no-deps --no-binary :all: pyspark==4.1.0 -d "$ROOT/java/dl"
  tar xzf "$ROOT/java/dl/pyspark-4.1.0.tar.gz" -C "$LIB" --strip-components=3 \
    pyspark-4.1.0/deps/jars/hadoop-client-api-3.4.2.jar pyspark-4.1.0/deps/jars/hadoop-client-runtime-3.4.2.jar \
    pyspark-4.1.0/deps/jars/snappy-java-1.1.10.8.jar
fi
rm -rf "$ROOT/java/dl"
CLS="$ROOT/java/lakescope-classes"
SRC="$HERE/tests/oracles/ReadJava.java"
if [ ! -f "$CLS/ReadJava.class" ] || [ "$SRC" -nt "$CLS/ReadJava.class" ]; then
  mkdir -p "$CLS"
  javac -nowarn -cp "$LIB/*" -d "$CLS" "$SRC"
fi
echo "oracles ready in $ROOT"
