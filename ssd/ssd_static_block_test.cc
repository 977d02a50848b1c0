// The SSD in front of the static block-mapped FTL: the FTL's placement
// reaches the layer above through layout().fixed, and writes the FTL (or
// the host interface) refuses complete with an error status on the request.
#include <deque>
#include <memory>

#include <gtest/gtest.h>

#include "flash/nand_array.h"
#include "flash/nand_test_util.h"
#include "ftl/ftl_factory.h"
#include "ftl/static_block_ftl.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "ssd/device_config.h"
#include "ssd/ssd.h"

namespace ssd {
namespace {

class Client final : public BlockClient {
 public:
  void OnBlockComplete(BlockRequest* r) override { done.push_back(r); }
  std::vector<BlockRequest*> done;
};

ftl::FtlConfig SftlConfig() {
  ftl::FtlConfig c;
  c.kind = "static_block";
  c.kinds.Mutable<ftl::StaticBlockConfig>("static_block").spare = sim::Ratio{0.25};  // 2 of 8 blocks
  return c;
}

class SsdStaticBlockTest : public ::testing::Test {
 protected:
  SsdStaticBlockTest() {
    geo_ = flash::testing::TinyGeometry();  // 2 ch x 2 chips x 1 die x 2 planes x 8 blocks x 16 pages of 8 KiB
    cfg_ = sim::MakeDefault<SsdConfig>();
    cfg_.sector_size = sim::Bytes{4096};
    cfg_.write_buffer.size = sim::Bytes{0};
    array_ = std::make_unique<flash::NandArray>(&eq_, geo_, flash::testing::TestFlashConfig(),
                                                stats_.Root().Group("flash"));
    auto f = ftl::MakeFtl(SftlConfig(), array_.get(), &eq_, stats_.Root().Group("ftl"));
    CHECK(f.ok()) << f.status().message();
    ftl_ = std::move(*f);
    ssd_ = std::make_unique<Ssd>(&eq_, cfg_, geo_, ftl_.get(), stats_.Root().Group("ssd"));
  }
  BlockRequest* Submit(BlockOp op, uint64_t offset, uint64_t length) {
    reqs_.emplace_back();
    BlockRequest* r = &reqs_.back();
    r->op = op;
    r->offset = offset;
    r->length = length;
    r->client = &client_;
    ssd_->Submit(r);
    return r;
  }
  static constexpr uint64_t kPage = 8192;
  static constexpr uint64_t kBlock = 16 * kPage;

