// Randomized operation sequences against a reference model, with fsck after
// every step, under several mount configurations; then a clean remount must
// reproduce the model exactly.
#include <gtest/gtest.h>

#include "fs/f2fs/f2fs_model_test_util.h"

namespace fs::f2fs {
namespace {

using testing::RandomWorkload;
using testing::RefFs;
using testing::Stack;
using testing::WorkloadOptions;

sim::Task<std::string> VerifyModel(F2fs* fs, const RefFs* ref, std::string prefix = "") {
  auto fsp = [&](const std::string& p) { return prefix.empty() ? p : (p == "/" ? prefix : prefix + p); };
  for (const auto& [p, e] : ref->ns) {
    FsResult<FileStat> st = co_await fs->Stat(fsp(p));
    if (!st.ok()) co_return "missing " + p;
    if (st.value.is_dir != e.is_dir) co_return "type of " + p;
    if (e.is_dir) {
      FsResult<std::vector<std::string>> l = co_await fs->Readdir(fsp(p));
      std::vector<std::string> got = l.value;
      std::sort(got.begin(), got.end());
      if (got != ref->Children(p)) co_return "entries of " + p;
      continue;
    }
    const std::vector<uint8_t>& want = ref->files.at(e.file).data;
    FsResult<Fd> fd = co_await fs->Open(fsp(p), kRdOnly);
    if (!fd.ok()) co_return "open " + p;
    std::vector<uint8_t> got(want.size() + 100);
    FsResult<uint64_t> r = co_await fs->Pread(fd.value, 0, got);
    co_await fs->Close(fd.value);
    got.resize(r.value);
    if (got != want) co_return fmt::format("content of {} ({} bytes, want {})", p, got.size(), want.size());
  }
  co_return "";
}

struct Variant {
  Variant(const char* n, void (*a)(F2fsConfig&), uint64_t v = 128ull << 20, sim::SimTime t = sim::SimTime(),
          bool big = false)
      : name(n), apply(a), volume(v), think(t), big_writes(big) {}
  const char* name;
  void (*apply)(F2fsConfig&);
  uint64_t volume;
  sim::SimTime think;  // between operations, so background threads run
  bool big_writes;
};

class SequenceTest : public ::testing::TestWithParam<Variant> {};

TEST_P(SequenceTest, RandomOpsMatchTheModelAndSurviveRemount) {
  F2fsConfig cfg = testing::TestConfig();
  GetParam().apply(cfg);
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    Stack s(GetParam().volume, cfg);
    s.FormatAndMount();
    WorkloadOptions opt;
    opt.ops = 300;
    opt.think = GetParam().think;
    if (GetParam().big_writes) {
      opt.max_file = 6 << 20;
      opt.max_write = 1 << 20;
    }
    opt.q = &s.q();
    RandomWorkload w(s.fs_ptr(), seed * 7919 + 13, opt);
    s.Run(w.Run());
    ASSERT_TRUE(w.failure.empty()) << "seed " << seed << ": " << w.failure;
    s.Remount();
    s.ExpectCheck();
    const std::string err = s.Run(VerifyModel(s.fs_ptr(), &w.ref()));
    ASSERT_TRUE(err.empty()) << "seed " << seed << " after remount: " << err;
  }
}

// With hard links among the operations (fsck after every step checks each
// file's link count against the names it has).
TEST(SequenceTest, RandomOpsWithHardLinks) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    Stack s(128ull << 20, testing::TestConfig());
    s.FormatAndMount();
    WorkloadOptions opt;
    opt.ops = 400;
    opt.link_ratio = 0.08;
    opt.q = &s.q();
    RandomWorkload w(s.fs_ptr(), seed * 104729 + 3, opt);
    s.Run(w.Run());
    ASSERT_TRUE(w.failure.empty()) << "seed " << seed << ": " << w.failure;
    s.Remount();
    s.ExpectCheck();
    const std::string err = s.Run(VerifyModel(s.fs_ptr(), &w.ref()));
    ASSERT_TRUE(err.empty()) << "seed " << seed << " after remount: " << err;
  }
}

