#!/usr/bin/env python3
"""Attributes a wasm module's function body bytes to Rust crates, from its `name` section.

    python3 scripts/wasm-sizes.py target/wasm32-unknown-unknown/wasm-release/lakescope-web.wasm [--top N]
    python3 scripts/wasm-sizes.py MODULE --why REGEX [--depth N]

Needs a module with names kept (the cargo output before wasm-bindgen/wasm-opt; the wasm-release
profile strips only debug info). A function counts for the first crate in its demangled name;
generic code of core/alloc/std instantiated for another crate's type (`drop_in_place<arrow_…>`,
`Vec<T>` methods) counts for that crate, so the table answers "what would removing X save".
Prints sections, then crates by body size (raw bytes: gzip shrinks code ~3x).
--why REGEX answers "why is this linked": for each function whose demangled name matches, whether
it is in the table (reachable through a vtable or function pointer, which no linker or wasm-opt pass
removes) and its direct callers, then their callers, down to --depth levels (default 3). Callers are
found as `call` instructions with the 5-byte LEB index wasm-ld writes, so calls through the table are
not among them; where LLVM folded identical functions into one, its one name stands for all of them.
"""
import re
import subprocess
import sys
from collections import Counter

STD = {"core", "alloc", "std", "compiler_builtins"}
SECTION_NAMES = {1: "type", 2: "import", 3: "function", 5: "memory", 6: "global", 7: "export",
                 9: "element", 10: "code", 11: "data", 12: "datacount"}


def leb(data, i):
    result = shift = 0
    while True:
        byte = data[i]
        i += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return result, i


def sections(data):
    if data[:4] != b"\0asm":
        sys.exit("not a wasm module")
    i = 8
    while i < len(data):
        sid = data[i]
        size, i = leb(data, i + 1)
        yield sid, data[i:i + size]
        i += size


def imported_functions(body):
    count, i = leb(body, 0)
    funcs = 0
    for _ in range(count):
        for _ in range(2):  # module, field
            n, i = leb(body, i)
            i += n
        kind = body[i]
        i += 1
        if kind == 0:
            _, i = leb(body, i)
            funcs += 1
        elif kind == 1:  # table: reftype + limits
            i += 1
            flags, i = leb(body, i)
            _, i = leb(body, i)
            if flags & 1:
                _, i = leb(body, i)
        elif kind == 2:  # memory limits
            flags, i = leb(body, i)
            _, i = leb(body, i)
            if flags & 1:
                _, i = leb(body, i)
        elif kind == 3:  # global
            i += 2
        elif kind == 4:  # tag
            i += 1
            _, i = leb(body, i)
    return funcs


def body_sizes(body):
    count, i = leb(body, 0)
    sizes = []
    for _ in range(count):
        size, j = leb(body, i)
        sizes.append(size + (j - i))
        i = j + size
    return sizes


def function_names(body):
    names = {}
    i = 0
    while i < len(body):
        sub = body[i]
        size, i = leb(body, i + 1)
        if sub == 1:
            j = i
            count, j = leb(body, j)
            for _ in range(count):
                idx, j = leb(body, j)
                n, j = leb(body, j)
                names[idx] = body[j:j + n].decode("utf-8", "replace")
                j += n
        i += size
    return names


def bodies(body):
    """The code section's function bodies, in order."""
    count, i = leb(body, 0)
    out = []
    for _ in range(count):
        size, i = leb(body, i)
        out.append(bytes(body[i:i + size]))
        i += size
    return out


def table_functions(body):
    """Function indices placed in the table by active element segments of the MVP form (flags 0)."""
    count, i = leb(body, 0)
    found = set()
    for _ in range(count):
        flags, i = leb(body, i)
        if flags != 0:
            break  # other segment forms do not occur in rustc's output
        while body[i] != 0x0B:  # the offset expression
            i += 1
        n, i = leb(body, i + 1)
        for _ in range(n):
            f, i = leb(body, i)
            found.add(f)
    return found


def padded_leb(value):
    return bytes(((value >> (7 * k)) & 0x7F) | (0x80 if k < 4 else 0) for k in range(5))


def why(pattern, names, imports, code, table, depth):
    """Prints the functions matching `pattern`, whether the table holds them, and their callers."""
    callers = {}

    def callers_of(index):
        if index not in callers:
            needle = b"\x10" + padded_leb(index)
            callers[index] = [imports + k for k, b in enumerate(code) if needle in b]
        return callers[index]

    def walk(index, level, seen):
        for c in callers_of(index):
            if c in seen:
                continue
            seen.add(c)
            mark = "  [in table]" if c in table else ""
            print(f"{'  ' * level}<- {names.get(c, f'func[{c}]')[:150]}{mark}")
            if level < depth:
                walk(c, level + 1, seen)

    matches = [k for k in sorted(names) if re.search(pattern, names[k]) and k >= imports]
    if not matches:
        sys.exit(f"no function matches {pattern!r}")
    for k in matches:
        mark = "  [in table]" if k in table else ""
        print(f"{len(code[k - imports]):>8}  {names[k][:150]}{mark}")
        walk(k, 1, {k})


