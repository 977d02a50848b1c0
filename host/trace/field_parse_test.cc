#include "host/trace/field_parse.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace host {
namespace {

TEST(FieldParse, SplitAtTrimsAndCounts) {
  std::string_view f[4];
  EXPECT_EQ(SplitAt("a, b ,c", ',', f, 4), 3u);
  EXPECT_EQ(f[1], "b");
  EXPECT_EQ(SplitAt("", ',', f, 4), 1u);
  EXPECT_EQ(f[0], "");
  EXPECT_EQ(SplitAt("a,,", ',', f, 4), 3u);
  EXPECT_EQ(f[2], "");
  EXPECT_EQ(SplitAt("1,2,3,4", ',', f, 4), 4u);
  EXPECT_EQ(SplitAt("1,2,3,4,5", ',', f, 4), 5u);
}

TEST(FieldParse, SplitBlanks) {
  std::string_view f[3];
  EXPECT_EQ(SplitBlanks("  8,0 \t 1  x ", f, 3), 3u);
  EXPECT_EQ(f[0], "8,0");
  EXPECT_EQ(f[2], "x");
  EXPECT_EQ(SplitBlanks("   ", f, 3), 0u);
  EXPECT_EQ(SplitBlanks("a b c d", f, 3), 4u);
}

TEST(FieldParse, Integers) {
  uint64_t v;
  uint32_t w;
  std::string err;
  EXPECT_TRUE(ParseU64("18446744073709551615", "x", &v, &err));
  EXPECT_EQ(v, UINT64_MAX);
  EXPECT_FALSE(ParseU64("18446744073709551616", "x", &v, &err));
  EXPECT_EQ(err, "x: out of range: '18446744073709551616'");
  EXPECT_FALSE(ParseU64("+1", "x", &v, &err));
  EXPECT_FALSE(ParseU64("1 ", "x", &v, &err));
  EXPECT_FALSE(ParseU64("0x10", "x", &v, &err));
  EXPECT_FALSE(ParseU64("-0", "x", &v, &err));
  EXPECT_EQ(err, "x: negative value '-0'");
  EXPECT_FALSE(ParseU32("4294967296", "x", &w, &err));
  EXPECT_TRUE(ParseHexU64("2a", "op", &v, &err));
  EXPECT_EQ(v, 0x2au);
  EXPECT_TRUE(ParseHexU64("0x8A", "op", &v, &err));
  EXPECT_EQ(v, 0x8au);
  EXPECT_FALSE(ParseHexU64("2g", "op", &v, &err));
  EXPECT_FALSE(ParseHexU64("0x", "op", &v, &err));
}

TEST(FieldParse, DecimalTime) {
  WideNs ns;
  std::string err;
  ASSERT_TRUE(ParseDecimalTime("1.5", "t", 1'000'000'000, &ns, &err));
  EXPECT_EQ(static_cast<int64_t>(ns), 1'500'000'000);
  ASSERT_TRUE(ParseDecimalTime("0.001503478", "t", 1'000'000'000, &ns, &err));
  EXPECT_EQ(static_cast<int64_t>(ns), 1'503'478);
  ASSERT_TRUE(ParseDecimalTime("10.000001", "t", 1'000'000, &ns, &err));  // ms
  EXPECT_EQ(static_cast<int64_t>(ns), 10'000'001);
  ASSERT_TRUE(ParseDecimalTime(".25", "t", 1'000, &ns, &err));
  EXPECT_EQ(static_cast<int64_t>(ns), 250);
  ASSERT_TRUE(ParseDecimalTime("7.", "t", 100, &ns, &err));
  EXPECT_EQ(static_cast<int64_t>(ns), 700);
  // FILETIME-sized counts of 100 ns do not overflow.
  ASSERT_TRUE(ParseDecimalTime("18446744073709551615", "t", 100, &ns, &err));
  EXPECT_TRUE(ns == static_cast<WideNs>(UINT64_MAX) * 100);
  // Digits below 1 ns are truncated, however many there are.
  ASSERT_TRUE(ParseDecimalTime("1.12345678912345678912345", "t", 1'000'000'000, &ns, &err));
  EXPECT_EQ(static_cast<int64_t>(ns), 1'123'456'789);
  for (const char* bad : {"", ".", "-1.0", "1.2.3", "1,5", " 1", "e5", ".e5", "1e", "1e+", "1e-", "1e5.0", "1e 5",
                          "1ee5", "1e--5", "inf", "nan", "0x10"}) {
    EXPECT_FALSE(ParseDecimalTime(bad, "t", 1, &ns, &err)) << bad;
  }
}

// Exponent notation, as WiscSee (Python's str(float)) and C's %g write
// small and large values. Failed before exponents were accepted.
TEST(FieldParse, DecimalTimeExponent) {
  WideNs ns;
  std::string err;
  ASSERT_TRUE(ParseDecimalTime("7.3902e-05", "t", 1'000'000'000, &ns, &err)) << err;
  EXPECT_EQ(static_cast<int64_t>(ns), 73'902);
  ASSERT_TRUE(ParseDecimalTime("1e-09", "t", 1'000'000'000, &ns, &err)) << err;
  EXPECT_EQ(static_cast<int64_t>(ns), 1);
  ASSERT_TRUE(ParseDecimalTime("1E-10", "t", 1'000'000'000, &ns, &err)) << err;  // below 1 ns
  EXPECT_EQ(static_cast<int64_t>(ns), 0);
  ASSERT_TRUE(ParseDecimalTime("1e+16", "t", 1, &ns, &err)) << err;
  EXPECT_EQ(static_cast<int64_t>(ns), 10'000'000'000'000'000);
  ASSERT_TRUE(ParseDecimalTime("2.5e3", "t", 1'000, &ns, &err)) << err;
  EXPECT_EQ(static_cast<int64_t>(ns), 2'500'000);
  ASSERT_TRUE(ParseDecimalTime("12.345e1", "t", 1, &ns, &err)) << err;  // 123.45 -> 123
  EXPECT_EQ(static_cast<int64_t>(ns), 123);
  ASSERT_TRUE(ParseDecimalTime("0.5e-400", "t", 1'000'000'000, &ns, &err)) << err;
  EXPECT_EQ(static_cast<int64_t>(ns), 0);
  ASSERT_TRUE(ParseDecimalTime("0e999", "t", 1, &ns, &err)) << err;
  EXPECT_EQ(static_cast<int64_t>(ns), 0);
  // The same 2^64-unit bound as without an exponent.
  ASSERT_TRUE(ParseDecimalTime("1.8446744073709551615e19", "t", 1, &ns, &err)) << err;
  EXPECT_TRUE(ns == static_cast<WideNs>(UINT64_MAX));
  EXPECT_FALSE(ParseDecimalTime("1.8446744073709551616e19", "t", 1, &ns, &err));
  EXPECT_THAT(err, testing::HasSubstr("out of range"));
  EXPECT_FALSE(ParseDecimalTime("1e400", "t", 1, &ns, &err));
  EXPECT_FALSE(ParseDecimalTime("-7.3902e-05", "t", 1, &ns, &err));
  EXPECT_THAT(err, testing::HasSubstr("negative"));
}

TEST(FieldParse, ScaleToBytesOverflow) {
  uint64_t b;
  std::string err;
  EXPECT_TRUE(ScaleToBytes(UINT64_MAX / 512, 512, "lba", &b, &err));
  EXPECT_FALSE(ScaleToBytes(UINT64_MAX / 512 + 1, 512, "lba", &b, &err));
}

TEST(FieldParse, ExcerptEscapesAndTruncates) {
  EXPECT_EQ(Excerpt(std::string_view("a\0b\xff", 4)), "a\\x00b\\xff");
  EXPECT_EQ(Excerpt(std::string(250, 'q')).size(), 203u);
}

}  // namespace
}  // namespace host
