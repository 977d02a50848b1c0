// Conformance suite: every registered victim policy is driven through the
// BlockManager with a reference model of the candidates and must return a
// candidate of the requested group (kNoUnit iff there is none), be
// deterministic, and honour its own ordering rule.
#include "ftl/victim_policy.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "ftl/ftl_config.h"
#include "sim/config.h"
#include "sim/rng.h"

namespace ftl {
namespace {

flash::Geometry SmallGeometry() {
  flash::Geometry g;
  g.channels = 1;
  g.chips_per_channel = 1;
  g.dies_per_chip = 1;
  g.planes_per_die = 2;
  g.blocks_per_plane = 24;
  g.pages_per_block = 8;
  return g;
}

// Groups of no more units than a unit has pages (greedy keeps one key per
// unit there; SmallGeometry's groups take its buckets).
flash::Geometry SquareGeometry() {
  flash::Geometry g = SmallGeometry();
  g.blocks_per_plane = 16;
  g.pages_per_block = 16;
  return g;
}

class Harness {
 public:
  Harness(const std::string& name, uint32_t d, uint64_t seed, const flash::Geometry& geo)
      : blocks_(geo) {
    VictimPolicyContext ctx;
    ctx.blocks = &blocks_;
    CHECK(sim::SetKey(sim::SchemaOf<FtlConfig>(), &cfg_, "d_choices.d", std::to_string(d)).ok());
    ctx.params = &cfg_.policies;
    ctx.seed = seed;
    auto p = MakeVictimPolicy(name, ctx);
    CHECK(p.ok()) << p.status().message();
    policy_ = std::move(*p);
    blocks_.set_policy(policy_.get());
  }
  ~Harness() { blocks_.set_policy(nullptr); }

  // Writes one whole unit in group g, every page valid.
  void FillUnit(uint32_t g) {
    UnitId u = kNoUnit;
    for (uint32_t i = 0; i < blocks_.unit_pages(); ++i) {
      const flash::Ppn p = blocks_.Allocate(g, Stream::kHostHot);
      if (i == 0) u = blocks_.UnitOf(p);
      blocks_.AddValid(blocks_.UnitOf(p));
      blocks_.ProgramDone(p);
    }
    EXPECT_EQ(blocks_.state(u), UnitState::kFull);
    reached_[u] = ++calls_;
    candidates_[g].insert(u);
    order_[g].push_back(u);
  }
  void Invalidate(UnitId u) {
    blocks_.RemoveValid(u);
    reached_[u] = ++calls_;
  }
  void EraseVictim(UnitId u) {
    while (blocks_.valid(u) > 0) blocks_.RemoveValid(u);
    blocks_.Erase(u);
  }

