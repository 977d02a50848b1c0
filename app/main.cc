// flashstack command-line entry point.
//
//   flashstack run CONFIG [--set k=v]... [--out DIR] [--seed N] [--jobs N] [--resume] [--point I]
//   flashstack check CONFIG [--set k=v]...
//   flashstack bench CONFIG [--set k=v]...
//   flashstack explain [KEY-PREFIX]
//   flashstack trace-info FILE [--format NAME] [--set reader-key=value]...
//
// Exit codes: 0 success, 2 user error (bad config, flag, trace), 1 other
// failures (I/O errors writing results), 3 a run whose device refused
// requests (results written; the figures count only completed work),
// 128 + N for a run stopped by signal N (its results written, marked
// incomplete).
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gflags/gflags.h>
#include <glog/logging.h>

#include "app/commands.h"
#include "app/interrupt.h"

DEFINE_string(out, "", "run: results folder (default results/<experiment name>)");
DEFINE_string(seed, "", "run: override the experiment's random seed (unsigned integer)");
DEFINE_string(format, "", "trace-info: trace format name (default: detect from content)");
DEFINE_string(on_error, "fail", "trace-info: what to do with a malformed trace line: fail or skip");
DEFINE_bool(quiet, false, "run: do not print the run summaries");
DEFINE_bool(progress, true,
            "run: show progress on stderr: a line rewritten every second on a terminal, else a line every "
            "--progress_every seconds");
DEFINE_string(jobs, "1", "run: sweep points run at a time, each in its own process");
DEFINE_bool(resume, false,
            "run: keep the results folder and skip the points whose folder holds complete results of the same "
            "configuration");
DEFINE_string(point, "", "run: run only this point of the sweep (0-based, its folder's number), keeping the others");
DEFINE_string(sweep_stats, "", "run: the statistics sweep.csv tabulates (comma-separated names, * as a wildcard)");
DEFINE_string(progress_every, "60", "run: seconds of wall time between progress lines when stderr is not a terminal");

