#include "app/results.h"

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#ifndef FLASHSTACK_VERSION
#define FLASHSTACK_VERSION "unknown"
#endif

namespace app {

void WriteConfigJson(sim::JsonWriter& w, const sim::SchemaNode& node, const void* obj) {
  w.BeginObject();
  for (const auto& p : node.params()) {
    w.Key(p.key);
    w.String(p.load(obj));
  }
  for (const auto& c : node.children()) {
    w.Key(c.key);
    WriteConfigJson(w, *c.node, c.caccess(obj));
  }
  if (const auto* n = node.named(); n != nullptr) {
    for (const std::string& name : n->names(obj)) {
      w.Key(name);
      WriteConfigJson(w, *n->entry.node, n->cget(obj, name));
    }
  }
  w.EndObject();
}

namespace {

sim::Status WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return sim::Status::IoError(fmt::format("cannot write {}", path.string()));
  f << text;
  f.close();
  if (!f) return sim::Status::IoError(fmt::format("error writing {}", path.string()));
  return sim::Status::Ok();
}

}  // namespace

namespace {
bool IsRunFile(const std::string& name) {
  return name == "stats.json" || name == "series.csv" || name == "series.units.csv" || name == "config.yaml" ||
         name == "summary.txt" || name == "run_info.json";
}
// What the top of a results folder may hold besides run files and point folders.
bool IsSweepFile(const std::string& name) { return name == "sweep.csv" || name == "sweep.units.csv"; }
// A sweep point's folder: "NNN" or "NNN-label" holding only run files.
bool IsPointFolder(const std::filesystem::directory_entry& e) {
  const std::string n = e.path().filename().string();
  if (!e.is_directory() || n.size() < 3 || !std::isdigit(static_cast<unsigned char>(n[0])) ||
      !std::isdigit(static_cast<unsigned char>(n[1])) || !std::isdigit(static_cast<unsigned char>(n[2])) ||
      (n.size() > 3 && n[3] != '-')) {
    return false;
  }
  std::error_code ec;
  for (const auto& f : std::filesystem::directory_iterator(e.path(), ec)) {
    if (!f.is_regular_file() || !IsRunFile(f.path().filename().string())) return false;
  }
  return !ec;
}
}  // namespace

sim::Status CheckResultsFolder(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return sim::Status::Ok();
  if (!fs::is_directory(dir, ec)) {
    return sim::Status::InvalidInput(fmt::format("results folder {}: exists and is not a folder", dir));
  }
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    if ((e.is_regular_file() && (IsRunFile(n) || IsSweepFile(n))) || IsPointFolder(e)) continue;
    return sim::Status::InvalidInput(fmt::format(
        "results folder {}: holds '{}', which flashstack did not write; choose another --out or remove it", dir, n));
  }
  if (ec) return sim::Status::IoError(fmt::format("results folder {}: {}", dir, ec.message()));
  return sim::Status::Ok();
}

bool HoldsCompleteRun(const std::string& dir, const std::string& config_yaml) {
  namespace fs = std::filesystem;
  const fs::path d(dir);
  for (const char* f : {"stats.json", "series.csv", "config.yaml", "summary.txt", "run_info.json"}) {
    std::error_code ec;
    if (!fs::is_regular_file(d / f, ec)) return false;
  }
  auto slurp = [](const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
  };
  if (slurp(d / "config.yaml") != config_yaml) return false;
  // run_info.json is written last and ends with its closing brace.
  const std::string info = slurp(d / "run_info.json");
  return info.find("\"complete\": true") != std::string::npos && info.ends_with("}\n");
}

sim::Status PrepareResultsFolder(const std::string& dir, bool* replaced) {
  namespace fs = std::filesystem;
  *replaced = false;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return sim::Status::Ok();
  FS_RETURN_IF_ERROR(CheckResultsFolder(dir));
  fs::remove_all(dir, ec);
  if (ec) return sim::Status::IoError(fmt::format("cannot replace results folder {}: {}", dir, ec.message()));
  *replaced = true;
  return sim::Status::Ok();
}

sim::Status WriteRunFiles(const std::string& dir, const RunIdentity& id, const sim::SchemaNode& schema,
                          const void* config, const sim::StatsRegistry& stats, const std::string& summary,
                          const WallClock& wall) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return sim::Status::IoError(fmt::format("cannot create results folder {}: {}", dir, ec.message()));
  const std::filesystem::path d(dir);

  std::ostringstream js;
  {
    sim::JsonWriter w(js);
    w.BeginObject();
    w.Key("flashstack_version");
    w.String(FLASHSTACK_VERSION);
    w.Key("experiment");
    w.String(id.experiment);
    w.Key("sweep");
    w.String(id.sweep_label);
    w.Key("seed");
    w.Uint(id.seed);
    w.Key("complete");
    w.Bool(id.complete);
    w.Key("config");
    WriteConfigJson(w, schema, config);
    w.Key("stats");
    stats.WriteJson(w);
    w.EndObject();
    js << "\n";
  }
  FS_RETURN_IF_ERROR(WriteFile(d / "stats.json", js.str()));

  std::ostringstream csv;
  stats.WriteSeriesCsv(csv);
  FS_RETURN_IF_ERROR(WriteFile(d / "series.csv", csv.str()));
  std::ostringstream units;
  stats.WriteSeriesUnitsCsv(units);
  FS_RETURN_IF_ERROR(WriteFile(d / "series.units.csv", units.str()));
  FS_RETURN_IF_ERROR(WriteFile(d / "config.yaml", sim::DumpYaml(schema, config)));
  FS_RETURN_IF_ERROR(WriteFile(d / "summary.txt", summary));

  std::ostringstream info;
  {
    sim::JsonWriter w(info);
    w.BeginObject();
    w.Key("complete");
    w.Bool(id.complete);
    w.Key("wall_seconds");
    w.Number(wall.seconds);
    w.Key("setup_wall_seconds");
    w.Number(wall.setup_seconds);
    w.Key("events");
    w.Uint(wall.events);
    w.Key("events_per_wall_second");
    w.Number(wall.seconds > 0 ? static_cast<double>(wall.events) / wall.seconds : 0);
    w.Key("simulated_seconds");
    w.Number(wall.sim_seconds);
    w.Key("host_ios");
    w.Uint(wall.host_ios);
    w.Key("host_ios_per_wall_second");
    w.Number(wall.seconds > 0 ? static_cast<double>(wall.host_ios) / wall.seconds : 0);
    w.EndObject();
    info << "\n";
  }
  return WriteFile(d / "run_info.json", info.str());
}

}  // namespace app
