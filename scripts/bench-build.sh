#!/usr/bin/env bash
# Build cost (issue 27): a cold `cargo build --release -p lakescope-cli` in an empty target folder,
# then the incremental build after a change to lakescope-paimon (its lib.rs touched: paimon and the
# crates above it rebuilt), each timed with /usr/bin/time -v (wall, user + sys CPU, peak RSS); the
# cold build's longest units and our crates' from cargo's --timings report.
#   bash scripts/bench-build.sh [--target DIR]
# DIR (default $TMPDIR/lakescope-build-cost) is emptied first and removed at the end. About 25 minutes
# on a quiet 2-core machine; run it with nothing else running. Writes target/bench/build_report.md.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TARGET="${TMPDIR:-/tmp}/lakescope-build-cost"
while [ $# -gt 0 ]; do
  case "$1" in
    --target) TARGET="$2"; shift;;
    -h|--help) sed -n 2,8p "$0"; exit 0;;
    *) echo "unknown argument $1" >&2; exit 2;;
  esac; shift
done
OUT="$ROOT/target/bench"; mkdir -p "$OUT"
rm -rf "$TARGET"; mkdir -p "$TARGET"
trap 'rm -rf "$TARGET"' EXIT
build() {  # build LABEL: one timed release build of the CLI into $TARGET
  echo "== $1 (load $(cut -d' ' -f1-3 /proc/loadavg))"
  (cd "$ROOT" && CARGO_TARGET_DIR="$TARGET" CARGO_NET_OFFLINE=true /usr/bin/time -v -o "$TARGET/$1.time" \
    cargo build --release -p lakescope-cli --timings)
}
build cold
touch "$ROOT/crates/paimon/src/lib.rs"
build incremental
python3 - "$TARGET" "$OUT/build_report.md" "$(cd "$ROOT" && git rev-parse --short HEAD)" <<'PY'
import glob, json, re, sys
target, out, rev = sys.argv[1:]

def timed(label):
    text = open(f"{target}/{label}.time").read()
    field = lambda name: re.search(rf"{re.escape(name)}: (.+)", text).group(1).strip()
    wall = 0.0
    for part in field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":"):
        wall = wall * 60 + float(part)
    cpu = float(field("User time (seconds)")) + float(field("System time (seconds)"))
    return wall, cpu, int(field("Maximum resident set size (kbytes)")) / 1024

# the cold build's --timings report (the first one written; cargo names them by start time)
report = sorted(glob.glob(f"{target}/cargo-timings/cargo-timing-*.html"))[0]
units = json.loads(re.search(r"const UNIT_DATA = (\[.*?\]);\n", open(report).read(), re.S).group(1))
units.sort(key=lambda u: -u["duration"])
ours = [u for u in units if u["name"].startswith("lakescope")]
fmt = lambda s: f"{int(s // 60)} min {s % 60:.0f} s"
lines = [f"# Build cost at {rev}", "",
         "| build | wall | CPU (user + sys) | peak RSS MiB |", "|---|---|---|---|"]
for label in ["cold", "incremental"]:
    wall, cpu, rss = timed(label)
    lines.append(f"| {label} | {fmt(wall)} | {cpu:,.0f} s | {rss:,.0f} |")
lines += ["", f"Cold build: {len(units)} units. Longest (s): "
          + ", ".join(f"{u['name']} {u['duration']:.0f}" for u in units[:10]),
          "", f"Our crates (s, {sum(u['duration'] for u in ours):.0f} in all): "
          + ", ".join(f"{u['name']} {u['duration']:.0f}" for u in ours), ""]
open(out, "w").write("\n".join(lines))
print("\n".join(lines))
PY
echo "report: $OUT/build_report.md"
