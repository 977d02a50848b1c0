#!/usr/bin/env bash
# The set-up choices of the ParaFS comparison, one at a time, on its random
# overwrite workload (configs/parafs/randwrite, 8 channels): what each does
# to F2FS (page stripe) and ParaFS Base. Prints a markdown table
# (tools/parafs_table.py; the first row is the reference):
#   tools/parafs_ablations.sh OUT [--bin BIN] [--doc FILE]
# --doc FILE: also write the table into FILE between its lines
# <!-- parafs_runs:begin --> and <!-- parafs_runs:end --> (docs/PARAFS.md).
# Rows:
#   f2fs, parafs                   the configs as shipped
#   parafs_f2fs_volume             ParaFS formats only F2FS's volume (1335 MiB)
#   parafs_one_lane                the S-FTL's metadata area in one lane
#   f2fs_cache_1g, parafs_cache_1g the model's 1 GiB page cache
#   f2fs_48blocks, parafs_48blocks 48 blocks a channel (768 MiB raw), half
#                                  the data set and writes
#   f2fs_first_table,              the first table's set-up (docs/PARAFS.md
#   parafs_first_table             history): 48 blocks, a 600 MiB volume for
#                                  both, 1 GiB cache, one lane
#   parafs_48blocks_cache_64m,     ParaFS Base and + multi-threaded GC on 48
#   parafs_mgc_48blocks_cache_64m  blocks with a 64 MiB cache (victims are
#                                  read from flash)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: tools/parafs_ablations.sh OUT [--bin BIN] [--doc FILE]" >&2; exit 2; }
out=$1; shift
bin=build/app/flashstack
doc=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) [ $# -ge 2 ] || { echo "--bin takes a path" >&2; exit 2; }; bin=$2; shift 2 ;;
    --doc) [ $# -ge 2 ] || { echo "--doc takes a file" >&2; exit 2; }; doc=(--doc "$2"); shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
f2fs=configs/parafs/randwrite/f2fs.yaml
parafs=configs/parafs/randwrite/parafs.yaml
small=(--set device.geometry.blocks_per_plane=48 --set workload.fio_files.size=64MiB
       --set workload.fio_files.total_ios=100000)
run() {  # name config sets...
  local name=$1 cfg=$2; shift 2
  if [ -f "$out/$name/run_info.json" ] && grep -q '"complete": true' "$out/$name/run_info.json"; then return 0; fi
  "$bin" run "$cfg" "$@" --noprogress --out "$out/$name" > "$out/$name.log" 2>&1 ||
    { echo "run $name failed: see $out/$name.log" >&2; exit 1; }
}
run f2fs "$f2fs"
run parafs "$parafs"
run parafs_f2fs_volume "$parafs" --set fs.volume=1335MiB
run parafs_one_lane "$parafs" --set ftl.static_block.page_mapped_lanes=1
run f2fs_cache_1g "$f2fs" --set fs.f2fs.page_cache.memory=1GiB
run parafs_cache_1g "$parafs" --set fs.f2fs.page_cache.memory=1GiB
run f2fs_48blocks "$f2fs" "${small[@]}"
run parafs_48blocks "$parafs" "${small[@]}" --set ftl.static_block.page_mapped=16MiB
run f2fs_first_table "$f2fs" "${small[@]}" --set fs.volume=600MiB --set fs.f2fs.page_cache.memory=1GiB
run parafs_first_table "$parafs" "${small[@]}" --set fs.volume=600MiB --set fs.f2fs.page_cache.memory=1GiB \
  --set ftl.static_block.page_mapped=16MiB --set ftl.static_block.page_mapped_lanes=1
run parafs_48blocks_cache_64m "$parafs" "${small[@]}" --set ftl.static_block.page_mapped=16MiB \
  --set fs.f2fs.page_cache.memory=64MiB
run parafs_mgc_48blocks_cache_64m "$parafs" "${small[@]}" --set ftl.static_block.page_mapped=16MiB \
  --set fs.f2fs.page_cache.memory=64MiB --set fs.f2fs.parafs_2d.gc_threads=per_region
python3 tools/parafs_table.py "${doc[@]}" "$out"/{f2fs,parafs,parafs_f2fs_volume,parafs_one_lane,f2fs_cache_1g,parafs_cache_1g} \
  "$out"/{f2fs_48blocks,parafs_48blocks,f2fs_first_table,parafs_first_table} \
  "$out"/{parafs_48blocks_cache_64m,parafs_mgc_48blocks_cache_64m}
