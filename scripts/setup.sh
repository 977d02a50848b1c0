#!/usr/bin/env bash
# Installs the Debian packages flashstack needs (only those missing) and
# configures the build directory. Safe to run repeatedly.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  cmake ninja-build g++ pkg-config
  libboost-dev libboost-iostreams-dev zlib1g-dev libbz2-dev liblzma-dev
  libgflags-dev libgoogle-glog-dev libgtest-dev libgmock-dev libbenchmark-dev
  libyaml-cpp-dev libfmt-dev
  libboost-context-dev libsqlite3-dev libjemalloc-dev
  python3 python3-yaml python3-matplotlib python3-pandas
  git
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >&2 || true
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

BUILD_DIR=${BUILD_DIR:-build}
# CMAKE_ARGS: extra configure options (e.g. -DFLASHSTACK_SANITIZE=ON).
if [ ! -f "$BUILD_DIR/build.ninja" ] || [ -n "${CMAKE_ARGS:-}" ]; then
  # shellcheck disable=SC2086
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo ${CMAKE_ARGS:-} >&2
fi
