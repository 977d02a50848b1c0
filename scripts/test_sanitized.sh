#!/usr/bin/env bash
# Sets up, builds everything with AddressSanitizer + UndefinedBehaviorSanitizer
# (-DFLASHSTACK_SANITIZE=ON) and with DCHECKs (-DFLASHSTACK_DCHECK=ON, which
# the optimized build leaves out) in build-asan/ and runs the whole test
# suite there, leak checking included. Several times slower than
# scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
export BUILD_DIR=${BUILD_DIR:-build-asan}
CMAKE_ARGS="-DFLASHSTACK_SANITIZE=ON -DFLASHSTACK_DCHECK=ON" scripts/setup.sh
cmake --build "$BUILD_DIR" -j2
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
ctest --test-dir "$BUILD_DIR" -j2 --output-on-failure --timeout 1800
