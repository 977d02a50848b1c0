#include "app/commands.h"

#include <algorithm>
#include <sys/resource.h>

#include <charconv>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "app/experiment.h"
#include "app/interrupt.h"
#include "app/results.h"
#include "app/sweep.h"
#include "fs/file_system_kind.h"
#include "ftl/ftl_factory.h"
#include "ftl/victim_policy.h"
#include "host/replay/trace_replay_config.h"
#include "host/workload_kind.h"
#include "host/trace/trace_info.h"

namespace app {

namespace {

// Cross-key validation messages start with the key path ("ftl.op: …"); when
// that key was set in a file, prefix its file:line:col so the user can find
// it. Keys left at their defaults keep the bare message.
sim::Status Locate(const sim::Status& st, const sim::ResolvedConfig& rc) {
  if (st.ok()) return st;
  const std::string& m = st.message();
  const auto colon = m.find(": ");
  if (colon == std::string::npos) return st;
  const std::string key = m.substr(0, colon);
  auto it = rc.values.find(key);
  if (it == rc.values.end()) return st;
  return sim::Status::InvalidInput(fmt::format("{}: {}", it->second.loc.ToString(), m));
}

struct LoadedRun {
  ExperimentConfig cfg;
  std::vector<std::string> warnings;  // keys set in sections this run does not use
  std::string sweep_label;
  std::vector<std::string> sweep_keys;             // the swept keys, in order
  std::map<std::string, std::string> sweep_values;  // swept key -> value as written
};

// Keys set (in a file or with --set) in a section the run does not use:
// fs.<kind>.* of another file system than fs.kind, workload.<kind>.* of
// another workload, ftl.<kind>.* of another FTL, ftl.<policy>.* of another
// victim policy. One warning per section, naming where its first key was
// set. Only keys of the config file itself (`path`) and of --set are
// looked at: an included preset sets keys for whichever kind uses it. Not
// an error: a sweep over the kind sets them on purpose.
std::vector<std::string> UnusedSectionWarnings(const sim::ResolvedConfig& rc, const ExperimentConfig& cfg,
                                               const std::string& path) {
  struct Slot {
    std::string parent;  // "fs"
    std::string key;     // "fs.kind"
    std::string chosen;  // "f2fs"
    std::vector<std::string> sections;
  };
  auto names = [](const std::vector<sim::ImplSection>& secs) {
    std::vector<std::string> out;
    for (const sim::ImplSection& s : secs) out.push_back(s.name);
    return out;
  };
  const std::vector<Slot> slots = {
      {"fs", "fs.kind", cfg.fs.kind, fs::FileSystemKindNames()},
      {"workload", "workload.kind", cfg.workload.kind, host::WorkloadKindNames()},
      {"ftl", "ftl.kind", cfg.ftl.kind, names(ftl::FtlKindSections())},
      {"ftl", "ftl.victim", cfg.ftl.victim, names(ftl::VictimPolicySections())},
  };
  std::vector<std::string> out;
  std::set<std::string> warned;
  for (const auto& [key, entry] : rc.values) {
    if (entry.loc.file != path && entry.loc.file.rfind("--set", 0) != 0) continue;
    for (const Slot& slot : slots) {
      for (const std::string& sec : slot.sections) {
        const std::string prefix = slot.parent + "." + sec + ".";
        if (sec == slot.chosen || key.rfind(prefix, 0) != 0 || !warned.insert(prefix).second) continue;
        out.push_back(fmt::format("{}{}: section {}{}* is not used by this run ({} is {}); its keys have no effect",
                                  entry.loc.line > 0 || !entry.loc.file.empty() ? entry.loc.ToString() + ": " : "",
                                  key, slot.parent + ".", sec + ".", slot.key, slot.chosen));
      }
    }
  }
  return out;
}

sim::Result<std::vector<LoadedRun>> LoadRuns(const std::string& path, const CommandOptions& opts) {
  const sim::SchemaNode& schema = sim::SchemaOf<ExperimentConfig>();
  FS_ASSIGN_OR_RETURN(std::vector<sim::ResolvedConfig> resolved,
                      sim::LoadExperiment(schema, path, opts.overrides));
  if (resolved.size() == 1 && resolved[0].values.empty()) {
    return sim::Status::InvalidInput(fmt::format(
        "{}: the configuration sets no key; start from configs/quickstart.yaml or see `flashstack explain`", path));
  }
  std::vector<LoadedRun> runs;
  for (const auto& rc : resolved) {
    LoadedRun run;
    FS_RETURN_IF_ERROR(sim::Bind(schema, rc, &run.cfg));
    if (!opts.seed.empty()) {
      uint64_t seed = 0;
      const auto* end = opts.seed.data() + opts.seed.size();
      auto [p, ec] = std::from_chars(opts.seed.data(), end, seed);
      if (ec != std::errc() || p != end) {
        return sim::Status::InvalidInput(fmt::format("--seed: not an unsigned integer: '{}'", opts.seed));
      }
      run.cfg.seed = seed;
    }
    if (run.cfg.name.empty()) run.cfg.name = std::filesystem::path(path).stem().string();
    // Trace paths are relative to the file that set them (maybe an include).
    for (const auto& [key, entry] : rc.values) {
      if (entry.loc.line == 0 || !Experiment::IsFileKey(key)) continue;
      const auto it = rc.values.find(key);
      FS_ASSIGN_OR_RETURN(std::string file, sim::GetKey(schema, &run.cfg, key));
      if (file.empty()) continue;
      file = host::ResolveTracePath(file, std::filesystem::path(it->second.loc.file).parent_path().string());
      FS_RETURN_IF_ERROR(sim::SetKey(schema, &run.cfg, key, file));
    }
    if (sim::Status st = Locate(ValidateExperiment(run.cfg), rc); !st.ok()) {
      // The default workload (fio, which needs a bound) chosen silently
      // gives a puzzling message: say that no workload was chosen.
      if (rc.values.count("workload.kind") == 0) {
        return sim::Status::InvalidInput(fmt::format(
            "{}: workload.kind is not set, so the default '{}' was used and fails: {}; choose one of: {}", path,
            run.cfg.workload.kind, st.message(), fmt::join(host::WorkloadKindNames(), ", ")));
      }
      return st;
    }
    run.warnings = UnusedSectionWarnings(rc, run.cfg, path);
    run.sweep_label = rc.sweep_label;
    run.sweep_keys = rc.sweep_keys;
    for (const std::string& k : rc.sweep_keys) run.sweep_values[k] = rc.values.at(k).text;
    runs.push_back(std::move(run));
  }
  return runs;
}

// A folder name from a sweep label: "ftl.op=7%,ftl.victim=fifo" -> "ftl.op=7pct_ftl.victim=fifo".
std::string FolderFor(size_t index, const std::string& label) {
  std::string out = fmt::format("{:03d}", index);
  if (label.empty()) return out;
  out += "-";
  for (char c : label) {
    if (c == ',') out += "_";
    else if (c == '%') out += "pct";
    else if (c == '/' || c == ' ' || c == '\\' || c == ':') out += "-";
    else out += c;
  }
  return out;
}

}  // namespace

sim::Status CmdBench(const std::string& config_path, const CommandOptions& opts, std::ostream& out) {
  FS_ASSIGN_OR_RETURN(std::vector<LoadedRun> runs, LoadRuns(config_path, opts));
  for (const LoadedRun& run : runs) {
    const auto t0 = std::chrono::steady_clock::now();
    FS_ASSIGN_OR_RETURN(std::unique_ptr<Experiment> exp, Experiment::Create(run.cfg));
    const double setup = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const RunReport rep = exp->Run(false);
    FS_RETURN_IF_ERROR(exp->status());
    struct rusage ru {};
    getrusage(RUSAGE_SELF, &ru);
    // Flash commands of the timed run (preconditioning is functional: no
    // commands), which do not depend on write amplification.
    double cmds = 0;
    for (const char* kind : {"read", "program", "erase"}) {
      for (const char* source : {"host", "gc", "meta"}) {
        const double v = exp->stats().Value(fmt::format("flash.cmds.{}.{}", kind, source));
        if (v == v) cmds += v;
      }
    }
    const double wall = rep.wall_seconds > 0 ? rep.wall_seconds : 0.0;
    // A file workload's operations are those it completes (workload.ops:
    // filebench's IO flowops as its summary counts them, not every
    // file-system call), a block workload's are host I/Os.
    const char* what = run.cfg.fs.kind != "none" ? "file-system operations" : "host I/Os";
    out << fmt::format(
        "{}{}{}: setup {:.2f} s | run {:.3f} s wall, {} simulated | {} {} -> {:.0f} {} per "
        "wall-second | {:.1f} M events/s | {:.1f} M flash commands/s | peak RSS {:.1f} MiB\n",
        run.cfg.name, run.sweep_label.empty() ? "" : " ", run.sweep_label, setup, rep.wall_seconds,
        rep.sim_time.ToString(), rep.host_ios, what, wall > 0 ? rep.host_ios / wall : 0.0, what,
        wall > 0 ? rep.events / wall / 1e6 : 0.0, wall > 0 ? cmds / wall / 1e6 : 0.0, ru.ru_maxrss / 1024.0);
  }
  return sim::Status::Ok();
}

sim::Status CmdCheck(const std::string& config_path, const CommandOptions& opts, std::ostream& out) {
  FS_ASSIGN_OR_RETURN(std::vector<LoadedRun> runs, LoadRuns(config_path, opts));
  MemoryEstimate memory;
  for (const auto& r : runs) {
    const MemoryEstimate m = EstimateMemory(r.cfg);
    if (m.total() > memory.total()) memory = m;
  }
  const flash::Geometry& g = runs.front().cfg.device.geometry;
  const double raw = static_cast<double>(g.pages()) * static_cast<double>(g.page_size.value);
  const uint64_t logical_pages = runs.front().cfg.ftl.LogicalPages(g);
  const double logical = static_cast<double>(logical_pages) * static_cast<double>(g.page_size.value);
  constexpr double kMiB = 1048576.0;
  out << fmt::format("{}: ok ({} run{}); device {:.4g} GiB raw, {:.4g} GiB logical, over-provisioning {:.2f}% of "
                     "logical = {:.2f}% of physical{}; estimated memory {:.1f} MiB "
                     "(FTL tables {:.1f} MiB, file-system tables {:.1f} MiB, workload {:.1f} MiB){}\n",
                     config_path, runs.size(), runs.size() == 1 ? "" : "s", raw / 1073741824.0,
                     logical / 1073741824.0, 100 * ftl::OpOfLogical(logical_pages, g.pages()),
                     100 * ftl::OpOfPhysical(logical_pages, g.pages()), runs.size() > 1 ? " (first run)" : "",
                     memory.total() / kMiB,
                     memory.ftl / kMiB, memory.fs / kMiB, memory.workload / kMiB, runs.size() > 1 ? ", at most" : "");
  for (const auto& r : runs) {
    if (!r.sweep_label.empty()) out << "  " << r.sweep_label << "\n";
  }
  std::vector<std::string> warned;
  for (const auto& r : runs) {
    std::vector<std::string> all = r.warnings;
    for (std::string& w : CheckWarnings(r.cfg)) all.push_back(std::move(w));
    for (const std::string& w : all) {
      if (std::find(warned.begin(), warned.end(), w) != warned.end()) continue;
      warned.push_back(w);
      out << "warning: " << w << "\n";
    }
  }
  return sim::Status::Ok();
}

namespace {

// Runs one point in this process and writes its folder; *summary is what
// the run prints.
// `check_stats`: the --sweep_stats patterns to look up in this point's
// statistics before it runs (null: none).
PointOutcome RunPoint(const LoadedRun& run, const std::string& dir, bool replaced, const Experiment::Progress& progress,
                      const std::atomic<int>* interrupt, const std::vector<std::string>* check_stats,
                      std::string* summary) {
  PointOutcome o;
  const auto t0 = std::chrono::steady_clock::now();
  sim::Result<std::unique_ptr<Experiment>> made = Experiment::Create(run.cfg);
  if (!made.ok()) {
    o.status = made.status();
    return o;
  }
  std::unique_ptr<Experiment> exp = std::move(made).value();
  if (check_stats != nullptr) {
    o.status = CheckSweepStats(*check_stats, exp->stats());
    if (!o.status.ok()) {
      o.status = sim::Status::InvalidInput(o.status.message() + fmt::format(
          " — checked on point {} before any point ran", run.sweep_label.empty() ? "0" : run.sweep_label));
      return o;
    }
  }
  const double setup = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Experiment::Progress p = progress;
  p.label = run.cfg.name + (run.sweep_label.empty() ? "" : " " + run.sweep_label);
  const RunReport rep = exp->Run(p, interrupt);
  o.status = exp->status();
  if (!o.status.ok()) return o;
  o.interrupted = rep.interrupted_by != 0;
  o.failed_ios = exp->FailedRequests();
  *summary = fmt::format("== {}{}{} (seed {}) ==\n", run.cfg.name, run.sweep_label.empty() ? "" : " ",
                         run.sweep_label, run.cfg.seed);
  *summary += exp->Summary();
  if (o.interrupted) {
    *summary += fmt::format("INCOMPLETE: {} stopped the run at simulated time {}; these results cover the run so "
                            "far\n",
                            SignalName(rep.interrupted_by), rep.sim_time.ToString());
  }
  const std::string stalled =
      rep.stalled ? fmt::format("the simulation stopped at simulated time {} with the workload unfinished ({} "
                                "operations done): every simulated thread was waiting for something that never "
                                "came, a deadlock in the model",
                                rep.sim_time.ToString(), rep.host_ios)
                  : "";
  if (rep.stalled) *summary += "INCOMPLETE: " + stalled + "; these results cover the run so far\n";
  *summary += fmt::format("wall time {:.3f} s setup (formatting, preconditioning) + {:.3f} s run, {} events ({:.1f} M "
                          "events/s), {:.0f} host I/Os per wall-second of the run\n",
                          setup, rep.wall_seconds, rep.events,
                          rep.wall_seconds > 0 ? rep.events / rep.wall_seconds / 1e6 : 0.0,
                          rep.wall_seconds > 0 ? rep.host_ios / rep.wall_seconds : 0.0);
  *summary += fmt::format("results in {}/{}\n", dir, replaced ? " (replacing the earlier results there)" : "");
  WallClock wall{rep.wall_seconds, setup, rep.events, rep.sim_time.sec(), rep.host_ios};
  o.status = WriteRunFiles(dir,
                           RunIdentity{run.cfg.name, run.sweep_label, run.cfg.seed, !o.interrupted && !rep.stalled},
                           sim::SchemaOf<ExperimentConfig>(), &run.cfg, exp->stats(), *summary, wall);
  // Results written (marked incomplete); the command fails.
  if (o.status.ok() && rep.stalled) o.status = sim::Status::IoError(stalled + " (results in " + dir + "/)");
  return o;
}

}  // namespace

sim::Status CmdRun(const std::string& config_path, const CommandOptions& opts, std::ostream& out) {
  if (opts.jobs < 1) return sim::Status::InvalidInput(fmt::format("--jobs: must be at least 1 (got {})", opts.jobs));
  std::vector<std::string> stats = DefaultSweepStats();
  if (!opts.sweep_stats.empty()) {
    FS_ASSIGN_OR_RETURN(stats, ParseSweepStats(opts.sweep_stats));
  }
  FS_ASSIGN_OR_RETURN(std::vector<LoadedRun> runs, LoadRuns(config_path, opts));
  {
    std::set<std::string> warned;
    for (const LoadedRun& r : runs) {
      for (const std::string& w : r.warnings) {
        if (warned.insert(w).second) std::cerr << "flashstack: warning: " << w << "\n";
      }
    }
  }
  if (opts.point >= 0 && static_cast<uint64_t>(opts.point) >= runs.size()) {
    return sim::Status::InvalidInput(fmt::format("--point {}: {} has {} point{} (0 to {})", opts.point, config_path,
                                                 runs.size(), runs.size() == 1 ? "" : "s", runs.size() - 1));
  }
  const sim::SchemaNode& schema = sim::SchemaOf<ExperimentConfig>();
  const bool sweep = runs.size() > 1;
  const std::string base = opts.out_dir.empty() ? "results/" + runs.front().cfg.name : opts.out_dir;
  std::vector<std::string> folders;  // below base; "" for a single run
  for (size_t i = 0; i < runs.size(); ++i) folders.push_back(sweep ? FolderFor(i, runs[i].sweep_label) : "");
  auto dir_of = [&](size_t i) { return folders[i].empty() ? base : base + "/" + folders[i]; };

  // Which points run, and which folders are replaced first.
  bool replaced_all = false;
  const bool keep_others = opts.resume || opts.point >= 0;
  if (keep_others) {
    FS_RETURN_IF_ERROR(CheckResultsFolder(base));
  } else {
    FS_RETURN_IF_ERROR(PrepareResultsFolder(base, &replaced_all));
  }
  std::vector<size_t> todo;
  size_t kept = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (opts.point >= 0 && i != static_cast<size_t>(opts.point)) continue;
    if (opts.resume && HoldsCompleteRun(dir_of(i), sim::DumpYaml(schema, &runs[i].cfg))) {
      ++kept;
      continue;
    }
    todo.push_back(i);
  }
  std::vector<bool> replaced(runs.size(), replaced_all);
  if (keep_others) {
    for (const size_t i : todo) {
      bool r = false;
      FS_RETURN_IF_ERROR(PrepareResultsFolder(dir_of(i), &r));
      replaced[i] = r;
    }
  }
  if (kept > 0) {
    out << fmt::format("{} of {} points kept: their folders hold complete results of the same configuration\n", kept,
                       opts.point >= 0 ? 1 : runs.size())
        << std::flush;
  }

