// The aging workload (workload.kind: aging) on F2FS on the simulated SSD,
// through whole experiments: a clean copy lays the tree out at least as
// contiguously as the aged history did, grep reads every byte of the tree,
// the same seed gives the same statistics, and the shipped sample trace and
// presets run. The history is generated here: a small repository whose
// pulls rewrite files, add loose objects and rewrite the index.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "app/commands.h"
#include "app/experiment.h"
#include "host/fsworkload/aging_trace.h"
#include "sim/config.h"
#include "sim/rng.h"

namespace app {
namespace {

namespace stdfs = std::filesystem;

stdfs::path TempDir() {
  const stdfs::path dir = stdfs::path(::testing::TempDir()) / ("aging_it_" + std::to_string(getpid()));
  stdfs::create_directories(dir);
  return dir;
}

// A history of `pulls` pulls over `dirs` x `per_dir` files: each pull
// rewrites `churn` random files (unlink + write of a new size), adds and
// deletes a file, writes loose objects for what changed, rewrites the
// index through index.lock and appends to the reflog.
std::string ChurnTrace(uint32_t pulls, uint32_t dirs, uint32_t per_dir, uint32_t churn) {
  sim::Rng rng(7, "aging-churn");
  std::ostringstream t;
  t << host::kAgingTraceMagic << "\n# source: generated churn\n";
  std::vector<std::vector<bool>> live(dirs, std::vector<bool>(per_dir, false));
  uint64_t objects = 0;
  auto size = [&] { return 512 + rng.Uniform(48 * 1024); };
  auto object = [&] {
    const uint64_t o = objects++;
    return fmt::format(".git/objects/{:02x}/{:038x}", o % 64, o);
  };
  auto write = [&](const std::string& path) {
    t << "write " << object() << " " << 200 + rng.Uniform(4000) << "\n";
    t << "write " << path << " " << size() << "\n";
  };
  for (uint32_t p = 0; p < pulls; ++p) {
    t << "pull " << p << " c" << p << "\n";
    if (p == 0) {
      t << "mkdir .git\nmkdir .git/objects\nmkdir .git/logs\n";
      for (uint32_t x = 0; x < 64; ++x) t << fmt::format("mkdir .git/objects/{:02x}\n", x);
      for (uint32_t d = 0; d < dirs; ++d) {
        t << "mkdir d" << d << "\n";
        for (uint32_t f = 0; f < per_dir; f += 2) {
          live[d][f] = true;
          write(fmt::format("d{}/f{}", d, f));
        }
      }
    } else {
      for (uint32_t c = 0; c < churn; ++c) {
        const auto d = static_cast<uint32_t>(rng.Uniform(dirs));
        const auto f = static_cast<uint32_t>(rng.Uniform(per_dir));
        const std::string path = fmt::format("d{}/f{}", d, f);
        if (live[d][f]) {
          t << "unlink " << path << "\n";
          if (rng.Uniform(8) == 0) {  // deleted for good
            live[d][f] = false;
            continue;
          }
        }
        live[d][f] = true;
        write(path);
      }
    }
    t << "write .git/index.lock " << 12 + 20 + 72 * dirs * per_dir << "\n";
    t << "rename .git/index.lock .git/index\n";
    t << "append .git/logs/HEAD 160\n";
  }
  return t.str();
}

struct RunResult {
  sim::Status status;
  std::string json;
  std::function<double(const std::string&)> value;
};

RunResult RunYaml(const std::string& yaml, const std::vector<std::string>& overrides) {
  const stdfs::path p = TempDir() / "aging_run.yaml";
  std::ofstream(p) << yaml;
  auto runs = sim::LoadExperiment(sim::SchemaOf<ExperimentConfig>(), p.string(), overrides);
  EXPECT_TRUE(runs.ok()) << runs.status().message();
  ExperimentConfig cfg;
  EXPECT_TRUE(sim::Bind(sim::SchemaOf<ExperimentConfig>(), runs.value()[0], &cfg).ok());
  const sim::Status v = ValidateExperiment(cfg);
  EXPECT_TRUE(v.ok()) << v.message();
  auto exp = Experiment::Create(cfg);
  EXPECT_TRUE(exp.ok()) << exp.status().message();
  exp.value()->Run(false);
  auto shared = std::shared_ptr<Experiment>(std::move(exp).value());
  std::ostringstream json;
  shared->stats().WriteJson(json);
  return RunResult{shared->status(), json.str(), [shared](const std::string& k) { return shared->stats().Value(k); }};
}

std::string StackYaml(const std::string& trace) {
  return "include: " + std::string(FLASHSTACK_SOURCE_DIR) +
         "/configs/stacks/f2fs_ssd.yaml\n"
         "seed: 3\n"
         "device:\n  geometry:\n    blocks_per_plane: 128\n  ssd:\n    write_buffer:\n      size: 4MiB\n"
         "fs:\n  kind: f2fs\n  volume: 1GiB\n"
         "workload:\n  kind: aging\n  aging:\n    trace: " +
         trace + "\n";
}

class AgingF2fsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    trace_ = (TempDir() / "churn.trace").string();
    std::ofstream(trace_) << ChurnTrace(80, 8, 40, 60);
  }
  static std::string trace_;
};
std::string AgingF2fsTest::trace_;

