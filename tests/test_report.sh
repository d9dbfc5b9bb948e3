#!/usr/bin/env bash
# test_report.sh — `clforge bench --json` output round-trips through `clforge report`: the Markdown holds every
# figure, the SVGs are well-formed XML, and missing or malformed inputs fail with a clear message and exit code.
set -u
CLI=${CLFORGE_CLI:?set CLFORGE_CLI to the clforge program}
SRC=${CLFORGE_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
TMP=${CLFORGE_TEST_TMP:-$(mktemp -d)}
rm -rf "$TMP" && mkdir -p "$TMP"
export CLFORGE_CACHE_DIR="$TMP/cache"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { echo "ok: $*"; }

# Well-formed XML: xmllint when installed, Python's parser always.
wellformed() {
    if command -v xmllint >/dev/null; then xmllint --noout "$1" || return 1; fi
    python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); assert r.tag.endswith("svg"), r.tag' "$1"
}

# expect RC PATTERN -- command...: exit code RC and stderr matching PATTERN.
expect() {
    local rc=$1 pat=$2; shift 3
    "$@" >"$TMP/out" 2>"$TMP/err"
    local got=$?
    if [ "$got" -ne "$rc" ]; then fail "$* exited $got, expected $rc: $(cat "$TMP/err")"; return; fi
    if ! grep -qE -e "$pat" "$TMP/err"; then fail "$*: stderr lacks /$pat/: $(cat "$TMP/err")"; return; fi
    pass "$* -> $rc"
}

# 1. A real bench on the default device (copies and maps only, to stay fast), then its report. With
#    CLFORGE_PROFILE=1 the context's destruction also prints the profiler's table on stderr.
if CLFORGE_PROFILE=1 "$CLI" bench --quick --only copy,map --json "$TMP/bench.json" >"$TMP/bench.out" 2>"$TMP/bench.err"; then
    pass "bench --quick --only copy,map"
else
    fail "bench exited $?: $(tail -5 "$TMP/bench.err")"
fi
grep -q "roofline: copy" "$TMP/bench.out" || fail "bench table lacks the roofline line"
grep -qE "^reference copy: [0-9.]+ GB/s before the workloads, [0-9.]+ GB/s after" "$TMP/bench.out" ||
    fail "bench table lacks the reference copy's line"
grep -qE '^\[.* [0-9]+/[0-9]+\]' "$TMP/bench.err" || fail "bench printed no progress on stderr"
grep -q '^clforge profile: ' "$TMP/bench.err" || fail "no profile at context destruction with CLFORGE_PROFILE=1"
grep -qE '^copy +[0-9]+ .*(memory|-) *$' "$TMP/bench.err" || fail "profile lacks a copy row with its bound: $(grep -A4 '^clforge profile' "$TMP/bench.err")"
grep -qE '^map +[0-9]+ ' "$TMP/bench.err" || fail "profile lacks a map row"
python3 - "$TMP/bench.json" <<'EOF' || fail "bench JSON lacks required members"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["format"] == "clforge-bench/2" and d["clforge_version"] and d["date"] and "--json" in d["command"]
assert isinstance(d["load"]["loaded"], bool) and d["load"]["cores"] >= 1
ref = d["devices"][0]["reference"]
assert ref["start"]["value"] > 0 and ref["end"]["value"] > 0 and 0 <= ref["drift"] <= 1, ref
dev = d["devices"][0]
assert dev["device"]["name"] and len(dev["device"]["id"]) == 16 and dev["device"]["key"]
assert dev["device"]["type"] in ("cpu", "gpu", "accelerator", "other")
r = dev["roofline"]
assert r["copy"]["value"] > 0 and r["copy"]["unit"] == "GB/s" and r["triad"]["value"] > 0 and r["fp32"]["value"] > 0
res = dev["results"]
assert {x["workload"] for x in res} == {"copy", "map"}, res
for x in res:
    assert x["value"] > 0 and x["unit"] == "GB/s" and x["fraction"] > 0 and x["bound"] == "memory", x
    sp = x["spread"]
    assert sp["repeats"] == 3 and sp["min"] <= sp["median"] <= sp["max"] and abs(sp["median"] - x["value"]) < 1e-6 * x["value"], sp
    assert isinstance(x["loaded"], bool)