  // Per-point progress lines would interleave between processes: with
  // several jobs only the sweep's line (and a log's full lines) show.
  Experiment::Progress progress = opts.progress;
  const int jobs = std::min<int>(opts.jobs, std::max<size_t>(todo.size(), 1));
  if (jobs > 1 && progress.mode == Experiment::Progress::Mode::kTerminal) progress.mode = Experiment::Progress::Mode::kOff;
  const auto t0 = std::chrono::steady_clock::now();
  size_t done = 0;
  bool interrupted = false;
  uint64_t failed_ios = 0, failed_points = 0;
  auto run_point = [&](size_t i) {
    std::string summary;
    // A chosen --sweep_stats is looked up in the first point's statistics
    // before that point runs, so a misspelt name fails at once.
    const bool check = !opts.sweep_stats.empty() && !todo.empty() && i == todo.front();
    PointOutcome o =
        RunPoint(runs[i], dir_of(i), replaced[i], progress, opts.interrupt, check ? &stats : nullptr, &summary);
    // In this process (one job), print the summary here; a child's is
    // printed by the parent from the file.
    if (jobs == 1 && o.status.ok() && !opts.quiet) out << summary << std::flush;
    return o;
  };
  auto on_done = [&](size_t i, const PointOutcome& o) {
    ++done;
    interrupted = interrupted || o.interrupted;
    if (o.status.ok() && o.failed_ios > 0) {
      failed_ios += o.failed_ios;
      ++failed_points;
    }
    if (jobs > 1 && o.status.ok() && !opts.quiet) {
      std::ifstream f(dir_of(i) + "/summary.txt", std::ios::binary);
      out << f.rdbuf() << std::flush;
    }
    if (!sweep || todo.size() <= 1 || opts.progress.mode == Experiment::Progress::Mode::kOff) return;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const size_t left = todo.size() - done;
    const std::string eta = left == 0 ? "done" : fmt::format("ETA {:.0f}s", wall * static_cast<double>(left) / done);
    std::fprintf(stderr, "[flashstack] sweep %s: %zu/%zu points done%s | wall %.0fs | %s\n",
                 runs.front().cfg.name.c_str(), done + kept, runs.size(),
                 kept > 0 ? fmt::format(" ({} kept)", kept).c_str() : "", wall, eta.c_str());
    std::fflush(stderr);
  };
  const sim::Status run_status = RunPoints(todo, jobs, opts.interrupt, run_point, on_done);

