// Timed FTL tests on the fakes::FakeFlashArray (fixed latencies, NAND rule checks).
#include "ftl/page_ftl.h"

#include <cstdio>
#include <functional>
#include <memory>

#include <gtest/gtest.h>

#include "tests/fakes/fake_flash_array.h"
#include "ftl/ftl_factory.h"
#include "ftl/skewed_stream.h"
#include "sim/rng.h"

namespace ftl {
namespace {

using flash::CmdSource;
using flash::FlashOpKind;

// 1 channel x 1 chip x 2 dies x 2 planes.
flash::Geometry Geo(uint32_t blocks = 64, uint32_t pages = 16) {
  flash::Geometry g;
  g.channels = 1;
  g.chips_per_channel = 1;
  g.dies_per_chip = 2;
  g.planes_per_die = 2;
  g.blocks_per_plane = blocks;
  g.pages_per_block = pages;
  g.page_size = sim::Bytes{4096};
  return g;
}

FtlConfig Config() {
  FtlConfig c;
  c.op = sim::Ratio{0.25};
  c.gc_threshold = sim::Ratio{0.05};
  return c;
}

// Records every command submitted to the array it wraps.
class RecordingArray final : public flash::FlashArray {
 public:
  struct Entry {
    sim::SimTime time;
    FlashOpKind kind;
    CmdSource source;
  };
  RecordingArray(flash::FlashArray* inner, sim::EventQueue* q) : inner_(inner), q_(q) {}
  const flash::Geometry& geometry() const override { return inner_->geometry(); }
  void Submit(flash::FlashCommand* c) override {
    if (on_submit) on_submit();
    log.push_back({q_->now(), c->kind, c->source});
    inner_->Submit(c);
  }
  uint32_t DieLoad(uint32_t d) const override { return inner_->DieLoad(d); }
  std::vector<Entry> log;
  std::function<void()> on_submit;  // optional: called before each command

 private:
  flash::FlashArray* inner_;
  sim::EventQueue* q_;
};

struct Fixture {
  explicit Fixture(const FtlConfig& cfg, const flash::Geometry& g = Geo(), fakes::FakeFlashTiming t = fakes::FakeFlashTiming{})
      : array(g, &q, t), recorder(&array, &q), ftl(cfg, &recorder, &q, registry.Root().Group("ftl")) {}
  // Functional preconditioning programs no flash pages: tell the fake array
  // which pages now hold data so its NAND rule checks stay meaningful.
  void Precondition(const PreconditionSpec& spec) {
    ftl.Precondition(spec);
    const BlockManager& b = ftl.core().blocks();
    for (UnitId u = 0; u < b.units(); ++u) {
      const uint32_t n = b.AllocatedPages(u);
      for (uint32_t j = 0; j < b.group_planes(); ++j) {
        array.SetProgrammed(b.BlockIdOf(u, j), (n + b.group_planes() - 1 - j) / b.group_planes());
      }
    }
  }
  sim::EventQueue q;
  fakes::FakeFlashArray array;
  RecordingArray recorder;
  sim::StatsRegistry registry;
  PageFtl ftl;
};

// Closed-loop driver: keeps `depth` ops outstanding until `total` completed.
class Driver final : public FtlClient {
 public:
  Driver(PageFtl* ftl, sim::EventQueue* q, uint32_t depth, uint64_t total, std::function<FtlOp::Kind()> kind,
         std::function<Lpn()> lpn)
      : ftl_(ftl), q_(q), ops_(depth), total_(total), kind_(std::move(kind)), lpn_(std::move(lpn)) {}
  void Start() {
    for (FtlOp& op : ops_) Issue(&op);
  }
  void OnFtlDone(FtlOp* op) override {
    ++completed;
    EXPECT_GE(op->finish_time, op->submit_time);
    EXPECT_EQ(op->finish_time, q_->now());
    max_latency = std::max(max_latency, op->finish_time - op->submit_time);
    if (op->kind == FtlOp::Kind::kWrite) {
      ++writes_done;
    } else {
      read_latency.Record((op->finish_time - op->submit_time).ns());
    }
    Issue(op);
  }
  // Optional: the temperature hint of each op (default: the op's own).
  std::function<Temperature()> temperature;
  uint64_t completed = 0;
  uint64_t writes_done = 0;
  sim::SimTime max_latency;
  sim::Histogram read_latency;  // ns

