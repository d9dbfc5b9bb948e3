#!/usr/bin/env bash
# build_quiet.sh — the OpenCL compiler's warnings stay off stderr: a tune that compiles map kernels (PoCL's
# clang warns about float16 arguments on CPUs without AVX-512) prints no "warning" line by default, prints
# them with CLFORGE_BUILD_WARNINGS=1, and CLFORGE_BUILD_LOG=1 adds each build's log. Fresh caches each time,
# the driver's own included (PoCL's kernel cache would otherwise skip the compiles).
set -euo pipefail
: "${CLFORGE_CLI:?set by ctest}" "${CLFORGE_TEST_TMP:?set by ctest}"
rm -rf "$CLFORGE_TEST_TMP" && mkdir -p "$CLFORGE_TEST_TMP"
dev=${CLFORGE_TEST_DEVICES:-}; dev=${dev%%,*}   # the first test device, else the default
run() {   # run NAME [VAR=VALUE...]: a short map tune on fresh caches; stderr into $CLFORGE_TEST_TMP/NAME.err
  local name=$1; shift
  local c=$CLFORGE_TEST_TMP/$name
  mkdir -m 700 "$c"
  env "$@" CLFORGE_CACHE_DIR="$c" POCL_CACHE_DIR="$c/pocl" CUDA_CACHE_PATH="$c/nv" \
    "$CLFORGE_CLI" tune ${dev:+--device "$dev"} --family map --precision f32 --budget 1 --quiet \
    >"$c.out" 2>"$c.err" || { cat "$c.err"; echo "build_quiet.sh: clforge tune failed ($name)" >&2; exit 1; }
}
run quiet
run warnings CLFORGE_BUILD_WARNINGS=1
run log CLFORGE_BUILD_LOG=1
if grep -i "warning" "$CLFORGE_TEST_TMP/quiet.err"; then
  echo "build_quiet.sh: compiler warnings reached stderr without CLFORGE_BUILD_WARNINGS" >&2; exit 1
fi
[ -s "$CLFORGE_TEST_TMP/quiet.err" ] && { cat "$CLFORGE_TEST_TMP/quiet.err"; echo "build_quiet.sh: --quiet tune wrote to stderr" >&2; exit 1; }
w=$(grep -ci "warning" "$CLFORGE_TEST_TMP/warnings.err" || true)
if [ "$w" -gt 0 ]; then
  grep -q "^clforge: build log" "$CLFORGE_TEST_TMP/log.err" ||
    { echo "build_quiet.sh: CLFORGE_BUILD_LOG=1 printed no build log although the driver warns" >&2; exit 1; }
  echo "hidden by default: $w warning lines; CLFORGE_BUILD_LOG=1 printed $(grep -c '^clforge: build log' "$CLFORGE_TEST_TMP/log.err") logs"
else
  echo "this driver printed no warnings for these kernels (nothing to hide); none reached stderr"
fi
