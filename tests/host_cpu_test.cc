// The host CPU model on whole stacks: threads that outnumber the cores are
// bounded by them, every file system charges its CPU through them, and the
// statistics say where the CPU went.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "app/experiment.h"
#include "host/replay/trace_replay_config.h"
#include "sim/config.h"

namespace app {
namespace {

std::unique_ptr<Experiment> RunConfig(const std::string& rel, const std::vector<std::string>& overrides) {
  const std::string path = std::string(FLASHSTACK_SOURCE_DIR) + "/" + rel;
  auto runs = sim::LoadExperiment(sim::SchemaOf<ExperimentConfig>(), path, overrides);
  EXPECT_TRUE(runs.ok()) << path << ": " << runs.status().message();
  if (!runs.ok()) return nullptr;
  ExperimentConfig cfg;
  const sim::ResolvedConfig& rc = runs.value()[0];
  EXPECT_TRUE(sim::Bind(sim::SchemaOf<ExperimentConfig>(), rc, &cfg).ok());
  // Trace paths are relative to the file that set them, as `run` takes them.
  for (const std::string& key : Experiment::FileKeys()) {
    auto it = rc.values.find(key);
    if (it == rc.values.end() || it->second.loc.line == 0) continue;
    std::string file = sim::GetKey(sim::SchemaOf<ExperimentConfig>(), &cfg, key).value();
    if (file.empty()) continue;
    file = host::ResolveTracePath(file, std::filesystem::path(it->second.loc.file).parent_path().string());
    EXPECT_TRUE(sim::SetKey(sim::SchemaOf<ExperimentConfig>(), &cfg, key, file).ok());
  }
  const sim::Status valid = ValidateExperiment(cfg);
  EXPECT_TRUE(valid.ok()) << valid.message();
  if (!valid.ok()) return nullptr;
  auto exp = Experiment::Create(cfg);
  EXPECT_TRUE(exp.ok()) << exp.status().message();
  if (!exp.ok()) return nullptr;
  exp.value()->Run(false);
  EXPECT_TRUE(exp.value()->status().ok()) << exp.value()->status().message();
  return std::move(exp).value();
}

// filebench webserver, 100 threads, cached reads: on C cores no more than
// C / (CPU per call) operations per simulated second, and every call costs
// at least fs.f2fs.cpu.syscall (1 us). Unlimited cores run far past that.
TEST(HostCpuTest, WebserverWithHundredThreadsIsBoundByTheCores) {
  const std::vector<std::string> small = {"workload.filebench.nfiles=200", "run.max_time=200ms"};
  for (uint32_t cores : {1u, 4u}) {
    std::vector<std::string> o = small;
    o.push_back("host.cpu.cores=" + std::to_string(cores));
    auto e = RunConfig("configs/filebench/webserver.yaml", o);
    ASSERT_NE(e, nullptr);
    const sim::StatsRegistry& st = e->stats();
    const double ops_per_sec = st.Value("workload.ops_per_sec");
    ASSERT_GT(st.Value("workload.ops"), 0);
    EXPECT_LE(ops_per_sec, cores / 1e-6) << cores << " cores";
    // The CPU the threads used fits in the cores over the run, and they
    // keep the cores busy (100 threads of cached reads).
    EXPECT_LE(st.Value("host.cpu.utilization"), 1.0) << cores << " cores";
    EXPECT_GT(st.Value("host.cpu.utilization"), 0.9) << cores << " cores";
    EXPECT_GT(st.Value("host.cpu.context_switches"), 0);
    const sim::Histogram* wait = st.FindHistogram("host.cpu.run_queue_wait");
    ASSERT_NE(wait, nullptr);
    EXPECT_GT(wait->max(), 0);
    EXPECT_GT(st.Value("fs.locks.i_rwsem.acquisitions"), 0);
    EXPECT_NE(e->Summary().find("cpu "), std::string::npos) << e->Summary();
  }
  std::vector<std::string> o = small;
  o.push_back("host.cpu.cores=0");
  auto e = RunConfig("configs/filebench/webserver.yaml", o);
  ASSERT_NE(e, nullptr);
  EXPECT_GT(e->stats().Value("workload.ops_per_sec"), 4 / 1e-6) << "unlimited cores run every thread at once";
}

// Every file system charges its CPU through the host's cores: ext4 and
// memfs as F2FS, and SQLite's statement CPU in Mobibench.
TEST(HostCpuTest, EveryFileSystemAndSqliteChargeTheCores) {
  for (const char* kind : {"f2fs", "ext4", "memfs"}) {
    auto e = RunConfig("configs/filebench/varmail.yaml",
                       {std::string("fs.kind=") + kind, "run.max_time=100ms", "host.cpu.cores=2"});
    ASSERT_NE(e, nullptr);
    const sim::StatsRegistry& st = e->stats();
    EXPECT_GT(st.Value("host.cpu.owner.workload.time"), 0) << kind;
    EXPECT_LE(st.Value("host.cpu.utilization"), 1.0) << kind;
    EXPECT_GT(st.Value("host.cpu.busy_time"), 0) << kind;
  }
  auto e = RunConfig("configs/mobibench/insert_wal.yaml", {"run.max_time=200ms", "host.cpu.cores=1"});
  ASSERT_NE(e, nullptr);
  EXPECT_GT(e->stats().Value("host.cpu.owner.workload.bursts"), 0);
}

// Kernel threads compete for the same cores and are charged apart.
TEST(HostCpuTest, KernelThreadsAreChargedToTheirOwners) {
  auto e = RunConfig("configs/filebench/fileserver.yaml", {"run.max_time=300ms", "host.cpu.cores=4"});
  ASSERT_NE(e, nullptr);
  const sim::StatsRegistry& st = e->stats();
  EXPECT_GT(st.Value("host.cpu.owner.workload.time"), 0);
  EXPECT_TRUE(st.Has("host.cpu.owner.f2fs.flusher.time"));
  EXPECT_TRUE(st.Has("host.cpu.owner.f2fs.gc.time"));
  const double total = st.Value("host.cpu.owner.workload.time") + st.Value("host.cpu.owner.f2fs.flusher.time") +
                       st.Value("host.cpu.owner.f2fs.gc.time") + st.Value("host.cpu.owner.f2fs.discard.time") +
                       st.Value("host.cpu.owner.f2fs.journal_commit.time") + st.Value("host.cpu.owner.other.time");
  EXPECT_NEAR(total, st.Value("host.cpu.busy_time"), 1);
}

}  // namespace
}  // namespace app