 private:
  void Issue(FtlOp* op) {
    if (issued_ == total_) return;
    ++issued_;
    op->kind = kind_();
    op->lpn = lpn_();
    if (temperature) op->temperature = temperature();
    op->client = this;
    ftl_->Submit(op);
  }
  PageFtl* ftl_;
  sim::EventQueue* q_;
  std::vector<FtlOp> ops_;
  uint64_t total_;
  uint64_t issued_ = 0;
  std::function<FtlOp::Kind()> kind_;
  std::function<Lpn()> lpn_;
};

struct Collect final : FtlClient {
  void OnFtlDone(FtlOp* op) override { done.push_back(op); }
  std::vector<FtlOp*> done;
};

TEST(PageFtl, WriteThenReadTakesProgramThenReadTime) {
  FtlConfig c = Config();
  c.unmapped_read_latency = sim::Us(2);
  Fixture f(c);
  Collect client;
  FtlOp w;
  w.kind = FtlOp::Kind::kWrite;
  w.lpn = Lpn{10};
  w.client = &client;
  f.ftl.Submit(&w);
  f.q.Run();
  ASSERT_EQ(client.done.size(), 1u);
  EXPECT_EQ(w.finish_time - w.submit_time, sim::Us(500));

  FtlOp r;
  r.kind = FtlOp::Kind::kRead;
  r.lpn = Lpn{10};
  r.client = &client;
  FtlOp unmapped = r;
  unmapped.lpn = Lpn{11};
  f.ftl.Submit(&r);
  f.ftl.Submit(&unmapped);
  f.q.Run();
  ASSERT_EQ(client.done.size(), 3u);
  EXPECT_EQ(client.done[1], &unmapped) << "the unmapped read does not wait for flash";
  EXPECT_EQ(unmapped.finish_time - unmapped.submit_time, sim::Us(2));
  EXPECT_EQ(r.finish_time - r.submit_time, sim::Us(50));
  EXPECT_EQ(f.array.executed(FlashOpKind::kRead, CmdSource::kHost), 1u);
  EXPECT_EQ(f.ftl.unmapped_reads(), 1u);
  EXPECT_EQ(f.ftl.host_reads(), 2u);
  EXPECT_EQ(f.array.violations(), 0u);
  EXPECT_TRUE(f.ftl.Idle());
}

TEST(PageFtl, ReadAfterWriteReadsTheMappedPage) {
  Fixture f(Config());
  Collect client;
  std::vector<FtlOp> writes(32), reads(32);
  for (int i = 0; i < 32; ++i) {
    writes[i].kind = FtlOp::Kind::kWrite;
    writes[i].lpn = Lpn{static_cast<uint64_t>(i % 8)};  // overwrites in flight
    writes[i].client = &client;
    f.ftl.Submit(&writes[i]);
  }
  f.q.Run();
  for (int i = 0; i < 8; ++i) {
    const flash::Ppn p = f.ftl.core().Lookup(Lpn{static_cast<uint64_t>(i)});
    ASSERT_TRUE(p.valid());
    EXPECT_EQ(f.array.programmed(f.array.geometry().BlockOfPpn(p)) > f.array.geometry().PageInBlock(p), true)
        << "the mapped page has been programmed";
    reads[i].kind = FtlOp::Kind::kRead;
    reads[i].lpn = Lpn{static_cast<uint64_t>(i)};
    reads[i].client = &client;
    f.ftl.Submit(&reads[i]);
  }
  f.q.Run();
  EXPECT_EQ(f.array.executed(FlashOpKind::kRead, CmdSource::kHost), 8u);
  EXPECT_EQ(f.array.violations(), 0u) << f.array.first_violation();
  EXPECT_EQ(f.ftl.CheckConsistency(), "");
}

TEST(PageFtl, BackgroundGcInterleavesWithHostWrites) {
  Fixture f(Config());
  f.Precondition(PreconditionSpec{1.0, 1.0, 3});
  const uint64_t u = f.ftl.logical_pages();
  sim::Rng rng(1, "t");
  Driver d(&f.ftl, &f.q, 8, 3 * u, [] { return FtlOp::Kind::kWrite; }, [&] { return Lpn{rng.Uniform(u)}; });
  d.Start();
  f.q.Run();
  EXPECT_EQ(d.completed, 3 * u);
  EXPECT_EQ(f.ftl.host_writes(), 3 * u);
  EXPECT_GT(f.ftl.gc_copies(), 0u);
  EXPECT_GT(f.ftl.gc_runs_bg(), 0u);
  EXPECT_EQ(f.array.executed(FlashOpKind::kProgram, CmdSource::kGc), f.ftl.gc_copies());
  EXPECT_EQ(f.array.executed(FlashOpKind::kProgram, CmdSource::kHost), 3 * u);
  // Between the first and last GC erase there are host programs: GC does not
  // run in one blocking burst.
  sim::SimTime first_erase = sim::SimTime::Max(), last_erase;
  for (const auto& e : f.recorder.log) {
    if (e.kind == FlashOpKind::kErase) {
      first_erase = std::min(first_erase, e.time);
      last_erase = std::max(last_erase, e.time);
    }
  }
  uint64_t host_between = 0, gc_reads = 0;
  for (const auto& e : f.recorder.log) {
    if (e.source == CmdSource::kHost && e.time > first_erase && e.time < last_erase) ++host_between;
    if (e.source == CmdSource::kGc && e.kind == FlashOpKind::kRead) ++gc_reads;
  }
  EXPECT_GT(host_between, u);
  EXPECT_GT(gc_reads, 0u);
  EXPECT_EQ(f.array.violations(), 0u) << f.array.first_violation();
  EXPECT_TRUE(f.ftl.Idle());
  EXPECT_EQ(f.ftl.CheckConsistency(), "");
  // Stats are registered and agree.
  EXPECT_EQ(f.registry.Value("ftl.host_writes"), static_cast<double>(3 * u));
  EXPECT_NEAR(f.registry.Value("ftl.write_amplification"), f.ftl.WriteAmplification(), 1e-12);
  EXPECT_GT(f.registry.Value("ftl.write_amplification"), 1.0);
  EXPECT_GT(f.registry.Value("ftl.precondition.write_amplification"), 1.0);
  EXPECT_EQ(f.registry.Value("ftl.free_blocks"),
            static_cast<double>(f.ftl.core().blocks().total_free_units()));
  EXPECT_LE(f.registry.Value("ftl.erase_count_min"), f.registry.Value("ftl.erase_count_mean"));
  EXPECT_GT(f.registry.Value("ftl.erase_count_max"), 0);
}

TEST(PageFtl, ForegroundGcStallsWritesWhenOutOfSpace) {
  // A deep queue of writes outruns GC (erase 3 ms, programs 500 us): writes
  // must wait for GC to free blocks, and then all complete.
  FtlConfig c = Config();
  c.gc_threshold = sim::Ratio{0};
  c.gc_fg_threshold = 1;
  Fixture f(c);
  f.Precondition(PreconditionSpec{1.0, 1.0, 3});
  const uint64_t u = f.ftl.logical_pages();
  sim::Rng rng(2, "t");
  Driver d(&f.ftl, &f.q, 64, 2 * u, [] { return FtlOp::Kind::kWrite; }, [&] { return Lpn{rng.Uniform(u)}; });
  d.Start();
  f.q.Run();
  EXPECT_EQ(d.completed, 2 * u);
  EXPECT_GT(f.ftl.write_stalls(), 0u);
  EXPECT_GT(f.ftl.gc_runs_fg(), 0u);
  const sim::Histogram* stall = f.registry.FindHistogram("ftl.write_stall_time");
  ASSERT_NE(stall, nullptr);
  EXPECT_EQ(stall->count(), f.ftl.write_stalls());
  EXPECT_GE(stall->max(), sim::Ms(3).ns()) << "a stalled write waits at least for an erase";
  EXPECT_GE(d.max_latency, sim::Ms(3));
  EXPECT_EQ(f.array.violations(), 0u) << f.array.first_violation();
  EXPECT_EQ(f.ftl.CheckConsistency(), "");
  for (uint32_t g = 0; g < f.ftl.core().blocks().groups(); ++g) {
    EXPECT_GE(f.ftl.core().blocks().free_units(g), 1u) << "the GC reserve is never given to host writes";
  }
}

TEST(PageFtl, OverwritesOfPagesBeingRelocatedAreHandled) {
  // Hot pages are rewritten constantly while GC moves them; copies whose
  // data went stale during the GC read are dropped, and the mapping stays
  // exact.
  for (const char* mapping : {"page", "block"}) {
    FtlConfig c = Config();
    c.mapping = mapping;
    c.victim = "fifo";  // victims still hold many hot pages
    c.gc_pages_in_flight = 8;
    Fixture f(c);
    f.Precondition(PreconditionSpec{1.0, 0.5, 3});
    const uint64_t u = f.ftl.logical_pages();
    sim::Rng rng(3, "t");
    Driver d(&f.ftl, &f.q, 32, 4 * u,
             [&] { return rng.Uniform(4) == 0 ? FtlOp::Kind::kRead : FtlOp::Kind::kWrite; },
             [&] { return Lpn{rng.Uniform(2) == 0 ? rng.Uniform(64) : rng.Uniform(u)}; });
    d.Start();
    f.q.Run();
    EXPECT_EQ(d.completed, 4 * u) << mapping;
    EXPECT_GT(f.ftl.gc_stale_copies(), 0u) << mapping;
    EXPECT_EQ(f.array.violations(), 0u) << mapping << ": " << f.array.first_violation();
    EXPECT_EQ(f.ftl.CheckConsistency(), "") << mapping;
  }
}

TEST(PageFtl, TrimUnmapsImmediately) {
  FtlConfig c = Config();
  c.unmapped_read_latency = sim::Us(1);
  Fixture f(c);
  f.Precondition(PreconditionSpec{1.0, 0.0, 1});
  f.ftl.Trim(Lpn{100}, 50);
  Collect client;
  FtlOp r;
  r.kind = FtlOp::Kind::kRead;
  r.lpn = Lpn{120};
  r.client = &client;
  f.ftl.Submit(&r);
  f.q.Run();
  EXPECT_EQ(r.finish_time - r.submit_time, sim::Us(1));
  EXPECT_EQ(f.registry.Value("ftl.trims"), 50);
  EXPECT_EQ(f.registry.Value("ftl.trim_commands"), 1);
  EXPECT_EQ(f.ftl.CheckConsistency(), "");
}

// Every allocation scheme, both mappings: timed random read/write traffic
// with GC keeps NAND rules and the mapping exact.
class PageFtlSchemes : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(PageFtlSchemes, RandomTrafficStaysConsistent) {
  FtlConfig c = Config();
  c.allocation = std::get<0>(GetParam());
  c.mapping = std::get<1>(GetParam());
  c.hot_cold = true;
  Fixture f(c, Geo(64, 8));
  f.Precondition(PreconditionSpec{1.0, 0.5, 3});
  const uint64_t u = f.ftl.logical_pages();
  sim::Rng rng(4, "t");
  Driver d(&f.ftl, &f.q, 16, 3 * u, [&] { return rng.Uniform(3) == 0 ? FtlOp::Kind::kRead : FtlOp::Kind::kWrite; },
           [&] { return Lpn{rng.Uniform(u)}; });
  d.Start();
  f.q.Run();
  EXPECT_EQ(d.completed, 3 * u);
  EXPECT_GT(f.ftl.gc_copies(), 0u);
  EXPECT_EQ(f.array.violations(), 0u) << f.array.first_violation();
  EXPECT_TRUE(f.ftl.Idle());
  EXPECT_EQ(f.ftl.CheckConsistency(), "");
}

INSTANTIATE_TEST_SUITE_P(All, PageFtlSchemes,
                         ::testing::Combine(::testing::ValuesIn(AllocatorNames()),
                                            ::testing::Values("page", "block")),
                         [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param); });

// Mapping cache: a miss reads its translation page on the simulated clock
// before the op proceeds; a hit does not.
TEST(PageFtl, MapCacheMissReadsTheTranslationPageFirst) {
  FtlConfig c = Config();
  c.map_cache.entries = 2;
  c.map_cache.entry_bytes = 512;  // 8 entries per translation page
  Fixture f(c, Geo(256, 16));
  Collect client;
  FtlOp op;
  op.client = &client;
  auto run = [&](FtlOp::Kind kind, uint64_t lpn) {
    op.kind = kind;
    op.lpn = Lpn{lpn};
    f.ftl.Submit(&op);
    f.q.Run();
    return op.finish_time - op.submit_time;
  };
  for (uint64_t l : {0, 8, 16}) run(FtlOp::Kind::kWrite, l);
  // Lpn 0 was evicted dirty by lpn 16: its translation page was written
  // (no read first: it had no earlier version).
  EXPECT_EQ(f.registry.Value("ftl.map_cache.translation_writes"), 1);
  // Reads of lpns whose translation page was never written miss without a
  // flash read; they evict the dirty entries 8 and 16.
  run(FtlOp::Kind::kRead, 56);
  run(FtlOp::Kind::kRead, 64);
  EXPECT_EQ(f.array.executed(FlashOpKind::kProgram, CmdSource::kMeta), 3u);
  EXPECT_EQ(f.array.executed(FlashOpKind::kRead, CmdSource::kMeta), 0u);
  // Reading lpn 0 misses: translation read (50 us) then the data read (50 us).
  EXPECT_EQ(run(FtlOp::Kind::kRead, 0), sim::Us(100));
  EXPECT_EQ(f.array.executed(FlashOpKind::kRead, CmdSource::kMeta), 1u);
  // Now cached: the data read only.
  EXPECT_EQ(run(FtlOp::Kind::kRead, 0), sim::Us(50));
  EXPECT_EQ(f.registry.Value("ftl.map_cache.hits"), 1);
  EXPECT_EQ(f.registry.Value("ftl.map_cache.misses"), 6);
  EXPECT_EQ(f.registry.Value("ftl.map_cache.translation_reads"), 1);
  EXPECT_EQ(f.array.violations(), 0u) << f.array.first_violation();
  EXPECT_TRUE(f.ftl.Idle());
  EXPECT_EQ(f.ftl.CheckConsistency(), "");
}

// A small cache under timed random traffic with heavy GC: translation pages
// are relocated by GC and stay exact; writes of one Lpn keep their order.
TEST(PageFtl, MapCacheTranslationPagesSurviveTimedGc) {
  FtlConfig c = Config();
  c.map_cache.entries = 16;
  c.map_cache.entry_bytes = 256;  // 16 entries per translation page: many pages
  Fixture f(c, Geo(64, 8));
  const uint64_t u = f.ftl.logical_pages();
  f.Precondition(PreconditionSpec{1.0, 0.5, 3});
  sim::Rng rng(4, "t");
  Driver d(&f.ftl, &f.q, 16, 6 * u, [&] { return rng.Uniform(3) == 0 ? FtlOp::Kind::kRead : FtlOp::Kind::kWrite; },
           [&] { return Lpn{rng.Uniform(u)}; });
  d.Start();
  f.q.Run();
  EXPECT_EQ(d.completed, 6 * u);
  EXPECT_GT(f.registry.Value("ftl.map_cache.translation_gc_copies"), 0);
  EXPECT_GT(f.registry.Value("ftl.map_cache.translation_reads"), 0);
  EXPECT_GT(f.array.executed(FlashOpKind::kRead, CmdSource::kMeta), 0u);
  // Translation programs count in write amplification.
  const double host = f.registry.Value("ftl.host_writes");
  EXPECT_DOUBLE_EQ(f.registry.Value("ftl.write_amplification"),
                   (host + f.registry.Value("ftl.gc_copies") + f.registry.Value("ftl.map_cache.translation_writes")) /
                       host);
  EXPECT_EQ(f.array.violations(), 0u) << f.array.first_violation();
  EXPECT_TRUE(f.ftl.Idle());
  EXPECT_EQ(f.ftl.CheckConsistency(), "");
  const FtlCore& core = f.ftl.core();
  for (uint64_t t = 0; t < core.translation_pages(); ++t) {
    const flash::Ppn p = core.Lookup(core.TranslationLpn(t));
    ASSERT_TRUE(p.valid()) << "translation page " << t;
    EXPECT_TRUE(core.mapping().IsValid(p));
  }
  for (uint64_t l = 0; l < u; ++l) ASSERT_TRUE(core.Lookup(Lpn{l}).valid()) << l;
}

TEST(PageFtl, MapCacheKeepsWriteOrderOfOneLpn) {
  FtlConfig c = Config();
  c.map_cache.entries = 1;
  Fixture f(c);
  Collect client;
  // Give translation page 0 a flash copy: write lpn 0, evict it dirty.
  std::vector<FtlOp> ops(5);
  for (int i = 0; i < 2; ++i) {
    ops[i].kind = FtlOp::Kind::kWrite;
    ops[i].lpn = Lpn{static_cast<uint64_t>(i)};
    ops[i].client = &client;
    f.ftl.Submit(&ops[i]);
    f.q.Run();
  }
  // Lpn 5 misses (loads page 0), then lpn 5 again (would hit): the second
  // write must still land last.
  ops[2].kind = ops[3].kind = FtlOp::Kind::kWrite;
  ops[2].lpn = ops[3].lpn = Lpn{5};
  ops[2].client = ops[3].client = &client;
  const sim::SimTime t0 = f.q.now();
  const size_t n0 = f.recorder.log.size();
  f.ftl.Submit(&ops[2]);
  f.ftl.Submit(&ops[3]);
  f.q.Run();
  ASSERT_EQ(client.done.size(), 4u);
  // The second write waited for the load too (it would have hit): neither
  // data program starts before the translation read (50 us) completes, so
  // they are placed in submission order.
  int programs = 0;
  for (size_t i = n0; i < f.recorder.log.size(); ++i) {
    const RecordingArray::Entry& e = f.recorder.log[i];
    if (e.kind != FlashOpKind::kProgram || e.source != CmdSource::kHost) continue;
    ++programs;
    EXPECT_GE(e.time - t0, sim::Us(50));
  }
  EXPECT_EQ(programs, 2);
  EXPECT_GE(ops[3].finish_time - ops[3].submit_time, sim::Us(550));
  EXPECT_EQ(f.ftl.CheckConsistency(), "");
}

// Timed static wear leveling: moves run as GC runs of their own, traffic
// stays consistent, the stats report them, and the erase-count spread of a
// hot/cold workload narrows against no wear leveling.
TEST(PageFtl, WearLevelingMovesColdDataOnTheClock) {
  auto run = [](const WearLevelingConfig& wl) {
    FtlConfig c = Config();
    c.wear_leveling = wl;
    Fixture f(c, Geo(64, 8));
    const uint64_t u = f.ftl.logical_pages();
    uint64_t next = 0;
    Driver fill(&f.ftl, &f.q, 16, u, [] { return FtlOp::Kind::kWrite; }, [&] { return Lpn{next++}; });
    fill.Start();
    f.q.Run();
    sim::Rng rng(6, "hot");
    Driver hot(&f.ftl, &f.q, 16, 30 * u, [] { return FtlOp::Kind::kWrite; },
               [&] { return Lpn{rng.Uniform(u / 10)}; });
    hot.Start();
    f.q.Run();
    EXPECT_EQ(hot.completed, 30 * u);
    EXPECT_EQ(f.array.violations(), 0u) << f.array.first_violation();
    EXPECT_TRUE(f.ftl.Idle());
    EXPECT_EQ(f.ftl.CheckConsistency(), "");
    const EraseCountSummary e = f.ftl.core().EraseCounts();
    if (wl.enabled()) {
      std::printf("timed wear leveling: %.0f runs, %.0f pages moved, spread %.0f, erases %.0f\n",
                  f.registry.Value("ftl.wear_leveling.runs"), f.registry.Value("ftl.wear_leveling.copies"),
                  f.registry.Value("ftl.wear_leveling.erase_count_spread"), f.registry.Value("ftl.erases"));
      EXPECT_GT(f.registry.Value("ftl.wear_leveling.runs"), 0);
      EXPECT_GT(f.registry.Value("ftl.wear_leveling.copies"), 0);
      EXPECT_EQ(f.registry.Value("ftl.wear_leveling.erase_count_spread"), e.max - e.min);
    } else {
      EXPECT_FALSE(f.registry.Has("ftl.wear_leveling.runs")) << "no stats when off";
    }
    return e.max - e.min;
  };
  WearLevelingConfig wl;
  wl.dynamic = true;
  wl.static_gap = 4;
  const uint32_t none = run(WearLevelingConfig{});
  const uint32_t leveled = run(wl);
  std::printf("timed erase-count spread: none %u, wear leveling %u\n", none, leveled);
  EXPECT_LT(leveled, none / 2);
}

// gc_max_per_die: at no time do more background GC runs than the limit
// work on one die's planes; without the limit both planes of a die do.
TEST(PageFtl, GcMaxPerDieLimitsConcurrentBackgroundGc) {
  auto run = [](uint32_t limit, uint32_t* max_seen_planes) {
    FtlConfig c = Config();
    c.gc_max_per_die = limit;
    c.gc_threshold = sim::Ratio{0.1};
    Fixture f(c, Geo(64, 8));
    const uint64_t u = f.ftl.logical_pages();
    f.Precondition(PreconditionSpec{1.0, 1.0, 3});
    const flash::Geometry& g = f.array.geometry();
    uint32_t max_counted = 0;
    *max_seen_planes = 0;
    // Background runs active on the planes of one die, and the count the
    // limit keeps.
    f.recorder.on_submit = [&] {
      for (uint32_t d = 0; d < g.dies(); ++d) {
        max_counted = std::max(max_counted, f.ftl.background_gc_on_die(d));
        uint32_t busy = 0;
        for (uint32_t p = 0; p < g.planes_per_die; ++p) busy += f.ftl.BackgroundGcActive(d * g.planes_per_die + p);
        *max_seen_planes = std::max(*max_seen_planes, busy);
      }
    };
    sim::Rng rng(12, "t");
    Driver d(&f.ftl, &f.q, 4, 4 * u, [] { return FtlOp::Kind::kWrite; }, [&] { return Lpn{rng.Uniform(u)}; });
    d.Start();
    f.q.Run();
    EXPECT_EQ(d.completed, 4 * u);
    EXPECT_EQ(f.array.violations(), 0u) << f.array.first_violation();
    EXPECT_TRUE(f.ftl.Idle());
    EXPECT_EQ(f.ftl.CheckConsistency(), "");
    if (limit != 0) {
      EXPECT_LE(max_counted, limit);
      EXPECT_GT(f.registry.Value("ftl.gc_deferred"), 0);
    }
    return f.ftl.gc_runs_bg();
  };
  uint32_t unlimited_planes = 0, limited_planes = 0;
  EXPECT_GT(run(0, &unlimited_planes), 0u);
  EXPECT_GT(run(1, &limited_planes), 0u);
  EXPECT_EQ(unlimited_planes, 2u) << "without a limit both planes of a die collect at once";
  EXPECT_EQ(limited_planes, 1u);
}

// gc_preemptible: on the same mixed workload, with GC busy throughout, host
// reads no longer queue behind the page copies GC keeps starting on their
// die, so the read tail shrinks; the mapping stays consistent.
TEST(PageFtl, PreemptibleGcLowersHostReadTail) {
  struct Outcome {
    int64_t p99 = 0;
    int64_t mean = 0;
    uint64_t gc_copies = 0;
    double preemptions = 0;
  };
  auto run = [](bool preemptible) {
    FtlConfig c = Config();
    c.gc_preemptible = preemptible;
    c.gc_threshold_units = 4;  // background GC starts 3 units above the reserve: room to yield
    Fixture f(c, Geo(64, 128));
    const uint64_t u = f.ftl.logical_pages();
    f.Precondition(PreconditionSpec{1.0, 1.0, 3});
    sim::Rng rng(21, "t");
    // 95 % reads, 5 % writes, uniformly random, two ops outstanding: the
    // writes keep background GC running on every plane for the whole run.
    Driver d(&f.ftl, &f.q, 2, 4 * u, [&] { return rng.Uniform(20) == 0 ? FtlOp::Kind::kWrite : FtlOp::Kind::kRead; },
             [&] { return Lpn{rng.Uniform(u)}; });
    d.Start();
    f.q.Run();
    EXPECT_EQ(d.completed, 4 * u);
    EXPECT_EQ(f.array.violations(), 0u) << f.array.first_violation();
    EXPECT_TRUE(f.ftl.Idle());
    EXPECT_EQ(f.ftl.CheckConsistency(), "");
    EXPECT_EQ(f.ftl.gc_runs_fg(), 0u);
    Outcome o;
    o.p99 = d.read_latency.Percentile(0.99);
    o.mean = static_cast<int64_t>(d.read_latency.mean());
    o.gc_copies = f.ftl.gc_copies();
    o.preemptions = preemptible ? f.registry.Value("ftl.gc_preemptions") : 0;
    return o;
  };
  const Outcome off = run(false);
  const Outcome on = run(true);
  std::printf("host read p99: preemptible off %.0f us, on %.0f us (mean %.0f / %.0f us); gc copies %llu / %llu; "
              "preemptions %.0f\n",
              off.p99 / 1e3, on.p99 / 1e3, off.mean / 1e3, on.mean / 1e3,
              static_cast<unsigned long long>(off.gc_copies), static_cast<unsigned long long>(on.gc_copies),
              on.preemptions);
  EXPECT_GT(off.gc_copies, 10000u) << "GC busy throughout";
  EXPECT_GT(on.gc_copies, off.gc_copies * 9 / 10) << "GC keeps reclaiming space with preemption";
  EXPECT_GT(on.preemptions, 0);
  // The rest of the tail is erases and host programs, which GC cannot give
  // back once started (no suspend on this array).
  EXPECT_LT(on.p99 * 10, off.p99 * 9) << "read p99 at least 10 % lower with preemptible GC";
}

// gc_preemptible never starves foreground GC: under a write-heavy load with
// reads spread over every die, writes that need space get it (the run stops
// yielding once writes wait or the group is down to its reserve).
TEST(PageFtl, PreemptibleGcStillCompletesForegroundGc) {
  FtlConfig c = Config();
  c.gc_preemptible = true;
  Fixture f(c, Geo(64, 8));
  const uint64_t u = f.ftl.logical_pages();
  f.Precondition(PreconditionSpec{1.0, 1.0, 5});
  sim::Rng rng(33, "t");
  Driver d(&f.ftl, &f.q, 32, 6 * u, [&] { return rng.Uniform(5) == 0 ? FtlOp::Kind::kRead : FtlOp::Kind::kWrite; },
           [&] { return Lpn{rng.Uniform(u)}; });
  d.Start();
  f.q.Run();
  EXPECT_EQ(d.completed, 6 * u) << "every op completed: no GC was left preempted for good";
  EXPECT_TRUE(f.ftl.Idle());
  EXPECT_EQ(f.array.violations(), 0u) << f.array.first_violation();
  EXPECT_EQ(f.ftl.CheckConsistency(), "");
  EXPECT_GT(f.ftl.gc_runs_fg(), 0u) << "the load needs foreground GC";
  EXPECT_GT(f.registry.Value("ftl.gc_preemptions"), 0);
}

TEST(PageFtl, PreconditionMatchesLongTimedWarmup) {
  // WA over the same measured window after (a) functional preconditioning
  // (writing the whole device, and replicating one group's state) and (b) a
  // timed sequential fill plus a long timed random warm-up.
  FtlConfig c = Config();
  c.op = sim::Ratio{0.2};
  const flash::Geometry g = Geo(128, 32);
  enum Warmup { kTimed, kExact, kReplicate };
  auto measure = [&](Warmup how) {
    Fixture f(c, g);
    const uint64_t u = f.ftl.logical_pages();
    sim::Rng rng(9, "warm");
    if (how != kTimed) {
      f.Precondition(PreconditionSpec{1.0, 3.0, 5, how == kReplicate});
    } else {
      uint64_t next = 0;
      Driver fill(&f.ftl, &f.q, 16, u, [] { return FtlOp::Kind::kWrite; }, [&] { return Lpn{next++}; });
      fill.Start();
      f.q.Run();
      Driver warm(&f.ftl, &f.q, 16, 6 * u, [] { return FtlOp::Kind::kWrite; }, [&] { return Lpn{rng.Uniform(u)}; });
      warm.Start();
      f.q.Run();
    }
    const uint64_t h0 = f.ftl.host_writes(), g0 = f.ftl.gc_copies();
    sim::Rng mrng(10, "measure");
    Driver m(&f.ftl, &f.q, 16, 4 * u, [] { return FtlOp::Kind::kWrite; }, [&] { return Lpn{mrng.Uniform(u)}; });
    m.Start();
    f.q.Run();
    EXPECT_EQ(f.ftl.CheckConsistency(), "");
    const double h = static_cast<double>(f.ftl.host_writes() - h0);
    return (h + static_cast<double>(f.ftl.gc_copies() - g0)) / h;
  };
  const double pre = measure(kExact);
  const double copied = measure(kReplicate);
  const double warm = measure(kTimed);
  std::printf("WA after functional precondition %.4f (replicated %.4f), after timed warm-up %.4f\n", pre, copied,
              warm);
  EXPECT_NEAR(pre / warm, 1.0, 0.03) << "preconditioned " << pre << " vs timed warm-up " << warm;
  EXPECT_NEAR(copied / warm, 1.0, 0.03) << "replicated " << copied << " vs timed warm-up " << warm;
}

TEST(PageFtl, MakeFtlValidatesAndPreconditions) {
  sim::EventQueue q;
  fakes::FakeFlashArray array(Geo(), &q);
  sim::StatsRegistry reg;
  FtlConfig bad = Config();
  bad.victim = "oldest";
  auto r = MakeFtl(bad, &array, &q, reg.Root().Group("ftl"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().rfind("ftl.victim: unknown victim policy 'oldest'", 0), 0u);

  FtlConfig good = Config();
  good.precondition.enabled = true;
  good.precondition.random_overwrites = 0.5;
  auto ok = MakeFtl(good, &array, &q, reg.Root().Group("ftl"));
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ((*ok)->logical_pages(), static_cast<uint64_t>(Geo().pages() / 1.25));
  EXPECT_GT(reg.Value("ftl.precondition.host_writes"), 1.4 * static_cast<double>((*ok)->logical_pages()));
  EXPECT_EQ(reg.Value("ftl.host_writes"), 0) << "timed counters start after preconditioning";
}

// Regression (timed): skewed write streams used to fill one group with valid
// data, after which foreground GC found only fully valid victims and the FTL
// aborted. Randomized over tiny geometries, op near the smallest valid one,
// every allocation scheme and victim policy, hot/cold, deep queues: every
// write completes, NAND rules hold and the mapping stays exact.
TEST(PageFtl, SkewedStreamsNeverExhaustAGroup) {
  sim::Rng rng(12, "skew");
  const std::vector<std::string> allocations = AllocatorNames();
  const std::vector<std::string> victims = VictimPolicyNames();
  uint64_t redirected = 0;
  int runs = 0;
  for (int trial = 0; trial < 300; ++trial) {
    flash::Geometry g = Geo(8 + static_cast<uint32_t>(rng.Uniform(25)), 4u << rng.Uniform(3));
    g.channels = 1 + static_cast<uint32_t>(rng.Uniform(2));
    g.dies_per_chip = 1 + static_cast<uint32_t>(rng.Uniform(2));
    FtlConfig c = Config();
    c.allocation = allocations[trial % allocations.size()];
    c.victim = victims[(trial / allocations.size()) % victims.size()];
    c.mapping = rng.Uniform(2) == 0 ? "page" : "block";
    c.hot_cold = rng.Uniform(2) == 0;
    c.gc_threshold = sim::Ratio{0};
    c.gc_pages_in_flight = 1 + static_cast<uint32_t>(rng.Uniform(8));
    const double op = SmallestValidOp(c, g, 0.01, 0.01 * static_cast<double>(rng.Uniform(10)));
    if (op == 0) continue;
    c.op = sim::Ratio{op};
    Fixture f(c, g);
    const uint64_t u = f.ftl.logical_pages();
    if (u < 2) continue;
    SkewedStream stream = SkewedStream::Random(rng, g, u, c.hot_cold);
    const std::string what = c.allocation + "/" + c.victim + "/" + c.mapping + (c.hot_cold ? "/hot_cold" : "") +
                             " op=" + std::to_string(op) + " " + std::to_string(g.planes()) + " planes x " +
                             std::to_string(g.blocks_per_plane) + " x " + std::to_string(g.pages_per_block) + ", " +
                             stream.Describe();
    const uint64_t writes = 4 * g.pages();
    SkewedStream::Write next;
    Driver d(&f.ftl, &f.q, 1 + static_cast<uint32_t>(rng.Uniform(64)), writes, [] { return FtlOp::Kind::kWrite; },
             [&] {
               next = stream.Next();
               return next.lpn;
             });
    d.temperature = [&] { return next.cold ? Temperature::kCold : Temperature::kHot; };
    d.Start();
    f.q.Run();
    ASSERT_EQ(d.completed, writes) << what;
    ASSERT_TRUE(f.ftl.Idle()) << what;
    ASSERT_EQ(f.array.violations(), 0u) << what << ": " << f.array.first_violation();
    ASSERT_EQ(f.ftl.CheckConsistency(), "") << what;
    redirected += f.ftl.redirected_writes();
    ++runs;
  }
  EXPECT_GE(runs, 270);
  EXPECT_GT(redirected, 0u) << "the streams reach the data cap of some group";
}

}  // namespace
}  // namespace ftl