  FtlConfig cfg_;  // holds the policies' own sections
  BlockManager blocks_;
  std::unique_ptr<VictimPolicy> policy_;
  std::map<uint32_t, std::set<UnitId>> candidates_;
  std::map<uint32_t, std::vector<UnitId>> order_;  // close order
  // When each candidate reached its current valid count (a call counter).
  std::map<UnitId, uint64_t> reached_;
  uint64_t calls_ = 0;
};

// Runs a random scenario; returns the victims chosen. `check` validates each
// choice against the candidates (as they were just before selection).
template <class Check>
std::vector<UnitId> RunScenario(const std::string& name, uint32_t d, uint64_t seed, Check check,
                                const flash::Geometry& geo = SmallGeometry()) {
  Harness h(name, d, seed, geo);
  sim::Rng rng(seed, "scenario");
  std::vector<UnitId> victims;
  for (uint32_t g = 0; g < 2; ++g) {
    EXPECT_EQ(h.blocks_.SelectVictim(g), kNoUnit) << name << ": no candidate yet";
    for (int i = 0; i < 12; ++i) h.FillUnit(g);
  }
  for (int step = 0; step < 3000; ++step) {
    const uint32_t g = static_cast<uint32_t>(rng.Uniform(2));
    auto& cand = h.candidates_[g];
    if (rng.Uniform(3) != 0) {
      // Invalidate a page of a random candidate that still has valid pages.
      std::vector<UnitId> live;
      for (UnitId u : cand) {
        if (h.blocks_.valid(u) > 0) live.push_back(u);
      }
      if (!live.empty()) h.Invalidate(live[rng.Uniform(live.size())]);
      continue;
    }
    if (!cand.empty() && rng.Uniform(8) == 0) {
      // The FTL takes a candidate itself (wear leveling): Remove.
      auto it = cand.begin();
      std::advance(it, static_cast<long>(rng.Uniform(cand.size())));
      const UnitId t = *it;
      h.blocks_.TakeVictim(t);
      cand.erase(t);
      auto& ord = h.order_[g];
      ord.erase(std::find(ord.begin(), ord.end(), t));
      h.EraseVictim(t);
      while (h.blocks_.free_units(g) > 4) h.FillUnit(g);
      continue;
    }
    const std::set<UnitId> before = cand;
    const UnitId v = h.blocks_.SelectVictim(g);
    if (before.empty()) {
      EXPECT_EQ(v, kNoUnit) << name;
    } else {
      EXPECT_TRUE(before.count(v)) << name << " returned unit " << v << ", not a candidate of group " << g;
      check(h, g, before, v);
      cand.erase(v);
      auto& ord = h.order_[g];
      ord.erase(std::find(ord.begin(), ord.end(), v));
      victims.push_back(v);
      h.EraseVictim(v);
    }
    while (h.blocks_.free_units(g) > 4) h.FillUnit(g);
  }
  // Drain: every candidate comes out exactly once, then kNoUnit.
  for (uint32_t g = 0; g < 2; ++g) {
    std::set<UnitId> seen;
    for (UnitId v; (v = h.blocks_.SelectVictim(g)) != kNoUnit;) {
      EXPECT_TRUE(h.candidates_[g].count(v)) << name;
      EXPECT_TRUE(seen.insert(v).second) << name << " returned unit " << v << " twice";
      h.EraseVictim(v);
    }
    EXPECT_EQ(seen.size(), h.candidates_[g].size()) << name;
  }
  return victims;
}

class VictimPolicyConformance : public ::testing::TestWithParam<std::string> {};

TEST_P(VictimPolicyConformance, ReturnsCandidatesDeterministically) {
  auto none = [](Harness&, uint32_t, const std::set<UnitId>&, UnitId) {};
  const auto a = RunScenario(GetParam(), 4, 42, none);
  const auto b = RunScenario(GetParam(), 4, 42, none);
  EXPECT_GT(a.size(), 100u);
  EXPECT_EQ(a, b) << GetParam() << " is not deterministic";
}

INSTANTIATE_TEST_SUITE_P(AllPolicies, VictimPolicyConformance, ::testing::ValuesIn(VictimPolicyNames()),
                         [](const auto& info) { return info.param; });

uint32_t MinValid(Harness& h, const std::set<UnitId>& c) {
  uint32_t m = UINT32_MAX;
  for (UnitId u : c) m = std::min(m, h.blocks_.valid(u));
  return m;
}

TEST(VictimPolicy, GreedyPicksFewestValid) {
  RunScenario("greedy", 1, 3, [](Harness& h, uint32_t, const std::set<UnitId>& c, UnitId v) {
    EXPECT_EQ(h.blocks_.valid(v), MinValid(h, c));
  });
}

// Among the fewest valid, the unit that reached that count first; the same
// in groups of many units (buckets) and of few (one key per unit), and the
// victims repeat run to run.
TEST(VictimPolicy, GreedyBreaksTiesByWhoReachedTheCountFirstInEveryGroupShape) {
  for (const flash::Geometry& geo : {SmallGeometry(), SquareGeometry()}) {
    auto exact = [](Harness& h, uint32_t, const std::set<UnitId>& c, UnitId v) {
      for (UnitId u : c) {
        const auto mine = std::make_pair(h.blocks_.valid(v), h.reached_.at(v));
        const auto other = std::make_pair(h.blocks_.valid(u), h.reached_.at(u));
        EXPECT_LE(mine, other) << "victim " << v << " over unit " << u;
      }
    };
    const auto a = RunScenario("greedy", 1, 11, exact, geo);
    EXPECT_GT(a.size(), 100u);
    EXPECT_EQ(a, RunScenario("greedy", 1, 11, exact, geo));
  }
}

TEST(VictimPolicy, DChoicesWithLargeDPicksFewestValid) {
  RunScenario("d_choices", 2000, 3, [](Harness& h, uint32_t, const std::set<UnitId>& c, UnitId v) {
    EXPECT_EQ(h.blocks_.valid(v), MinValid(h, c));
  });
}

TEST(VictimPolicy, FifoPicksOldest) {
  RunScenario("fifo", 1, 3, [](Harness& h, uint32_t g, const std::set<UnitId>&, UnitId v) {
    EXPECT_EQ(v, h.order_[g].front());
  });
}

TEST(VictimPolicy, CostBenefitMaximizesScore) {
  RunScenario("cost_benefit", 1, 3, [](Harness& h, uint32_t, const std::set<UnitId>& c, UnitId v) {
    auto score = [&](UnitId u) {
      const double util = static_cast<double>(h.blocks_.valid(u)) / h.blocks_.unit_pages();
      if (util == 0) return 1e300;
      return (1 - util) / (2 * util) * (static_cast<double>(h.blocks_.write_seq() - h.blocks_.close_seq(u)) + 1);
    };
    double best = -1;
    for (UnitId u : c) best = std::max(best, score(u));
    EXPECT_DOUBLE_EQ(score(v), best);
  });
}

TEST(VictimPolicy, RandomSpreadsOverCandidates) {
  // With d = 1, d_choices and random pick uniformly: over many selections
  // from a fixed set of 10 candidates every one is chosen.
  for (const char* name : {"random", "d_choices"}) {
    std::map<uint32_t, int> hits;
    for (uint64_t seed = 1; seed <= 200; ++seed) {
      Harness h(name, 1, seed, SmallGeometry());
      for (int i = 0; i < 10; ++i) h.FillUnit(0);
      hits[h.blocks_.SelectVictim(0)]++;
    }
    EXPECT_EQ(hits.size(), 10u) << name;
    for (const auto& [u, n] : hits) EXPECT_LT(n, 50) << name << " unit " << u;
  }
}

TEST(VictimPolicy, UnknownNameListsChoices) {
  BlockManager blocks(SmallGeometry());
  VictimPolicyContext ctx;
  ctx.blocks = &blocks;
  auto p = MakeVictimPolicy("lru", ctx);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "unknown victim policy 'lru'; choices: cost_benefit, d_choices, fifo, greedy, random");
}

}  // namespace
}  // namespace ftl
