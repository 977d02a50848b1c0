// The CLI subcommands, separated from argument parsing so tests can call
// them directly. Each returns InvalidInput for the user's mistakes.
#pragma once

#include <atomic>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "app/experiment.h"
#include "sim/status.h"

namespace app {

struct CommandOptions {
  std::vector<std::string> overrides;  // "a.b.c=v"
  std::string out_dir;                 // "" = results/<name>
  std::string seed;                    // "" = from the config
  bool quiet = false;
  Experiment::Progress progress;       // run: how stderr shows a run is alive
  std::string trace_format;            // "" = detect
  std::string on_error = "fail";       // trace-info: fail | skip
  // run: how the points of a sweep run (app/sweep.h).
  int jobs = 1;             // points at a time, each in its own process when > 1
  bool resume = false;      // keep points whose folder holds complete results of the same config
  int64_t point = -1;       // >= 0: run only this point (0-based, as its folder NNN), keeping the others
  std::string sweep_stats;  // sweep.csv columns ("" = DefaultSweepStats())
  const std::atomic<int>* interrupt = nullptr;  // app/interrupt.h; null = runs are not interruptible
  // run: set to the requests the device refused over every point run
  // (results written; the CLI exits with code 3 when non-zero).
  uint64_t* failed_ios = nullptr;
};

// Runs every point of CONFIG (or opts.point alone) into its folder, opts.jobs
// at a time, and for a sweep writes sweep.csv over all points with results.
// Without opts.resume or opts.point the results folder is replaced whole;
// with them, other points' folders stay, and with resume a point whose
// folder holds complete results of the same resolved config is not run
// again. A signal (opts.interrupt) stops the runs: each running point
// writes its results so far marked incomplete, no further point starts,
// and CmdRun returns Ok (the caller reads the signal).
sim::Status CmdRun(const std::string& config_path, const CommandOptions& opts, std::ostream& out);
sim::Status CmdCheck(const std::string& config_path, const CommandOptions& opts, std::ostream& out);
sim::Status CmdExplain(const std::string& prefix, std::ostream& out);
// Runs each point of CONFIG without writing results and reports wall-clock
// figures: set-up time (including preconditioning), simulated host I/Os per
// wall-second of the timed run, events per second and peak memory.
sim::Status CmdBench(const std::string& config_path, const CommandOptions& opts, std::ostream& out);
sim::Status CmdTraceInfo(const std::string& path, const CommandOptions& opts, std::ostream& out);

}  // namespace app
