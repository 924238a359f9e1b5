#!/usr/bin/env python3
"""Writes _lakescope_index.json (the listing a static host cannot give) for a warehouse folder.

Usage: python3 scripts/gen-index.py public/demo/warehouse
Format: {"files":[{"path":"<key relative to the warehouse>","size":N},...]} sorted by path.
The file is rewritten only when its content changes (so `trunk serve` does not rebuild in a loop).
"""
import json
import os
import sys

INDEX = "_lakescope_index.json"


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    root = sys.argv[1]
    if not os.path.isdir(root):
        print(f"gen-index: {root} is not a folder", file=sys.stderr)
        return 1
    files = []
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in names:
            if name.startswith(".") or (folder == root and name == INDEX):
                continue
            full = os.path.join(folder, name)
            key = os.path.relpath(full, root).replace(os.sep, "/")
            files.append({"path": key, "size": os.path.getsize(full)})
    files.sort(key=lambda f: f["path"])
    text = json.dumps({"files": files}, separators=(",", ":"), ensure_ascii=False) + "\n"
    target = os.path.join(root, INDEX)
    try:
        with open(target, encoding="utf-8") as f:
            if f.read() == text:
                print(f"gen-index: {target} up to date ({len(files)} files)")
                return 0
    except FileNotFoundError:
        pass
    with open(target, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"gen-index: wrote {target} ({len(files)} files)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
