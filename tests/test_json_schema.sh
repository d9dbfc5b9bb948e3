#!/usr/bin/env bash
# test_json_schema.sh — every JSON document the CLI writes (devices, tune, bench) validates against its schema in
# docs/schema/, as produced by the real program on the default device; `devices --json` with no OpenCL platform
# still prints a valid document that says so; the CLI does not link CLBlast (the bench opens it on demand) and
# benches without it.
set -u
CLI=${CLFORGE_CLI:?set CLFORGE_CLI to the clforge program}
SRC=${CLFORGE_SOURCE_DIR:-$(cd "$(dirname "$0")/.." && pwd)}
TMP=${CLFORGE_TEST_TMP:-$(mktemp -d)}
rm -rf "$TMP" && mkdir -p "$TMP"
export CLFORGE_CACHE_DIR="$TMP/cache"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { echo "ok: $*"; }

python3 -c 'import jsonschema' 2>/dev/null || {
    echo "FAIL: python3's jsonschema module is missing (Debian: python3-jsonschema; scripts/deps.sh installs it)"
    exit 1
}

# validate SCHEMA FILE: validates FILE against docs/schema/SCHEMA.json (references resolved to the files beside it).
validate() {
    python3 - "$SRC/docs/schema" "$1" "$2" <<'PY'
import json, os, sys, warnings
warnings.simplefilter("ignore", DeprecationWarning)   # RefResolver: the API Debian 12's jsonschema 4.10 has
import jsonschema
folder, name, path = sys.argv[1:4]
store = {}
for f in os.listdir(folder):
    if f.endswith(".json"):
        s = json.load(open(os.path.join(folder, f)))
        store[s["$id"]] = s
schema = json.load(open(os.path.join(folder, name + ".json")))
jsonschema.Draft7Validator.check_schema(schema)
resolver = jsonschema.RefResolver(schema["$id"], schema, store=store)
doc = json.load(open(path))
errors = sorted(jsonschema.Draft7Validator(schema, resolver=resolver).iter_errors(doc), key=lambda e: list(e.path))
for e in errors[:5]:
    print("  %s: %s" % ("/".join(str(p) for p in e.path), e.message[:300]))
sys.exit(1 if errors else 0)
PY
}

# 1. devices, with the platforms present; then with none (an empty vendor folder for the ICD loader).
if "$CLI" devices --json >"$TMP/devices.json" 2>"$TMP/err"; then
    validate devices "$TMP/devices.json" && pass "devices --json validates" || fail "devices --json does not validate"
else
    fail "devices --json exited $?: $(cat "$TMP/err")"
fi
mkdir -p "$TMP/no-vendors"
env -u RUSTICL_ENABLE OCL_ICD_VENDORS="$TMP/no-vendors" "$CLI" devices --json >"$TMP/none.json" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 1 ] || fail "devices --json with no platform exited $rc, expected 1"
if validate devices "$TMP/none.json"; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["devices"]==[] and d["platforms"]==[] and "no OpenCL platform" in d["error"], d' \
        "$TMP/none.json" && pass "devices --json with no platform says so in a valid document" ||
        fail "devices --json with no platform: $(cat "$TMP/none.json")"
else
    fail "devices --json with no platform is not a valid document: $(head -c 300 "$TMP/none.json")"
fi

# 2. tune: the cheapest family, a short budget, JSON on stdout (--json -) and nothing else there.
family=copy
"$CLI" tune --help | grep -q " copy" || family=map
if "$CLI" tune --family "$family" --precision f32 --budget 3 --json - --quiet >"$TMP/tune.json" 2>"$TMP/err"; then
    validate tune "$TMP/tune.json" && pass "tune --json - validates" || fail "tune --json does not validate"
    [ -s "$TMP/err" ] && fail "tune --quiet wrote to stderr: $(head -3 "$TMP/err")"
else
    fail "tune exited $?: $(tail -3 "$TMP/err")"
fi

# 3. bench: copies only, quick; once to stdout, once to a file.
if "$CLI" bench --quick --only copy --json - --quiet >"$TMP/bench.json" 2>"$TMP/err"; then
    validate bench "$TMP/bench.json" && pass "bench --json - validates" || fail "bench --json - does not validate"
else
    fail "bench exited $?: $(tail -3 "$TMP/err")"
fi
if "$CLI" bench --quick --only map --json="$TMP/bench-file.json" >"$TMP/out" 2>"$TMP/err"; then
    validate bench "$TMP/bench-file.json" && pass "bench --json=FILE validates" || fail "bench --json=FILE does not validate"
    grep -q "roofline: copy" "$TMP/out" || fail "bench --json FILE printed no table on stdout"
else
    fail "bench --json=FILE exited $?: $(tail -3 "$TMP/err")"
fi

# 4. The validator can fail: a document without its format key, or with a device type in capitals, is refused.
python3 - "$TMP/devices.json" "$TMP/bad1.json" "$TMP/bad2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
bad = dict(d); del bad["format"]; json.dump(bad, open(sys.argv[2], "w"))
if d["devices"]:
    d["devices"][0]["type"] = d["devices"][0]["type"].upper()
else:
    d["clforge"] = "0"
json.dump(d, open(sys.argv[3], "w"))
PY
validate devices "$TMP/bad1.json" >/dev/null && fail "a document without format validated"
validate devices "$TMP/bad2.json" >/dev/null && fail "a device type in capitals validated"

# 5. The CLI runs without CLBlast: it is opened on demand for the bench baseline, never linked.
if command -v ldd >/dev/null; then
    ldd "$CLI" | grep -qi clblast && fail "the CLI links CLBlast: $(ldd "$CLI" | grep -i clblast)" || pass "the CLI does not link CLBlast"
fi

# 6. Without CLBlast (its dlopen refused by a preloaded shim), the bench runs, says why there is no baseline and
#    writes a valid document. Not under sanitizers, which must come first in the preload list.
if [ -z "${CLFORGE_SANITIZE:-}" ] && command -v cc >/dev/null; then
    cat >"$TMP/noclb.c" <<'C'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
void *dlopen(const char *file, int flags)
{
    void *(*real)(const char *, int) = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
    return file && strstr(file, "clblast") ? NULL : real(file, flags);
}
C
    if cc -shared -fPIC -o "$TMP/noclb.so" "$TMP/noclb.c" -ldl 2>"$TMP/err"; then
        if LD_PRELOAD="$TMP/noclb.so" "$CLI" bench --quick --only copy --json "$TMP/noclb.json" --quiet >"$TMP/out" 2>"$TMP/err"; then
            grep -q "^no baseline: CLBlast is not installed" "$TMP/out" || fail "bench without CLBlast does not say so: $(tail -3 "$TMP/out")"
            validate bench "$TMP/noclb.json" || fail "bench JSON without CLBlast does not validate"
            python3 -c 'import json,sys; b=json.load(open(sys.argv[1]))["baseline"]; assert b["name"] is None and "not installed" in b["missing"], b' \
                "$TMP/noclb.json" && pass "bench without CLBlast says so" || fail "bench JSON without CLBlast: baseline not null"
        else
            fail "bench without CLBlast exited $?: $(tail -3 "$TMP/err")"
        fi
    else
        fail "cannot build the dlopen shim: $(cat "$TMP/err")"
    fi
fi

if [ "$fails" -ne 0 ]; then echo "$fails check(s) failed"; exit 1; fi
echo "all JSON schema checks passed"
