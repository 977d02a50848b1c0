#!/usr/bin/env bash
# Sets up, builds and runs the default experiment configs/quickstart.yaml.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
BUILD_DIR=${BUILD_DIR:-build}
cmake --build "$BUILD_DIR" --target flashstack -j2 >&2
exec "$BUILD_DIR/app/flashstack" run configs/quickstart.yaml "$@"
