#include "host/fsworkload/txbench.h"
#include "host/fsworkload/fs_workload.h"

#include <cmath>
#include <set>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fs/memfs/mem_fs_test_util.h"
#include "host/fsworkload/aging_workload.h"
#include "host/fsworkload/file_fio.h"
#include "host/fsworkload/filebench_workload.h"
#include "host/fsworkload/fileset.h"
#include "host/fsworkload/fs_workload_kind.h"
#include "host/fsworkload/fsworkload_test_util.h"
#include "host/fsworkload/gamma.h"
#include "host/fsworkload/metered_fs.h"
#include "host/fsworkload/mobigen_replay.h"
#include "host/fsworkload/notifier.h"
#include "host/fsworkload/postmark.h"
#include "sim/registry.h"

namespace host {
namespace {

using testing::Rig;

// ---------------------------------------------------------------------------
// MeteredFs

TEST(MeteredFsTest, CountsCallsErrorsLatencyAndBytes) {
  Rig rig;
  MeteredFs m(&rig.q, &rig.memfs);
  sim::StatsRegistry reg;
  m.Register(reg.Root().Group("fs"));
  fs::testing::SyncFs s(&rig.q, &m);
  const fs::Fd fd = s.Open("/f", fs::kRdWr | fs::kCreat).value;
  s.Write(fd, "hello");
  s.PwriteZeros(fd, 100, 50);
  s.Pread(fd, 0, 1000);
  s.Read(fd, 3);
  s.Fsync(fd);
  s.Fdatasync(fd);
  s.Open("/missing", fs::kRdOnly);
  s.Close(fd);
  EXPECT_EQ(m.call(MeteredFs::kOpen).calls.value(), 2u);
  EXPECT_EQ(m.call(MeteredFs::kOpen).errors.value(), 1u);
  EXPECT_EQ(m.bytes_written(), 55u);
  EXPECT_EQ(m.bytes_read(), 153u);  // pread to EOF (150), read at position 5 (3)
  EXPECT_EQ(m.fsyncs(), 2u);
  EXPECT_EQ(m.calls_total(), 9u);
  // MemFs defaults: open 2us, fsync 20us.
  EXPECT_EQ(m.call(MeteredFs::kOpen).lat.max(), sim::Us(2).ns());
  EXPECT_EQ(m.call(MeteredFs::kFsync).lat.min(), sim::Us(20).ns());
  EXPECT_EQ(reg.Value("fs.pwrite.calls"), 1);
  EXPECT_EQ(reg.Value("fs.open.errors"), 1);
  EXPECT_NE(reg.FindHistogram("fs.fsync.lat"), nullptr);
  EXPECT_EQ(MeteredFs::CallName(MeteredFs::kFdatasync), "fdatasync");
}

// Calls that overlap the file system's checkpointing (one running at their
// start or end, or one begun while they ran) are measured apart as well.
TEST(MeteredFsTest, MeasuresTheCallsThatOverlapCheckpointing) {
  Rig rig;
  testing::RecordingFs inner(&rig.memfs);
  MeteredFs m(&rig.q, &inner);
  sim::StatsRegistry reg;
  m.Register(reg.Root().Group("fs"));
  fs::testing::SyncFs s(&rig.q, &m);
  const fs::Fd fd = s.Open("/f", fs::kRdWr | fs::kCreat).value;
  s.Fsync(fd);  // no checkpoint
  EXPECT_EQ(reg.Value("fs.during_checkpoint.calls"), 0);
  inner.activity = {1, true};
  s.Fsync(fd);  // one running throughout
  inner.activity = {1, false};
  s.Fsync(fd);  // none running, none begun
  // One begins and ends inside a 20 us fsync.
  sim::FunctionEvent begin([&] { inner.activity = {2, true}; });
  sim::FunctionEvent end([&] { inner.activity = {2, false}; });
  rig.q.ScheduleIn(&begin, sim::Us(5));
  rig.q.ScheduleIn(&end, sim::Us(10));
  s.Fsync(fd);
  EXPECT_EQ(reg.Value("fs.during_checkpoint.calls"), 2);
  const sim::Histogram* h = reg.FindHistogram("fs.during_checkpoint.lat");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->count(), 2u);
  EXPECT_EQ(h->min(), sim::Us(20).ns());
  EXPECT_EQ(m.call(MeteredFs::kFsync).calls.value(), 4u);
  s.Close(fd);
}

// A call record per call in flight, reused once the call has ended: two
// rounds of five concurrent fsyncs take five records, not ten.
TEST(MeteredFsTest, ReusesACallRecordPerCallInFlight) {
  Rig rig;
  MeteredFs m(&rig.q, &rig.memfs);
  fs::testing::SyncFs s(&rig.q, &m);
  const fs::Fd fd = s.Open("/f", fs::kRdWr | fs::kCreat).value;
  EXPECT_EQ(m.call_records(), 1u);
  for (int round = 0; round < 2; ++round) {
    int done = 0;
    for (int i = 0; i < 5; ++i) {
      sim::Spawn(&rig.q, [](MeteredFs* fs, fs::Fd f, int* n) -> sim::Task<> {
        const fs::FsStatus st = co_await fs->Fsync(f);
        EXPECT_TRUE(st.ok());
        ++*n;
      }(&m, fd, &done));
    }
    rig.q.Run();
    EXPECT_EQ(done, 5);
  }
  EXPECT_EQ(m.call_records(), 5u);
  EXPECT_EQ(m.call(MeteredFs::kFsync).calls.value(), 10u);
  EXPECT_EQ(m.call(MeteredFs::kFsync).lat.min(), sim::Us(20).ns());
  s.Close(fd);
  EXPECT_EQ(m.call_records(), 5u);
}

// A MeteredFs over another: both measure every call (the outer one, finding
// the inner call observed already, wraps it in a coroutine), and an O_SYNC
// descriptor is known to both.
TEST(MeteredFsTest, StacksOverAnotherMeteredFs) {
  Rig rig;
  MeteredFs inner(&rig.q, &rig.memfs);
  MeteredFs outer(&rig.q, &inner);
  fs::testing::SyncFs s(&rig.q, &outer);
  const fs::Fd fd = s.Open("/f", fs::kRdWr | fs::kCreat | fs::kSync).value;
  s.Write(fd, "hello");
  s.Pread(fd, 0, 100);
  s.Open("/missing", fs::kRdOnly);
  s.Close(fd);
  const fs::Fd plain = s.Open("/f", fs::kRdWr).value;
  s.Write(plain, "again");
  s.Close(plain);
  for (const MeteredFs* m : {&inner, &outer}) {
    EXPECT_EQ(m->call(MeteredFs::kOpen).calls.value(), 3u);
    EXPECT_EQ(m->call(MeteredFs::kOpen).errors.value(), 1u);
    EXPECT_EQ(m->call(MeteredFs::kOpen).lat.max(), sim::Us(2).ns());
    EXPECT_EQ(m->bytes_written(), 10u);
    EXPECT_EQ(m->bytes_read(), 5u);
    EXPECT_EQ(m->sync_writes(), 1u);  // the write on the O_SYNC descriptor only
    EXPECT_EQ(m->calls_total(), 8u);
  }
  EXPECT_EQ(inner.call_records(), 1u);  // one call at a time
  EXPECT_LE(outer.call_records(), 1u);  // its records go back at once
}

// ---------------------------------------------------------------------------
// FsWorkload life cycle, with a small workload.

class ProbeWorkload final : public FsWorkload {
 public:
  ProbeWorkload(FsWorkloadEnv env, uint32_t threads, sim::SimTime run_time, sim::SimTime step)
      : FsWorkload(std::move(env), threads), step_(step) {
    op_ = op_stats().Add("step");
    SetRunTime(run_time);
    starts_.resize(threads);
    steps_.resize(threads);
    first_draw_.resize(threads);
  }
  ~ProbeWorkload() override { DestroyThreads(); }
  std::vector<sim::SimTime> starts_;
  std::vector<uint64_t> steps_;
  std::vector<uint64_t> first_draw_;
  sim::SimTime setup_end_;
  bool fail_setup = false;
  int teardowns = 0;
  uint64_t stop_after = 0;

