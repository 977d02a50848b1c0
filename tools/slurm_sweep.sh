#!/bin/bash
# Run a flashstack sweep on a Slurm cluster: one job-array task per point,
# then one job that tabulates them into OUT/sweep.csv.
#
#   tools/slurm_sweep.sh CONFIG OUT [--bin BIN] [--set KEY=VALUE]...
#                        [--sweep_stats LIST] [--sbatch ARG]... [--max_running N] [--wait]
#
# CONFIG is checked first (`flashstack check`: a bad config is exit code 2
# before anything is submitted). Task I of the array runs
# `flashstack run CONFIG --point I --out OUT`: point I into its folder
# OUT/NNN-..., the other points' folders untouched. The second job starts
# when the array has ended, however its tasks ended (afterany), and runs
# `flashstack run CONFIG --resume --out OUT`: it keeps every point whose
# folder holds complete results of the same configuration, runs the points
# a task did not finish (failed, cancelled, cut short by a signal — those
# are marked incomplete) and writes OUT/sweep.csv. Submitting again with the
# same arguments resumes the same way.
#
#   --bin BIN          the flashstack binary (default build/app/flashstack);
#                      the compute nodes must reach it, CONFIG and OUT
#   --set KEY=VALUE    passed to every run (repeatable)
#   --sweep_stats L    sweep.csv's columns (see flashstack --help)
#   --sbatch ARG       passed to both sbatch calls (repeatable), e.g.
#                      --sbatch --partition=short --sbatch --time=1:00:00
#   --max_running N    at most N array tasks at once (--array=0-M%N)
#   --wait             wait for both jobs, print sweep.csv, exit with the
#                      tabulating run's exit code
#
# Task logs go to OUT.slurm/ (beside OUT: a results folder holds only what
# flashstack writes). Without sbatch on PATH this prints how to get Slurm
# (tools/slurm_local.sh starts a single-node one) and exits 2.
set -euo pipefail

# Shell builtins only until sbatch is found, so the message below shows
# whatever PATH holds.
case "$0" in */*) here=${0%/*} ;; *) here=. ;; esac
ROOT=$(cd "$here/.." && pwd)
die() {
  echo "slurm_sweep: $*" >&2
  exit 2
}

[ $# -ge 2 ] || { sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
config=$1
out=$2
shift 2
bin="$ROOT/build/app/flashstack"
sets=()
stats=""
sbatch_args=()
max_running=""
wait=0
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) [ $# -ge 2 ] || die "--bin needs a path"; bin=$2; shift 2 ;;
    --set) [ $# -ge 2 ] || die "--set needs KEY=VALUE"; sets+=(--set "$2"); shift 2 ;;
    --sweep_stats) [ $# -ge 2 ] || die "--sweep_stats needs a list"; stats=$2; shift 2 ;;
    --sbatch) [ $# -ge 2 ] || die "--sbatch needs an argument"; sbatch_args+=("$2"); shift 2 ;;
    --max_running)
      [ $# -ge 2 ] && [[ $2 =~ ^[1-9][0-9]*$ ]] || die "--max_running needs a positive whole number"
      max_running=$2; shift 2 ;;
    --wait) wait=1; shift ;;
    *) die "unknown argument '$1' (see $0 without arguments)" ;;
  esac
done

if ! command -v sbatch >/dev/null 2>&1; then
  die "sbatch not found: this tool submits the sweep to Slurm. On a cluster, load Slurm's client commands
(e.g. 'module load slurm'); on this machine, tools/slurm_local.sh start sets up a single-node Slurm
(then export the SLURM_CONF it prints). To run the sweep here without Slurm:
  $bin run $config --jobs \$(nproc) --out $out"
fi
[ -x "$bin" ] || die "$bin: no flashstack binary there (build it, or pass --bin)"
[ -f "$config" ] || die "$config: no such file"

config=$(realpath "$config")
bin=$(realpath "$bin")
mkdir -p "$(dirname "$out")"
out=$(realpath -m "$out")
logs="$out.slurm"

# Validate and count the points: "CONFIG: ok (N runs); ...".
if ! check=$("$bin" check "$config" "${sets[@]}" 2>&1); then
  echo "$check" >&2
  exit 2
fi
points=$(sed -n 's/^.*: ok (\([0-9][0-9]*\) runs\{0,1\}).*$/\1/p' <<<"$check" | head -1)
[[ $points =~ ^[0-9]+$ ]] || die "could not read the number of points from: $check"

mkdir -p "$logs"
rm -f "$logs/tabulate.rc"
common=(--noprogress --quiet "${sets[@]}")
[ -n "$stats" ] && common+=(--sweep_stats "$stats")
q() { printf '%q ' "$@"; }

array="0-$((points - 1))"
[ -n "$max_running" ] && array="$array%$max_running"
name="flashstack-$(basename "$config" .yaml)"
task="$(q "$bin" run "$config" --out "$out" "${common[@]}") --point \$SLURM_ARRAY_TASK_ID"
array_id=$(sbatch --parsable "${sbatch_args[@]}" --job-name="$name" --array="$array" \
  --output="$logs/point_%a.log" --wrap "$task")
array_id=${array_id%%;*}
tabulate="$(q "$bin" run "$config" --resume --out "$out" "${common[@]}"); echo \$? > $(q "$logs/tabulate.rc")"
tab_id=$(sbatch --parsable "${sbatch_args[@]}" --job-name="$name-table" --dependency="afterany:$array_id" \
  --output="$logs/tabulate.log" --wrap "$tabulate")
tab_id=${tab_id%%;*}
echo "slurm_sweep: $points points: job array $array_id, then job $tab_id tabulates into $out/sweep.csv (logs in $logs/)"

[ "$wait" = 1 ] || exit 0
while squeue -h -j "$array_id,$tab_id" 2>/dev/null | grep -q .; do sleep 2; done
[ -f "$logs/tabulate.rc" ] || die "the tabulating job $tab_id left no exit code (cancelled?); see $logs/tabulate.log"
rc=$(cat "$logs/tabulate.rc")
if [ "$rc" = 0 ] && [ -f "$out/sweep.csv" ]; then
  cat "$out/sweep.csv"
else
  cat "$logs/tabulate.log" >&2
fi
exit "$rc"
