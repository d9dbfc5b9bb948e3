#!/usr/bin/env bash
# check_style.sh — lists the functions of host/ and autotune/ longer than 80 lines (signature to closing brace) and
# exits 1 when there are any. Arguments: files to check instead (any C file in the project's brace style, where a
# function's signature starts at column 0 and its closing brace is the first `}` at column 0 after it).
set -euo pipefail
cd "$(dirname "$0")/.."
LIMIT=${CLFORGE_MAX_FUNCTION_LINES:-80}
if [ $# -eq 0 ]; then
    shopt -s globstar nullglob
    set -- host/**/*.c autotune/*.c
fi
python3 - "$LIMIT" "$@" <<'EOF'
import re, sys

limit, files = int(sys.argv[1]), sys.argv[2:]
ident = re.compile(r"([A-Za-z_]\w*)\s*\(")
long_ones = []
for path in files:
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    sig = None     # (first line, text) of a candidate signature at column 0
    start = None   # (first line, name) of the function being read
    for i, line in enumerate(lines, 1):
        if start:
            if line.startswith("}"):
                n = i - start[0] + 1
                if n > limit:
                    long_ones.append((path, start[0], start[1], n))
                start = None
            continue
        if not line.strip() or line[0] in "#/}" or line.startswith(" *"):
            sig = None
            continue
        if sig is None and line[0] not in " \t":
            sig = (i, line)
        elif sig:
            sig = (sig[0], sig[1] + " " + line.strip())
        if sig is None:
            continue
        text = sig[1]
        # A body opens: `{` alone at column 0 or ending a signature line. Not a function: an initializer (`= {`)
        # or a type definition (no parenthesis before the brace).
        if line == "{" or line.rstrip().endswith("{"):
            m = ident.search(text)
            if m and "=" not in text[:m.start()] and not text.startswith(("typedef", "enum", "union")):
                start = (sig[0], m.group(1))
            sig = None
        elif line.rstrip().endswith(";"):
            sig = None
for path, line, name, n in long_ones:
    print(f"{path}:{line}: {name}() is {n} lines (limit {limit})")
if long_ones:
    print(f"check_style: {len(long_ones)} function(s) over {limit} lines; split them into named steps", file=sys.stderr)
    sys.exit(1)
EOF