 private:
  sim::Task<void> Setup() override {
    // Unmeasured work through the raw file system.
    co_await raw_fs()->Mkdir("/probe");
    co_await sim::Delay(queue(), sim::Ms(5));
    setup_end_ = now();
    if (fail_setup) Abort(sim::Status::IoError("setup failed"));
  }
  sim::Task<void> Worker(uint32_t i) override {
    starts_[i] = now();
    first_draw_[i] = rng(i).Next();
    while (!stopping()) {
      const sim::SimTime t0 = now();
      fs::FsResult<fs::FileStat> st = co_await fs()->Stat("/probe");
      co_await SleepUntil(now() + step_);
      op_stats().Record(op_, now() - t0, 0, st.ok());
      ++steps_[i];
      if (stop_after > 0 && steps_[i] >= stop_after) RequestStop();
    }
  }
  sim::Task<void> Teardown() override {
    ++teardowns;
    co_return;
  }
  sim::SimTime step_;
  uint32_t op_ = 0;
};

TEST(FsWorkloadTest, SetupThenWorkersUntilTheDeadline) {
  Rig rig;
  ProbeWorkload w(rig.Env(), 3, sim::Ms(10), sim::Us(99));
  int done_calls = 0;
  w.SetDoneCallback([&] { ++done_calls; });
  ASSERT_TRUE(rig.Run(w));
  EXPECT_EQ(done_calls, 1);
  EXPECT_EQ(w.teardowns, 1);
  EXPECT_TRUE(w.run_status().ok());
  // Workers start together after setup; the measured phase is the run time
  // (the sleeps are clamped to the deadline).
  const sim::SimTime setup = sim::Us(5) + sim::Ms(5);  // mkdir + delay
  EXPECT_EQ(w.setup_end_, setup);
  for (sim::SimTime s : w.starts_) EXPECT_EQ(s, setup);
  EXPECT_EQ(w.start_time(), setup);
  EXPECT_EQ(w.end_time(), setup + sim::Ms(10));
  EXPECT_DOUBLE_EQ(w.measured_seconds(), 0.010);
  // Each step: a 1us stat and a 99us sleep: 100 steps per thread.
  for (uint64_t n : w.steps_) EXPECT_EQ(n, 100u);
  EXPECT_EQ(rig.Stat("workload.ops"), 300);
  EXPECT_EQ(rig.Stat("workload.op.step.count"), 300);
  EXPECT_EQ(rig.Stat("workload.fs.stat.calls"), 300);  // the setup mkdir is not counted
  EXPECT_EQ(rig.Stat("workload.fs.mkdir.calls"), 0);
  EXPECT_NEAR(rig.Stat("workload.ops_per_sec"), 30000, 1);
  EXPECT_DOUBLE_EQ(rig.Stat("workload.measured_time"), 0.010);
  // Per-thread streams differ and repeat with the seed.
  EXPECT_EQ(std::set<uint64_t>(w.first_draw_.begin(), w.first_draw_.end()).size(), 3u);
  Rig rig2;
  ProbeWorkload w2(rig2.Env(), 3, sim::Ms(10), sim::Us(99));
  ASSERT_TRUE(rig2.Run(w2));
  EXPECT_EQ(w2.first_draw_, w.first_draw_);
  EXPECT_EQ(rig2.Json(), rig.Json());
}

TEST(FsWorkloadTest, RequestStopEndsTheRunEarly) {
  Rig rig;
  ProbeWorkload w(rig.Env(), 2, sim::SimTime::Zero(), sim::Us(10));
  w.stop_after = 7;
  ASSERT_TRUE(rig.Run(w));
  EXPECT_EQ(w.steps_[0] + w.steps_[1], 14u);
  EXPECT_LE(w.end_time() - w.start_time(), sim::Us(100));
}

TEST(FsWorkloadTest, AbortInSetupSkipsTheWorkers) {
  Rig rig;
  ProbeWorkload w(rig.Env(), 2, sim::Ms(1), sim::Us(10));
  w.fail_setup = true;
  ASSERT_TRUE(rig.Run(w));
  EXPECT_FALSE(w.run_status().ok());
  EXPECT_EQ(w.run_status().message(), "setup failed");
  EXPECT_EQ(w.steps_[0] + w.steps_[1], 0u);
  EXPECT_EQ(w.teardowns, 1);
}

// ---------------------------------------------------------------------------
// Notifier

TEST(NotifierTest, WakesEveryWaiterInOrder) {
  sim::EventQueue q;
  Notifier n(&q);
  std::vector<int> woke;
  auto waiter = [](Notifier* n, std::vector<int>* woke, int id) -> sim::Task<void> {
    co_await n->Wait();
    woke->push_back(id);
  };
  for (int i = 0; i < 4; ++i) sim::Spawn(&q, waiter(&n, &woke, i));
  q.Run();
  EXPECT_TRUE(n.has_waiters());
  EXPECT_TRUE(woke.empty());
  n.NotifyAll();
  EXPECT_FALSE(n.has_waiters());
  q.Run();
  EXPECT_EQ(woke, (std::vector<int>{0, 1, 2, 3}));
}

// ---------------------------------------------------------------------------
// Gamma samples and the index set

TEST(GammaTest, MeanAndVarianceMatchTheShape) {
  for (double shape : {0.5, 1.0, 1.5, 4.0}) {
    sim::Rng rng(11, "gamma");
    const double mean = 16384;
    const double scale = mean / shape;
    const int n = 200000;
    double sum = 0, sq = 0;
    for (int i = 0; i < n; ++i) {
      const double x = GammaSample(rng, shape, scale);
      ASSERT_GE(x, 0);
      sum += x;
      sq += x * x;
    }
    const double m = sum / n;
    const double var = sq / n - m * m;
    EXPECT_NEAR(m, mean, mean * 0.01) << "shape " << shape;
    EXPECT_NEAR(var, shape * scale * scale, shape * scale * scale * 0.05) << "shape " << shape;
  }
}

// ---------------------------------------------------------------------------
// Fileset model

FilesetDef Def(uint64_t entries, double width, double mean, double gamma = 1.5) {
  FilesetDef d;
  d.name = "set";
  d.path = "/base";
  d.entries = entries;
  d.dirwidth = width;
  d.size_mean = mean;
  d.size_gamma = gamma;
  return d;
}

TEST(FilesetTest, TreeShapeAndPaths) {
  Fileset f(Def(1000, 20, 4096), sim::Rng(1, "fs"));
  EXPECT_EQ(f.file_count(), 1000u);
  EXPECT_EQ(f.root(), "/base/set");
  std::string p;
  f.FilePath(0, &p);
  EXPECT_THAT(p, ::testing::MatchesRegex("/base/set(/[0-9]{8})+"));
  // Leaves hold about dirwidth files each.
  std::set<uint32_t> leaves;
  for (size_t i = 0; i < f.file_count(); ++i) leaves.insert(f.file(i).dir);
  const double per_leaf = 1000.0 / static_cast<double>(leaves.size());
  EXPECT_GT(per_leaf, 8);
  EXPECT_LT(per_leaf, 50);
  // Paths are unique.
  std::set<std::string> paths;
  for (size_t i = 0; i < f.file_count(); ++i) {
    f.FilePath(i, &p);
    paths.insert(p);
  }
  EXPECT_EQ(paths.size(), 1000u);
  // A huge width puts everything in one directory below the root.
  Fileset flat(Def(100, 1000000, 4096), sim::Rng(1, "flat"));
  for (size_t i = 0; i < flat.file_count(); ++i) EXPECT_EQ(flat.file(i).dir, flat.file(0).dir);
  flat.FilePath(99, &p);
  EXPECT_EQ(p, "/base/set/00000001/00000100");
}

// run.max_memory is checked against the estimate before a fileset is
// populated: it must cover what the populated fileset holds.
TEST(FilesetTest, MemoryEstimateCoversThePopulatedFileset) {
  for (const FilesetDef& d : {Def(200000, 20, 4096), Def(200000, 1000000, 4096), Def(100000, 3, 0, 0),
                              Def(50000, 100, 16384, 0)}) {
    Fileset f(d, sim::Rng(3, "memory"));
    const double held = static_cast<double>(f.file_count() * sizeof(Fileset::File) +
                                            f.leafdir_count() * sizeof(Fileset::LeafDir) +
                                            f.dirs().size() * sizeof(Fileset::Dir));
    const auto estimate = static_cast<double>(Fileset::MemoryBytes(d));
    EXPECT_GE(estimate, held) << d.entries << " entries, width " << d.dirwidth << ": " << f.dirs().size() << " dirs";
    EXPECT_LE(estimate, 1.5 * held) << d.entries << " entries, width " << d.dirwidth;
  }
}

TEST(FilesetTest, SizesFollowTheDistribution) {
  Fileset g(Def(20000, 100, 16384), sim::Rng(2, "sizes"));
  EXPECT_NEAR(static_cast<double>(g.total_bytes()) / 20000, 16384, 16384 * 0.02);
  uint64_t distinct = 0;
  for (size_t i = 1; i < 100; ++i) distinct += g.file(i).size != g.file(0).size;
  EXPECT_GT(distinct, 90u);
  Fileset fixed(Def(100, 10, 5000, 0), sim::Rng(2, "fixed"));
  for (size_t i = 0; i < 100; ++i) EXPECT_EQ(fixed.file(i).size, 5000u);
}

TEST(FilesetTest, PicksRotateAndSkipBusyEntries) {
  Fileset f(Def(5, 10, 100), sim::Rng(3, "pick"));
  EXPECT_EQ(f.PickFile(true), Fileset::kNone);  // nothing exists yet
  for (uint64_t i = 0; i < 5; ++i) {
    const int64_t e = f.PickFile(false);
    EXPECT_EQ(e, static_cast<int64_t>(i));  // non-existing entries in rotation
    f.SetFileExists(e, true);
  }
  EXPECT_EQ(f.PickFile(false), Fileset::kNone);
  EXPECT_EQ(f.existing_files(), 5u);
  EXPECT_EQ(f.PickFile(true), 0);  // busy until Unbusy
  EXPECT_EQ(f.PickFile(true), 1);
  f.Unbusy(1);
  EXPECT_EQ(f.PickFile(true), 2);
  f.Unbusy(2);
  EXPECT_EQ(f.PickFile(true), 3);
  f.Unbusy(3);
  EXPECT_EQ(f.PickFile(true), 4);
  f.Unbusy(4);
  EXPECT_EQ(f.PickFile(true), 1);  // wraps; 0 is still busy and skipped
  f.Unbusy(1);
  EXPECT_FALSE(f.all_files_busy());
  f.SetFileExists(0, false);
  EXPECT_EQ(f.existing_files(), 4u);
  EXPECT_EQ(f.PickFile(false), 0);
  uint64_t rotor = 3;
  f.SetFileExists(0, true);
  EXPECT_EQ(f.PickFile(true, &rotor), 3);  // a private rotor
  EXPECT_EQ(rotor, 4u);
}


// In-class values of every workload config equal its declared defaults, so
// a config built in code means the same as an empty YAML section.
template <class T>
void ExpectDefaultsInStep() {
  const T plain;
  const T declared = sim::MakeDefault<T>();
  EXPECT_EQ(sim::DumpYaml(sim::SchemaOf<T>(), &plain), sim::DumpYaml(sim::SchemaOf<T>(), &declared));
}

TEST(WorkloadConfigTest, InClassValuesEqualDeclaredDefaults) {
  ExpectDefaultsInStep<FilebenchConfig>();
  ExpectDefaultsInStep<FileFioConfig>();
  ExpectDefaultsInStep<PostmarkConfig>();
  ExpectDefaultsInStep<MobigenConfig>();
  ExpectDefaultsInStep<AgingConfig>();
}


TEST(FsWorkloadKindTest, EveryRegisteredFileWorkloadBuildsFromItsSection) {
  // A section per kind, as the experiment config holds them.
  sim::ImplConfigs s;
  FilebenchConfig& fb = s.Mutable<FilebenchConfig>("filebench");
  fb.nfiles = 50;
  fb.nthreads = 2;
  fb.run_time = sim::Ms(5);
  FileFioConfig& ff = s.Mutable<FileFioConfig>("fio_files");
  ff.total_ios = 100;
  ff.size = sim::MiB(1);
  MobigenConfig& mg = s.Mutable<MobigenConfig>("mobigen");
  mg.trace = std::string(FLASHSTACK_SHARED_DIR) + "/traces/mobibench/mobigen.out.twitter";
  mg.timing = "afap";
  TxbenchConfig& tb = s.Mutable<TxbenchConfig>("txbench");
  tb.mode = "fsync";  // the test file system has no transactions
  tb.transactions = 20;
  AgingConfig& ag = s.Mutable<AgingConfig>("aging");
  ag.trace = std::string(FLASHSTACK_SOURCE_DIR) + "/traces/aging/flashstack_200.trace";
  ag.pulls = 3;
  std::vector<std::string> built;
  for (const WorkloadKind* kind : sim::Registry<WorkloadKind>::Get().entries()) {
    if (!kind->needs_fs) continue;
    testing::Rig rig;
    const FsWorkloadEnv fe = rig.Env();
    const WorkloadEnv env{fe.queue, nullptr, fe.fs, fe.stats, fe.seed, 1};
    ASSERT_TRUE(kind->validate(s, 0, 512).ok()) << kind->name;
    sim::Result<std::unique_ptr<WorkloadDriver>> w = kind->make(s, env);
    ASSERT_TRUE(w.ok()) << kind->name << ": " << w.status().message();
    auto* driver = dynamic_cast<FsWorkloadDriver*>(w->get());
    ASSERT_NE(driver, nullptr) << kind->name;
    ASSERT_TRUE(rig.Run(driver->workload())) << kind->name;
    EXPECT_TRUE((*w)->status().ok()) << kind->name;
    EXPECT_GT(rig.Stat("workload.ops"), 0) << kind->name;
    EXPECT_GT((*w)->completed(), 0u) << kind->name;
    EXPECT_THAT((*w)->Summary(rig.reg), ::testing::StartsWith("workload   ")) << kind->name;
    built.push_back(kind->name);
  }
  EXPECT_EQ(built, (std::vector<std::string>{"aging", "filebench", "fio_files", "mobigen", "postmark", "txbench"}));
  // Errors name the kind's own keys.
  fb.nthreads = 0;
  fb.personality = "oltp";
  fb.set = {"bogus=1"};
  const WorkloadKind* filebench = sim::Registry<WorkloadKind>::Get().Find("filebench");
  ASSERT_NE(filebench, nullptr);
  EXPECT_THAT(filebench->validate(s, 0, 512).message(), ::testing::StartsWith("workload.filebench.set: "));
}

}  // namespace
}  // namespace host
