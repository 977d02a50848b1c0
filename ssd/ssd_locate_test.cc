// The measurement hooks of the SSD (BlockDevice::SetObserver, Locate): the
// observer sees requests in submission order, Locate answers the FTL's
// current mapping (page-mapped and static block-mapped FTLs), and not while
// the write buffer holds the page.
#include <algorithm>
#include <deque>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "flash/nand_array.h"
#include "flash/nand_test_util.h"
#include "ftl/ftl_factory.h"
#include "ftl/page_ftl.h"
#include "ftl/static_block_ftl.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "ssd/ssd.h"

namespace ssd {
namespace {

class Client final : public BlockClient {
 public:
  void OnBlockComplete(BlockRequest* r) override { done.push_back(r); }
  std::vector<BlockRequest*> done;
};

class Recorder final : public RequestObserver {
 public:
  void OnSubmit(const BlockRequest& r) override { seen.push_back({r.op, r.offset, r.length}); }
  struct Seen {
    BlockOp op;
    uint64_t offset, length;
  };
  std::vector<Seen> seen;
};

class SsdLocateTest : public ::testing::Test {
 protected:
  void Build(const std::string& kind, uint64_t buffer_bytes) {
    geo_ = flash::testing::TinyGeometry();  // 2 ch x 2 chips x 1 die x 2 planes x 8 blocks x 16 pages of 8 KiB
    if (kind == "page") geo_.blocks_per_plane = 64;  // room for the page FTL's GC reserve
    cfg_ = sim::MakeDefault<SsdConfig>();
    cfg_.sector_size = sim::Bytes{4096};
    cfg_.write_buffer.size = sim::Bytes{buffer_bytes};
    cfg_.write_buffer.destage_threshold = sim::Ratio{1.0};
    array_ = std::make_unique<flash::NandArray>(&eq_, geo_, flash::testing::TestFlashConfig(),
                                                stats_.Root().Group("flash"));
    ftl::FtlConfig c;
    c.kind = kind;
    if (kind == "page") c.op = sim::Ratio{0.25};
    if (kind == "static_block") c.kinds.Mutable<ftl::StaticBlockConfig>("static_block").spare = sim::Ratio{0.25};
    auto f = ftl::MakeFtl(c, array_.get(), &eq_, stats_.Root().Group("ftl"));
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

TEST_F(SsdLocateTest, ObserverSeesEveryRequestInSubmissionOrderUntilRemoved) {
  Build("page", 0);
  Recorder rec;
  ssd_->SetObserver(&rec);
  Submit(BlockOp::kWrite, 0, 2 * kPage);
  Submit(BlockOp::kRead, kPage, 4096);
  Submit(BlockOp::kFlush, 0, 0);
  eq_.Run();
  ssd_->SetObserver(nullptr);
  Submit(BlockOp::kRead, 0, 4096);
  eq_.Run();
  ASSERT_EQ(rec.seen.size(), 3u);
  EXPECT_EQ(rec.seen[0].op, BlockOp::kWrite);
  EXPECT_EQ(rec.seen[0].length, 2 * kPage);
  EXPECT_EQ(rec.seen[1].op, BlockOp::kRead);
  EXPECT_EQ(rec.seen[1].offset, kPage);
  EXPECT_EQ(rec.seen[2].op, BlockOp::kFlush);
  EXPECT_EQ(client_.done.size(), 4u);
}

TEST_F(SsdLocateTest, PageFtlAnswersItsMappingAndNothingForUnwrittenOrTrimmedPages) {
  Build("page", 0);
  FlashPlace p;
  EXPECT_FALSE(ssd_->Locate(0, &p));
  Submit(BlockOp::kWrite, 0, 8 * kPage);
  eq_.Run();
  const auto* page_ftl = dynamic_cast<const ftl::PageFtl*>(ftl_.get());
  ASSERT_NE(page_ftl, nullptr);
  std::vector<uint32_t> channels;
  for (uint64_t l = 0; l < 8; ++l) {
    ASSERT_TRUE(ssd_->Locate(l * kPage + 4096, &p)) << l;  // any byte of the page
    const flash::FlashAddr a = geo_.ToAddr(page_ftl->core().Lookup(ftl::Lpn{l}));
    EXPECT_EQ(p, (FlashPlace{a.channel, a.chip, a.die, a.plane, a.block})) << l;
    channels.push_back(p.channel);
  }
  // The page FTL stripes consecutive pages: both channels are used.
  EXPECT_NE(std::count(channels.begin(), channels.end(), 0u), 0);
  EXPECT_NE(std::count(channels.begin(), channels.end(), 1u), 0);
  Submit(BlockOp::kTrim, 0, kPage);
  eq_.Run();
  EXPECT_FALSE(ssd_->Locate(0, &p));
  EXPECT_TRUE(ssd_->Locate(kPage, &p));
}

TEST_F(SsdLocateTest, APageOnlyInTheWriteBufferHasNoPlaceUntilProgrammed) {
  Build("page", 4 * kPage);
  Submit(BlockOp::kWrite, 0, kPage);
  eq_.Run();
  FlashPlace p;
  ASSERT_EQ(ssd_->write_buffer()->dirty(), 1u);  // below the destage threshold
  EXPECT_FALSE(ssd_->Locate(0, &p));
  Submit(BlockOp::kFlush, 0, 0);
  eq_.Run();
  EXPECT_EQ(ssd_->write_buffer()->occupied(), 0u);
  EXPECT_TRUE(ssd_->Locate(0, &p));
}

TEST_F(SsdLocateTest, StaticBlockFtlAnswersTheLogicalBlocksPlaceBelowItsWritePointer) {
  Build("static_block", 0);
  const FixedPlacement* fixed = ssd_->layout().fixed;
  ASSERT_NE(fixed, nullptr);
  Submit(BlockOp::kWrite, kBlock, 3 * kPage);  // pages 0-2 of logical block 1
  eq_.Run();
  FlashPlace p;
  for (uint64_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(ssd_->Locate(kBlock + i * kPage, &p)) << i;
    EXPECT_EQ(p, fixed->PlaceOf(1));
  }
  EXPECT_FALSE(ssd_->Locate(kBlock + 3 * kPage, &p));  // at the write pointer: not written
  EXPECT_FALSE(ssd_->Locate(0, &p));                   // block 0 never written
  const flash::Ppn ppn = ftl_->Locate(ftl::Lpn{16 + 2});
  ASSERT_TRUE(ppn.valid());
  EXPECT_EQ(geo_.PageInBlock(ppn), 2u);
  Submit(BlockOp::kTrim, kBlock, kBlock);
  eq_.Run();
  EXPECT_FALSE(ssd_->Locate(kBlock, &p));
}

}  // namespace
}  // namespace ssd