// Several simulated threads, each in its own directory with its own model,
// run concurrently with the background threads; then fsck, a comparison with
// every model, and the same after a clean remount.
TEST(ConcurrencyTest, ThreadsInTheirOwnDirectoriesMatchTheirModels) {
  F2fsConfig cfg = testing::TestConfig();
  cfg.page_cache.memory = sim::MiB(4);
  cfg.page_cache.writeback_interval = sim::Ms(1);
  cfg.page_cache.dirty_expire = sim::Ms(2);
  cfg.checkpoint.interval = sim::Ms(3);
  cfg.checkpoint.idle_interval = sim::Us(50);
  cfg.checkpoint.dirty_nodes_threshold = 64;
  cfg.gc.min_sleep = sim::Ms(1);
  cfg.gc.max_sleep = sim::Ms(2);
  cfg.gc.idle_interval = sim::Us(20);
  Stack s(256ull << 20, cfg);
  s.FormatAndMount();
  constexpr int kThreads = 6;
  std::vector<std::unique_ptr<RandomWorkload>> ws;
  for (int t = 0; t < kThreads; ++t) {
    const std::string dir = "/t" + std::to_string(t);
    ASSERT_TRUE(s.Run(s.fs().Mkdir(dir)).ok());
    WorkloadOptions opt;
    opt.ops = 400;
    opt.check_every_step = false;
    opt.think = sim::Us(30);
    opt.q = &s.q();
    opt.prefix = dir;
    ws.push_back(std::make_unique<RandomWorkload>(s.fs_ptr(), 1000 + t, opt));
  }
  int done = 0;
  auto body = [](RandomWorkload* w, int* d) -> sim::Task<void> {
    co_await w->Run();
    ++*d;
  };
  for (auto& w : ws) sim::Spawn(&s.q(), body(w.get(), &done));
  while (done < kThreads && s.q().Step()) {
  }
  ASSERT_EQ(done, kThreads);
  for (auto& w : ws) ASSERT_TRUE(w->failure.empty()) << w->failure;
  EXPECT_GT(s.stats().FindHistogram("fs.cp.stall")->count(), 0u);
  s.ExpectCheck();
  for (int t = 0; t < kThreads; ++t) {
    const std::string err = s.Run(VerifyModel(s.fs_ptr(), &ws[t]->ref(), "/t" + std::to_string(t)));
    ASSERT_TRUE(err.empty()) << "thread " << t << ": " << err;
  }
  s.Remount();
  s.ExpectCheck();
  for (int t = 0; t < kThreads; ++t) {
    const std::string err = s.Run(VerifyModel(s.fs_ptr(), &ws[t]->ref(), "/t" + std::to_string(t)));
    ASSERT_TRUE(err.empty()) << "thread " << t << " after remount: " << err;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Configs, SequenceTest,
    ::testing::Values(
        Variant{"defaults", [](F2fsConfig&) {}},
        Variant{"tiny_page_cache",
                [](F2fsConfig& c) {
                  c.page_cache.memory = sim::MiB(1);
                  c.page_cache.writeback_interval = sim::Ms(50);
                }},
        Variant{"no_inline",
                [](F2fsConfig& c) {
                  c.inline_data = false;
                  c.inline_dentry = false;
                }},
        Variant{"lfs_two_logs",
                [](F2fsConfig& c) {
                  c.mode = "lfs";
                  c.active_logs = 2;
                }},
        Variant{"four_logs_ipu_force",
                [](F2fsConfig& c) {
                  c.active_logs = 4;
                  c.ipu_policy = {"force"};
                }},
        Variant{"list_lookup_strict",
                [](F2fsConfig& c) {
                  c.fsync_node_lookup = "list";
                  c.fsync_mode = "strict";
                }},
        Variant{"frequent_checkpoints",
                [](F2fsConfig& c) {
                  c.checkpoint.interval = sim::Ms(20);
                  c.checkpoint.idle_interval = sim::Us(100);
                  c.page_cache.writeback_interval = sim::Ms(10);
                  c.checkpoint.dirty_nodes_threshold = 16;
                }},
        Variant{"background_gc_cost_benefit",
                [](F2fsConfig& c) {
                  c.gc.min_sleep = sim::Us(200);
                  c.gc.max_sleep = sim::Us(400);
                  c.gc.no_gc_sleep = sim::Ms(1);
                  c.gc.idle_interval = sim::Us(1);
                  c.checkpoint.interval = sim::Ms(2);
                  c.checkpoint.idle_interval = sim::Us(1);
                },
                128ull << 20, sim::Us(60), true},
        Variant{"atgc",
                [](F2fsConfig& c) {
                  c.atgc = true;
                  c.gc.bg_policy = "atgc";
                  c.gc.atgc_age_threshold = sim::Us(500);
                  c.gc.min_sleep = sim::Us(200);
                  c.gc.max_sleep = sim::Us(400);
                  c.gc.no_gc_sleep = sim::Ms(1);
                  c.gc.idle_interval = sim::Us(1);
                  c.checkpoint.interval = sim::Ms(2);
                  c.checkpoint.idle_interval = sim::Us(1);
                },
                128ull << 20, sim::Us(60), true},
        Variant{"four_segment_sections_zones",
                [](F2fsConfig& c) {
                  c.mkfs.segs_per_sec = 4;
                  c.mkfs.secs_per_zone = 2;
                  c.gc.bg_policy = "greedy";
                  c.gc.min_sleep = sim::Us(300);
                  c.gc.max_sleep = sim::Us(600);
                  c.gc.idle_interval = sim::Us(1);
                },
                512ull << 20, sim::Us(40), true}),
    [](const ::testing::TestParamInfo<Variant>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace fs::f2fs
