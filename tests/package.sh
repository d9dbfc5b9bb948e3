#!/usr/bin/env bash
# package.sh — builds the Debian package with CPack, checks its control fields (version, declared
# dependencies) and that every shared library its programs and library load comes from a declared
# dependency, lets dpkg simulate installing it here, then unpacks it into a scratch root and builds and
# runs examples/consumer against it three ways: find_package (shared), pkg-config, and the static target.
set -euo pipefail
: "${CLFORGE_BUILD_DIR:?set by ctest}" "${CLFORGE_SOURCE_DIR:?set by ctest}" "${CLFORGE_TEST_TMP:?set by ctest}"
command -v dpkg-deb >/dev/null || { echo "package.sh: dpkg-deb not found (Debian tools needed)" >&2; exit 1; }
rm -rf "$CLFORGE_TEST_TMP" && mkdir -p "$CLFORGE_TEST_TMP"
cd "$CLFORGE_TEST_TMP"
fail() { echo "package.sh: $*" >&2; exit 1; }

# One version everywhere: the header (the source of truth), the package, the changelog's newest entry.
h=$CLFORGE_SOURCE_DIR/include/clforge/clforge.h
ver=$(sed -n 's/^#define CLFORGE_VERSION_STRING "\(.*\)"$/\1/p' "$h")
parts=$(sed -n 's/^#define CLFORGE_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' "$h" | paste -sd.)
[ -n "$ver" ] && [ "$ver" = "$parts" ] || fail "clforge.h: CLFORGE_VERSION_STRING \"$ver\" is not MAJOR.MINOR.PATCH ($parts)"
top=$(awk '/^## \[?[0-9]/ { v = $2; gsub(/[][]/, "", v); print v; exit }' "$CLFORGE_SOURCE_DIR/CHANGELOG.md")
[ "$top" = "$ver" ] || fail "CHANGELOG.md's newest entry is \"$top\", the header says $ver"

cpack -G DEB --config "$CLFORGE_BUILD_DIR/CPackConfig.cmake" -B "$PWD/out" >cpack.log 2>&1 || { cat cpack.log; fail "cpack failed"; }
deb=$(ls out/*.deb)
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Version)" = "$ver" ] || fail "package version $(field Version), expected $ver"
deps=$(field Depends)
for p in libjansson4 libxxhash0 ocl-icd-libopencl1; do
  case ", $deps," in *", $p "*|*", $p,"*) ;; *) fail "Depends lacks $p: $deps" ;; esac
done
case "$deps" in *clblast*) fail "Depends names CLBlast, which only the bench baseline uses: $deps" ;; esac
echo "$(basename "$deb"): Depends: $deps"

dpkg-deb -x "$deb" root
prefix=$PWD/root/usr
lib=$(dirname "$(find "$prefix" -name 'libclforge.so.*' -type f -print -quit)")
[ -d "$lib" ] || fail "no libclforge.so.* in the package"

# Every NEEDED library of the packaged ELF files is the package's own or belongs to a declared dependency
# (the owning Debian package, asked of dpkg). Sanitized builds also load their sanitizer runtime.
declared=" $(echo "$deps" | tr ',|' '\n\n' | sed 's/(.*)//; s/ //g' | tr '\n' ' ') "
owner() {   # owner FILE SONAME: the Debian package of the library the loader picks for FILE
  local path; path=$(LD_LIBRARY_PATH=$lib ldd "$1" | sed -n "s|^[[:space:]]*$2 => \([^ ]*\) .*|\1|p")
  [ -n "$path" ] || path=$(ldd "$1" | awk -v so="$2" '$1 ~ so {print $1}')
  path=$(readlink -f "$path")
  { dpkg -S "$path" 2>/dev/null || dpkg -S "${path#/usr}" 2>/dev/null || dpkg -S "/usr$path" 2>/dev/null; } |
    awk -F: 'NR == 1 { print $1 }'   # reads everything: no SIGPIPE under pipefail
}
for f in "$prefix"/bin/* "$lib"/libclforge.so.*.*; do
  [ -L "$f" ] && continue
  for so in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
    case "$so" in libclforge.so.*) [ -e "$lib/$so" ] || fail "$f needs $so, not in the package"; continue ;; esac
    case "$so" in libasan.so*|libubsan.so*|libtsan.so*) [ "${CLFORGE_SANITIZE:-OFF}" = ON ] && continue ;; esac
    owner=$(owner "$f" "$so")
    case "$declared" in *" ${owner:-?} "*) ;; *) fail "$(basename "$f") needs $so (package ${owner:-unknown}), which Depends does not declare" ;; esac
  done
done

# dpkg's own verdict on installing it on this machine (dependencies present, no file conflicts).
if [ "$(id -u)" -eq 0 ]; then dpkg --simulate --install "$deb" >/dev/null || fail "dpkg --simulate --install refused $deb"; fi

export LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ "$("$prefix/bin/clforge" --version)" = "clforge $ver" ] || fail "the packaged CLI does not say clforge $ver"
flags=""; [ "${CLFORGE_SANITIZE:-OFF}" = ON ] && flags="-fsanitize=address,undefined"
for mode in find_package pkgconfig static; do
  b=$PWD/consumer-$mode
  opt="-DUSE_PKGCONFIG=OFF -DUSE_STATIC=OFF"
  [ $mode = pkgconfig ] && opt="-DUSE_PKGCONFIG=ON"
  [ $mode = static ] && opt="-DUSE_STATIC=ON"
  # shellcheck disable=SC2086
  PKG_CONFIG_PATH=$lib/pkgconfig cmake -S "$CLFORGE_SOURCE_DIR/examples/consumer" -B "$b" \
    -DCMAKE_PREFIX_PATH="$prefix" $opt -DCMAKE_C_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >"$b.log" 2>&1 ||
    { cat "$b.log"; fail "configuring the consumer ($mode) failed"; }
  cmake --build "$b" >>"$b.log" 2>&1 || { cat "$b.log"; fail "building the consumer ($mode) failed"; }
  if [ $mode = static ]; then
    dyn=$(readelf -d "$b/consumer")
    ! grep -q 'NEEDED.*libclforge' <<<"$dyn" || fail "the static consumer loads libclforge.so"
  else
    libs=$(ldd "$b/consumer")   # not piped into grep -q: pipefail would count ldd's SIGPIPE as a failure
    grep -q "$lib/libclforge.so" <<<"$libs" || fail "the $mode consumer does not load the packaged library"
  fi
  echo "$mode: $("$b/consumer")"
done
