#include "fs/f2fs/image.h"

#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace fs::f2fs {
namespace {

BlockPtr Data(uint8_t v) {
  auto d = std::make_shared<DataBlock>();
  d->bytes.fill(v);
  return d;
}
uint8_t ByteOf(const BlockPtr& p) { return p ? static_cast<const DataBlock&>(*p).bytes[0] : 0; }

TEST(ImageTest, CompletedWritesBecomeDurableOnlyAfterAFlushOrFua) {
  Image img(16);
  const uint64_t a = img.Submit(BlockAddr{1}, Data(1));
  EXPECT_EQ(ByteOf(img.Read(BlockAddr{1})), 1);  // visible at once
  EXPECT_EQ(ByteOf(img.ReadDurable(BlockAddr{1})), 0);
  img.Complete(a, /*fua=*/false);
  EXPECT_EQ(ByteOf(img.ReadDurable(BlockAddr{1})), 0);
  const uint64_t m = img.FlushBegin();
  const uint64_t b = img.Submit(BlockAddr{2}, Data(2));
  img.Complete(b, false);  // after the flush started: not covered
  img.FlushEnd(m);
  EXPECT_EQ(ByteOf(img.ReadDurable(BlockAddr{1})), 1);
  EXPECT_EQ(ByteOf(img.ReadDurable(BlockAddr{2})), 0);
  const uint64_t c = img.Submit(BlockAddr{3}, Data(3));
  img.Complete(c, /*fua=*/true);
  EXPECT_EQ(ByteOf(img.ReadDurable(BlockAddr{3})), 3);
  EXPECT_EQ(img.volatile_writes(), 1u);
}

TEST(ImageTest, PowerCutKeepsAChosenSubsetInOrder) {
  Image img(16);
  img.WriteDurable(BlockAddr{5}, Data(9));
  const uint64_t a = img.Submit(BlockAddr{5}, Data(1));
  const uint64_t b = img.Submit(BlockAddr{5}, Data(2));
  img.Submit(BlockAddr{6}, Data(3));  // in flight
  img.Complete(a, false);
  img.Complete(b, false);
  int n = 0;
  img.PowerCut([&](BlockAddr, bool) { return n++ == 0; });  // only the first write survives
  EXPECT_EQ(ByteOf(img.Read(BlockAddr{5})), 1);
  EXPECT_EQ(ByteOf(img.Read(BlockAddr{6})), 0);
  EXPECT_EQ(img.volatile_writes(), 0u);
}

TEST(ImageTest, OlderWriteNeverOverwritesANewerDurableOne) {
  Image img(16);
  const uint64_t a = img.Submit(BlockAddr{1}, Data(1));
  const uint64_t b = img.Submit(BlockAddr{1}, Data(2));
  img.Complete(b, /*fua=*/true);
  img.Complete(a, false);
  img.FlushEnd(img.FlushBegin());
  EXPECT_EQ(ByteOf(img.ReadDurable(BlockAddr{1})), 2);
}

TEST(ImageTest, TrimReadsAsZerosAndIsDurableLikeAWrite) {
  Image img(16);
  for (uint32_t b = 1; b <= 3; ++b) img.WriteDurable(BlockAddr{b}, Data(static_cast<uint8_t>(b)));
  const uint64_t t = img.SubmitTrim(BlockAddr{1}, 3);
  EXPECT_EQ(img.volatile_writes(), 3u);
  for (uint32_t b = 1; b <= 3; ++b) {
    EXPECT_EQ(img.Read(BlockAddr{b}), nullptr);
    EXPECT_EQ(ByteOf(img.ReadDurable(BlockAddr{b})), b);
  }
  for (uint64_t i = 0; i < 3; ++i) img.Complete(t + i, /*fua=*/false);
  EXPECT_EQ(ByteOf(img.ReadDurable(BlockAddr{2})), 2);  // completed, not flushed
  img.FlushEnd(img.FlushBegin());
  for (uint32_t b = 1; b <= 3; ++b) EXPECT_EQ(img.ReadDurable(BlockAddr{b}), nullptr);
  EXPECT_EQ(img.volatile_writes(), 0u);
}

TEST(ImageTest, ForgetDropsDurableContentButKeepsPendingWritesAndZeros) {
  Image img(16);
  std::weak_ptr<const BlockData> old;
  {
    BlockPtr d = Data(7);
    old = d;
    img.WriteDurable(BlockAddr{2}, std::move(d));
  }
  img.WriteDurable(BlockAddr{3}, Data(8));
  const uint64_t w = img.Submit(BlockAddr{3}, Data(9));  // pending over the durable 8
  img.Forget(BlockAddr{1}, 3);                           // 1: zeros, 2: durable, 3: durable under a pending write
  EXPECT_TRUE(old.expired()) << "the forgotten version is still held";
  EXPECT_EQ(img.Read(BlockAddr{1}), nullptr);  // zeros stay zeros
  ASSERT_NE(img.Read(BlockAddr{2}), nullptr);  // still shows written
  EXPECT_EQ(img.Read(BlockAddr{2})->type, BlockData::Type::kStale);
  EXPECT_EQ(ByteOf(img.Read(BlockAddr{3})), 9);  // the pending write is untouched
  EXPECT_EQ(img.ReadDurable(BlockAddr{3})->type, BlockData::Type::kStale);
  EXPECT_EQ(img.forgotten_blocks(), 2u);
  img.Forget(BlockAddr{2}, 1);  // already forgotten: not counted twice
  EXPECT_EQ(img.forgotten_blocks(), 2u);
  img.Complete(w, /*fua=*/true);
  EXPECT_EQ(ByteOf(img.ReadDurable(BlockAddr{3})), 9);
  // A power cut that loses a later write shows the marker, not old content.
  img.Submit(BlockAddr{2}, Data(5));
  img.PowerCut([](BlockAddr, bool) { return false; });
  EXPECT_EQ(img.Read(BlockAddr{2})->type, BlockData::Type::kStale);
}

TEST(ImageTest, TrimAndWritesApplyInSubmissionOrder) {
  Image img(16);
  img.WriteDurable(BlockAddr{4}, Data(4));
  const uint64_t t = img.SubmitTrim(BlockAddr{4}, 2);  // blocks 4 and 5
  const uint64_t w = img.Submit(BlockAddr{5}, Data(5));
  EXPECT_EQ(img.Read(BlockAddr{4}), nullptr);
  EXPECT_EQ(ByteOf(img.Read(BlockAddr{5})), 5);  // written after the trim
  // The write is durable first (FUA); the older trim of block 5 completing
  // and flushed later does not undo it.
  img.Complete(w, /*fua=*/true);
  img.Complete(t, false);
  img.Complete(t + 1, false);
  img.FlushEnd(img.FlushBegin());
  EXPECT_EQ(img.ReadDurable(BlockAddr{4}), nullptr);
  EXPECT_EQ(ByteOf(img.ReadDurable(BlockAddr{5})), 5);
  // A trim after a write hides it.
  const uint64_t w2 = img.Submit(BlockAddr{6}, Data(6));
  img.SubmitTrim(BlockAddr{6}, 1);
  img.Complete(w2, false);
  EXPECT_EQ(img.Read(BlockAddr{6}), nullptr);
}

TEST(ImageTest, PowerCutDecidesEachBlockOfATrim) {
  Image img(16);
  for (uint32_t b = 8; b < 12; ++b) img.WriteDurable(BlockAddr{b}, Data(static_cast<uint8_t>(b)));
  const uint64_t t = img.SubmitTrim(BlockAddr{8}, 4);
  img.Complete(t, false);
  img.Complete(t + 1, false);  // the last two still in flight
  std::vector<std::pair<uint32_t, bool>> asked;
  img.PowerCut([&](BlockAddr a, bool completed) {
    asked.emplace_back(a.v, completed);
    return a.v % 2 == 0;  // the trim reaches blocks 8 and 10 only
  });
  EXPECT_EQ(asked, (std::vector<std::pair<uint32_t, bool>>{{8, true}, {9, true}, {10, false}, {11, false}}));
  EXPECT_EQ(img.Read(BlockAddr{8}), nullptr);
  EXPECT_EQ(ByteOf(img.Read(BlockAddr{9})), 9);
  EXPECT_EQ(img.Read(BlockAddr{10}), nullptr);
  EXPECT_EQ(ByteOf(img.Read(BlockAddr{11})), 11);
}

}  // namespace
}  // namespace fs::f2fs
