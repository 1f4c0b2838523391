#!/usr/bin/env python3
"""gen-large.py OUT.ptx [MB] [SOURCE.ptx ...] — builds one large, valid PTX module by replicating the kernels and
device functions of the corpus modules (default: every tests/corpus/ptx/*.sm_90.ptx but rdc*; or the SOURCEs)
under new names, for the front-end benchmark and the compile-time benchmark (bench/compile)."""
import pathlib, re, sys

root = pathlib.Path(__file__).resolve().parents[2]
out = pathlib.Path(sys.argv[1])
target_mb = float(sys.argv[2]) if len(sys.argv) > 2 else 60.0
sources = [pathlib.Path(a) for a in sys.argv[3:]] or sorted((root / "tests/corpus/ptx").glob("*.sm_90.ptx"))
sources = [s for s in sources if "rdc" not in s.name]

def items(text):
    """splits a module into (header, body) with names defined in the body"""
    body = text[text.index(".address_size"):].split("\n", 1)[1]
    names = set(re.findall(r"\.(?:entry|func)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)", body))
    names |= set(re.findall(r"^\s*(?:\.visible\s+|\.extern\s+|\.weak\s+)?\.(?:global|const|shared)\s[^;=]*?([A-Za-z_$][\w$]*)\s*(?:\[[^\]]*\])*\s*(?:=|;)", body, re.M))
    return body, names

parts = [".version 9.0\n.target sm_90\n.address_size 64\n\n"]
size = len(parts[0])
bodies = [items(s.read_text()) for s in sources]
copy = 0
while size < target_mb * 1e6:
    for mi, (body, names) in enumerate(bodies):
        if not names:
            continue
        pat = re.compile(r"(?<![\w$%.])(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")(?![\w$])")
        chunk = pat.sub(lambda m: f"{m.group(1)}_c{copy}_{mi}", body)
        # debug info refers to the original file numbering; drop it from copies
        chunk = re.sub(r"^\s*\.(file|loc)\b.*$", "", chunk, flags=re.M)
        chunk = re.sub(r"\.section\s+\.debug\w*\s*\{.*?\n\}", "", chunk, flags=re.S)
        parts.append(chunk)
        size += len(chunk)
    copy += 1
out.write_text("".join(parts))
print(f"wrote {out} ({size/1e6:.1f} MB, {copy} copies of {len(bodies)} modules)")
