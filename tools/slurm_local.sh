#!/bin/bash
# A single-node Slurm on this machine, for trying tools/slurm_sweep.sh
# without a cluster.
#
#   tools/slurm_local.sh start [DIR]   install (apt-get) and start munged,
#                                      slurmctld and slurmd; print the
#                                      SLURM_CONF line to export
#   tools/slurm_local.sh status [DIR]  sinfo of the local cluster
#   tools/slurm_local.sh stop [DIR]    stop the three daemons started here
#
# DIR (default /tmp/flashstack-slurm) holds slurm.conf, the daemons' state,
# logs and pid files. The daemons run in the background as the calling user
# (root, or through sudo), without systemd: munged with the Debian key
# /etc/munge/munge.key (created when missing), slurmctld and slurmd with
# DIR/slurm.conf, which describes this one node (its CPUs and memory) in
# one partition, "local". Clients find it through SLURM_CONF:
#
#   export SLURM_CONF=DIR/slurm.conf
#
# Debian packages: slurm-wlm (slurmctld, slurmd, client commands) and munge.
# Exit codes: 0 ok, 2 bad usage, 1 a daemon did not come up (its log is
# printed).
set -euo pipefail

usage() {
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

[ $# -ge 1 ] || usage
cmd=$1
dir=${2:-/tmp/flashstack-slurm}
case "$cmd" in start | stop | status) ;; *) usage ;; esac

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
as_user() {  # as_user USER COMMAND...
  local u=$1
  shift
  if [ "$(id -u)" = 0 ]; then runuser -u "$u" -- "$@"; else sudo -u "$u" "$@"; fi
}

conf="$dir/slurm.conf"

stop_pid() {  # stop the daemon whose pid file is $1, if it runs
  local f=$1
  [ -f "$f" ] || return 0
  local pid
  pid=$(cat "$f")
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    $SUDO kill "$pid"
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$f"
}

if [ "$cmd" = stop ]; then
  stop_pid "$dir/slurmd.pid"
  stop_pid "$dir/slurmctld.pid"
  stop_pid "$dir/munged.pid"
  echo "slurm_local: stopped the daemons of $dir"
  exit 0
fi

if [ "$cmd" = status ]; then
  [ -f "$conf" ] || { echo "slurm_local: no $conf (run: $0 start $dir)" >&2; exit 2; }
  SLURM_CONF=$conf sinfo
  exit 0
fi

# ---- start ----
need=()
command -v slurmctld >/dev/null 2>&1 || need+=(slurm-wlm)
command -v munged >/dev/null 2>&1 || need+=(munge)
if [ ${#need[@]} -gt 0 ]; then
  echo "slurm_local: installing ${need[*]} (apt-get)" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
host=$(hostname -s)
cpus=$(nproc)
mem_mb=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
user=$(id -un)

# munge: the Debian key, or a new one; its socket and state in DIR.
if [ ! -s /etc/munge/munge.key ]; then
  $SUDO mkdir -p /etc/munge
  $SUDO dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
  $SUDO chmod 400 /etc/munge/munge.key
fi
munge_user=$(stat -c %U /etc/munge/munge.key)
$SUDO chown "$munge_user" "$dir/munge"
$SUDO chmod 700 "$dir/munge"
socket="$dir/munge/munge.socket"

cat >"$conf" <<EOF
# Single-node Slurm written by tools/slurm_local.sh
ClusterName=flashstack-local
SlurmctldHost=$host
SlurmUser=$user
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
SlurmdTimeout=300
InactiveLimit=0
KillWait=10
NodeName=$host CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

started() {  # name, pid file, log: wait up to 10 s for the daemon
  for _ in $(seq 100); do
    if [ -s "$2" ] && kill -0 "$(cat "$2")" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "slurm_local: $1 did not start; its log ($3):" >&2
  tail -n 20 "$3" >&2 2>/dev/null || true
  exit 1
}

stop_pid "$dir/slurmd.pid"
stop_pid "$dir/slurmctld.pid"
stop_pid "$dir/munged.pid"
as_user "$munge_user" munged --socket="$socket" --pid-file="$dir/munge/munged.pid" \
  --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" --force 2>"$dir/munged.err" ||
  { cat "$dir/munged.err" >&2; exit 1; }
# The pid file lives in munge's own folder; keep a copy where stop looks.
for _ in $(seq 50); do [ -s "$dir/munge/munged.pid" ] && break; sleep 0.1; done
$SUDO cat "$dir/munge/munged.pid" >"$dir/munged.pid"
started munged "$dir/munged.pid" "$dir/munge/munged.log"

export SLURM_CONF=$conf
$SUDO env SLURM_CONF="$conf" slurmctld -f "$conf"
started slurmctld "$dir/slurmctld.pid" "$dir/slurmctld.log"
$SUDO env SLURM_CONF="$conf" slurmd -f "$conf"
started slurmd "$dir/slurmd.pid" "$dir/slurmd.log"

# The node registers with the controller within a few seconds.
for _ in $(seq 100); do
  state=$(sinfo -h -N -o %t 2>/dev/null | head -1 || true)
  case "$state" in idle | mix | alloc) break ;; esac
  sleep 0.2
done
if [ "$state" != idle ] && [ "$state" != mix ] && [ "$state" != alloc ]; then
  echo "slurm_local: the node is '$state', not idle; slurmd log:" >&2
  tail -n 20 "$dir/slurmd.log" >&2 || true
  exit 1
fi
echo "slurm_local: single-node Slurm up ($host, $cpus CPUs, partition local); for sbatch and tools/slurm_sweep.sh:"
echo "export SLURM_CONF=$conf"
