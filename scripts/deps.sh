# deps.sh — sourced by quickstart.sh and test.sh: installs the Debian packages clforge needs, when missing.
# Usage: clf_install_deps PACKAGE...   (apt-get as root, or through sudo)
clf_install_deps() {
  missing=""
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else
    echo "clforge: need root or sudo to install:$missing" >&2; return 1
  fi
  echo "clforge: installing$missing" >&2
  $sudo apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# What building and running clforge needs (OpenCL loader + headers, PoCL as a CPU device, CLBlast as the
# baseline, Check, jansson, xxhash).
CLF_RUNTIME_PKGS="build-essential cmake pkg-config ocl-icd-opencl-dev opencl-headers ocl-icd-libopencl1
  pocl-opencl-icd clinfo libclblast-dev libjansson-dev libxxhash-dev check libsubunit-dev"
# What the tests add: Mesa rusticl (second CPU implementation), clang + libFuzzer, xmllint, python3 and its
# jsonschema (tests/test_json_schema.sh validates the CLI's JSON against docs/schema/), python3-venv (the
# Python package is tested in a virtual environment).
CLF_TEST_PKGS="mesa-opencl-icd clang libclang-rt-14-dev libxml2-utils python3 python3-jsonschema python3-venv"
