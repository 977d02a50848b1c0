#include "app/commands.h"

#include <algorithm>
#include <sys/resource.h>

#include <charconv>
#include <chrono>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "app/experiment.h"
#include "app/results.h"
#include "host/replay/trace_replay_config.h"
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
  std::string sweep_label;
};

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
    for (const std::string& key : Experiment::FileKeys()) {
      auto it = rc.values.find(key);
      if (it == rc.values.end() || it->second.loc.line == 0) continue;
      FS_ASSIGN_OR_RETURN(std::string file, sim::GetKey(schema, &run.cfg, key));
      if (file.empty()) continue;
      file = host::ResolveTracePath(file, std::filesystem::path(it->second.loc.file).parent_path().string());
      FS_RETURN_IF_ERROR(sim::SetKey(schema, &run.cfg, key, file));
    }
    FS_RETURN_IF_ERROR(Locate(ValidateExperiment(run.cfg), rc));
    run.sweep_label = rc.sweep_label;
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
    out << fmt::format(
        "{}{}{}: setup {:.2f} s | run {:.3f} s wall, {} simulated | {} host I/Os -> {:.0f} host I/Os per "
        "wall-second | {:.1f} M events/s | peak RSS {:.1f} MiB\n",
        run.cfg.name, run.sweep_label.empty() ? "" : " ", run.sweep_label, setup, rep.wall_seconds,
        rep.sim_time.ToString(), rep.host_ios, rep.wall_seconds > 0 ? rep.host_ios / rep.wall_seconds : 0.0,
        rep.wall_seconds > 0 ? rep.events / rep.wall_seconds / 1e6 : 0.0, ru.ru_maxrss / 1024.0);
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
    for (const std::string& w : CheckWarnings(r.cfg)) {
      if (std::find(warned.begin(), warned.end(), w) != warned.end()) continue;
      warned.push_back(w);
      out << "warning: " << w << "\n";
    }
  }
  return sim::Status::Ok();
}

sim::Status CmdRun(const std::string& config_path, const CommandOptions& opts, std::ostream& out) {
  FS_ASSIGN_OR_RETURN(std::vector<LoadedRun> runs, LoadRuns(config_path, opts));
  const sim::SchemaNode& schema = sim::SchemaOf<ExperimentConfig>();
  const std::string base = opts.out_dir.empty() ? "results/" + runs.front().cfg.name : opts.out_dir;
  bool replaced = false;
  FS_RETURN_IF_ERROR(PrepareResultsFolder(base, &replaced));
  for (size_t i = 0; i < runs.size(); ++i) {
    const LoadedRun& run = runs[i];
    std::string dir = base;
    if (runs.size() > 1) dir += "/" + FolderFor(i, run.sweep_label);
    const auto t0 = std::chrono::steady_clock::now();
    FS_ASSIGN_OR_RETURN(std::unique_ptr<Experiment> exp, Experiment::Create(run.cfg));
    const double setup = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    Experiment::Progress progress = opts.progress;
    progress.label = run.cfg.name + (run.sweep_label.empty() ? "" : " " + run.sweep_label);
    const RunReport rep = exp->Run(progress);
    FS_RETURN_IF_ERROR(exp->status());
    std::string summary = fmt::format("== {}{}{} (seed {}) ==\n", run.cfg.name, run.sweep_label.empty() ? "" : " ",
                                      run.sweep_label, run.cfg.seed);
    summary += exp->Summary();
    summary += fmt::format("wall time {:.3f} s setup (formatting, preconditioning) + {:.3f} s run, {} events ({:.1f} M "
                           "events/s), {:.0f} host I/Os per wall-second of the run\n",
                           setup, rep.wall_seconds, rep.events,
                           rep.wall_seconds > 0 ? rep.events / rep.wall_seconds / 1e6 : 0.0,
                           rep.wall_seconds > 0 ? rep.host_ios / rep.wall_seconds : 0.0);
    summary += fmt::format("results in {}/{}\n", dir, replaced ? " (replacing the earlier results there)" : "");
    WallClock wall{rep.wall_seconds, setup, rep.events, rep.sim_time.sec(), rep.host_ios};
    FS_RETURN_IF_ERROR(WriteRunFiles(dir, RunIdentity{run.cfg.name, run.sweep_label, run.cfg.seed}, schema,
                                     &run.cfg, exp->stats(), summary, wall));
    if (!opts.quiet) out << summary << std::flush;
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
