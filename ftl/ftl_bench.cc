// FTL benchmarks:
//   BM_FunctionalRandomWrite  steady-state uniform random page writes with
//                             inline GC (host pages/s; programs/s counts GC)
//   BM_Precondition           sequential fill + 1x random overwrite
//   BM_TimedRandomWrite       PageFtl on the fakes::FakeFlashArray at QD 32:
//                             simulated host writes per wall-second
//   BM_Memory1TiB             table bytes of a 1 TiB (raw) device with 4 KiB
//                             pages, OP 7%, by mapping unit and block size
#include <benchmark/benchmark.h>

#include <memory>

#include "tests/fakes/fake_flash_array.h"
#include "ftl/ftl_core.h"
#include "ftl/page_ftl.h"
#include "sim/rng.h"

namespace ftl {
namespace {

// 8 planes x 512 blocks x 256 pages of 4 KiB: 1M pages (4 GiB).
flash::Geometry BenchGeometry() {
  flash::Geometry g;
  g.channels = 2;
  g.chips_per_channel = 2;
  g.dies_per_chip = 1;
  g.planes_per_die = 2;
  g.blocks_per_plane = 512;
  g.pages_per_block = 256;
  g.page_size = sim::Bytes{4096};
  return g;
}

const char* const kVictims[] = {"greedy", "fifo", "random", "d_choices", "cost_benefit"};
const char* const kMappings[] = {"page", "block"};

void BM_FunctionalRandomWrite(benchmark::State& state) {
  FtlConfig c;
  c.victim = kVictims[state.range(0)];
  c.mapping = kMappings[state.range(1)];
  c.op = sim::Ratio{0.28};
  FtlCore core(c, BenchGeometry());
  core.Precondition(PreconditionSpec{1.0, 1.0, 1});
  const uint64_t u = core.logical_pages();
  sim::Rng rng(2, "bench");
  const uint64_t h0 = core.counters().host_writes.value(), g0 = core.counters().gc_copies.value();
  for (auto _ : state) core.Write(Lpn{rng.Uniform(u)});
  const double host = static_cast<double>(core.counters().host_writes.value() - h0);
  const double gc = static_cast<double>(core.counters().gc_copies.value() - g0);
  state.SetItemsProcessed(static_cast<int64_t>(host));
  state.counters["programs_per_s"] = benchmark::Counter(host + gc, benchmark::Counter::kIsRate);
  state.counters["wa"] = (host + gc) / host;
  state.SetLabel(std::string(c.victim) + "/" + c.mapping);
}
BENCHMARK(BM_FunctionalRandomWrite)
    ->ArgsProduct({{0, 1, 2, 3, 4}, {0, 1}})
    ->Unit(benchmark::kNanosecond)
    ->MinTime(0.5);

void BM_Precondition(benchmark::State& state) {
  FtlConfig c;
  c.op = sim::Ratio{0.07};
  for (auto _ : state) {
    FtlCore core(c, BenchGeometry());
    core.Precondition(PreconditionSpec{1.0, 1.0, 1});
    const double programs =
        static_cast<double>(core.counters().host_writes.value() + core.counters().gc_copies.value());
    state.counters["programs_per_s"] = benchmark::Counter(programs, benchmark::Counter::kIsRate);
    state.counters["host_pages_per_s"] =
        benchmark::Counter(static_cast<double>(core.counters().host_writes.value()), benchmark::Counter::kIsRate);
  }
}
BENCHMARK(BM_Precondition)->Unit(benchmark::kMillisecond)->Iterations(2);

class Loop final : public FtlClient {
 public:
  Loop(PageFtl* ftl, uint64_t u, uint32_t depth) : ftl_(ftl), u_(u), ops_(depth), rng_(3, "bench.timed") {}
  void Start(uint64_t n) {
    remaining_ = n;
    for (FtlOp& op : ops_) Issue(&op);
  }
  void OnFtlDone(FtlOp* op) override { Issue(op); }

 private:
  void Issue(FtlOp* op) {
    if (remaining_ == 0) return;
    --remaining_;
    op->kind = FtlOp::Kind::kWrite;
    op->lpn = Lpn{rng_.Uniform(u_)};
    op->client = this;
    ftl_->Submit(op);
  }
  PageFtl* ftl_;
  uint64_t u_;
  std::vector<FtlOp> ops_;
  sim::Rng rng_;
  uint64_t remaining_ = 0;
};

void BM_TimedRandomWrite(benchmark::State& state) {
  FtlConfig c;
  c.op = sim::Ratio{0.28};
  sim::EventQueue q;
  fakes::FakeFlashArray array(BenchGeometry(), &q);
  sim::StatsRegistry reg;
  PageFtl ftl(c, &array, &q, reg.Root().Group("ftl"));
  ftl.Precondition(PreconditionSpec{1.0, 1.0, 1});
  for (UnitId u = 0; u < ftl.core().blocks().units(); ++u) {
    array.SetProgrammed(u, ftl.core().blocks().AllocatedPages(u));
  }
  Loop loop(&ftl, ftl.logical_pages(), 32);
  const uint64_t batch = 10000;
  for (auto _ : state) {
    loop.Start(batch);
    q.Run();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * batch));
  state.counters["wa"] = ftl.WriteAmplification();
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(q.events_processed()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TimedRandomWrite)->Unit(benchmark::kMillisecond)->MinTime(1.0);

// 1 TiB raw NAND: 2^28 pages of 4 KiB; 128 planes (8 ch x 4 ways x 2 dies x
// 2 planes), blocks of 256 or 512 pages.
void BM_Memory1TiB(benchmark::State& state) {
  flash::Geometry g;
  g.channels = 8;
  g.chips_per_channel = 4;
  g.dies_per_chip = 2;
  g.planes_per_die = 2;
  g.pages_per_block = static_cast<uint32_t>(state.range(1));
  g.blocks_per_plane = static_cast<uint32_t>((uint64_t{1} << 28) / g.planes() / g.pages_per_block);
  g.page_size = sim::Bytes{4096};
  FtlConfig c;
  c.mapping = kMappings[state.range(0)];
  c.op = sim::Ratio{0.07};
  for (auto _ : state) {
    FtlCore core(c, g);
    benchmark::DoNotOptimize(core.Lookup(Lpn{0}));
    const double gib = static_cast<double>(uint64_t{1} << 30);
    state.counters["total_GiB"] = static_cast<double>(core.MemoryBytes()) / gib;
    state.counters["l2p_GiB"] = static_cast<double>(core.mapping().l2p_bytes()) / gib;
    state.counters["p2l_GiB"] = static_cast<double>(core.mapping().p2l_bytes()) / gib;
    state.counters["units_MiB"] = static_cast<double>(core.blocks().MemoryBytes()) / (1 << 20);
    state.counters["l2p_bits"] = core.mapping().l2p_bits();
    state.counters["p2l_bits"] = core.mapping().p2l_bits();
    state.SetLabel(c.mapping + " mapping, " + std::to_string(g.pages_per_block) + " pages/block");
  }
}
BENCHMARK(BM_Memory1TiB)->ArgsProduct({{0, 1}, {256, 512}})->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ftl