namespace app {
namespace {

// F2FS-J's per-inode log lists never make threads on different files wait
// for each other; one global list lock (JBD2's j_list_lock, the artifact's
// record lock) makes appends serialize and waiters spin on their cores.
TEST(HostCpuTest, AGlobalJournalListLockSpinsPerInodeListsDoNot) {
  double spin[2] = {0, 0};
  double contended[2] = {0, 0};
  int i = 0;
  for (const char* lock : {"per_inode", "global"}) {
    auto e = RunConfig("configs/filebench/createfiles.yaml",
                       {"fs.f2fs.durability=journal", std::string("fs.f2fs.journal.list_lock=") + lock,
                        "fs.f2fs.journal.record_cpu=2us", "run.max_time=100ms", "host.cpu.cores=4"});
    ASSERT_NE(e, nullptr);
    const sim::StatsRegistry& st = e->stats();
    EXPECT_GT(st.Value("fs.locks.journal_list.acquisitions"), 0) << lock;
    contended[i] = st.Value("fs.locks.journal_list.contended");
    spin[i] = st.Has("fs.locks.journal_list.spin_time") ? st.Value("fs.locks.journal_list.spin_time") : 0;
    ++i;
  }
  EXPECT_EQ(contended[0], 0);
  EXPECT_GT(contended[1], 0);
  EXPECT_GT(spin[1], 0);
}

}  // namespace
}  // namespace app

namespace app {
namespace {

// Every file workload kind runs its threads on the host's cores.
TEST(HostCpuTest, EveryFileWorkloadKindRunsOnTheCores) {
  const char* configs[] = {
      "configs/filebench/varmail.yaml",          "configs/f2fs/seed001_fsync_nodelist.yaml",
      "configs/parafs/postmark/f2fs.yaml",       "configs/examples/mobigen_app.yaml",
      "configs/txbench/multi_aw.yaml",           "configs/aging/f2fs_mqsim.yaml",
      "configs/ycsb/workloada.yaml",             "configs/mobibench/insert_wal.yaml",
  };
  for (const char* c : configs) {
    auto e = RunConfig(c, {"run.max_time=20ms", "host.cpu.cores=1"});
    ASSERT_NE(e, nullptr) << c;
    const sim::StatsRegistry& st = e->stats();
    EXPECT_GT(st.Value("host.cpu.owner.workload.time"), 0) << c;
    EXPECT_LE(st.Value("host.cpu.utilization"), 1.0) << c;
  }
}

}  // namespace
}  // namespace app
