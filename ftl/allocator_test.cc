#include "ftl/allocator.h"

#include <set>

#include <gtest/gtest.h>

#include "tests/fakes/fake_flash_array.h"

namespace ftl {
namespace {

// 2 channels x 2 chips x 1 die x 2 planes = 8 planes, 4 dies.
flash::Geometry Geo() {
  flash::Geometry g;
  g.channels = 2;
  g.chips_per_channel = 2;
  g.dies_per_chip = 1;
  g.planes_per_die = 2;
  g.blocks_per_plane = 16;
  g.pages_per_block = 4;
  return g;
}

TEST(StripeSequence, FirstLetterVariesFastest) {
  const flash::Geometry g = Geo();
  auto cwdp = StripeSequence(g, "CWDP");
  ASSERT_TRUE(cwdp.ok());
  // Channel first: plane ids of (ch0,chip0), (ch1,chip0), (ch0,chip1), (ch1,chip1), then plane 1 of each.
  EXPECT_EQ(*cwdp, (std::vector<uint32_t>{0, 4, 2, 6, 1, 5, 3, 7}));
  auto pwdc = StripeSequence(g, "PDWC");
  ASSERT_TRUE(pwdc.ok());
  EXPECT_EQ(*pwdc, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  for (const auto& seq : {*cwdp, *pwdc}) {
    EXPECT_EQ(std::set<uint32_t>(seq.begin(), seq.end()).size(), g.planes());
  }
}

TEST(StripeSequence, RejectsBadOrders) {
  for (const char* bad : {"CWD", "CWDX", "CCDP", "cwdp", ""}) {
    auto r = StripeSequence(Geo(), bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("bad stripe order"), std::string::npos);
  }
}

TEST(Allocator, UnknownNameListsChoices) {
  auto r = FindAllocator("round_robin");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "unknown allocation scheme 'round_robin'; choices: block_stripe, dynamic, page_stripe, static, superblock");
}

std::unique_ptr<Allocator> Make(const std::string& name, const BlockManager& blocks,
                                const flash::FlashArray* array = nullptr) {
  AllocatorContext ctx;
  ctx.blocks = &blocks;
  ctx.array = array;
  ctx.stripe = StripeSequence(blocks.geometry(), "CWDP").value();
  ctx.host_reserve = 1;
  return FindAllocator(name).value()->make(ctx);
}

TEST(Allocator, PageStripeRotatesInStripeOrder) {
  BlockManager blocks(Geo());
  auto a = Make("page_stripe", blocks);
  std::vector<uint32_t> got;
  for (int i = 0; i < 16; ++i) got.push_back(a->NextGroup(Stream::kHostHot, Lpn{0}));
  EXPECT_EQ(got, (std::vector<uint32_t>{0, 4, 2, 6, 1, 5, 3, 7, 0, 4, 2, 6, 1, 5, 3, 7}));
}

TEST(Allocator, StaticPlacesByAddressNotByCallOrder) {
  BlockManager blocks(Geo());
  auto a = Make("static", blocks);
  const std::vector<uint32_t> cwdp{0, 4, 2, 6, 1, 5, 3, 7};
  for (const uint64_t l : {5, 5, 0, 13, 7, 8}) {
    EXPECT_EQ(a->NextGroup(Stream::kHostHot, Lpn{l}), cwdp[l % 8]) << l;
    EXPECT_EQ(a->NextGroup(Stream::kHostCold, Lpn{l}), cwdp[l % 8]) << l;
  }
}

TEST(Allocator, BlockStripeFillsABlockPerPlane) {
  BlockManager blocks(Geo());
  auto a = Make("block_stripe", blocks);
  std::vector<uint32_t> hot, cold;
  for (int i = 0; i < 12; ++i) hot.push_back(a->NextGroup(Stream::kHostHot, Lpn{0}));
  for (int i = 0; i < 4; ++i) cold.push_back(a->NextGroup(Stream::kHostCold, Lpn{0}));
  EXPECT_EQ(hot, (std::vector<uint32_t>{0, 0, 0, 0, 4, 4, 4, 4, 2, 2, 2, 2}));
  EXPECT_EQ(cold, (std::vector<uint32_t>{0, 0, 0, 0})) << "each stream has its own cursor";
}

TEST(Allocator, SuperblockLayoutStripesPagesAcrossPlanes) {
  const flash::Geometry g = Geo();
  BlockManager blocks(g, g.planes(), StripeSequence(g, "CWDP").value());
  EXPECT_EQ(blocks.groups(), 1u);
  EXPECT_EQ(blocks.unit_pages(), g.planes() * g.pages_per_block);
  auto a = Make("superblock", blocks);
  std::vector<uint32_t> planes;
  for (uint32_t i = 0; i < 10; ++i) {
    EXPECT_EQ(a->NextGroup(Stream::kHostHot, Lpn{0}), 0u);
    const flash::Ppn p = blocks.Allocate(0, Stream::kHostHot);
    planes.push_back(g.PlaneOfPpn(p));
    EXPECT_EQ(g.ToAddr(p).block, 0u) << "unit 0 is block 0 of every plane";
    EXPECT_EQ(g.PageInBlock(p), i / g.planes()) << "same page offset across the planes of a stripe";
    EXPECT_EQ(blocks.UnitOf(p), 0u);
  }
  EXPECT_EQ(planes, (std::vector<uint32_t>{0, 4, 2, 6, 1, 5, 3, 7, 0, 4}));
}

TEST(Allocator, DynamicPrefersIdleDies) {
  const flash::Geometry g = Geo();
  sim::EventQueue q;
  fakes::FakeFlashArray array(g, &q);
  BlockManager blocks(g);
  auto a = Make("dynamic", blocks, &array);
  // Load dies 0, 1 and 3; die 2 (planes 4, 5) stays idle.
  std::vector<flash::FlashCommand> cmds(3);
  const uint32_t busy_dies[] = {0, 1, 3};
  struct NullClient : flash::FlashClient {
    void OnFlashComplete(flash::FlashCommand*) override {}
  } client;
  for (int i = 0; i < 3; ++i) {
    cmds[i].kind = flash::FlashOpKind::kErase;
    cmds[i].client = &client;
    cmds[i].ppn = g.FirstPpnOfBlock(static_cast<uint64_t>(busy_dies[i]) * g.planes_per_die * g.blocks_per_plane);
    array.Submit(&cmds[i]);
  }
  EXPECT_EQ(a->NextGroup(Stream::kHostHot, Lpn{0}), 4u);
  EXPECT_EQ(a->NextGroup(Stream::kHostHot, Lpn{0}), 5u) << "planes of the chosen die alternate";
  EXPECT_EQ(a->NextGroup(Stream::kHostHot, Lpn{0}), 4u);
  q.Run();
  // All idle: rotation over dies spreads the pages.
  std::set<uint32_t> dies;
  for (int i = 0; i < 4; ++i) dies.insert(a->NextGroup(Stream::kHostHot, Lpn{0}) / g.planes_per_die);
  EXPECT_EQ(dies.size(), 4u);
}

}  // namespace
}  // namespace ftl