TEST_F(AgingF2fsTest, CleanCopyIsLaidOutAtLeastAsContiguouslyAsTheAgedHistory) {
  const RunResult aged = RunYaml(StackYaml(trace_), {"workload.aging.grep_every=40"});
  ASSERT_TRUE(aged.status.ok()) << aged.status.message();
  ASSERT_EQ(aged.value("workload.aging.grep_points"), 3);  // after pulls 0, 40 and 79
  const RunResult clean = RunYaml(StackYaml(trace_), {"workload.aging.mode=clean"});
  ASSERT_TRUE(clean.status.ok()) << clean.status.message();
  const double aged_dls = aged.value("workload.aging.grep.2.dls");
  const double clean_dls = clean.value("workload.aging.grep.0.dls");
  ASSERT_FALSE(std::isnan(aged_dls));
  ASSERT_FALSE(std::isnan(clean_dls));
  EXPECT_GE(clean_dls, aged_dls);
  // The same tree: the walks read the same files and bytes, and every byte of it.
  EXPECT_EQ(clean.value("workload.aging.grep.0.pulls"), 80);
  EXPECT_EQ(aged.value("workload.aging.grep.2.pulls"), 80);
  EXPECT_EQ(aged.value("workload.aging.grep.2.files"), clean.value("workload.aging.grep.0.files"));
  EXPECT_EQ(aged.value("workload.aging.grep.2.bytes"), aged.value("workload.aging.grep.2.tree_bytes"));
  EXPECT_EQ(clean.value("workload.aging.grep.0.bytes"), clean.value("workload.aging.grep.0.tree_bytes"));
  EXPECT_EQ(aged.value("workload.aging.grep.2.bytes"), clean.value("workload.aging.grep.0.bytes"));
  EXPECT_GT(aged.value("workload.aging.grep.2.files"), 100);
  // The walk reads from flash (a cold cache): the device saw reads and placed them.
  EXPECT_GT(aged.value("workload.aging.grep.2.read_requests"), 0);
  EXPECT_GT(aged.value("workload.aging.grep.2.flash_blocks_per_MiB"), 0);
  EXPECT_GE(aged.value("workload.aging.grep.2.channels_per_MiB"), 1);
  EXPECT_GT(aged.value("workload.aging.grep.2.s_per_GiB"), 0);
  EXPECT_EQ(aged.value("workload.aging.grep.2.unlocated_units"), 0);
  // The aged history wrote far more than the clean copy.
  EXPECT_GT(aged.value("workload.aging.bytes_written"), 5 * clean.value("workload.aging.bytes_written"));
}

TEST_F(AgingF2fsTest, SameSeedGivesIdenticalStatistics) {
  const RunResult a = RunYaml(StackYaml(trace_), {"workload.aging.pulls=30", "workload.aging.grep_every=10"});
  const RunResult b = RunYaml(StackYaml(trace_), {"workload.aging.pulls=30", "workload.aging.grep_every=10"});
  ASSERT_TRUE(a.status.ok()) << a.status.message();
  EXPECT_EQ(a.json, b.json);
  EXPECT_EQ(a.value("workload.aging.grep_points"), 4);
}

// The shipped presets run as they are (`flashstack run`, the trace path
// relative to the preset) on the shipped sample trace.
TEST(AgingPresetsTest, ShippedPresetsRunOnTheSampleTrace) {
  for (const char* preset : {"f2fs_mqsim", "f2fs_sdcard"}) {
    CommandOptions opts;
    opts.overrides = {"workload.aging.pulls=21", "workload.aging.grep_every=20"};
    opts.out_dir = (TempDir() / preset).string();
    opts.quiet = true;
    std::ostringstream out;
    const sim::Status st =
        CmdRun(std::string(FLASHSTACK_SOURCE_DIR) + "/configs/aging/" + preset + ".yaml", opts, out);
    ASSERT_TRUE(st.ok()) << preset << ": " << st.message();
    const YAML::Node stats = YAML::LoadFile(opts.out_dir + "/stats.json")["stats"];
    EXPECT_EQ(stats["workload.aging.grep_points"]["value"].as<double>(), 2) << preset;
    EXPECT_GT(stats["workload.aging.grep.1.bytes"]["value"].as<double>(), 1e6) << preset;
    EXPECT_GT(stats["workload.aging.grep.1.dls"]["value"].as<double>(), 0) << preset;
    EXPECT_LE(stats["workload.aging.grep.1.dls"]["value"].as<double>(), 1) << preset;
  }
}

}  // namespace
}  // namespace app
