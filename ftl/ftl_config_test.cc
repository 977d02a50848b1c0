#include "ftl/ftl_config.h"

#include <gtest/gtest.h>

#include "sim/config.h"

namespace ftl {
namespace {

flash::Geometry Geo() {
  flash::Geometry g;
  g.channels = 2;
  g.chips_per_channel = 1;
  g.dies_per_chip = 1;
  g.planes_per_die = 2;
  g.blocks_per_plane = 64;
  g.pages_per_block = 32;
  return g;
}

TEST(FtlConfig, DeclaredDefaultsMatchInClassDefaults) {
  const FtlConfig d = sim::MakeDefault<FtlConfig>();
  const FtlConfig c;
  EXPECT_EQ(d.op, c.op);
  EXPECT_EQ(d.op_basis, c.op_basis);
  EXPECT_EQ(d.map_cache.entries, c.map_cache.entries);
  EXPECT_EQ(d.map_cache.size, c.map_cache.size);
  EXPECT_EQ(d.map_cache.entry_bytes, c.map_cache.entry_bytes);
  EXPECT_FALSE(d.map_cache.enabled());
  EXPECT_EQ(d.wear_leveling.dynamic, c.wear_leveling.dynamic);
  EXPECT_EQ(d.wear_leveling.static_gap, c.wear_leveling.static_gap);
  EXPECT_EQ(d.mapping, c.mapping);
  EXPECT_EQ(d.victim, c.victim);
  EXPECT_EQ(d.allocation, c.allocation);
  EXPECT_EQ(d.stripe_order, c.stripe_order);
  EXPECT_EQ(d.gc_threshold, c.gc_threshold);
  EXPECT_EQ(d.gc_threshold_units, c.gc_threshold_units);
  EXPECT_EQ(d.gc_fg_threshold, c.gc_fg_threshold);
  EXPECT_EQ(d.gc_pages_in_flight, c.gc_pages_in_flight);
  EXPECT_EQ(d.gc_max_per_die, c.gc_max_per_die);
  EXPECT_EQ(d.gc_threshold_stagger, c.gc_threshold_stagger);
  EXPECT_EQ(d.gc_preemptible, c.gc_preemptible);
  EXPECT_EQ(d.hot_cold, c.hot_cold);
  EXPECT_EQ(d.unmapped_read_latency, c.unmapped_read_latency);
  EXPECT_EQ(d.seed, c.seed);
  EXPECT_EQ(d.precondition.enabled, c.precondition.enabled);
  EXPECT_EQ(d.precondition.fill_fraction, c.precondition.fill_fraction);
  EXPECT_EQ(d.precondition.random_overwrites, c.precondition.random_overwrites);
  EXPECT_EQ(d.precondition.seed, c.precondition.seed);
  flash::Geometry larger = Geo();
  larger.blocks_per_plane = 512;
  EXPECT_TRUE(d.Validate(larger).ok()) << d.Validate(larger).message();
}

TEST(FtlConfig, SchemaListsPolicyAndSchemeChoices) {
  const sim::SchemaNode& s = sim::SchemaOf<FtlConfig>();
  const sim::ParamDecl* victim = s.FindParam("victim");
  ASSERT_NE(victim, nullptr);
  EXPECT_EQ(victim->choices,
            (std::vector<std::string>{"cost_benefit", "d_choices", "fifo", "greedy", "random"}));
  const sim::ParamDecl* alloc = s.FindParam("allocation");
  ASSERT_NE(alloc, nullptr);
  EXPECT_EQ(alloc->choices.size(), 5u);
  ASSERT_NE(s.FindChild("precondition"), nullptr);
}

TEST(FtlConfig, ValidateNamesTheKey) {
  auto expect_error = [](FtlConfig c, const std::string& prefix) {
    const sim::Status st = c.Validate(Geo());
    ASSERT_FALSE(st.ok()) << prefix;
    EXPECT_EQ(st.message().rfind(prefix, 0), 0u) << st.message();
  };
  FtlConfig c;
  c.victim = "lru";
  expect_error(c, "ftl.victim: unknown victim policy 'lru'; choices: cost_benefit");
  c = FtlConfig{};
  c.allocation = "striped";
  expect_error(c, "ftl.allocation: unknown allocation scheme 'striped'");
  c = FtlConfig{};
  c.stripe_order = "CWD";
  expect_error(c, "ftl.stripe_order: bad stripe order 'CWD'");
  c = FtlConfig{};
  c.mapping = "hybrid";
  expect_error(c, "ftl.mapping: unknown mapping unit 'hybrid'");
  c = FtlConfig{};
  c.op = sim::Ratio{0.001};
  expect_error(c, "ftl.op: spare space of");
  c = FtlConfig{};
  c.allocation = "superblock";  // 128-page units: 7% spare (536 pages) < 5 units kept erased
  expect_error(c, "ftl.op: spare space of 536 pages is below the 640 pages");
  c.gc_threshold = sim::Ratio{0.95};
  expect_error(c, "ftl.gc_threshold: GC would keep");
  c.gc_threshold = FtlConfig{}.gc_threshold;
  c.op = sim::Ratio{0.28};
  EXPECT_TRUE(c.Validate(Geo()).ok());
}

TEST(FtlConfig, UnitSizesAndGcSlotsMustFitTheirIndexTypes) {
  // 2^17 planes of 2^16-page blocks: a superblock would have 2^33 pages.
  flash::Geometry g = Geo();
  g.channels = 1024;
  g.chips_per_channel = 64;
  g.dies_per_chip = 1;
  g.planes_per_die = 2;
  g.blocks_per_plane = 16;
  g.pages_per_block = 1u << 16;
  ASSERT_TRUE(g.Validate().ok()) << g.Validate().message();
  FtlConfig c;
  c.allocation = "superblock";
  sim::Status st = c.Validate(g);
  EXPECT_EQ(st.message().rfind("ftl.allocation: a superblock of 131072 planes x 65536 pages", 0), 0u)
      << st.message();
  // 2^15 planes x 1024 GC copies per plane in one superblock group.
  g.chips_per_channel = 16;
  g.pages_per_block = 64;
  c.gc_pages_in_flight = 1024;
  st = c.Validate(g);
  EXPECT_EQ(st.message().rfind("ftl.gc_pages_in_flight: 1024 per plane x 32768 planes per GC group", 0), 0u)
      << st.message();
  c.gc_pages_in_flight = 511;  // 511 x 2^15 < 2^24
  st = c.Validate(g);
  EXPECT_EQ(st.message().find("ftl.gc_pages_in_flight"), std::string::npos) << st.message();
  c.allocation = "page_stripe";  // per-plane groups: 1024 copies per group
  c.gc_pages_in_flight = 1024;
  st = c.Validate(g);
  EXPECT_EQ(st.message().find("ftl.gc_pages_in_flight"), std::string::npos) << st.message();
}

// Geo() has 2 x 2 x 64 x 32 = 8192 physical pages.
TEST(FtlConfig, OpBasisLogicalIsSpareOverLogical) {
  FtlConfig c;
  c.op = sim::Ratio{0.28};
  ASSERT_TRUE(c.Validate(Geo()).ok());
  EXPECT_EQ(c.LogicalPages(Geo()), 6400u);  // floor(8192 / 1.28)
  EXPECT_NEAR(OpOfLogical(6400, 8192), 0.28, 1e-12);
  EXPECT_NEAR(OpOfPhysical(6400, 8192), 0.21875, 1e-12);
}

TEST(FtlConfig, OpBasisPhysicalIsSpareOverPhysical) {
  FtlConfig c;
  c.op = sim::Ratio{0.21875};
  c.op_basis = "physical";
  ASSERT_TRUE(c.Validate(Geo()).ok()) << c.Validate(Geo()).message();
  // The same device as 28 % spare/logical.
  EXPECT_EQ(c.LogicalPages(Geo()), 6400u);  // floor(8192 x (1 - 0.21875))
  c.op = sim::Ratio{0.25};
  EXPECT_EQ(c.LogicalPages(Geo()), 6144u);
  FtlConfig l;
  l.op = sim::Ratio{0.25};
  EXPECT_EQ(l.LogicalPages(Geo()), 6553u);  // floor(8192 / 1.25): a larger device
}

TEST(FtlConfig, GcMaxPerDieNeedsPerPlaneGroups) {
  FtlConfig c;
  c.op = sim::Ratio{0.28};
  c.gc_max_per_die = 1;
  EXPECT_TRUE(c.Validate(Geo()).ok());
  c.allocation = "superblock";
  EXPECT_EQ(c.Validate(Geo()).message().rfind("ftl.gc_max_per_die: needs per-plane GC groups", 0), 0u)
      << c.Validate(Geo()).message();
}

TEST(FtlConfig, OpBasisPhysicalNeedsOpBelowOne) {
  FtlConfig c;
  c.op_basis = "physical";
  c.op = sim::Ratio{1.0};
  const sim::Status st = c.Validate(Geo());
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message().rfind("ftl.op: 1 of the physical space (op_basis physical) leaves no logical page", 0), 0u)
      << st.message();
  c.op_basis = "spare";
  EXPECT_EQ(c.Validate(Geo()).message().rfind("ftl.op_basis: unknown convention 'spare'", 0), 0u);
}

}  // namespace
}  // namespace ftl
