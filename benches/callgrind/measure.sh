#!/bin/bash
# Instructions per delta (streaming in 4-byte deltas) and per sample (non-streaming) of the
# crate's Parser over every format file's samples, counted with callgrind: the difference of 40
# and 20 passes, so start-up (reading the files, configuring the formats) is left out.
#
# usage: benches/callgrind/measure.sh [FORMATS_DIR]   (default: python/toolparse/formats)
# Compare two commits by running it in each checkout with the same FORMATS_DIR (the same inputs).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
FORMATS=${1:-$ROOT/python/toolparse/formats}
(cd "$HERE" && cargo build --release -q)
BIN=$HERE/target/release/toolparse-callgrind
OUT=$(mktemp -d)
count() { # mode passes -> instructions
  valgrind --tool=callgrind --callgrind-out-file="$OUT/cg.$1.$2" "$BIN" "$FORMATS" "$1" "$2" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
python3 - "$FORMATS" "$(count extract 20)" "$(count extract 40)" "$(count stream 20)" "$(count stream 40)" <<'PY'
import json, pathlib, sys
formats, e20, e40, s20, s40 = sys.argv[1], *map(int, sys.argv[2:])
samples = deltas = 0
for p in sorted(pathlib.Path(formats).glob("*.json")):
    if p.name.startswith("_"):
        continue
    for s in json.loads(p.read_text(encoding="utf-8")).get("samples", []):
        b = s.encode()
        samples += 1
        i = 0
        while i < len(b):  # the harness's 4-byte deltas, cut at character boundaries
            j = min(i + 4, len(b))
            while j < len(b) and b[j] & 0xC0 == 0x80:
                j += 1
            deltas += 1
            i = j
print(f"{samples} samples, {deltas} deltas of 4 bytes")
print(f"non-streaming: {(e40 - e20) / 20 / samples:,.0f} instructions per sample")
print(f"streaming:     {(s40 - s20) / 20 / deltas:,.0f} instructions per delta")
PY
rm -rf "$OUT"
