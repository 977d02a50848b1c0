#!/usr/bin/env bash
# Runs the ParaFS comparison of configs/parafs/ (heavy random overwrites on
# the cut-down ParaFS device) and prints its table (markdown) on stdout:
#   tools/parafs_matrix.sh OUT [--bin build/app/flashstack] [--set key=value ...]
# Rows: F2FS on the page FTL with page stripe, block stripe and superblock
# allocation; ParaFS Base (2-D allocation + coordinated cleaning on the
# S-FTL); ParaFS with least-busy dispatch and the parafs die scheduler.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: tools/parafs_matrix.sh OUT [--bin BIN] [--set key=value ...]" >&2; exit 2; }
out=$1; shift
bin=build/app/flashstack
sets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$2; shift 2 ;;
    --set) sets+=(--set "$2"); shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
run() {  # name config extra-sets...
  local name=$1 cfg=$2; shift 2
  "$bin" run "$cfg" "${sets[@]}" "$@" --noprogress --out "$out/$name" > "$out/$name.log" 2>&1 ||
    { echo "run $name failed: see $out/$name.log" >&2; exit 1; }
}
run f2fs_page_stripe configs/parafs/f2fs_page_stripe.yaml
run f2fs_block_stripe configs/parafs/f2fs_page_stripe.yaml --set ftl.allocation=block_stripe
run f2fs_superblock configs/parafs/f2fs_page_stripe.yaml --set ftl.allocation=superblock
run parafs_base configs/parafs/parafs.yaml
run parafs_sched configs/parafs/parafs.yaml --set fs.f2fs.parafs_2d.dispatch=least_busy \
  --set device.flash.scheduler=parafs
python3 tools/parafs_table.py "$out"/f2fs_page_stripe "$out"/f2fs_block_stripe "$out"/f2fs_superblock \
  "$out"/parafs_base "$out"/parafs_sched
