#!/usr/bin/env bash
# Runs the ParaFS comparison of configs/parafs/ and writes its results table
# (markdown) to OUT/table.md and stdout:
#   tools/parafs_matrix.sh OUT [--quick] [--jobs N] [--bin BIN] [--doc FILE] [--set key=value ...]
#                          [--workloads a,b] [--systems a,b]
# --doc FILE: also write the tables into FILE between its lines
# <!-- parafs_matrix:begin --> and <!-- parafs_matrix:end --> (docs/PARAFS.md).
# The matrix: systems x workloads x channels x traffic.
#   systems    f2fs_page (F2FS on the page FTL, page stripe), f2fs_noipu
#              (the same without in-place updates: ipu_policy empty, as an
#              F2FS older than the fsync IPU policy writes), f2fs_block
#              (block stripe), f2fs_superblock (superblock allocation),
#              f2fs_sb (F2FS_SB: 16 MiB sections = superblocks, superblock
#              allocation), ext4 (the ext4 model, ordered journal, on the
#              page FTL with page stripe), parafs_base (2-D allocation + coordinated GC on
#              the S-FTL), parafs_mgc (+ one cleaning thread per region),
#              parafs (+ least-busy dispatch and the parafs die scheduler)
#   workloads  randwrite, fileserver, postmark, mobibench, ycsb
#              (configs/parafs/<workload>/<system base>.yaml)
#   channels   8, 16, 32 (blocks per channel fixed; data sets and operation
#              counts scale with the channels)
#   traffic    heavy (the configs as they are), light (fewer operations;
#              each parts/wl_*.yaml names its light setting)
# --quick: 8 channels, heavy traffic only (45 runs; about 17 minutes of one
# core). --workloads and --systems run a subset of the matrix (comma
# separated names from the lists above).
# Each run's folder OUT/<workload>-<traffic>-<N>ch/<system>/ holds its
# stats.json and series.csv; a run whose folder is complete is kept (rerun
# after an interruption continues), so delete OUT to start over.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { echo "usage: tools/parafs_matrix.sh OUT [--quick] [--jobs N] [--bin BIN] [--doc FILE] [--set key=value ...] [--workloads a,b] [--systems a,b]" >&2; exit 2; }
[ $# -ge 1 ] || usage
out=$1; shift
case "$out" in -*) usage ;; esac
bin=build/app/flashstack
jobs=1
quick=0
doc=()
sets=()
only_workloads=
only_systems=
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) [ $# -ge 2 ] || usage; bin=$2; shift 2 ;;
    --jobs) [ $# -ge 2 ] || usage; jobs=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --doc) [ $# -ge 2 ] || usage; doc=(--doc "$2"); shift 2 ;;
    --set) [ $# -ge 2 ] || usage; sets+=(--set "$2"); shift 2 ;;
    --workloads) [ $# -ge 2 ] || usage; only_workloads=$2; shift 2 ;;
    --systems) [ $# -ge 2 ] || usage; only_systems=$2; shift 2 ;;
    *) echo "unknown argument $1" >&2; usage ;;
  esac
done
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "--jobs takes a positive number, got '$jobs'" >&2; exit 2; }
[ -x "$bin" ] || { echo "no flashstack binary at $bin (build first, or --bin)" >&2; exit 2; }

systems=(f2fs_page f2fs_noipu f2fs_block f2fs_superblock f2fs_sb ext4 parafs_base parafs_mgc parafs)
workloads=(randwrite fileserver postmark mobibench ycsb)
if [ $quick = 1 ]; then channels=(8); traffics=(heavy); else channels=(8 16 32); traffics=(heavy light); fi
# A subset: each name must be one of the list it narrows.
narrow() {  # name-of-array "a,b"
  local -n all=$1
  local keep=() n
  IFS=, read -ra want <<<"$2"
  for n in "${want[@]}"; do
    if [[ " ${all[*]} " != *" $n "* ]]; then echo "unknown ${1%s} '$n' (one of: ${all[*]})" >&2; exit 2; fi
    keep+=("$n")
  done
  all=("${keep[@]}")
}
[ -z "$only_workloads" ] || narrow workloads "$only_workloads"
[ -z "$only_systems" ] || narrow systems "$only_systems"

