#!/usr/bin/env bash
# Randomized-input run: builds flashstack_fuzz with AddressSanitizer +
# UndefinedBehaviorSanitizer in build-asan/ and feeds it mutated configs,
# block traces, MobiGen traces, git-aging traces and filebench scripts (tests/fuzz_inputs.cc).
# Any abort, sanitizer report, unexpected error, run past --max-wall
# seconds or past --max-rss-mb stops it; the input is left in the work
# folder with the command that reproduces it. Not part of the test suite:
# the default sizes take about an hour on 2 cores.
#   scripts/fuzz_inputs.sh                      # the default sizes below
#   scripts/fuzz_inputs.sh --configs 1000 --seed 7   # any flashstack_fuzz flags
set -euo pipefail
cd "$(dirname "$0")/.."
export BUILD_DIR=${BUILD_DIR:-build-asan}
CMAKE_ARGS="-DFLASHSTACK_SANITIZE=ON -DFLASHSTACK_DCHECK=ON" scripts/setup.sh
cmake --build "$BUILD_DIR" -j2 --target flashstack_fuzz
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
if [ $# -eq 0 ]; then
  set -- --configs 100000 --traces 100000 --mobigen 20000 --aging 20000 --filebench 20000 --run-share 0.01
fi
exec "$BUILD_DIR/tests/flashstack_fuzz" --repo . --work "${FUZZ_WORK:-/tmp/flashstack_fuzz}" "$@"
