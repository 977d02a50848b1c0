#include "fs/f2fs/image.h"

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

}  // namespace
}  // namespace fs::f2fs
