#include "ftl/packed_array.h"

#include <gtest/gtest.h>

#include "sim/rng.h"

namespace ftl {
namespace {

TEST(PackedArray, BitsForKeepsNoneDistinct) {
  EXPECT_EQ(PackedArray::BitsFor(0), 1u);
  EXPECT_EQ(PackedArray::BitsFor(1), 1u);   // values {0}, none = 1
  EXPECT_EQ(PackedArray::BitsFor(2), 2u);   // values {0,1}, none = 3
  EXPECT_EQ(PackedArray::BitsFor(255), 8u);
  EXPECT_EQ(PackedArray::BitsFor(256), 9u);
  EXPECT_EQ(PackedArray::BitsFor(uint64_t{1} << 28), 29u);
}

TEST(PackedArray, StartsEmpty) {
  PackedArray a(1000, 21);
  for (uint64_t i = 0; i < a.size(); ++i) ASSERT_EQ(a.Get(i), a.kNone());
  EXPECT_EQ(a.kNone(), (uint64_t{1} << 21) - 1);
}

TEST(PackedArray, MatchesReferenceForEveryWidth) {
  for (unsigned bits = 1; bits <= PackedArray::kMaxBits; ++bits) {
    const uint64_t n = 517;
    PackedArray a(n, bits);
    std::vector<uint64_t> ref(n, a.kNone());
    sim::Rng rng(bits, "packed");
    for (int step = 0; step < 5000; ++step) {
      const uint64_t i = rng.Uniform(n);
      const uint64_t v = rng.Next() & a.kNone();
      a.Set(i, v);
      ref[i] = v;
    }
    for (uint64_t i = 0; i < n; ++i) ASSERT_EQ(a.Get(i), ref[i]) << "bits " << bits << " index " << i;
  }
}

TEST(PackedArray, FillNoneTouchesOnlyTheRange) {
  for (unsigned bits : {1u, 3u, 8u, 13u, 21u, 29u, 32u}) {
    for (uint64_t first : {0u, 1u, 5u, 17u}) {
      for (uint64_t len : {0u, 1u, 2u, 9u, 40u}) {
        PackedArray a(80, bits);
        for (uint64_t i = 0; i < 80; ++i) a.Set(i, i % 2);
        a.FillNone(first, first + len);
        for (uint64_t i = 0; i < 80; ++i) {
          const bool in = i >= first && i < first + len;
          ASSERT_EQ(a.Get(i), in ? a.kNone() : i % 2) << bits << " " << first << " " << len << " " << i;
        }
      }
    }
  }
}

TEST(PackedArray, FindAndMemory) {
  PackedArray a(64, 13);
  a.Set(40, 77);
  a.Set(50, 77);
  EXPECT_EQ(a.Find(0, 64, 77), 40u);
  EXPECT_EQ(a.Find(41, 64, 77), 50u);
  EXPECT_EQ(a.Find(0, 40, 77), 40u);  // not found -> last
  EXPECT_GE(a.MemoryBytes(), 64u * 13 / 8);
  EXPECT_LE(a.MemoryBytes(), 64u * 13 / 8 + 16);
}

// The optimized build compiles DCHECKs out (NDEBUG, see CMakeLists.txt);
// builds that keep them (the sanitized build, Debug, -DFLASHSTACK_DCHECK=ON)
// must catch an index past the end and a value wider than the entry.
TEST(PackedArrayDeathTest, DchecksCatchOutOfRangeAccessWhereCompiledIn) {
  if (!DCHECK_IS_ON()) GTEST_SKIP() << "DCHECKs compiled out (NDEBUG): run in a build with FLASHSTACK_DCHECK=ON";
  PackedArray a(64, 5);
  EXPECT_DEATH(a.Get(64), "Check failed: i < size_");
  EXPECT_DEATH(a.Set(64, 1), "Check failed: i < size_");
  EXPECT_DEATH(a.Set(0, 32), "Check failed: v <= mask_");
  EXPECT_DEATH(a.FillNone(0, 65), "Check failed: last <= size_");
}

}  // namespace
}  // namespace ftl
