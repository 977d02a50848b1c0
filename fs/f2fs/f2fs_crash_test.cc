// Crash consistency: run a random workload with fsyncs and background
// checkpoints, cut the power at a random event (the device keeps a random
// subset of its volatile writes), mount (checkpoint selection, orphans,
// roll-forward recovery) and check:
//  - fsck passes;
//  - every entry of the namespace the last durable checkpoint persisted is
//    there (a file may only be replaced by one that was fsynced), and the
//    only extra entries are fsynced files (roll-forward re-links them);
//  - every file shows, per page and for its size, a state it had at or
//    after its last completed fsync (files with an fsync cut in the middle
//    are exempt: posix-mode fsync promises nothing until it returns).
#include <deque>
#include <set>

#include <gtest/gtest.h>

#include "fs/f2fs/f2fs_model_test_util.h"
#include "fs/f2fs/parafs_2d_allocation_policy.h"

namespace fs::f2fs {
namespace {

using testing::CpRecorder;
using testing::RandomWorkload;
using testing::RefEntry;
using testing::RefFile;
using testing::RefFs;
using testing::Stack;
using testing::WorkloadOptions;

struct Seen {
  uint64_t ino = 0;
  bool is_dir = false;
};

// Walks the namespace under `prefix` (model paths: "/" = prefix).
sim::Task<std::string> Walk(F2fs* fs, std::string prefix, std::map<std::string, Seen>* out) {
  auto fsp = [&](const std::string& p) { return prefix.empty() ? p : (p == "/" ? prefix : prefix + p); };
  std::deque<std::string> todo{"/"};
  FsResult<FileStat> root = co_await fs->Stat(fsp("/"));
  if (!root.ok()) co_return "workload root missing";
  (*out)["/"] = Seen{root.value.ino, true};
  while (!todo.empty()) {
    const std::string d = todo.front();
    todo.pop_front();
    FsResult<std::vector<std::string>> l = co_await fs->Readdir(fsp(d));
    if (!l.ok()) co_return "readdir " + d;
    for (const std::string& n : l.value) {
      const std::string p = RefFs::Join(d, n);
      FsResult<FileStat> st = co_await fs->Stat(fsp(p));
      if (!st.ok()) co_return "stat " + p;
      (*out)[p] = Seen{st.value.ino, st.value.is_dir};
      if (st.value.is_dir) todo.push_back(p);
    }
  }
  co_return "";
}

sim::Task<std::string> CheckRecovered(F2fs* fs, const RefFs* ref, const std::map<std::string, RefEntry>* cp_ns,
                                      uint64_t cp_clock, std::string prefix = "") {
  auto fsp = [&](const std::string& p) { return prefix.empty() ? p : (p == "/" ? prefix : prefix + p); };
  std::map<std::string, Seen> got;
  std::string err = co_await Walk(fs, prefix, &got);
  if (!err.empty()) co_return err;
  // Inode numbers are unique within a checkpoint epoch; the newest file
  // holding an ino is the one on flash.
  std::map<uint64_t, uint64_t> id_of_ino;
  for (const auto& [id, f] : ref->files) id_of_ino[f.ino] = id;
  auto fsynced = [&](uint64_t ino) {
    auto it = id_of_ino.find(ino);
    return it != id_of_ino.end() && ref->files.at(it->second).fsynced;
  };
  for (const auto& [p, e] : *cp_ns) {
    auto g = got.find(p);
    if (g == got.end()) co_return "checkpointed entry lost: " + p;
    if (g->second.is_dir != e.is_dir) co_return "type changed: " + p;
    if (!e.is_dir && g->second.ino != ref->files.at(e.file).ino && !fsynced(g->second.ino))
      co_return "checkpointed file " + p + " replaced by an unsynced one";
  }
  for (const auto& [p, g] : got) {
    if (cp_ns->count(p)) continue;
    if (g.is_dir) co_return "directory not in the checkpoint: " + p;
    if (!fsynced(g.ino)) co_return "unsynced file appeared: " + p;
  }
  // A file fsynced after the checkpoint, and neither renamed nor unlinked
  // since, is there (roll-forward re-links it) unless a directory holds its
  // name in the checkpoint.
  std::set<uint64_t> inos;
  for (const auto& [p, g] : got) inos.insert(g.ino);
  for (const auto& [id, f] : ref->files) {
    if (f.last_fsync_clock <= cp_clock || f.fsync_in_flight || f.moved_since_fsync || f.path_at_fsync.empty())
      continue;
    auto held = cp_ns->find(f.path_at_fsync);
    if (held != cp_ns->end() && held->second.is_dir) continue;
    if (!inos.count(f.ino)) co_return fmt::format("fsynced file {} ({}) lost", f.path_at_fsync, id);
  }
  for (const auto& [p, g] : got) {
    if (g.is_dir) continue;
    auto idit = id_of_ino.find(g.ino);
    if (idit == id_of_ino.end()) co_return "unknown inode at " + p;
    const RefFile& f = ref->files.at(idit->second);
    if (f.fsync_in_flight) continue;
    FsResult<Fd> fd = co_await fs->Open(fsp(p), kRdOnly);
    if (!fd.ok()) co_return "open " + p;
    FsResult<FileStat> st = co_await fs->Fstat(fd.value);
    const uint64_t size = st.value.size;
    std::vector<uint8_t> data(size);
    FsResult<uint64_t> r = co_await fs->Pread(fd.value, 0, data);
    co_await fs->Close(fd.value);
    if (r.value != size) co_return "short read of " + p;
    if (!f.allowed_sizes.count(size)) co_return fmt::format("{} (file {}): size {} never held since its fsync", p, f.id, size);
    for (uint64_t page = 0; page * kBlockSize < size; ++page) {
      const size_t n = std::min<uint64_t>(kBlockSize, size - page * kBlockSize);
      auto it = f.allowed_pages.find(page);
      bool ok = false;
      if (it == f.allowed_pages.end()) {
        ok = std::all_of(data.begin() + page * kBlockSize, data.begin() + page * kBlockSize + n,
                         [](uint8_t b) { return b == 0; });
      } else {
        for (const auto& cand : it->second)
          if (std::equal(cand.begin(), cand.begin() + n, data.begin() + page * kBlockSize)) ok = true;
      }
      if (!ok) {
        std::string d = fmt::format("size {} fsynced {} last_fsync {} cp_clock {} moved {} data.size {} cands:", size,
                                    f.fsynced, f.last_fsync_clock, cp_clock, f.moved_since_fsync, f.data.size());
        for (const auto& cand : it->second) {
          size_t first_nz = cand.size();
          for (size_t k = 0; k < cand.size(); ++k)
            if (cand[k]) { first_nz = k; break; }
          d += fmt::format(" [size {} first_nz {}]", cand.size(), first_nz);
        }
        d += fmt::format(" got [{:02x}{:02x}{:02x}{:02x}] n={}", data[page * kBlockSize], data[page * kBlockSize + 1],
                         data[page * kBlockSize + 2], data[page * kBlockSize + 3], n);
        size_t nz = 0;
        for (size_t k = 0; k < n; ++k) nz += data[page * kBlockSize + k] != 0;
        d += fmt::format(" nonzero {} ino {} ids:", nz, g.ino);
        for (const auto& [id2, f2] : ref->files)
          if (f2.ino == g.ino) d += fmt::format(" {}(size {})", id2, f2.data.size());
        // Which model file had this content?
        for (const auto& [id2, f2] : ref->files) {
          for (const auto& [pg, cands] : f2.allowed_pages)
            for (const auto& cand : cands)
              if (std::equal(cand.begin(), cand.begin() + n, data.begin() + page * kBlockSize) && nz)
                d += fmt::format(" match file {} page {}", id2, pg);
        }
        co_return fmt::format("{} (file {}): page {} holds content it never had since its fsync: {}", p, f.id, page, d);
      }
    }
  }
  co_return "";
}

F2fsConfig CrashConfig() {
  F2fsConfig c = testing::TestConfig();
  c.page_cache.memory = sim::MiB(8);
  c.page_cache.writeback_interval = sim::Ms(2);
  c.page_cache.dirty_expire = sim::Ms(4);
  c.checkpoint.interval = sim::Ms(6);
  c.checkpoint.idle_interval = sim::Us(200);
  c.checkpoint.dirty_nodes_threshold = 64;
  c.gc.min_sleep = sim::Ms(3);
  c.gc.max_sleep = sim::Ms(6);
  c.gc.no_gc_sleep = sim::Ms(10);
  c.gc.idle_interval = sim::Us(200);
  // Discards go out in the workload's think-time gaps, so a power cut
  // finds trims of every kind (pending, in flight, completed, flushed).
  c.discard.idle_interval = sim::Us(100);
  c.discard.min_interval = sim::Ms(1);
  c.discard.mid_interval = sim::Us(500);
  c.discard.max_interval = sim::Ms(5);
  return c;
}

void RunCrashIterations(const F2fsConfig& cfg, int iterations, uint64_t base_seed, bool big_writes = false,
                        const ssd::DeviceLayout& device_layout = {}) {
  sim::Rng rng(base_seed, "f2fs.test.crash");
  int recovered_runs = 0;
  uint64_t gc_moved = 0;
  double discarded = 0;
  for (int it = 0; it < iterations; ++it) {
    SCOPED_TRACE("iteration " + std::to_string(it));
    Stack s(96ull << 20, cfg, device_layout);
    s.FormatAndMount();
    WorkloadOptions opt;
    opt.ops = 300;
    opt.check_every_step = false;
    opt.fsync_ratio = 0.1;
    opt.think = sim::Us(60);
    opt.q = &s.q();
    if (big_writes) {
      opt.ops = 700;
      opt.max_file = 8 << 20;
      opt.max_write = 1 << 20;
    }
    auto w = std::make_unique<RandomWorkload>(s.fs_ptr(), rng.Next(), opt);
    CpRecorder rec(&w->ref());
    s.fs().set_listener(&rec);
    // Run up to a random event.
    bool done = false;
    if (big_writes) s.Run(w->Prefill("/ballast", s.fs().layout().user_block_count * kBlockSize * 7 / 10));
    auto body = [&]() -> sim::Task<void> {
      co_await w->Run();
      done = true;
    };
    sim::Task<void> t = body();
    auto h = t.Release();
    sim::Resume(h);
    const uint64_t cut = 20 + rng.Uniform(big_writes ? 3500 : 1500);
    uint64_t steps = 0;
    while (!done && steps < cut && s.q().Step()) ++steps;
    ASSERT_TRUE(w->failure.empty()) << w->failure;
    gc_moved += s.fs().gc_moved_blocks() + s.fs().ssr_allocations();
    if (device_layout.fixed) {
      // Free sections were trimmed whole when freed: no discard is pending there.
      const Layout& l = s.fs().layout();
      for (const auto& [start, c] : s.fs().discards().commands_by_address()) {
        if (c.issued) continue;
        for (uint32_t seg = l.SegOf(BlockAddr{start}).v; seg <= l.SegOf(BlockAddr{start + c.len - 1}).v; ++seg)
          ASSERT_FALSE(s.fs().segments().SectionFree(l.SecOf(SegNo{seg}))) << "pending discard at " << start;
      }
    }
    discarded += s.stats().Value("fs.discard.blocks");
    // Power cut: volatile writes survive at random.
    s.fs().PowerCut();
    s.q().Clear();
    h.destroy();
    const double keep_done = rng.UniformDouble(), keep_inflight = rng.UniformDouble() * 0.5;
    s.PowerCut([&](BlockAddr, bool completed) { return rng.Bernoulli(completed ? keep_done : keep_inflight); });
    sim::Status st = s.Mount();
    ASSERT_TRUE(st.ok()) << st.message();
    s.ExpectCheck();
    if (s.fs().recovered_dnodes() > 0) ++recovered_runs;
    const uint64_t ver = s.fs().mounted_checkpoint_version();
    std::map<std::string, RefEntry> cp_ns;
    uint64_t cp_clock = 0;
    if (ver > 1) {
      ASSERT_TRUE(rec.snapshots.count(ver)) << "checkpoint " << ver << " was never begun";
      cp_ns = rec.snapshots.at(ver);
      cp_clock = rec.clocks.at(ver);
    } else {
      cp_ns = {{"/", RefEntry{true, 0}}};
    }
    const std::string err = s.Run(CheckRecovered(s.fs_ptr(), &w->ref(), &cp_ns, cp_clock));
    ASSERT_TRUE(err.empty()) << "cut after " << steps << " events (cp " << ver << "): " << err;
    // The recovered volume keeps working.
    FsResult<Fd> fd = s.Run(s.fs().Open("/after_crash", kCreat | kRdWr));
    ASSERT_TRUE(fd.ok());
    ASSERT_TRUE(s.Run(s.fs().Pwrite(fd.value, 0, {}, 100000)).ok());
    ASSERT_TRUE(s.Run(s.fs().Fsync(fd.value)).ok());
    s.ExpectCheck();
    // On a device of fixed placement no flash block was written out of
    // order or rewritten before its trim, across the power cut too.
    ASSERT_EQ(s.sequential().violations, 0u) << s.sequential().first_violation;
  }
  // Roll-forward recovery (and with big writes, cleaning or SSR) and
  // discards must actually have been exercised.
  EXPECT_GT(recovered_runs, 0);
  EXPECT_GT(discarded, 0);
  if (big_writes) {
    EXPECT_GT(gc_moved, 0u);
  }
}

TEST(CrashTest, RandomCutsDefaultConfig) { RunCrashIterations(CrashConfig(), 60, 1); }

TEST(CrashTest, RandomCutsPerFileNodeListNoInline) {
  F2fsConfig c = CrashConfig();
  c.fsync_node_lookup = "list";
  c.inline_data = false;
  c.inline_dentry = false;
  RunCrashIterations(c, 40, 2);
}

TEST(CrashTest, RandomCutsLowSpaceCleaning) {
  F2fsConfig c = CrashConfig();
  c.mode = "lfs";  // no SSR: foreground cleaning under low space
  RunCrashIterations(c, 25, 4, /*big_writes=*/true);
}

// ParaFS's 2-D allocation: logs per region (flash channel), striped flash
// page by flash page; recovery follows the fsync chain across regions.
TEST(CrashTest, RandomCutsParafs2d) {
  F2fsConfig c = CrashConfig();
  c.mode = "lfs";
  c.allocation = "parafs_2d";
  testing::RoundRobinPlacement placement(2, testing::MetaFlashBlocks(96ull << 20, c));
  RunCrashIterations(c, 40, 7, /*big_writes=*/false, testing::FixedLayout(2, 8192, &placement));
}

TEST(CrashTest, RandomCutsParafs2dLeastBusyDispatch) {
  F2fsConfig c = CrashConfig();
  c.mode = "lfs";
  c.allocation = "parafs_2d";
  c.impl_configs.Mutable<Parafs2dConfig>("parafs_2d").dispatch = "least_busy";
  testing::RoundRobinPlacement placement(3, testing::MetaFlashBlocks(96ull << 20, c));
  RunCrashIterations(c, 30, 9, /*big_writes=*/false, testing::FixedLayout(3, 8192, &placement));
}

TEST(CrashTest, RandomCutsParafs2dLowSpaceCleaning) {
  F2fsConfig c = CrashConfig();
  c.mode = "lfs";
  c.allocation = "parafs_2d";
  testing::RoundRobinPlacement placement(2, testing::MetaFlashBlocks(96ull << 20, c));
  RunCrashIterations(c, 20, 8, /*big_writes=*/true, testing::FixedLayout(2, 8192, &placement));
}

TEST(CrashTest, RandomCutsLowSpaceSsr) {
  RunCrashIterations(CrashConfig(), 25, 5, /*big_writes=*/true);
}

TEST(CrashTest, RandomCutsIpuAndSmallCache) {
  F2fsConfig c = CrashConfig();
  c.ipu_policy = {"fsync", "util"};
  c.min_ipu_util = sim::Ratio{0.0};
  c.page_cache.memory = sim::MiB(1);
  RunCrashIterations(c, 40, 3);
}

// Listener fan-out: several workloads record the checkpoints.
class Fanout : public F2fs::Listener {
 public:
  std::vector<F2fs::Listener*> to;
  void OnCheckpointBegin(uint64_t v) override {
    for (auto* l : to) l->OnCheckpointBegin(v);
  }
  void OnCheckpointCommitted(uint64_t v) override {
    for (auto* l : to) l->OnCheckpointCommitted(v);
  }
};

// Four simulated threads, each with its own directory and reference model,
// run concurrently (sharing checkpoints, the flusher and cleaning).
TEST(CrashTest, RandomCutsConcurrentThreads) {
  const F2fsConfig cfg = CrashConfig();
  sim::Rng rng(6, "f2fs.test.crash.concurrent");
  constexpr int kThreads = 4;
  for (int it = 0; it < 30; ++it) {
    SCOPED_TRACE("iteration " + std::to_string(it));
    Stack s(128ull << 20, cfg);
    s.FormatAndMount();
    std::vector<std::unique_ptr<RandomWorkload>> ws;
    std::vector<std::unique_ptr<CpRecorder>> recs;
    Fanout fan;
    for (int t = 0; t < kThreads; ++t) {
      const std::string dir = "/t" + std::to_string(t);
      ASSERT_TRUE(s.Run(s.fs().Mkdir(dir)).ok());
      WorkloadOptions opt;
      opt.ops = 150;
      opt.check_every_step = false;
      opt.think = sim::Us(40);
      opt.q = &s.q();
      opt.prefix = dir;
      ws.push_back(std::make_unique<RandomWorkload>(s.fs_ptr(), rng.Next(), opt));
      recs.push_back(std::make_unique<CpRecorder>(&ws.back()->ref()));
      fan.to.push_back(recs.back().get());
    }
    s.Run(s.fs().Sync());  // the thread directories are checkpointed
    s.fs().set_listener(&fan);
    int done = 0;
    std::vector<sim::Task<void>::Handle> hs;
    for (int t = 0; t < kThreads; ++t) {
      auto body = [](RandomWorkload* w, int* d) -> sim::Task<void> {
        co_await w->Run();
        ++*d;
      };
      sim::Task<void> task = body(ws[t].get(), &done);
      hs.push_back(task.Release());
      sim::Resume(hs.back());
    }
    const uint64_t cut = 20 + rng.Uniform(3000);
    uint64_t steps = 0;
    while (done < kThreads && steps < cut && s.q().Step()) ++steps;
    for (auto& w : ws) ASSERT_TRUE(w->failure.empty()) << w->failure;
    if (done == kThreads) {
      // Finished before the cut: the live state must be consistent too.
      s.ExpectCheck();
    }
    s.fs().PowerCut();
    s.q().Clear();
    for (auto h : hs) h.destroy();
    const double keep_done = rng.UniformDouble(), keep_inflight = rng.UniformDouble() * 0.5;
    s.PowerCut([&](BlockAddr, bool completed) { return rng.Bernoulli(completed ? keep_done : keep_inflight); });
    sim::Status st = s.Mount();
    ASSERT_TRUE(st.ok()) << st.message();
    s.ExpectCheck();
    const uint64_t ver = s.fs().mounted_checkpoint_version();
    for (int t = 0; t < kThreads; ++t) {
      std::map<std::string, RefEntry> cp_ns = {{"/", RefEntry{true, 0}}};
      uint64_t cp_clock = 0;
      if (recs[t]->snapshots.count(ver)) {
        cp_ns = recs[t]->snapshots.at(ver);
        cp_clock = recs[t]->clocks.at(ver);
      }
      const std::string err = s.Run(CheckRecovered(s.fs_ptr(), &ws[t]->ref(), &cp_ns, cp_clock, "/t" + std::to_string(t)));
      ASSERT_TRUE(err.empty()) << "thread " << t << ", cut after " << steps << " events (cp " << ver << "): " << err;
    }
  }
}

}  // namespace
}  // namespace fs::f2fs
