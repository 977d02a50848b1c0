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
#include <map>
#include <string>
#include <tuple>

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
  CHECK(sim::SetKey(sim::SchemaOf<FtlConfig>(), &cfg, "d_choices.d", std::to_string(d)).ok());
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

// Every measurement the tests below use, computed once: one plane with the
// same physical size (131072 pages) at 16, 64 and 256 pages per block.
struct Key {
  std::string victim;
  double op;
  uint32_t pages_per_block;
  bool operator<(const Key& o) const {
    return std::tie(victim, op, pages_per_block) < std::tie(o.victim, o.op, o.pages_per_block);
  }
};
constexpr uint32_t kPhysicalPages = 131072;
constexpr double kOps[] = {0.07, 0.28};
constexpr uint32_t kBlockSizes[] = {16, 64, 256};

const WaResult& Get(const std::string& victim, double op, uint32_t b) {
  static std::map<Key, WaResult> cache;
  const Key k{victim, op, b};
  auto it = cache.find(k);
  if (it == cache.end()) it = cache.emplace(k, MeasureWa(victim, op, kPhysicalPages / b, b, 3, 6)).first;
  return it->second;
}

TEST(WaValidation, FifoMatchesLambertWFormula) {
  for (double op : kOps) {
    for (uint32_t b : kBlockSizes) {
      const WaResult& r = Get("fifo", op, b);
      const double model = FifoWriteAmplification(r.alpha_eff);
      EXPECT_NEAR(r.wa / model, 1.0, 0.03) << "op " << op << " b " << b << ": measured " << r.wa << " model "
                                           << model << " (alpha_eff " << r.alpha_eff << ")";
    }
  }
}

TEST(WaValidation, RandomMatchesOneOverSpareFactor) {
  for (double op : kOps) {
    const WaResult& r = Get("random", op, 64);
    const double model = RandomWriteAmplification(r.alpha_eff);
    EXPECT_NEAR(r.wa / model, 1.0, 0.03) << "op " << op << ": measured " << r.wa << " model " << model;
  }
}

TEST(WaValidation, GreedyAtMostFifoAndApproachesItAsBlocksGrow) {
  for (double op : kOps) {
    double previous_ratio = 0;
    for (uint32_t b : kBlockSizes) {
      const double greedy = Get("greedy", op, b).wa;
      const double fifo = Get("fifo", op, b).wa;
      EXPECT_LE(greedy, fifo) << "op " << op << " b " << b;
      const double ratio = greedy / fifo;
      EXPECT_GT(ratio, previous_ratio) << "op " << op << " b " << b << ": greedy/fifo must rise with b";
      previous_ratio = ratio;
    }
    EXPECT_GT(previous_ratio, 0.95) << "op " << op << ": at 256 pages per block greedy is within 5% of FIFO";
  }
}

TEST(WaValidation, DChoicesCloseToGreedy) {
  for (double op : kOps) {
    for (uint32_t b : {64u, 256u}) {
      const double d10 = Get("d_choices", op, b).wa;
      const double greedy = Get("greedy", op, b).wa;
      EXPECT_GE(d10, greedy) << "op " << op << " b " << b;
      EXPECT_LT(d10 / greedy, 1.06) << "op " << op << " b " << b;
    }
    EXPECT_LT(Get("d_choices", op, 64).wa, 0.7 * Get("random", op, 64).wa) << "d = 10 is far better than d = 1";
  }
}

TEST(WaValidation, CostBenefitBetweenGreedyAndFifo) {
  for (double op : kOps) {
    const double cb = Get("cost_benefit", op, 64).wa;
    EXPECT_GE(cb, Get("greedy", op, 64).wa) << op;
    EXPECT_LE(cb, Get("fifo", op, 64).wa) << op;
  }
}

TEST(WaValidation, PrintTable) {
  std::printf("\n%-12s %5s %4s %9s %8s %8s %8s %8s\n", "policy", "OP", "b", "alpha_eff", "WA", "FIFO(a)",
              "1/Sf(a)", "FIFO(1+OP)");
  for (double op : kOps) {
    for (uint32_t b : kBlockSizes) {
      for (const char* v : {"fifo", "greedy", "d_choices", "random", "cost_benefit"}) {
        const bool measured_everywhere = std::string(v) == "fifo" || std::string(v) == "greedy" ||
                                         std::string(v) == "d_choices";
        if (!measured_everywhere && b != 64) continue;
        const WaResult& r = Get(v, op, b);
        std::printf("%-12s %4.0f%% %4u %9.5f %8.3f %8.3f %8.3f %8.3f\n", v, op * 100, b, r.alpha_eff, r.wa,
                    FifoWriteAmplification(r.alpha_eff), RandomWriteAmplification(r.alpha_eff),
                    FifoWriteAmplification(1 + op));
      }
    }
  }
}

}  // namespace
}  // namespace ftl
