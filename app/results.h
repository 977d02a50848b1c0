// Writing a run's result files.
//
// A run folder holds:
//   stats.json     every registered stat, the resolved configuration, the
//                  seed and the flashstack version — byte-identical for the
//                  same config and seed;
//   series.csv     per-interval time series;
//   config.yaml    the complete resolved configuration (re-loadable);
//   summary.txt    the human summary printed at the end of the run;
//   run_info.json  wall-clock figures (run time, simulated events per
//                  second), which differ from run to run.
// stats.json and run_info.json say "complete": false for a run a signal
// cut short (app/interrupt.h); run_info.json is written last, so a folder
// whose run_info.json says "complete": true holds every file of a finished
// run. A sweep's folder holds one such folder per point and sweep.csv
// (app/sweep.h).
#pragma once

#include <ostream>
#include <string>

#include "sim/config.h"
#include "sim/stats.h"
#include "sim/status.h"

namespace app {

struct RunIdentity {
  std::string experiment;   // experiment name
  std::string sweep_label;  // "" or "k=v,k=v"
  uint64_t seed = 0;
  bool complete = true;  // false: a signal ended the run early
};

struct WallClock {
  double seconds = 0;        // the timed run
  double setup_seconds = 0;  // building the stack: formatting, preconditioning
  uint64_t events = 0;
  double sim_seconds = 0;
  uint64_t host_ios = 0;
};

// Writes the resolved config below `node` (object at `obj`) as a nested JSON
// object of strings (canonical value text).
void WriteConfigJson(sim::JsonWriter& w, const sim::SchemaNode& node, const void* obj);

// Creates `dir` (and parents) and writes the files above.
// Before a run writes into `dir`: a folder that exists is replaced whole
// (no stale file of an earlier run survives) when it holds only what
// flashstack writes — run files, or sweep-point folders of them — and is
// refused (InvalidInput) otherwise, so a mistyped --out never deletes
// other files. *replaced tells whether an earlier result was removed.
sim::Status PrepareResultsFolder(const std::string& dir, bool* replaced);
// The same check without removing anything: Ok when `dir` does not exist
// or holds only what flashstack writes (for a run that keeps earlier
// results, --resume or --point).
sim::Status CheckResultsFolder(const std::string& dir);
// True when `dir` holds the results of a finished run (every run file,
// "complete": true) whose config.yaml is `config_yaml` byte for byte.
bool HoldsCompleteRun(const std::string& dir, const std::string& config_yaml);

sim::Status WriteRunFiles(const std::string& dir, const RunIdentity& id, const sim::SchemaNode& schema,
                          const void* config, const sim::StatsRegistry& stats, const std::string& summary,
                          const WallClock& wall);

}  // namespace app
