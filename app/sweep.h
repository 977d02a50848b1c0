// Sweeps: the points of a `sweep:` grid run side by side in separate
// processes, and the table over them, sweep.csv.
//
// Each point is a whole run with its own folder (app/results.h). Points run
// in separate processes (fork), so a point's results are those of a run
// alone: per-point stats.json files are byte-identical whatever the number
// of jobs. sweep.csv is written from the points' stats.json files, so the
// same point results give the same table, however and wherever (a Slurm
// job array, tools/slurm_sweep.sh) the points ran.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/stats.h"
#include "sim/status.h"

namespace app {

// ---- sweep.csv ----

// The statistics sweep.csv shows unless told otherwise, each where a
// point has it: host throughput (IOPS, bandwidth, operations per second),
// read/write latency p50 and p99, write amplification of the file system,
// of the device and end to end; in multi-flow runs each flow's IOPS,
// bandwidth, read/write p99, queue wait, slowdown, and the fairness.
const std::vector<std::string>& DefaultSweepStats();

// Parses --sweep_stats: comma-separated statistic names as stats.json names
// them, a histogram's with the field to show (".p99"; count, min, max,
// mean, p50, p90, p99, p999, p9999; the name alone is its mean), "*"
// matching any run of characters ("ftl.gc_*", "workload.*.lat.p99").
// InvalidInput for an empty list or name.
sim::Result<std::vector<std::string>> ParseSweepStats(std::string_view list);

struct SweepRow {
  size_t index = 0;
  std::string folder;                                     // below the sweep folder
  std::vector<std::pair<std::string, std::string>> keys;  // swept key -> value as written
};

// Writes <base>/sweep.csv: a header "point,folder,<swept keys>,complete,
// <statistics>" and a line per row whose folder holds a stats.json, the
// values as stats.json writes them (empty where a point lacks the
// statistic, and for the fields of an empty histogram but its count). A pattern of `stats` matching no statistic of any point is
// left out when the list is the default and is InvalidInput (naming it)
// when `chosen`; the file is written either way.
// InvalidInput naming every pattern of `stats` that matches no statistic
// of `registry` (a built experiment's, before it runs), as sweep.csv would
// match them, so a misspelt --sweep_stats is found before any point runs.
sim::Status CheckSweepStats(const std::vector<std::string>& stats, const sim::StatsRegistry& registry);

sim::Status WriteSweepCsv(const std::string& base, const std::vector<SweepRow>& rows,
                          const std::vector<std::string>& stats, bool chosen);

// ---- running points ----

struct PointOutcome {
  sim::Status status;       // the run's error, if any
  bool interrupted = false;  // a signal ended it early (results written, incomplete)
  uint64_t failed_ios = 0;   // requests the device refused (results written; the run failed)
};

// Runs run_point(i) for each i of `points`, at most `jobs` at a time, and
// calls on_done(i, outcome) in the calling process as each ends. With jobs
// > 1 each point runs in a child process (fork; its own process group, so
// a terminal's Ctrl-C reaches only this process, which passes the signal
// on); on_done sees the child's status and message. After a point fails or
// `*interrupt` becomes non-zero no further point starts; those running are
// waited for (and sent the signal). Returns the first failure, else Ok.
sim::Status RunPoints(const std::vector<size_t>& points, int jobs, const std::atomic<int>* interrupt,
                      const std::function<PointOutcome(size_t)>& run_point,
                      const std::function<void(size_t, const PointOutcome&)>& on_done);

}  // namespace app