EOF
if "$CLI" report "$TMP/bench.json" -o "$TMP/rep" >"$TMP/out" 2>"$TMP/err"; then
    pass "report of the bench"
    grep -q "README.md" "$TMP/out" || fail "report does not print where the page is"
    python3 - "$TMP/bench.json" "$TMP/rep/README.md" <<'EOF' || fail "README.md lacks figures from the JSON"
import json, sys
d = json.load(open(sys.argv[1])); md = open(sys.argv[2]).read()
dev = d["devices"][0]
assert dev["device"]["name"] in md
for x in dev["results"]:
    frac = "<1%" if 100 * x["fraction"] < 0.5 else "%.0f%%" % (100 * x["fraction"])
    assert "±" in md and ("(%s" % frac) in md, frac
assert "roofline-1.svg" in md and ("GB/s" in md or "TB/s" in md)   # a GPU's copy rate reads in TB/s
EOF
    for f in "$TMP"/rep/*.svg; do wellformed "$f" || fail "$f is not well-formed"; done
    [ -f "$TMP/rep/roofline-1.svg" ] || fail "no roofline chart"
else
    fail "report exited $?: $(cat "$TMP/err")"
fi

# 2. Two devices from a hand-written file, with characters that XML and Markdown must escape, plus GEMMs
#    and a failed workload; and the committed results, if any.
python3 - "$TMP/two.json" <<'EOF'
import json, sys
def dev(name, scale):
    res = []
    for n in (256, 512, 1024):
        f = 2.0 * n ** 3; b = 12.0 * n * n; s = f / (scale * 1e9 * (1 + n / 2048))
        res.append(dict(workload="sgemm", group="square", label="%dx%dx%d" % (n, n, n), m=n, n=n, k=n, unit="GFLOP/s",
                        value=f / s / 1e9, seconds=s, flops=f, bytes=b, intensity=f / b, attainable=scale * 2,
                        fraction=f / s / 1e9 / (scale * 2), bound="compute",
                        baseline=dict(name="CLBlast", value=f / s / 1e9 / 1.2, seconds=s * 1.2, ratio=1.2)))
    res.append(dict(workload="sgemm", group="shape", label="64x4096x4096", m=64, n=4096, k=4096, unit="GFLOP/s",
                    value=0, seconds=0, flops=0, bytes=0, intensity=0, attainable=0, fraction=0, bound="compute",
                    error="CLF_ERR_BUILD: forced"))
    res.append(dict(workload="copy", group="copy", label="1024 B", m=0, n=1024, k=0, unit="GB/s", value=scale / 10,
                    seconds=2048 / (scale / 10) / 1e9, flops=0, bytes=2048, intensity=0, attainable=scale / 8,
                    fraction=0.8, bound="memory"))
    return dict(device=dict(name=name, platform="P&Q <test>", driver="1.0", type="gpu", id="0123456789abcdef",
                            key="k"), roofline=dict(copy_gbs=scale / 8, triad_gbs=scale / 9, fp32_gflops=scale * 2,
                            fp64_gflops=scale, date="2026-11-29T00:00:00Z"), results=res)
doc = dict(format="clforge-bench-1", clforge_version="0.1.0", date="2026-11-29T00:00:00Z", command="clforge bench",
           host="h", quick=True, baseline="CLBlast", devices=[dev("GPU <A> & \"B\" | é", 1000.0), dev("cpu_one", 50.0)])
doc["devices"][1]["roofline"]["fp32_theoretical"] = dict(value=400.0, unit="GFLOP/s")   # read from bench-1 files too
json.dump(doc, open(sys.argv[1], "w"))
EOF
if "$CLI" report "$TMP/two.json" -o "$TMP/rep2/sub" >"$TMP/out" 2>"$TMP/err"; then
    pass "report of two synthetic devices"
    for f in "$TMP"/rep2/sub/*.svg; do wellformed "$f" || fail "$f is not well-formed"; done
    [ -f "$TMP/rep2/sub/sgemm.svg" ] && [ -f "$TMP/rep2/sub/roofline-2.svg" ] || fail "missing charts in rep2"
    grep -q 'GPU &lt;A&gt; &amp; "B" \\| é' "$TMP/rep2/sub/README.md" || fail "device name not escaped for Markdown"
    grep -q "| failed |" "$TMP/rep2/sub/README.md" || fail "failed workload not shown as failed"
    grep -q "1.20×" "$TMP/rep2/sub/README.md" || fail "ratio to CLBlast missing"
    grep -q "&lt;A&gt; &amp;" "$TMP/rep2/sub/sgemm.svg" || fail "device name not escaped in SVG"
    grep -q "TFLOP/s" "$TMP/rep2/sub/README.md" || fail "2000 GFLOP/s not shown in TFLOP/s"
    grep -q "100 GFLOP/s measured, 400 GFLOP/s theoretical" "$TMP/rep2/sub/README.md" ||
        fail "a theoretical peak 4x the measured one is not shown beside it"
    grep -q "fp32 theoretical 400 GFLOP/s" "$TMP/rep2/sub/roofline-2.svg" || fail "no theoretical roof in the chart"
    grep -q " (0%" "$TMP/rep2/sub/README.md" && fail "a 0% cell in the report"
else
    fail "report of two devices exited $?: $(cat "$TMP/err")"
fi
shopt -s nullglob
# Results live in bench/results/<device>/. Other benches share those folders; only `clforge bench` files are the
# report's input. An empty match means the layout moved again: fail rather than skip the check in silence.
results=("$SRC"/bench/results/*/*.json)
committed=()
# A file is a bench result when its top-level format says so (summaries may embed one deeper down).
while IFS= read -r f; do committed+=("$f"); done < <(python3 - "${results[@]}" <<'EOF2'
import json, sys
for p in sys.argv[1:]:
    try:
        d = json.load(open(p))
    except Exception:
        continue
    if isinstance(d, dict) and d.get("format") in ("clforge-bench-1", "clforge-bench/2"):
        print(p)
EOF2
)
if [ ${#results[@]} -eq 0 ]; then
    fail "no committed results in $SRC/bench/results/*/*.json (did the folder move?)"
elif [ ${#committed[@]} -eq 0 ]; then
    fail "none of the ${#results[@]} files in bench/results/*/ is a clforge bench result"
elif "$CLI" report "${committed[@]}" -o "$TMP/rep3" >/dev/null 2>"$TMP/err"; then
    pass "report of the committed results (${#committed[@]} files)"
    svgs=("$TMP"/rep3/*.svg)
    [ ${#svgs[@]} -gt 0 ] || fail "report of the committed results wrote no SVG"
    for f in "${svgs[@]}"; do wellformed "$f" || fail "$f is not well-formed"; done
    # No exponent anywhere (65300 is 65.3 TFLOP/s, not 6.53e+04); no "0%" cell (under 1% reads <1%, an unknown
    # roof "roof n/a"); point labels cover no point and no other label.
    grep -lE '[0-9]e[+-][0-9]' "$TMP"/rep3/* && fail "e-notation in the report of the committed results"
    grep -q " (0%" "$TMP/rep3/README.md" && fail "a 0% cell in the report of the committed results"
    grep -q "(<1%" "$TMP/rep3/README.md" || fail "the H200's 128^3 SGEMM (0.4% of its roof) does not read <1%"
    for f in "${svgs[@]}"; do
        python3 - "$f" <<'EOF2' || fail "$f: a label overlaps a point or another label"
import sys, xml.etree.ElementTree as E
ns = "{http://www.w3.org/2000/svg}"
root = E.parse(sys.argv[1]).getroot()
pts = [(float(c.get("cx")), float(c.get("cy"))) for c in root.iter(ns + "circle") if c.get("r") == "4.5"]
boxes = []
for t in root.iter(ns + "text"):
    if t.get("font-size") != "9": continue
    x, y, w = float(t.get("x")), float(t.get("y")), 5.4 * len(t.text or "")
    b = (x, y - 7, x + w, y + 1)
    for px, py in pts:
        assert not (b[0] < px + 4.5 and px - 4.5 < b[2] and b[1] < py + 4.5 and py - 4.5 < b[3]), (t.text, px, py)
    for o in boxes:
        assert not (b[0] < o[2] and o[0] < b[2] and b[1] < o[3] and o[1] < b[3]), (t.text, o)
    boxes.append(b)
EOF2
    done
else
    fail "report of bench/results exited $?: $(cat "$TMP/err")"
fi

# Two runs of one device stay apart: numbered columns and legends, the run's date beside the name.
if "$CLI" report "$TMP/two.json" "$TMP/two.json" -o "$TMP/rep4" --quiet >"$TMP/out" 2>"$TMP/err"; then
    [ -s "$TMP/out" ] && fail "report --quiet printed: $(cat "$TMP/out")"
    grep -qF 'cpu\_one (run 2026-11-29T00:00:00Z)' "$TMP/rep4/README.md" || fail "same-device runs not told apart in tables"
    grep -q "clforge on 3\. GPU" "$TMP/rep4/sgemm.svg" && grep -q ">run 2026-11-29T00:00:00Z<" "$TMP/rep4/sgemm.svg" ||
        fail "same-device runs not told apart in the legend"
    grep -q "Roofline: 4\. cpu_one (run 2026-11-29T00:00:00Z)" "$TMP/rep4/roofline-4.svg" ||
        fail "same-device runs not told apart in the roofline titles"
else
    fail "report of one file twice exited $?: $(cat "$TMP/err")"
fi

# 3. Bad input: a clear message, a nonzero exit code, and no output directory.
printf '{"format": "clforge-bench-1", "devices": [' >"$TMP/trunc.json"
echo '{"hello": 1}' >"$TMP/other.json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); del d["devices"][0]["results"][0]["value"]; json.dump(d, open(sys.argv[2],"w"))' \
    "$TMP/two.json" "$TMP/novalue.json"
expect 1 "cannot read .*missing.json" -- "$CLI" report "$TMP/missing.json" -o "$TMP/no1"
expect 1 "trunc.json:[0-9]+:[0-9]+: malformed JSON" -- "$CLI" report "$TMP/trunc.json" -o "$TMP/no2"
expect 1 "not a clforge bench result" -- "$CLI" report "$TMP/other.json" -o "$TMP/no3"
expect 1 "lacks workload, group, label or value" -- "$CLI" report "$TMP/novalue.json" -o "$TMP/no4"
expect 1 "cannot read" -- "$CLI" report "$TMP/two.json" "$TMP/missing.json" -o "$TMP/no5"
for d in no1 no2 no3 no4 no5; do [ ! -e "$TMP/$d" ] || fail "$d was created despite the error"; done
expect 2 "-o DIR is required" -- "$CLI" report "$TMP/two.json"
expect 2 "no result files" -- "$CLI" report -o "$TMP/no6"
expect 2 "unknown or incomplete option" -- "$CLI" report --bogus "$TMP/two.json" -o "$TMP/no7"
expect 2 "exclude each other" -- "$CLI" bench --device cpu --all
expect 2 "--only takes" -- "$CLI" bench --only sgemm,nope
expect 2 "--json needs a value" -- "$CLI" bench --json
expect 1 "." -- "$CLI" bench --device no-such-device-anywhere

# 4. Hostile input (tests/fixtures/report-hostile.json): script and HTML in every string field that reaches a
#    page, code points XML forbids (U+FFFE, U+FFFF, controls). Every SVG must be well-formed with no element
#    but SVG's own; the Markdown must hold no raw HTML tag and no control character.
if "$CLI" report "$SRC/tests/fixtures/report-hostile.json" -o "$TMP/hostile" >"$TMP/out" 2>"$TMP/err"; then
    pass "report of hostile input"
    for f in "$TMP"/hostile/*.svg; do
        wellformed "$f" || { fail "$f is not well-formed"; continue; }
        python3 - "$f" <<'EOF2' || fail "$f holds elements from input"
import sys, xml.etree.ElementTree as E
tags = {e.tag.split('}')[-1] for e in E.parse(sys.argv[1]).iter()}
assert tags <= {"svg", "rect", "text", "g", "line", "polyline", "circle", "title"}, tags
EOF2
    done
    python3 - "$TMP/hostile/README.md" <<'EOF2' || fail "README.md of hostile input holds raw HTML or controls"
import re, sys
md = open(sys.argv[1], encoding="utf-8").read()
assert not re.search(r"<\s*(script|img|title)", md, re.I), re.findall(r"<[^>]*>", md)[:5]
assert not re.search("[\x00-\x08\x0b-\x1f\x7f\ufffe\uffff]", md), "control or non-character"
assert "\\[link\\]" in md and "\\*\\*b\\*\\*" in md, "Markdown syntax from input not escaped"
assert "Other results" in md, "a result of an unknown group was dropped silently"
EOF2
else
    fail "report of hostile input exited $?: $(cat "$TMP/err")"
fi

# 5. No silent truncation: 300 shapes in one table all appear (it stopped at 256), and a 300-character device
#    name appears whole in the roofline title.
python3 - "$TMP/two.json" "$TMP/many.json" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
dev = d["devices"][1]
dev["device"]["name"] = "n" * 299 + "Z"
base = dev["results"][0]
dev["results"] = [dict(base, group="shape", label="%dx7x7" % i, m=i, n=7, k=7) for i in range(1, 301)]
d["devices"] = [dev]
json.dump(d, open(sys.argv[2], "w"))
EOF2
if "$CLI" report "$TMP/many.json" -o "$TMP/many" >"$TMP/out" 2>"$TMP/err"; then
    rows=$(grep -cE '^\| [0-9]+x7x7 \|' "$TMP/many/README.md")
    [ "$rows" -eq 300 ] && pass "300 rows in one table" || fail "table has $rows of 300 rows"
    grep -q "n\{299\}Z" "$TMP/many/roofline-1.svg" && pass "long name whole in the SVG" || fail "device name cut in the SVG"
else
    fail "report of 300 rows exited $?: $(cat "$TMP/err")"
fi

# 6. Usage errors: an empty output path, a directory as input.
expect 2 'needs a directory name' -- "$CLI" report "$TMP/two.json" -o ""
mkdir -p "$TMP/adir"
expect 1 'adir: it is a directory' -- "$CLI" report "$TMP/adir" -o "$TMP/no8"
[ ! -e "$TMP/no8" ] || fail "no8 was created despite the error"

# 7. The CLI names the cause: a --family of 256+ characters (exited 2 without a word); --json paths that
#    cannot be written are refused before the run starts, not after it.
long=$(printf 'x%.0s' $(seq 300))
expect 2 "unknown family 'x{64}\.\.\.' \(cut\)" -- "$CLI" tune --family "$long"
expect 2 "tune: cannot write .*no-such-dir/t.json: directory .*No such file" -- "$CLI" tune --json "$TMP/no-such-dir/t.json"
expect 2 "bench: cannot write .*: it is a directory" -- "$CLI" bench --quick --only copy --json "$TMP/adir"

if [ "$fails" -ne 0 ]; then echo "$fails check(s) failed"; exit 1; fi
echo "all report checks passed"