  // The table covers every point with results, those kept included; a
  // single point of a job array leaves it to the aggregating run.
  sim::Status table_status;
  if (sweep && opts.point < 0) {
    std::vector<SweepRow> rows;
    for (size_t i = 0; i < runs.size(); ++i) {
      SweepRow r;
      r.index = i;
      r.folder = folders[i];
      for (const std::string& k : runs[i].sweep_keys) r.keys.emplace_back(k, runs[i].sweep_values.at(k));
      rows.push_back(std::move(r));
    }
    table_status = WriteSweepCsv(base, rows, stats, !opts.sweep_stats.empty());
    if (table_status.ok() && run_status.ok()) {
      out << fmt::format("sweep: {} points{} in {}/, table in {}/sweep.csv\n", runs.size(),
                         interrupted ? " (interrupted: some incomplete or not run)" : "", base, base);
    }
  }
  FS_RETURN_IF_ERROR(run_status);
  FS_RETURN_IF_ERROR(table_status);
  if (opts.failed_ios != nullptr) *opts.failed_ios = failed_ios;
  if (failed_ios > 0) {
    std::cerr << fmt::format("flashstack: error: the device refused {} request{}{}: the results (in {}/) count only "
                             "the work that completed; see the summary's FAILED I/O line and ssd.errors\n",
                             failed_ios, failed_ios == 1 ? "" : "s",
                             sweep ? fmt::format(" in {} point{}", failed_points, failed_points == 1 ? "" : "s") : "",
                             base);
  }
  return sim::Status::Ok();
}