namespace {

constexpr const char* kUsage = R"(flashstack — full-system SSD + file-system co-simulator

Usage:
  flashstack run CONFIG [--set key=value]... [--out DIR] [--seed N]
                 [--jobs N] [--resume] [--point I] [--sweep_stats a,b.p99,c.*]
      Run the experiment described by the YAML file CONFIG (every point of its
      sweep: grid). Results go to DIR (default results/<name>): stats.json,
      series.csv, config.yaml (the resolved configuration), summary.txt and
      run_info.json (wall-clock figures); a sweep puts each point in a
      numbered subfolder and tabulates them in DIR/sweep.csv. SIGINT or
      SIGTERM stops a run and writes its results so far, marked incomplete
      (exit code 128 + the signal); a second signal kills at once.
  flashstack check CONFIG [--set key=value]...
      Validate CONFIG (and overrides) without running it.
  flashstack bench CONFIG [--set key=value]...
      Run CONFIG without writing results and report wall-clock figures:
      set-up time (formatting, preconditioning), simulated host I/Os (or,
      on a file system, the workload's operations: workload.ops, e.g.
      filebench's IO flowops) per wall-second, events and
      flash commands per wall-second, peak memory (see configs/bench/).
  flashstack explain [KEY-PREFIX]
      List every configuration key with its type, unit, default and meaning.
  flashstack trace-info FILE [--format NAME] [--on_error skip] [--set key=value]...
      Summarize a block trace: records, duration, read/write mix, sizes, span,
      and warn when its times look misread (an implausible request rate or
      span) or coarse. --set takes the reader keys of a run
      (workload.trace.reader.*: format, time_unit, action, on_error,
      zero_length, max_line, max_kept_errors), e.g. --set time_unit=1us.

Options:
  --set key=value   Override one config key (repeatable), e.g. --set ftl.op=28%
  --out DIR         Results folder for run
  --seed N          Override the experiment seed
  --quiet           Do not print the run summaries
  --jobs N          Run N sweep points at a time, each in its own process
                    (default 1); every point's results are those of a run alone
  --resume          Keep DIR: points whose folder holds complete results of the
                    same configuration are not run again (default: DIR is
                    replaced whole)
  --point I         Run only point I of the sweep (0-based, the folder's
                    number) and keep the other points' folders (job arrays)
  --sweep_stats L   Columns of sweep.csv: comma-separated statistic names as
                    in stats.json, a histogram's with its field (name.p99), *
                    as a wildcard (default: throughput, read/write latency
                    p50/p99, write amplification of FS, device, end to end)
  --noprogress      No progress on stderr (by default: a line rewritten every
                    second on a terminal, else a line every --progress_every
                    seconds, default 60, for batch logs)
  --help            This text

Exit codes: 0 ok, 2 bad input (config, flag, trace), 1 other errors,
3 a run whose device refused requests (results written; they count only
the I/O that completed), 130/143 a run stopped by SIGINT/SIGTERM (results
written, incomplete).
)";

int UserError(const std::string& msg) {
  std::cerr << "flashstack: error: " << msg << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  google::InitGoogleLogging(argv[0]);
  FLAGS_logtostderr = true;
  FLAGS_minloglevel = 1;

  // --set may repeat, which gflags cannot express: collect it first.
  std::vector<std::string> overrides;
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--set" || a == "-set") {
      if (i + 1 >= argc) return UserError("--set needs key=value");
      overrides.emplace_back(argv[++i]);
    } else if (a.rfind("--set=", 0) == 0) {
      overrides.push_back(a.substr(6));
    } else if (a == "--help" || a == "-h" || a == "-help" || a == "help") {
      std::cout << kUsage;
      return 0;
    } else {
      rest.push_back(argv[i]);
    }
  }
  // gflags, told to allow reparsing, drops unknown flags silently; a
  // misspelt flag must be an error instead.
  for (size_t i = 1; i < rest.size(); ++i) {
    std::string a = rest[i];
    if (a.size() < 2 || a[0] != '-') continue;
    if (a == "--") break;
    a = a.substr(a[1] == '-' ? 2 : 1);
    const std::string name = a.substr(0, a.find('='));
    gflags::CommandLineFlagInfo info;
    const bool known = gflags::GetCommandLineFlagInfo(name.c_str(), &info) ||
                       (name.rfind("no", 0) == 0 && gflags::GetCommandLineFlagInfo(name.substr(2).c_str(), &info) &&
                        info.type == "bool");
    if (!known) return UserError(fmt::format("unknown flag '{}' (see flashstack --help)", rest[i]));
    // "--seed -1": the next word is the flag's value, whatever it starts with.
    if (info.type != "bool" && a.find('=') == std::string::npos) {
      if (i + 1 >= rest.size()) return UserError(fmt::format("{} needs a value (see flashstack --help)", rest[i]));
      ++i;
    }
  }
  int rest_argc = static_cast<int>(rest.size());
  char** rest_argv = rest.data();
  gflags::SetUsageMessage("see flashstack --help");
  gflags::AllowCommandLineReparsing();
  gflags::ParseCommandLineNonHelpFlags(&rest_argc, &rest_argv, /*remove_flags=*/true);

  // A flag given an empty value ("--seed ''") would silently mean its
  // default: refused.
  for (const gflags::CommandLineFlagInfo& f : [] {
         std::vector<gflags::CommandLineFlagInfo> all;
         gflags::GetAllFlags(&all);
         return all;
       }()) {
    if (f.type == "string" && !f.is_default && f.current_value.empty() && f.filename == __FILE__) {
      return UserError(fmt::format("--{}: needs a value, got an empty one (see flashstack --help)", f.name));
    }
  }

  std::vector<std::string> args;
  for (int i = 1; i < rest_argc; ++i) {
    const std::string a = rest_argv[i];
    if (a.size() > 1 && a[0] == '-') return UserError(fmt::format("unknown flag '{}' (see flashstack --help)", a));
    args.push_back(a);
  }
  if (args.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string cmd = args[0];
  args.erase(args.begin());

  app::CommandOptions opts;
  opts.overrides = overrides;
  opts.out_dir = FLAGS_out;
  opts.seed = FLAGS_seed;
  opts.quiet = FLAGS_quiet;
  double progress_every = 0;
  {
    const std::string& v = FLAGS_progress_every;
    char* end = nullptr;
    progress_every = v.empty() ? 0 : std::strtod(v.c_str(), &end);
    if (v.empty() || end != v.c_str() + v.size() || !(progress_every > 0) || !std::isfinite(progress_every)) {
      return UserError(fmt::format("--progress_every: must be a positive number of seconds (got '{}')", v));
    }
  }
  using Mode = app::Experiment::Progress::Mode;
  opts.progress.mode = !FLAGS_progress ? Mode::kOff : isatty(STDERR_FILENO) ? Mode::kTerminal : Mode::kLog;
  opts.progress.every_seconds = progress_every;
  opts.trace_format = FLAGS_format;
  opts.on_error = FLAGS_on_error;
  {
    const std::string& v = FLAGS_jobs;
    char* end = nullptr;
    const long jobs = v.empty() ? 0 : std::strtol(v.c_str(), &end, 10);
    if (v.empty() || end != v.c_str() + v.size() || jobs < 1 || jobs > 4096) {
      return UserError(fmt::format("--jobs: must be a whole number of processes from 1 to 4096 (got '{}')", v));
    }
    opts.jobs = static_cast<int>(jobs);
  }
  if (!FLAGS_point.empty()) {
    const std::string& v = FLAGS_point;
    char* end = nullptr;
    const long long point = std::strtoll(v.c_str(), &end, 10);
    if (end != v.c_str() + v.size() || point < 0 || v[0] == '-' || v[0] == '+') {
      return UserError(fmt::format("--point: must be a point's number, 0 or more (got '{}')", v));
    }
    opts.point = point;
  }
  opts.resume = FLAGS_resume;
  opts.sweep_stats = FLAGS_sweep_stats;
  uint64_t failed_ios = 0;
  if (cmd == "run") {
    app::InstallInterruptHandlers();
    opts.interrupt = app::InterruptFlag();
    opts.failed_ios = &failed_ios;
  }

  sim::Status st;
  if (cmd == "run" || cmd == "check" || cmd == "bench") {
    if (args.size() != 1) return UserError(fmt::format("'{}' takes exactly one CONFIG file", cmd));
    if (cmd == "run") st = app::CmdRun(args[0], opts, std::cout);
    else if (cmd == "check") st = app::CmdCheck(args[0], opts, std::cout);
    else st = app::CmdBench(args[0], opts, std::cout);
  } else if (cmd == "explain") {
    if (args.size() > 1) return UserError("'explain' takes at most one KEY-PREFIX");
    st = app::CmdExplain(args.empty() ? "" : args[0], std::cout);
  } else if (cmd == "trace-info") {
    if (args.size() != 1) return UserError("'trace-info' takes exactly one FILE");
    st = app::CmdTraceInfo(args[0], opts, std::cout);
  } else {
    return UserError(fmt::format("unknown command '{}' (commands: run, check, bench, explain, trace-info)", cmd));
  }
  if (!st.ok()) {
    // Several errors (a config's, reported in one pass) come one per line.
    std::istringstream lines(st.message());
    for (std::string line; std::getline(lines, line);) std::cerr << "flashstack: error: " << line << "\n";
    return st.code() == sim::Status::Code::kIoError ? 1 : 2;
  }
  if (const int sig = app::InterruptSignal(); sig != 0) {
    std::cerr << "flashstack: " << app::SignalName(sig)
              << ": stopped; what it wrote so far is marked incomplete (\"complete\": false)\n";
    return 128 + sig;
  }
  if (failed_ios > 0) return 3;  // CmdRun said what failed
  return 0;
}