def demangle(names):
    mangled = [n for n in names.values() if n.startswith(("_ZN", "_R"))]
    if not mangled:
        return names
    out = subprocess.run(["c++filt"], input="\n".join(mangled), capture_output=True, text=True).stdout
    table = dict(zip(mangled, out.splitlines()))
    return {k: table.get(v, v) for k, v in names.items()}


CRATE_RE = re.compile(r"(?<![A-Za-z0-9_:])([A-Za-z_][A-Za-z0-9_]*)::")
C_PREFIXES = {"ZSTD": "zstd-sys (C)", "HUF": "zstd-sys (C)", "FSE": "zstd-sys (C)",
              "HIST": "zstd-sys (C)", "ZDICT": "zstd-sys (C)", "COVER": "zstd-sys (C)"}


def known_crates(lock="Cargo.lock"):
    """Crate names (with '_') of the workspace's Cargo.lock, plus the standard library."""
    try:
        text = open(lock).read()
    except OSError:
        return None
    return STD | {n.replace("-", "_") for n in re.findall(r'^name = "([^"]+)"', text, re.M)}


KNOWN = known_crates()


def crate_of(name):
    # path roots only (an identifier not preceded by another path segment)
    found = [c for c in CRATE_RE.findall(name) if KNOWN is None or c in KNOWN]
    if not found:
        head = re.split(r"[_v0-9]", name, maxsplit=1)[0]
        if head in C_PREFIXES:
            return C_PREFIXES[head]
        return "(other: " + ("wasm-bindgen shims" if name.startswith("__wbg") else "C / runtime") + ")"
    first = found[0]
    if first in STD:
        for c in found[1:]:
            if c not in STD:
                return c
    return first


def main():
    args = sys.argv[1:]
    top = 40
    if "--top" in args:
        k = args.index("--top")
        top = int(args[k + 1])
        del args[k:k + 2]
    pattern, depth = None, 3
    if "--why" in args:
        k = args.index("--why")
        pattern = args[k + 1]
        del args[k:k + 2]
    if "--depth" in args:
        k = args.index("--depth")
        depth = int(args[k + 1])
        del args[k:k + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    data = open(args[0], "rb").read()
    if pattern is not None:
        why_main(data, pattern, depth)
        return
    imports, code, names = 0, [], {}
    print(f"{'section':<32} {'bytes':>10}")
    for sid, body in sections(data):
        if sid == 0:
            n, j = leb(body, 0)
            custom = body[j:j + n].decode()
            print(f"{'custom ' + custom:<32} {len(body):>10}")
            if custom == "name":
                names = function_names(body[j + n:])
            continue
        print(f"{SECTION_NAMES.get(sid, sid):<32} {len(body):>10}")
        if sid == 2:
            imports = imported_functions(body)
        elif sid == 10:
            code = body_sizes(body)
    if not names:
        sys.exit("no name section: build with names kept (strip = \"debuginfo\" or \"none\")")
    names = demangle(names)
    per_crate, per_fn = Counter(), Counter()
    for k, size in enumerate(code):
        name = names.get(imports + k, f"func[{imports + k}]")
        per_crate[crate_of(name)] += size
        per_fn[name] += size
    total = sum(code)
    print(f"\ncode: {total} bytes in {len(code)} functions\n")
    print(f"{'crate':<40} {'bytes':>10} {'share':>7}")
    for crate, size in per_crate.most_common(top):
        print(f"{crate:<40} {size:>10} {100 * size / total:6.1f}%")
    print(f"\nlargest functions:")
    for name, size in per_fn.most_common(15):
        print(f"{size:>8}  {name[:150]}")


def why_main(data, pattern, depth):
    imports, code, names, table = 0, [], {}, set()
    for sid, body in sections(data):
        if sid == 0:
            n, j = leb(body, 0)
            if body[j:j + n] == b"name":
                names = function_names(body[j + n:])
        elif sid == 2:
            imports = imported_functions(body)
        elif sid == 9:
            table = table_functions(body)
        elif sid == 10:
            code = bodies(body)
    if not names:
        sys.exit("no name section: build with names kept (strip = \"debuginfo\" or \"none\")")
    why(pattern, demangle(names), imports, code, table, depth)


if __name__ == "__main__":
    main()