namespace {
void ExplainNode(const sim::SchemaNode& node, const std::string& path, const std::string& prefix,
                 std::ostream& out, int* shown) {
  for (const auto& p : node.params()) {
    const std::string key = path.empty() ? p.key : path + "." + p.key;
    if (key.rfind(prefix, 0) != 0) continue;
    std::string type(sim::ParamKindName(p.kind));
    const std::string unit = p.unit();
    if (!unit.empty() && unit != type) type += ", " + unit;
    if (p.kind == sim::ParamKind::kChoice) {
      std::string c;
      for (const auto& x : p.choices) c += (c.empty() ? "" : "|") + x;
      type += ": " + c;
    }
    out << fmt::format("{}\n    {} [{}] default {}\n", key, p.description, type,
                       p.default_text.empty() ? "\"\"" : p.default_text);
    ++*shown;
  }
  for (const auto& c : node.children()) {
    ExplainNode(*c.node, path.empty() ? c.key : path + "." + c.key, prefix, out, shown);
  }
  // A section of named entries: its keys once, under "<name>".
  if (const auto* n = node.named(); n != nullptr) ExplainNode(*n->entry.node, path + "." + n->entry.key, prefix, out, shown);
}
}  // namespace

sim::Status CmdExplain(const std::string& prefix, std::ostream& out) {
  int shown = 0;
  ExplainNode(sim::SchemaOf<ExperimentConfig>(), "", prefix, out, &shown);
  if (shown == 0) return sim::Status::InvalidInput(fmt::format("no configuration key starts with '{}'", prefix));
  return sim::Status::Ok();
}

