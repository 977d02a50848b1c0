#!/usr/bin/env bash
# Runs every shipped config (or those given) into OUT/<config path>/ with
# the same seed, for before/after comparisons with
#   tools/compare_results.py --identical OUT_BEFORE OUT_AFTER
#
#   tools/run_configs.sh OUT [--bin build/app/flashstack] [--set key=value ...] [configs...]
#
# Extra --set options apply to every run (e.g. --set run.max_time=1s to
# bound the long filebench presets). Configs that are presets meant to be
# included (they exit 2 on their own) are listed as "preset" and skipped.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ]; then
  echo "usage: tools/run_configs.sh OUT [--bin BIN] [--set key=value ...] [configs...]" >&2
  exit 2
fi
out=$1; shift
bin=build/app/flashstack
sets=()
configs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    *) configs+=("$1"); shift ;;
  esac
done
if [ ${#configs[@]} -eq 0 ]; then
  mapfile -t configs < <(find configs -name '*.yaml' | sort)
fi
mkdir -p "$out"
status=0
for c in "${configs[@]}"; do
  rel=${c#configs/}
  dest="$out/${rel%.yaml}"
  rm -rf "$dest"
  mkdir -p "$(dirname "$dest")"
  start=$(date +%s%N)
  "$bin" run "$c" --out "$dest" "${sets[@]}" > "$dest.log" 2>&1
  rc=$?
  ms=$((($(date +%s%N) - start) / 1000000))
  t="$((ms / 1000)).$((ms % 1000 / 100))"
  case $rc in
    0) echo "ran     $rel (${t}s)" ;;
    2) echo "preset  $rel: $(grep -m1 -v '^\s*$' "$dest.log" | cut -c1-100)" ;;
    *) echo "FAILED  $rel (exit $rc, see $dest.log)"; status=1 ;;
  esac
done
exit $status