# The workload's sizes for `ch` channels and the traffic (k = ch / 8).
workload_sets() {  # workload traffic ch
  local k=$(($3 / 8)) light=0
  [ "$2" = light ] && light=1
  case "$1" in
    randwrite)
      echo "--set workload.fio_files.size=$((128 * k))MiB"
      echo "--set workload.fio_files.total_ios=$(( (light ? 20000 : 200000) * k ))" ;;
    fileserver)
      echo "--set workload.filebench.nfiles=$((3600 * k))"
      echo "--set workload.filebench.ops=$(( (light ? 25000 : 200000) * k ))" ;;
    postmark)
      echo "--set workload.postmark.number=$(( (light ? 15000 : 60000) * k ))"
      echo "--set workload.postmark.transactions=$(( (light ? 15000 : 60000) * k ))"
      echo "--set workload.postmark.subdirectories=$((100 * k))" ;;
    mobibench)
      echo "--set workload.mobibench.transactions=$(( (light ? 8000 : 150000) * k ))" ;;
    ycsb)
      echo "--set workload.ycsb.recordcount=$(( (light ? 50000 : 300000) * k ))"
      echo "--set workload.ycsb.operationcount=$(( (light ? 5000 : 25000) * k ))" ;;
  esac
}

# ParaFS's page-mapped area is F2FS's metadata area, whose size follows the
# volume: `check` names it (configs/parafs/parts/sys_parafs.yaml holds the
# 8-channel value).
declare -A page_mapped
for ch in "${channels[@]}"; do
  msg=$("$bin" check configs/parafs/randwrite/parafs.yaml --set device.geometry.channels="$ch" \
    --set ftl.static_block.page_mapped_lanes="$ch" "${sets[@]}" 2>&1 || true)
  pm=$(grep -o 'set page_mapped: [0-9A-Za-z]*' <<<"$msg" | head -1 | cut -d' ' -f3 || true)
  page_mapped[$ch]=${pm:-22MiB}
  "$bin" check configs/parafs/randwrite/parafs.yaml --set device.geometry.channels="$ch" \
    --set ftl.static_block.page_mapped_lanes="$ch" --set ftl.static_block.page_mapped="${page_mapped[$ch]}" \
    "${sets[@]}" > /dev/null
done

system_args() {  # system workload ch
  local dir=configs/parafs/$2
  local area="--set ftl.static_block.page_mapped=${page_mapped[$3]} --set ftl.static_block.page_mapped_lanes=$3"
  case "$1" in
    f2fs_page) echo "$dir/f2fs.yaml" ;;
    f2fs_noipu) echo "$dir/f2fs.yaml --set fs.f2fs.ipu_policy=[]" ;;
    f2fs_block) echo "$dir/f2fs.yaml --set ftl.allocation=block_stripe" ;;
    f2fs_superblock) echo "$dir/f2fs.yaml --set ftl.allocation=superblock" ;;
    f2fs_sb) echo "$dir/f2fs_sb.yaml --set fs.f2fs.mkfs.segs_per_sec=$3" ;;
    ext4) echo "$dir/ext4.yaml" ;;
    parafs_base) echo "$dir/parafs.yaml $area" ;;
    parafs_mgc) echo "$dir/parafs.yaml $area --set fs.f2fs.parafs_2d.gc_threads=per_region" ;;
    parafs) echo "$dir/parafs.yaml $area" \
                 "--set fs.f2fs.parafs_2d.gc_threads=per_region --set fs.f2fs.parafs_2d.dispatch=least_busy" \
                 "--set device.flash.scheduler=parafs" ;;
  esac
}

run_one() {  # folder args...
  local dir=$1; shift
  if [ -f "$dir/run_info.json" ] && grep -q '"complete": true' "$dir/run_info.json"; then return 0; fi
  mkdir -p "$(dirname "$dir")"
  # shellcheck disable=SC2068
  if ! "$bin" run $@ "${sets[@]}" --noprogress --out "$dir" > "$dir.log" 2>&1; then
    echo "run $dir failed: see $dir.log" >&2
    return 1
  fi
}

mkdir -p "$out"
failed=0
running=0
for traffic in "${traffics[@]}"; do
  for ch in "${channels[@]}"; do
    for wl in "${workloads[@]}"; do
      for sys in "${systems[@]}"; do
        dir="$out/$wl-$traffic-${ch}ch/$sys"
        args="$(system_args "$sys" "$wl" "$ch") --set device.geometry.channels=$ch $(workload_sets "$wl" "$traffic" "$ch" | tr '\n' ' ')"
        run_one "$dir" $args &
        running=$((running + 1))
        if [ $running -ge "$jobs" ]; then
          wait -n || failed=1
          running=$((running - 1))
        fi
      done
    done
  done
done
while [ $running -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
[ $failed = 0 ] || { echo "some runs failed" >&2; exit 1; }
python3 tools/parafs_table.py --matrix "$out" "${doc[@]}" | tee "$out/table.md"