sim::Status CmdTraceInfo(const std::string& path, const CommandOptions& opts, std::ostream& out) {
  host::BlockTraceOptions topt;
  topt.format = opts.trace_format;
  topt.on_error = opts.on_error;
  // The reader keys of a run (workload.trace.reader.*), by their short name
  // or their full one, so trace-info reads the file exactly as a run would.
  static constexpr std::string_view kReaderPrefix = "workload.trace.reader.";
  const sim::SchemaNode& schema = sim::SchemaOf<host::BlockTraceOptions>();
  for (const std::string& o : opts.overrides) {
    const size_t eq = o.find('=');
    if (eq == std::string::npos) return sim::Status::InvalidInput(fmt::format("--set {}: expected key=value", o));
    std::string_view key = std::string_view(o).substr(0, eq);
    if (key.rfind(kReaderPrefix, 0) == 0) key.remove_prefix(kReaderPrefix.size());
    if (schema.FindParam(key) == nullptr) {
      std::vector<std::string> keys;
      for (const sim::ParamDecl& d : schema.params()) keys.push_back(d.key);
      return sim::Status::InvalidInput(fmt::format("--set {}: trace-info takes the trace reader keys: {}", o,
                                                   fmt::join(keys, ", ")));
    }
    sim::Status st = sim::SetKey(schema, &topt, key, std::string_view(o).substr(eq + 1));
    if (!st.ok()) return sim::Status::InvalidInput(fmt::format("--set {}: {}", o, st.message()));
  }
  FS_ASSIGN_OR_RETURN(std::unique_ptr<host::BlockTraceReader> reader, host::OpenBlockTrace(path, topt));
  FS_ASSIGN_OR_RETURN(host::TraceInfo info, host::Summarize(reader.get()));
  out << host::FormatTraceInfo(info);
  return sim::Status::Ok();
}

}  // namespace app
