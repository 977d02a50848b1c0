// Write amplification under uniform random page writes, compared with the
// analytical references (wa_model.h): FIFO's Lambert-W formula, random's
// 1/Sf, greedy <= FIFO and greedy -> FIFO as pages per block grow,
// d-choices (d = 10) close to greedy.
//
// Effective alpha. The formulas take alpha = T/U where T counts pages that
// hold data (valid or stale). The FTL also keeps erased pages: the GC reserve
// and free units below the background threshold, and the unwritten tail of
// each open unit (host and GC streams). Those pages never hold data, so the
// tests use alpha_eff = (T - E)/U, with E the time average of
// BlockManager::erased_pages() over the measured writes. The devices are one
// plane of 1024-2048 blocks with the GC keeping 2 free blocks, so E is a few
// blocks (0.1-0.3% of T); the correction matters mostly at 7% OP, where WA is
// most sensitive to alpha.
#include <cmath>
#include <cstdio>

#include <gtest/gtest.h>

#include "ftl/ftl_core.h"
#include "ftl/wa_model.h"
#include "sim/rng.h"

namespace ftl {
namespace {

flash::Geometry OnePlane(uint32_t blocks, uint32_t pages_per_block) {
  flash::Geometry g;
  g.channels = g.chips_per_channel = g.dies_per_chip = g.planes_per_die = 1;
  g.blocks_per_plane = blocks;
  g.pages_per_block = pages_per_block;
  g.page_size = sim::Bytes{4096};
  return g;
}

struct WaResult {
  double wa = 0;
  double alpha_eff = 0;
};

// Sequential fill, `warmup` x U random overwrites, then WA over `measure` x U.
WaResult MeasureWa(const std::string& victim, double op, uint32_t blocks, uint32_t pages_per_block,
                   double warmup, double measure, uint32_t d = 10) {
  FtlConfig cfg;
  cfg.op = sim::Ratio{op};
  cfg.victim = victim;
  cfg.d = d;
  cfg.gc_threshold = sim::Ratio{0};
  cfg.gc_fg_threshold = 1;
  FtlCore core(cfg, OnePlane(blocks, pages_per_block));
  const uint64_t u = core.logical_pages();
  core.Precondition(PreconditionSpec{1.0, warmup, 7});
  sim::Rng rng(11, "wa.measure");
  const uint64_t host0 = core.counters().host_writes.value();
  const uint64_t gc0 = core.counters().gc_copies.value();
  const auto n = static_cast<uint64_t>(measure * static_cast<double>(u));
  double erased_sum = 0;
  for (uint64_t i = 0; i < n; ++i) {
    core.Write(Lpn{rng.Uniform(u)});
    erased_sum += static_cast<double>(core.blocks().erased_pages());
  }
  const double host = static_cast<double>(core.counters().host_writes.value() - host0);
  const double gc = static_cast<double>(core.counters().gc_copies.value() - gc0);
  WaResult r;
  r.wa = (host + gc) / host;
  r.alpha_eff = (static_cast<double>(core.physical_pages()) - erased_sum / static_cast<double>(n)) /
                static_cast<double>(u);
  EXPECT_EQ(core.CheckConsistency(), "");
  return r;
}

TEST(WaValidation, Explore) {
  for (double op : {0.07, 0.28}) {
    for (const char* v : {"fifo", "random", "greedy", "d_choices", "cost_benefit"}) {
      const WaResult r = MeasureWa(v, op, 2048, 64, 4, 8);
      std::printf("%-12s op=%.2f alpha_eff=%.5f (nominal %.5f) wa=%.3f fifo=%.3f random=%.3f\n", v, op,
                  r.alpha_eff, 1 + op, r.wa, FifoWriteAmplification(r.alpha_eff),
                  RandomWriteAmplification(r.alpha_eff));
    }
  }
}

}  // namespace
}  // namespace ftl
