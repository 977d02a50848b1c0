// New FTL kinds, file systems and workload kinds plug into the experiment
// assembly by registering from their own files: this test registers one of
// each (test-only, in this file) and runs a whole experiment through
// app::Experiment with them, configured from YAML by their own sections,
// with no edit anywhere else.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "app/commands.h"
#include "app/experiment.h"
#include "fs/file_system_kind.h"
#include "fs/memfs/mem_fs.h"
#include "ftl/ftl_factory.h"
#include "host/workload_kind.h"
#include "sim/config.h"
#include "sim/registry.h"
#include "sim/task.h"
#include "tests/fakes/fake_ftl.h"

namespace {

// ---- an FTL kind: the fixed-placement DirectFtl, all pages exported.
struct DirectKindConfig {
  uint32_t reserved_pages = 0;
  static void Describe(sim::Schema<DirectKindConfig>& s) {
    s.Param("reserved_pages", &DirectKindConfig::reserved_pages, "0", "Pages not exported");
  }
};

int direct_made = 0;

sim::Status ValidateDirect(const ftl::FtlConfig& cfg, const flash::Geometry& g) {
  if (cfg.kinds.Get<DirectKindConfig>("test_direct").reserved_pages >= g.pages()) {
    return sim::Status::InvalidInput("ftl.test_direct.reserved_pages: leaves no page");
  }
  return sim::Status::Ok();
}
uint64_t DirectPages(const ftl::FtlConfig& cfg, const flash::Geometry& g) {
  return g.pages() - cfg.kinds.Get<DirectKindConfig>("test_direct").reserved_pages;
}
std::unique_ptr<ftl::Ftl> MakeDirect(const ftl::FtlConfig&, flash::FlashArray* array, sim::EventQueue* q,
                                     const sim::StatGroup&) {
  ++direct_made;
  return std::make_unique<fakes::DirectFtl>(q, array);
}
const sim::Registrar<ftl::FtlKindInfo> kDirectKind{
    {"test_direct", "test-only: fixed placement, no GC", &ValidateDirect, &DirectPages, &MakeDirect,
     sim::ImplSection::Of<DirectKindConfig>("test_direct", "test-only FTL kind")}};

// ---- a file system: memfs under another name, counting its mounts.
struct CountingFsConfig {
  uint32_t label = 0;
  static void Describe(sim::Schema<CountingFsConfig>& s) {
    s.Param("label", &CountingFsConfig::label, "0", "A number shown in the summary");
  }
};

class CountingFs final : public fs::MountedFs {
 public:
  CountingFs(sim::EventQueue* q, uint32_t label) : fs_(q, sim::MakeDefault<fs::MemFsConfig>()), label_(label) {}
  fs::FileSystem* fs() override { return &fs_; }
  std::string Summary(const sim::StatsRegistry&) const override {
    return "counting fs " + std::to_string(label_) + "\n";
  }

 private:
  fs::MemFs fs_;
  uint32_t label_;
};

sim::Status ValidateCounting(const sim::ImplConfigs&, uint64_t, const fs::DeviceFacts&) { return sim::Status::Ok(); }
sim::Result<std::unique_ptr<fs::MountedFs>> MountCounting(const sim::ImplConfigs& s, const fs::FsEnv& env) {
  return std::unique_ptr<fs::MountedFs>(
      std::make_unique<CountingFs>(env.events, s.Get<CountingFsConfig>("test_counting").label));
}
const sim::Registrar<fs::FileSystemKind> kCountingFs{
    {"test_counting", "test-only file system", false,
     sim::ImplSection::Of<CountingFsConfig>("test_counting", "test-only file system"), &ValidateCounting,
     &MountCounting}};

// ---- a workload kind: writes `files` small files.
struct TouchConfig {
  uint32_t files = 1;
  bool hang = false;
  static void Describe(sim::Schema<TouchConfig>& s) {
    s.Param("files", &TouchConfig::files, "1", "Files to create").Range(1, 1000);
    s.Param("hang", &TouchConfig::hang, "false", "After the files, wait for ever (a deadlock)");
  }
};

class TouchDriver final : public host::WorkloadDriver {
 public:
  TouchDriver(const host::WorkloadEnv& env, uint32_t files, bool hang)
      : env_(env), files_(files), hang_(hang), never_(env.events, 0), threads_(env.events) {}
  void Start() override { threads_.Spawn(Main()); }
  void SetDoneCallback(std::function<void()> fn) override { on_done_ = std::move(fn); }
  uint64_t completed() const override { return done_; }
  uint64_t planned() const override { return files_; }
  bool finished() const override { return finished_; }
  std::string Summary(const sim::StatsRegistry&) const override {
    return "touched " + std::to_string(done_) + " files\n";
  }

