// The CLI subcommands, separated from argument parsing so tests can call
// them directly. Each returns InvalidInput for the user's mistakes.
#pragma once

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
};

sim::Status CmdRun(const std::string& config_path, const CommandOptions& opts, std::ostream& out);
sim::Status CmdCheck(const std::string& config_path, const CommandOptions& opts, std::ostream& out);
sim::Status CmdExplain(const std::string& prefix, std::ostream& out);
// Runs each point of CONFIG without writing results and reports wall-clock
// figures: set-up time (including preconditioning), simulated host I/Os per
// wall-second of the timed run, events per second and peak memory.
sim::Status CmdBench(const std::string& config_path, const CommandOptions& opts, std::ostream& out);
sim::Status CmdTraceInfo(const std::string& path, const CommandOptions& opts, std::ostream& out);

}  // namespace app