  sim::EventQueue eq_;
  sim::StatsRegistry stats_;
  flash::Geometry geo_;
  SsdConfig cfg_;
  std::unique_ptr<flash::NandArray> array_;
  std::unique_ptr<ftl::Ftl> ftl_;
  std::unique_ptr<Ssd> ssd_;
  Client client_;
  std::deque<BlockRequest> reqs_;
};

TEST_F(SsdStaticBlockTest, LayoutCarriesTheFtlsFixedPlacement) {
  const DeviceLayout& l = ssd_->layout();
  ASSERT_NE(l.fixed, nullptr);
  EXPECT_EQ(l.fixed, ftl_->fixed_placement());
  EXPECT_EQ(ssd_->capacity(), 8u * 6 * kBlock);  // 8 planes x 6 data blocks
  EXPECT_EQ(l.fixed->logical_blocks(), ssd_->capacity() / (l.page_size * l.pages_per_block));
  // Channel-first: consecutive logical blocks alternate the two channels.
  for (uint64_t b = 0; b < 8; ++b) EXPECT_EQ(l.fixed->PlaceOf(b).channel, b % 2) << b;
}

TEST_F(SsdStaticBlockTest, InOrderWritesSucceedAndMisuseFailsOnTheRequest) {
  BlockRequest* ok = Submit(BlockOp::kWrite, 0, 4 * kPage);             // pages 0-3 of block 0
  BlockRequest* skip = Submit(BlockOp::kWrite, kBlock + kPage, kPage);  // page 1 of block 1 first
  eq_.Run();
  EXPECT_EQ(ok->status, IoStatus::kOk);
  EXPECT_EQ(skip->status, IoStatus::kWriteOutOfOrder);
  BlockRequest* again = Submit(BlockOp::kWrite, kPage, kPage);  // page 1 of block 0 again
  BlockRequest* half = Submit(BlockOp::kWrite, 4 * kPage, 4096);  // half of page 4
  BlockRequest* read = Submit(BlockOp::kRead, 0, 4 * kPage);
  eq_.Run();
  EXPECT_EQ(again->status, IoStatus::kOverwrite);
  EXPECT_EQ(half->status, IoStatus::kPartialPage);
  EXPECT_EQ(read->status, IoStatus::kOk);
  EXPECT_EQ(stats_.Value("ssd.errors"), 3);
  EXPECT_EQ(stats_.Value("ssd.error_pages"), 3);
  EXPECT_EQ(stats_.Value("ftl.host_writes"), 4);
  EXPECT_EQ(stats_.Value("ftl.write_errors.out_of_order"), 1);
  EXPECT_EQ(stats_.Value("ftl.write_errors.overwrite"), 1);
  // The partial page never reached the FTL: page 4 is still the next one.
  BlockRequest* next = Submit(BlockOp::kWrite, 4 * kPage, kPage);
  eq_.Run();
  EXPECT_EQ(next->status, IoStatus::kOk);
}

TEST_F(SsdStaticBlockTest, WholeBlockTrimErasesAndTheBlockCanBeRewritten) {
  Submit(BlockOp::kWrite, 0, kBlock);
  eq_.Run();
  BlockRequest* trim = Submit(BlockOp::kTrim, 0, kBlock);
  BlockRequest* rewrite = Submit(BlockOp::kWrite, 0, 2 * kPage);
  eq_.Run();
  EXPECT_EQ(trim->status, IoStatus::kOk);
  EXPECT_EQ(rewrite->status, IoStatus::kOk);
  EXPECT_EQ(stats_.Value("ftl.erases"), 1);
  EXPECT_EQ(stats_.Value("flash.cmds.erase.gc"), 1);
  EXPECT_EQ(stats_.Value("ssd.errors"), 0);
  EXPECT_EQ(stats_.Value("ftl.gc_copies"), 0);
}

// With a page-mapped area (ftl.static_block.page_mapped) at the start: its
// pages are rewritten in place, partial pages included; after it the fixed
// blocks keep the in-order contract.
class SsdStaticBlockAreaTest : public SsdStaticBlockTest {
 protected:
  static ftl::FtlConfig AreaConfig() {
    ftl::FtlConfig c = SftlConfig();
    auto& sb = c.kinds.Mutable<ftl::StaticBlockConfig>("static_block");
    sb.page_mapped = sim::Bytes{2 * kBlock};  // 2 logical blocks
    // The default spare: 50 % of 2 blocks, raised to the minimum of 5.
    return c;
  }
  SsdStaticBlockAreaTest() {
    ssd_.reset();
    ftl_.reset();
    auto f = ftl::MakeFtl(AreaConfig(), array_.get(), &eq_, area_stats_.Root().Group("ftl"));
    CHECK(f.ok()) << f.status().message();
    ftl_ = std::move(*f);
    ssd_ = std::make_unique<Ssd>(&eq_, cfg_, geo_, ftl_.get(), area_stats_.Root().Group("ssd"));
  }
  sim::StatsRegistry area_stats_;
};

TEST_F(SsdStaticBlockAreaTest, TheAreaIsRewritableAndTheBoundaryIsInTheLayout) {
  const DeviceLayout& l = ssd_->layout();
  ASSERT_NE(l.fixed, nullptr);
  EXPECT_EQ(l.fixed->fixed_from(), 2u);
  // 2 x 2 x 2 planes x 6 blocks in service = 48 slots, less 5 pool spares.
  EXPECT_EQ(ssd_->capacity(), 43 * kBlock);
  BlockRequest* w1 = Submit(BlockOp::kWrite, 3 * kPage, 2 * kPage);
  eq_.Run();
  BlockRequest* w2 = Submit(BlockOp::kWrite, 3 * kPage, kPage);  // overwrite
  BlockRequest* half = Submit(BlockOp::kWrite, kBlock + 4096, 4096);  // half a page, in the area
  BlockRequest* fixed_half = Submit(BlockOp::kWrite, 2 * kBlock, 4096);  // half a page, first fixed block
  eq_.Run();
  EXPECT_EQ(w1->status, IoStatus::kOk);
  EXPECT_EQ(w2->status, IoStatus::kOk);
  EXPECT_EQ(half->status, IoStatus::kOk);
  EXPECT_EQ(fixed_half->status, IoStatus::kPartialPage);
  EXPECT_EQ(area_stats_.Value("ssd.errors"), 1);
  EXPECT_EQ(area_stats_.Value("ftl.page_mapped.host_writes"), 4);
  // The first fixed block still takes its pages in order only.
  BlockRequest* in_order = Submit(BlockOp::kWrite, 2 * kBlock, 2 * kPage);
  eq_.Run();
  BlockRequest* again = Submit(BlockOp::kWrite, 2 * kBlock, kPage);
  eq_.Run();
  EXPECT_EQ(in_order->status, IoStatus::kOk);
  EXPECT_EQ(again->status, IoStatus::kOverwrite);
}

TEST_F(SsdStaticBlockAreaTest, RepeatedRewritesOfTheAreaRunTheFtlsGc) {
  for (int round = 0; round < 20; ++round) {
    for (uint64_t b = 0; b < 2; ++b) Submit(BlockOp::kWrite, b * kBlock + (round % 4) * kPage, 8 * kPage);
    eq_.Run();
  }
  EXPECT_EQ(area_stats_.Value("ssd.errors"), 0);
  EXPECT_GT(area_stats_.Value("ftl.page_mapped.erases"), 0);
  EXPECT_EQ(stats_.Value("flash.cmds.erase.gc"), area_stats_.Value("ftl.erases"));
  EXPECT_EQ(area_stats_.Value("ftl.page_mapped.valid_pages"), 2 * 11);
}

TEST(DeviceForFtlTest, AWriteBufferInFrontOfFixedPlacementIsRefused) {
  DeviceConfig dev = sim::MakeDefault<DeviceConfig>();
  dev.ssd.write_buffer.size = sim::Bytes{1 << 20};
  EXPECT_TRUE(ValidateDeviceForFtl(dev, ftl::FtlConfig{}).ok());
  const sim::Status st = ValidateDeviceForFtl(dev, SftlConfig());
  EXPECT_EQ(st.message().rfind("device.ssd.write_buffer.size: 1048576 bytes, but ftl.kind static_block", 0), 0u)
      << st.message();
  dev.ssd.write_buffer.size = sim::Bytes{0};
  EXPECT_TRUE(ValidateDeviceForFtl(dev, SftlConfig()).ok());
}

}  // namespace
}  // namespace ssd