 private:
  sim::Task<> Main() {
    for (uint32_t i = 0; i < files_; ++i) {
      auto fd = co_await env_.fs->Open("/f" + std::to_string(i), fs::kCreat | fs::kWrOnly);
      if (!fd.ok()) co_return;
      co_await env_.fs->Close(fd.value);
      ++done_;
    }
    if (hang_) co_await never_.Acquire();
    finished_ = true;
    if (on_done_) on_done_();
  }
  host::WorkloadEnv env_;
  std::function<void()> on_done_;
  uint32_t files_;
  bool hang_;
  sim::Semaphore never_;
  uint64_t done_ = 0;
  bool finished_ = false;
  sim::ThreadGroup threads_;  // last: destroyed first, while the state its thread uses is alive
};

sim::Status ValidateTouch(const sim::ImplConfigs&, uint64_t, uint32_t) { return sim::Status::Ok(); }
sim::Result<std::unique_ptr<host::WorkloadDriver>> MakeTouch(const sim::ImplConfigs& s,
                                                             const host::WorkloadEnv& env) {
  return std::unique_ptr<host::WorkloadDriver>(
      std::make_unique<TouchDriver>(env, s.Get<TouchConfig>("test_touch").files, s.Get<TouchConfig>("test_touch").hang));
}
const sim::Registrar<host::WorkloadKind> kTouch{
    {"test_touch", "test-only file workload", true,
     sim::ImplSection::Of<TouchConfig>("test_touch", "test-only workload"), {}, &ValidateTouch, &MakeTouch}};

std::string TempYaml(const std::string& name, const std::string& text) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / ("registration_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path p = dir / name;
  std::ofstream(p) << text;
  return p.string();
}

TEST(RegistrationTest, NewKindsRunThroughTheExperimentFromTheirOwnSections) {
  const std::string path = TempYaml("kinds.yaml", R"(
device:
  geometry: {channels: 2, chips_per_channel: 1, dies_per_chip: 1, planes_per_die: 1,
             blocks_per_plane: 16, pages_per_block: 16, page_size: 4KiB}
ftl:
  kind: test_direct
  test_direct: {reserved_pages: 12}
fs:
  kind: test_counting
  test_counting: {label: 42}
workload:
  kind: test_touch
  test_touch: {files: 7}
)");
  app::CommandOptions opts;
  std::ostringstream out;
  const int before = direct_made;
  ASSERT_TRUE(app::CmdCheck(path, opts, out).ok()) << out.str();
  app::ExperimentConfig cfg;
  ASSERT_TRUE(sim::Bind(sim::SchemaOf<app::ExperimentConfig>(),
                        sim::LoadExperiment(sim::SchemaOf<app::ExperimentConfig>(), path, {}).value()[0], &cfg)
                  .ok());
  ASSERT_TRUE(app::ValidateExperiment(cfg).ok());
  EXPECT_EQ(cfg.ftl.LogicalPages(cfg.device.geometry), 2u * 16 * 16 - 12);
  auto exp = app::Experiment::Create(cfg);
  ASSERT_TRUE(exp.ok()) << exp.status().message();
  EXPECT_EQ(direct_made, before + 1);
  const app::RunReport r = (*exp)->Run(false);
  EXPECT_EQ(r.host_ios, 7u);
  const std::string summary = (*exp)->Summary();
  EXPECT_THAT(summary, ::testing::HasSubstr("touched 7 files"));
  EXPECT_THAT(summary, ::testing::HasSubstr("counting fs 42"));
  // The FS does no device I/O, so the summary stops before the device.
  EXPECT_THAT(summary, ::testing::Not(::testing::HasSubstr("ftl ")));
}

// A run whose simulated threads all wait for ever ends when its events run
// out: `run` says so, marks the results incomplete and fails, instead of
// reporting a clean run of what was done.
TEST(RegistrationTest, ARunThatDeadlocksFailsWithIncompleteResults) {
  const std::string path = TempYaml("hang.yaml", R"(
name: hang
device:
  geometry: {channels: 2, chips_per_channel: 1, dies_per_chip: 1, planes_per_die: 1,
             blocks_per_plane: 16, pages_per_block: 16, page_size: 4KiB}
ftl:
  kind: test_direct
  test_direct: {reserved_pages: 12}
fs:
  kind: test_counting
workload:
  kind: test_touch
  test_touch: {files: 3, hang: true}
)");
  const std::string out_dir = (std::filesystem::path(path).parent_path() / "hang_out").string();
  app::CommandOptions opts;
  opts.out_dir = out_dir;
  opts.progress.mode = app::Experiment::Progress::Mode::kOff;
  std::ostringstream out;
  const sim::Status st = app::CmdRun(path, opts, out);
  EXPECT_FALSE(st.ok());
  EXPECT_THAT(st.message(), ::testing::HasSubstr("with the workload unfinished (3 operations done)"));
  EXPECT_THAT(st.message(), ::testing::HasSubstr("a deadlock in the model"));
  std::ifstream info(out_dir + "/run_info.json");
  std::stringstream text;
  text << info.rdbuf();
  const std::string json = text.str();
  const size_t k = json.find("\"complete\"");
  ASSERT_NE(k, std::string::npos) << json;
  EXPECT_EQ(json.substr(json.find_first_not_of(": ", k + 10), 5), "false") << json;
  // Without the hang the same run is complete and succeeds.
  const std::string ok_path = TempYaml("nohang.yaml", "include: hang.yaml\nworkload: {test_touch: {hang: false}}\n");
  std::ostringstream out2;
  EXPECT_TRUE(app::CmdRun(ok_path, opts, out2).ok()) << out2.str();
}

TEST(RegistrationTest, KindSectionsAreValidatedAndExplained) {
  const std::string path = TempYaml("bad.yaml", R"(
ftl:
  kind: test_direct
  test_direct: {reserved_pages: 99999999}
)");
  app::ExperimentConfig cfg;
  ASSERT_TRUE(sim::Bind(sim::SchemaOf<app::ExperimentConfig>(),
                        sim::LoadExperiment(sim::SchemaOf<app::ExperimentConfig>(), path, {}).value()[0], &cfg)
                  .ok());
  EXPECT_EQ(app::ValidateExperiment(cfg).message(), "ftl.test_direct.reserved_pages: leaves no page");
  // Every kind's keys sit under its own section.
  const std::vector<std::string> keys = sim::SchemaOf<app::ExperimentConfig>().AllKeys();
  for (const char* k : {"ftl.test_direct.reserved_pages", "fs.test_counting.label", "workload.test_touch.files",
                        "ftl.d_choices.d", "fs.f2fs.fsync_node_lookup", "workload.fio.rw"}) {
    EXPECT_NE(std::find(keys.begin(), keys.end(), k), keys.end()) << k;
  }
  // A misspelt kind lists the registered ones.
  const std::string typo = TempYaml("typo.yaml", "workload: {kind: test_tuoch}\n");
  auto loaded = sim::LoadExperiment(sim::SchemaOf<app::ExperimentConfig>(), typo, {});
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(loaded.status().message(), ::testing::HasSubstr("test_touch"));
}

}  // namespace
