// What a fresh clone needs is in it: the shipped configs and the commands in
// README.md name only files inside the repository, and the example MobiGen
// trace replays without a failed call.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "app/experiment.h"
#include "sim/config.h"

namespace app {
namespace {

namespace fs = std::filesystem;

const fs::path& Root() {
  static const fs::path root = fs::canonical(FLASHSTACK_SOURCE_DIR);
  return root;
}

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// "" if `file` (relative to `dir` unless absolute) is an existing regular
// file inside the repository, else the problem.
std::string CheckInside(const fs::path& dir, const std::string& file) {
  const fs::path p = fs::path(file).is_absolute() ? fs::path(file) : dir / file;
  const fs::path resolved = fs::weakly_canonical(p);
  const std::string root = Root().string() + "/";
  if (resolved.string().compare(0, root.size(), root) != 0) {
    return "'" + file + "' resolves to " + resolved.string() + ", outside the repository " + Root().string();
  }
  if (!fs::is_regular_file(resolved)) return "'" + file + "' (" + resolved.string() + ") does not exist";
  return {};
}

std::vector<fs::path> ShippedConfigs() {
  std::vector<fs::path> out;
  for (const auto& e : fs::recursive_directory_iterator(Root() / "configs")) {
    // A reproduction set's expected.yaml holds figures, not a config (tools/repro.py reads it).
    if (e.path().extension() == ".yaml" && e.path().filename() != "expected.yaml") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ShippedFilesTest, ConfigsNameOnlyFilesInsideTheRepository) {
  const std::vector<fs::path> configs = ShippedConfigs();
  ASSERT_GE(configs.size(), 10u);
  int files_named = 0;
  for (const fs::path& config : configs) {
    SCOPED_TRACE(config.string());
    // Not even a comment points at the third-party traces beside the project.
    std::istringstream text(Slurp(config));
    std::string line;
    for (int n = 1; std::getline(text, line); ++n) {
      EXPECT_TRUE(line.find("shared/") == std::string::npos) << config.string() << ":" << n << ": " << line;
    }
    // Included presets.
    const YAML::Node yaml = YAML::LoadFile(config.string());
    if (const YAML::Node inc = yaml["include"]) {
      std::vector<std::string> includes;
      if (inc.IsSequence()) {
        for (const auto& i : inc) includes.push_back(i.as<std::string>());
      } else {
        includes.push_back(inc.as<std::string>());
      }
      for (const std::string& i : includes) {
        EXPECT_EQ(CheckInside(config.parent_path(), i), "") << "include";
        ++files_named;
      }
    }
    // Trace files (every workload's file-valued keys), relative to the file
    // that set them.
    auto runs = sim::LoadExperiment(sim::SchemaOf<ExperimentConfig>(), config.string(), {});
    ASSERT_TRUE(runs.ok()) << runs.status().message();
    for (const sim::ResolvedConfig& run : *runs) {
      for (const auto& [key, entry] : run.values) {
        if (!Experiment::IsFileKey(key)) continue;
        const auto it = run.values.find(key);
        if (it->second.text.empty()) continue;
        EXPECT_EQ(CheckInside(fs::path(it->second.loc.file).parent_path(), it->second.text), "") << key;
        ++files_named;
      }
    }
  }
  EXPECT_GE(files_named, 30);
}

// The words of a command line that name a file in the repository: paths
// (with a '/') and file names with an extension, except the build's outputs
// (build/...), results and scratch folders, options and their values.
std::vector<std::string> FilesNamedBy(const std::string& command) {
  std::vector<std::string> out;
  std::istringstream words(command.substr(0, command.find(" #")));
  std::string w, prev;
  for (; words >> w; prev = w) {
    if (w[0] == '-' || prev == "--out" || w.find('=') != std::string::npos) continue;
    if (w.rfind("build/", 0) == 0 || w.rfind("results/", 0) == 0 || w.rfind("/tmp/", 0) == 0) continue;
    const size_t dot = w.rfind('.');
    const bool has_extension = dot != std::string::npos && dot > 0 && dot + 1 < w.size() &&
                               std::isalpha(static_cast<unsigned char>(w[dot + 1]));
    if (w.find('/') != std::string::npos || has_extension) out.push_back(w);
  }
  return out;
}

TEST(ShippedFilesTest, FilesNamedByACommandLine) {
  EXPECT_EQ(FilesNamedBy("build/app/flashstack run configs/q.yaml --set a.b=c --out x/y  # see docs/x.md"),
            (std::vector<std::string>{"configs/q.yaml"}));
  EXPECT_EQ(FilesNamedBy("build/app/flashstack check my.yaml"), (std::vector<std::string>{"my.yaml"}));
  EXPECT_EQ(FilesNamedBy("build/app/flashstack explain ftl"), std::vector<std::string>{});
  EXPECT_EQ(FilesNamedBy("build/app/flashstack trace-info ../shared/t.csv"),
            (std::vector<std::string>{"../shared/t.csv"}));
}

// Every command in the code blocks of the repository's READMEs runs from the
// top of a fresh clone: the files it names are there.
TEST(ShippedFilesTest, ReadmeCommandsNameFilesInTheRepository) {
  int named = 0;
  for (const char* readme : {"README.md", "traces/examples/README.md"}) {
    std::istringstream text(Slurp(Root() / readme));
    std::string line;
    bool in_code = false;
    for (int n = 1; std::getline(text, line); ++n) {
      if (line.rfind("```", 0) == 0) {
        in_code = !in_code;
        continue;
      }
      if (!in_code) continue;
      for (const std::string& file : FilesNamedBy(line)) {
        EXPECT_EQ(CheckInside(Root(), file), "") << readme << ":" << n << ": " << line;
        ++named;
      }
    }
  }
  EXPECT_GE(named, 10);
}

// The shipped MobiGen example replays with every call succeeding: the files
// it uses exist when used, its descriptors are mapped, reads return what the
// trace says and no line runs late; with the recorded open flags and with
// per-thread descriptor tables too.
TEST(ShippedFilesTest, MobigenExampleReplaysWithoutAFailedCall) {
  const std::string config = (Root() / "configs/examples/mobigen_app.yaml").string();
  for (const std::vector<std::string>& overrides :
       {std::vector<std::string>{}, {"workload.mobigen.open_flags=trace"}, {"workload.mobigen.fd_scope=thread"}}) {
    SCOPED_TRACE(overrides.empty() ? "defaults" : overrides[0]);
    auto runs = sim::LoadExperiment(sim::SchemaOf<ExperimentConfig>(), config, overrides);
    ASSERT_TRUE(runs.ok()) << runs.status().message();
    ExperimentConfig cfg;
    ASSERT_TRUE(sim::Bind(sim::SchemaOf<ExperimentConfig>(), (*runs)[0], &cfg).ok());
    // As `run` does: the trace path is relative to the config file.
    ASSERT_TRUE(sim::SetKey(sim::SchemaOf<ExperimentConfig>(), &cfg, "workload.mobigen.trace",
                            (Root() / "traces/examples/app_session.mobigen").string())
                    .ok());
    ASSERT_TRUE(ValidateExperiment(cfg).ok()) << ValidateExperiment(cfg).message();
    auto exp = Experiment::Create(cfg);
    ASSERT_TRUE(exp.ok()) << exp.status().message();
    (*exp)->Run(false);
    ASSERT_TRUE((*exp)->status().ok()) << (*exp)->status().message();
    const sim::StatsRegistry& s = (*exp)->stats();
    EXPECT_EQ(s.Value("workload.mobigen.lines"), 3196);
    EXPECT_EQ(s.Value("workload.mobigen.executed"), 3196);
    EXPECT_EQ(s.Value("workload.op.fsync.count") + s.Value("workload.op.fdatasync.count"), 76);
    for (const char* call : {"open", "close", "read", "write", "pread", "pwrite", "fsync", "fdatasync", "fstat64",
                             "stat64", "lstat64", "access", "unlink"}) {
      EXPECT_EQ(s.Value(std::string("workload.op.") + call + ".errors"), 0) << call;
    }
    for (const char* counter : {"unknown", "skipped_lines", "unmapped_skipped", "implicit_opens", "implicit_closes",
                                "short_reads", "late_ops"}) {
      EXPECT_EQ(s.Value(std::string("workload.mobigen.") + counter), 0) << counter;
    }
  }
}

}  // namespace
}  // namespace app
