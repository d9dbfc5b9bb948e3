#!/usr/bin/env bash
# consumer.sh — installs this build into a scratch prefix, then builds and runs examples/consumer against
# it twice: found with find_package(clforge), and found with pkg-config.
set -euo pipefail
: "${CLFORGE_BUILD_DIR:?set by ctest}" "${CLFORGE_SOURCE_DIR:?set by ctest}" "${CLFORGE_TEST_TMP:?set by ctest}"
prefix=$CLFORGE_TEST_TMP/prefix
rm -rf "$CLFORGE_TEST_TMP" && mkdir -p "$CLFORGE_TEST_TMP"
cmake --install "$CLFORGE_BUILD_DIR" --prefix "$prefix" >/dev/null
export LD_LIBRARY_PATH=$prefix/lib:$prefix/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# Sanitized builds need the sanitizer runtime in the consumer too.
flags=""; [ "${CLFORGE_SANITIZE:-OFF}" = ON ] && flags="-fsanitize=address,undefined"
for mode in find_package pkgconfig; do
  b=$CLFORGE_TEST_TMP/consumer-$mode
  opt=-DUSE_PKGCONFIG=OFF; [ $mode = pkgconfig ] && opt=-DUSE_PKGCONFIG=ON
  PKG_CONFIG_PATH=$(ls -d "$prefix"/lib*/pkgconfig "$prefix"/lib/*/pkgconfig 2>/dev/null | tr '\n' ':') \
    cmake -S "$CLFORGE_SOURCE_DIR/examples/consumer" -B "$b" -DCMAKE_PREFIX_PATH="$prefix" $opt \
      -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
  cmake --build "$b" >/dev/null
  echo "$mode: $("$b/consumer")"
done
