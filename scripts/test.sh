#!/usr/bin/env bash
# test.sh — installs what the tests need, checks function lengths, then builds and tests clforge twice: Debug
# with AddressSanitizer and UndefinedBehaviorSanitizer, and Release; ThreadSanitizer runs the threaded suites;
# runs the parser fuzzer for a bounded time; ends with ctest's summary. Every build treats warnings as errors
# (CLFORGE_WERROR). Every test runs on every OpenCL device present (PoCL and Mesa rusticl here).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
# shellcheck disable=SC2086
clf_install_deps $CLF_RUNTIME_PKGS $CLF_TEST_PKGS

export RUSTICL_ENABLE=${RUSTICL_ENABLE:-llvmpipe}   # expose Mesa rusticl's llvmpipe device
export CLFORGE_CACHE_DIR=${CLFORGE_CACHE_DIR:-$PWD/build-test-cache}
jobs=$(nproc)
start=$(date +%s)
echo "== OpenCL devices"
clinfo -l

echo "== Style: no function over 80 lines in host/ and autotune/"
bash scripts/check_style.sh

echo "== Debug build with ASan + UBSan"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCLFORGE_SANITIZE=ON -DCLFORGE_BENCH=OFF -DCLFORGE_WERROR=ON -DCLFORGE_TESTS=ON -DBUILD_TESTING=ON >/dev/null
cmake --build build-asan -j"$jobs" >/dev/null
# Leak checking is off: the OpenCL drivers (PoCL/LLVM, Mesa) keep allocations alive until exit by design.
# The sanitizers check host code, which is the same for every device: this pass uses the first device
# only; the Release pass below runs every suite on every device.
CLFORGE_TEST_DEVICES=0:0 ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --no-tests=error --output-on-failure -j"$jobs"

if [ -x tests/fuzz/run.sh ] || [ -f tests/fuzz/run.sh ]; then
  echo "== Expression parser fuzzing (libFuzzer + ASan, bounded time)"
  bash tests/fuzz/run.sh "${CLFORGE_FUZZ_SECONDS:-60}"
fi

echo "== ThreadSanitizer: the suites with threads (program cache, tuning database), first device only"
# Only the targets it needs, so the extra build stays short on a small CI machine. The drivers are not
# instrumented; reports come from clforge's own code. Mesa rusticl stays hidden here: some tests open the
# default device, which rusticl's llvmpipe (a "GPU") would be, and its own queue threads race inside the
# driver (TSan reports with only libRusticlOpenCL frames), which says nothing about clforge.
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DCLFORGE_TSAN=ON -DCLFORGE_BENCH=OFF -DCLFORGE_WERROR=ON -DCLFORGE_TESTS=ON -DBUILD_TESTING=ON >/dev/null
cmake --build build-tsan -j"$jobs" --target clforge_cli test_runtime test_hostile test_transfer test_kernelpool test_warmup >/dev/null
env -u RUSTICL_ENABLE CLFORGE_TEST_DEVICES=0:0 TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
  ctest --test-dir build-tsan --no-tests=error --output-on-failure -j"$jobs" -R '^test_(runtime|hostile|transfer|kernelpool|warmup)$'

echo "== Python package: pip install . into a virtual environment (as a user would), pytest on PoCL"
# The wheel builds the library and the CLI in its own Release folder (scikit-build-core); the tests import
# the installed package, not the checkout. Mesa rusticl stays hidden: the Check suites cover it.
py=$PWD/build-python
python3 -m venv --clear "$py/venv"
"$py/venv/bin/pip" install -q --disable-pip-version-check . --config-settings=build-dir="$py/build"
"$py/venv/bin/pip" install -q --disable-pip-version-check pytest numpy pyopencl
env -u RUSTICL_ENABLE CLFORGE_TEST_DEVICES=0:0 CLFORGE_CACHE_DIR="$py/cache" \
  "$py/venv/bin/python" -m pytest -q -p no:cacheprovider tests/python

echo "== Release build"
cmake -S . -B build-release -DCMAKE_BUILD_TYPE=Release -DCLFORGE_WERROR=ON -DCLFORGE_TESTS=ON -DBUILD_TESTING=ON >/dev/null
cmake --build build-release -j"$jobs" >/dev/null
echo "== took $(( $(date +%s) - start )) s so far; Release tests follow"
ctest --test-dir build-release --no-tests=error --output-on-failure -j"$jobs"
