#include <unistd.h>
#include "sim/config.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/config_test_schema.h"

namespace sim {
namespace {

using config_testing::ExperimentConfig;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

ParamDecl Decl(ParamKind kind, std::optional<double> lo = std::nullopt, std::optional<double> hi = std::nullopt) {
  ParamDecl d;
  d.key = "k";
  d.kind = kind;
  d.min = lo;
  d.max = hi;
  if (kind == ParamKind::kChoice) d.choices = {"greedy", "fifo", "cost_benefit"};
  return d;
}

ParamValue MustParse(ParamKind kind, std::string_view text) {
  Result<ParamValue> v = ParseParamValue(Decl(kind), text);
  EXPECT_TRUE(v.ok()) << ParamKindName(kind) << " '" << text << "': " << v.status().message();
  return v.ok() ? v.value() : ParamValue{};
}

std::string ParseError(const ParamDecl& d, std::string_view text) {
  Result<ParamValue> v = ParseParamValue(d, text);
  EXPECT_FALSE(v.ok()) << ParamKindName(d.kind) << " '" << text << "' unexpectedly parsed";
  return v.ok() ? "" : v.status().message();
}
std::string ParseError(ParamKind kind, std::string_view text) { return ParseError(Decl(kind), text); }

// ---------------------------------------------------------------------------
// Units.

TEST(ConfigUnitsTest, Durations) {
  const std::pair<const char*, int64_t> cases[] = {
      {"3.8ms", 3800000},   {"75us", 75000},       {"75 us", 75000},    {"75\xC2\xB5s", 75000},
      {"75\xCE\xBCs", 75000}, {"1s", 1000000000},  {"1sec", 1000000000}, {"2min", 120000000000},
      {"1h", 3600000000000}, {"0", 0},             {"0.0", 0},          {"12ns", 12},
      {"0.5ns", 1},          {"1.4ns", 1},         {"1e3ns", 1000},     {"1_000ns", 1000},
      {"+5ns", 5},           {".5us", 500},        {"1.000000001s", 1000000001},
      {"9223372036854775807ns", std::numeric_limits<int64_t>::max()},
  };
  for (const auto& [text, ns] : cases) EXPECT_EQ(MustParse(ParamKind::kDuration, text).t.ns(), ns) << text;
}

TEST(ConfigUnitsTest, DurationErrors) {
  EXPECT_THAT(ParseError(ParamKind::kDuration, "75"), HasSubstr("missing unit; write e.g. 75us (units: ns, us, ms"));
  EXPECT_THAT(ParseError(ParamKind::kDuration, "75xs"), HasSubstr("bad unit 'xs' for a duration; use ns, us, ms, s"));
  EXPECT_THAT(ParseError(ParamKind::kDuration, "75US"), HasSubstr("bad unit 'US'"));
  EXPECT_THAT(ParseError(ParamKind::kDuration, "5m"), HasSubstr("use min or ms"));
  EXPECT_THAT(ParseError(ParamKind::kDuration, "-1us"), HasSubstr("must not be negative"));
  EXPECT_THAT(ParseError(ParamKind::kDuration, "0.1ns"), HasSubstr("below the 1ns resolution"));
  EXPECT_THAT(ParseError(ParamKind::kDuration, "300y"), HasSubstr("bad unit"));
  EXPECT_THAT(ParseError(ParamKind::kDuration, "1e30s"), HasSubstr("too large"));
  EXPECT_THAT(ParseError(ParamKind::kDuration, "9223372036854775808ns"), HasSubstr("too large"));
  EXPECT_THAT(ParseError(ParamKind::kDuration, ""), HasSubstr("not a duration"));
  EXPECT_THAT(ParseError(ParamKind::kDuration, "us"), HasSubstr("not a duration"));
  EXPECT_THAT(ParseError(ParamKind::kDuration, "1..5us"), HasSubstr("bad unit '.5us'"));
}

TEST(ConfigUnitsTest, Bytes) {
  const std::pair<const char*, uint64_t> cases[] = {
      {"2MiB", 2097152},  {"4096", 4096},         {"4KiB", 4096},   {"4 KiB", 4096},     {"1GB", 1000000000},
      {"1.5KiB", 1536},   {"1e3", 1000},          {"0.5KB", 500},   {"1kB", 1000},       {"3TiB", 3ULL << 40},
      {"2PB", 2000000000000000}, {"0", 0},        {"100B", 100},    {"1_048_576", 1048576},
      {"18446744073709551615", std::numeric_limits<uint64_t>::max()},
  };
  for (const auto& [text, bytes] : cases) EXPECT_EQ(MustParse(ParamKind::kBytes, text).u, bytes) << text;
}

TEST(ConfigUnitsTest, ByteErrors) {
  EXPECT_THAT(ParseError(ParamKind::kBytes, "1.3KiB"), HasSubstr("not a whole number of bytes"));
  EXPECT_THAT(ParseError(ParamKind::kBytes, "0.5"), HasSubstr("not a whole number of bytes"));
  EXPECT_THAT(ParseError(ParamKind::kBytes, "4K"),
              HasSubstr("unit 'K' is ambiguous; write KiB (powers of 1024) or KB (powers of 1000)"));
  EXPECT_THAT(ParseError(ParamKind::kBytes, "4m"), HasSubstr("write MiB"));
  EXPECT_THAT(ParseError(ParamKind::kBytes, "16Mb"), HasSubstr("'Mb' counts bits"));
  EXPECT_THAT(ParseError(ParamKind::kBytes, "-1"), HasSubstr("must not be negative"));
  EXPECT_THAT(ParseError(ParamKind::kBytes, "18446744073709551616"), HasSubstr("too large"));
  EXPECT_THAT(ParseError(ParamKind::kBytes, "16EiB"), HasSubstr("bad unit 'EiB' for a size"));
  EXPECT_THAT(ParseError(ParamKind::kBytes, "1e30"), HasSubstr("too large"));
  EXPECT_THAT(ParseError(ParamKind::kBytes, "four"), HasSubstr("not a size"));
}

TEST(ConfigUnitsTest, Bandwidths) {
  const std::pair<const char*, double> cases[] = {
      {"333MB/s", 333e6},      {"8Gb/s", 1e9},      {"1GiB/s", 1073741824.0}, {"100KiB/s", 102400.0},
      {"0", 0.0},              {"1.5GB/s", 1.5e9},  {"12.5MB/s", 12.5e6},      {"1 B/s", 1.0},
      {"800Mb/s", 100e6},      {"2kB/s", 2000.0},   {"1TB/s", 1e12},           {"0.1GB/s", 1e8},
  };
  for (const auto& [text, bps] : cases) EXPECT_EQ(MustParse(ParamKind::kBandwidth, text).d, bps) << text;
}

TEST(ConfigUnitsTest, BandwidthErrors) {
  EXPECT_THAT(ParseError(ParamKind::kBandwidth, "333"), HasSubstr("missing unit; write e.g. 333MB/s"));
  EXPECT_THAT(ParseError(ParamKind::kBandwidth, "800MT/s"), HasSubstr("'MT/s' is a transfer rate, not a bandwidth"));
  EXPECT_THAT(ParseError(ParamKind::kBandwidth, "1Gbps"), HasSubstr("write 'Gb/s' instead of 'Gbps'"));
  EXPECT_THAT(ParseError(ParamKind::kBandwidth, "1MB"), HasSubstr("did you mean 'MB/s'?"));
  EXPECT_THAT(ParseError(ParamKind::kBandwidth, "-1MB/s"), HasSubstr("must not be negative"));
  EXPECT_THAT(ParseError(ParamKind::kBandwidth, "1M/s"), HasSubstr("bad unit 'M/s' for a bandwidth"));
  EXPECT_THAT(ParseError(ParamKind::kBandwidth, "1e400GB/s"), HasSubstr("too large"));
}

TEST(ConfigUnitsTest, Ratios) {
  EXPECT_EQ(MustParse(ParamKind::kRatio, "7%").d, 0.07);
  EXPECT_EQ(MustParse(ParamKind::kRatio, "7 %").d, 0.07);
  EXPECT_EQ(MustParse(ParamKind::kRatio, "0.07").d, 0.07);
  EXPECT_EQ(MustParse(ParamKind::kRatio, "100%").d, 1.0);
  EXPECT_EQ(MustParse(ParamKind::kRatio, "12.5%").d, 0.125);
  EXPECT_EQ(MustParse(ParamKind::kRatio, "0").d, 0.0);
  // Default range [0, 1]; a declared range replaces it.
  EXPECT_THAT(ParseError(ParamKind::kRatio, "107%"), HasSubstr("out of range; must be between 0% and 100%"));
  EXPECT_THAT(ParseError(ParamKind::kRatio, "-0.1"), HasSubstr("out of range"));
  EXPECT_EQ(ParseParamValue(Decl(ParamKind::kRatio, 0.0, 4.0), "250%")->d, 2.5);
  EXPECT_THAT(ParseError(Decl(ParamKind::kRatio, 0.0, 4.0), "500%"), HasSubstr("between 0% and 400%"));
  EXPECT_THAT(ParseError(ParamKind::kRatio, "7 percent"), HasSubstr("write a fraction (0.07) or a percentage (7%)"));
  // A bare number above 1 is a forgotten '%', whatever the declared range.
  EXPECT_EQ(MustParse(ParamKind::kRatio, "1").d, 1.0);
  EXPECT_EQ(MustParse(ParamKind::kRatio, "1.0").d, 1.0);
  EXPECT_THAT(ParseError(Decl(ParamKind::kRatio, 0.0, 10.0), "7"),
              HasSubstr("this would be 700%; write 7% for a percentage"));
  EXPECT_THAT(ParseError(Decl(ParamKind::kRatio, 0.0, 10.0), "28"), HasSubstr("write 28% for a percentage"));
  EXPECT_THAT(ParseError(Decl(ParamKind::kRatio, 0.0, 10.0), "1.5"), HasSubstr("would be 150%"));
  EXPECT_EQ(ParseParamValue(Decl(ParamKind::kRatio, 0.0, 10.0), "700%")->d, 7.0);
}

TEST(ConfigUnitsTest, Integers) {
  EXPECT_EQ(MustParse(ParamKind::kInt, "-5").i, -5);
  EXPECT_EQ(MustParse(ParamKind::kInt, "1_000_000").i, 1000000);
  EXPECT_EQ(MustParse(ParamKind::kInt, "1e6").i, 1000000);
  EXPECT_EQ(MustParse(ParamKind::kInt, "2.5e3").i, 2500);
  EXPECT_EQ(MustParse(ParamKind::kInt, "-9223372036854775808").i, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(MustParse(ParamKind::kInt, "9223372036854775807").i, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(MustParse(ParamKind::kUint, "18446744073709551615").u, std::numeric_limits<uint64_t>::max());
  EXPECT_EQ(MustParse(ParamKind::kUint, "1e19").u, 10000000000000000000ULL);
  EXPECT_EQ(MustParse(ParamKind::kUint, "-0").u, 0u);

  EXPECT_THAT(ParseError(ParamKind::kInt, "1.5"), HasSubstr("not a whole number"));
  EXPECT_THAT(ParseError(ParamKind::kInt, "9223372036854775808"), HasSubstr("too large"));
  EXPECT_THAT(ParseError(ParamKind::kUint, "18446744073709551616"), HasSubstr("too large"));
  EXPECT_THAT(ParseError(ParamKind::kUint, "-1"), HasSubstr("must not be negative"));
  for (const char* bad : {"abc", "1_", "_1", "1__0", "0x10", "", "1k", "1 000"}) {
    EXPECT_THAT(ParseError(ParamKind::kInt, bad), HasSubstr("not an integer")) << bad;
  }
}

TEST(ConfigUnitsTest, DoublesBoolsStringsChoices) {
  EXPECT_EQ(MustParse(ParamKind::kDouble, "0.1").d, 0.1);
  EXPECT_EQ(MustParse(ParamKind::kDouble, "-2.5e-3").d, -2.5e-3);
  EXPECT_EQ(MustParse(ParamKind::kDouble, "1_000.5").d, 1000.5);
  EXPECT_EQ(MustParse(ParamKind::kDouble, "1e308").d, 1e308);
  EXPECT_THAT(ParseError(ParamKind::kDouble, "nan"), HasSubstr("not a number"));
  EXPECT_THAT(ParseError(ParamKind::kDouble, "inf"), HasSubstr("not a number"));
  EXPECT_THAT(ParseError(ParamKind::kDouble, "1e400"), HasSubstr("too large"));
  EXPECT_THAT(ParseError(ParamKind::kDouble, "5kg"), HasSubstr("unexpected 'kg' after the number"));

  for (const char* t : {"true", "Yes", "ON"}) EXPECT_TRUE(MustParse(ParamKind::kBool, t).b) << t;
  for (const char* t : {"false", "No", "off"}) EXPECT_FALSE(MustParse(ParamKind::kBool, t).b) << t;
  EXPECT_THAT(ParseError(ParamKind::kBool, "1"), HasSubstr("use true/false, yes/no or on/off"));

  EXPECT_EQ(MustParse(ParamKind::kString, " any text: at all ").s, " any text: at all ");
  EXPECT_EQ(MustParse(ParamKind::kChoice, "fifo").s, "fifo");
  EXPECT_EQ(ParseError(ParamKind::kChoice, "gredy"),
            "not one of the choices greedy, fifo, cost_benefit — did you mean 'greedy'?");
  EXPECT_THAT(ParseError(ParamKind::kChoice, "Greedy"), HasSubstr("did you mean 'greedy'?"));
  EXPECT_EQ(ParseError(ParamKind::kChoice, "lru"), "not one of the choices greedy, fifo, cost_benefit");
}

TEST(ConfigUnitsTest, StringLists) {
  EXPECT_THAT(MustParse(ParamKind::kStringList, "[a, b]").list, ElementsAre("a", "b"));
  EXPECT_THAT(MustParse(ParamKind::kStringList, "[]").list, ElementsAre());
  EXPECT_THAT(MustParse(ParamKind::kStringList, "").list, ElementsAre());
  EXPECT_THAT(MustParse(ParamKind::kStringList, "single").list, ElementsAre("single"));
  EXPECT_THAT(MustParse(ParamKind::kStringList, "[\"a, b\", 'c']").list, ElementsAre("a, b", "c"));
  EXPECT_THAT(ParseError(ParamKind::kStringList, "[a, [b]]"), HasSubstr("list item 2 is not a single value"));
  EXPECT_THAT(ParseError(ParamKind::kStringList, "[a"), HasSubstr("not a valid list"));
}

TEST(ConfigUnitsTest, RangesSpeakHumanUnits) {
  EXPECT_EQ(ParseError(Decl(ParamKind::kUint, 1, 16), "17"), "out of range; must be between 1 and 16");
  EXPECT_EQ(ParseError(Decl(ParamKind::kDuration, 1e3, 1e8), "0.5us"),
            "out of range; must be between 1us and 100ms");
  EXPECT_EQ(ParseError(Decl(ParamKind::kBytes, 512, 65536), "128KiB"),
            "out of range; must be between 512B and 64KiB");
  EXPECT_EQ(ParseError(Decl(ParamKind::kBandwidth, 1), "0"), "out of range; must be at least 1B/s");
  EXPECT_EQ(ParseError(Decl(ParamKind::kInt, std::nullopt, -1), "0"), "out of range; must be at most -1");
  EXPECT_EQ(ParseParamValue(Decl(ParamKind::kUint, 1, 16), "16")->u, 16u);  // bounds are inclusive
}

TEST(ConfigUnitsTest, CanonicalFormats) {
  EXPECT_EQ(internal::FormatDuration(Ns(3800000)), "3.8ms");
  EXPECT_EQ(internal::FormatDuration(Us(75)), "75us");
  EXPECT_EQ(internal::FormatDuration(Ns(0)), "0ns");
  EXPECT_EQ(internal::FormatDuration(Ns(1500)), "1.5us");
  EXPECT_EQ(internal::FormatDuration(Ns(1000000001)), "1.000000001s");
  EXPECT_EQ(internal::FormatDuration(Sec(90)), "90s");
  EXPECT_EQ(internal::FormatDuration(Sec(120)), "2min");
  EXPECT_EQ(internal::FormatDuration(Sec(7200)), "2h");
  EXPECT_EQ(internal::FormatBytes(Bytes{2097152}), "2MiB");
  EXPECT_EQ(internal::FormatBytes(Bytes{1000000000}), "1GB");
  EXPECT_EQ(internal::FormatBytes(Bytes{1536}), "1536B");
  EXPECT_EQ(internal::FormatBytes(Bytes{0}), "0B");
  EXPECT_EQ(internal::FormatBandwidth(Bandwidth{333e6}), "333MB/s");
  EXPECT_EQ(internal::FormatBandwidth(Bandwidth{1073741824.0}), "1GiB/s");
  EXPECT_EQ(internal::FormatBandwidth(Bandwidth{12.5e6}), "12.5MB/s");
  EXPECT_EQ(internal::FormatBandwidth(Bandwidth{0.5}), "0.5B/s");
  EXPECT_EQ(internal::FormatRatio(Ratio{0.07}), "7%");
  EXPECT_EQ(internal::FormatRatio(Ratio{1.0}), "100%");
  EXPECT_EQ(internal::FormatRatio(Ratio{0.125}), "12.5%");
  EXPECT_EQ(internal::FormatDouble(0.1), "0.1");
  EXPECT_EQ(internal::FormatBool(true), "true");
  EXPECT_EQ(internal::FormatStringList({"a", "b c", "", "null"}), "[a, \"b c\", \"\", \"null\"]");
}

// ---------------------------------------------------------------------------
// Schema.

TEST(ConfigSchemaTest, KeysDefaultsAndLookups) {
  const SchemaNode& root = SchemaOf<ExperimentConfig>();
  EXPECT_THAT(root.AllKeys(),
              ElementsAre("name", "seed", "tags", "device.model", "device.geometry.channels",
                          "device.geometry.dies_per_channel", "device.geometry.page_size", "device.timing.tR",
                          "device.timing.tPROG", "device.timing.channel_rate", "ftl.op", "ftl.victim",
                          "ftl.wear_leveling", "ftl.gc_slack", "ftl.hot_weight"));
  ASSERT_NE(root.FindChild("device"), nullptr);
  const SchemaNode& timing = *root.FindChild("device")->node->FindChild("timing")->node;
  ASSERT_NE(timing.FindParam("tR"), nullptr);
  EXPECT_EQ(timing.FindParam("tR")->kind, ParamKind::kDuration);
  EXPECT_EQ(timing.FindParam("tR")->unit(), "ns");
  EXPECT_EQ(timing.FindParam("tr"), nullptr);
  EXPECT_EQ(root.FindParam("device.timing.tR"), timing.FindParam("tR"));
  EXPECT_EQ(root.FindChild("device.timing")->node.get(), &timing);
  EXPECT_EQ(root.FindParam("ftl.op")->unit(), "fraction");
  EXPECT_EQ(root.FindParam("device.geometry.page_size")->unit(), "bytes");
  EXPECT_EQ(root.FindParam("device.timing.channel_rate")->unit(), "bytes/s");
  EXPECT_EQ(ParamKindName(ParamKind::kBandwidth), "bandwidth");
  // Narrow integer fields get their type's limits; a declared Min keeps the type's max.
  const ParamDecl* dies = root.FindParam("device.geometry.dies_per_channel");
  EXPECT_EQ(dies->min, 1.0);
  EXPECT_EQ(dies->max, 4294967295.0);

  const ExperimentConfig c = MakeDefault<ExperimentConfig>();
  EXPECT_EQ(c.name, "unnamed");
  EXPECT_EQ(c.seed, 1u);
  EXPECT_TRUE(c.tags.empty());
  EXPECT_EQ(c.device.geometry.channels, 8u);
  EXPECT_EQ(c.device.geometry.page_size, KiB(16));
  EXPECT_EQ(c.device.timing.t_read, Us(75));
  EXPECT_EQ(c.device.timing.t_prog, Ns(1300000));
  EXPECT_EQ(c.device.timing.channel_rate.bytes_per_sec, 333e6);
  EXPECT_EQ(c.ftl.op.value, 0.07);
  EXPECT_EQ(c.ftl.victim, "greedy");
  EXPECT_FALSE(c.ftl.wear_leveling);
  EXPECT_EQ(c.ftl.gc_slack, -2);
}

TEST(ConfigSchemaTest, SourceLocToString) {
  EXPECT_EQ((SourceLoc{"a.yaml", 3, 7}).ToString(), "a.yaml:3:7");
  EXPECT_EQ((SourceLoc{"a.yaml", 3, 0}).ToString(), "a.yaml:3");
  EXPECT_EQ((SourceLoc{"--set", 0, 0}).ToString(), "--set");
}

struct BadDefaultConfig {
  SimTime t;
  static void Describe(Schema<BadDefaultConfig>& s) { s.Param("t", &BadDefaultConfig::t, "75xs", "Broken"); }
};
struct BadDefaultParent {
  BadDefaultConfig inner;
  static void Describe(Schema<BadDefaultParent>& s) { s.Section("inner", &BadDefaultParent::inner, "Inner"); }
};

TEST(ConfigSchemaDeathTest, BadDeclaredDefaultNamesTheKey) {
  EXPECT_DEATH(MakeDefault<BadDefaultParent>(), "bad declared default for config key 'inner.t'.*bad unit 'xs'");
}

// ---------------------------------------------------------------------------
// Loading.

class ConfigLoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = testing::TempDir() + "flashstack_config_test_" + std::to_string(getpid()) + "/" + info->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }

  // Writes `content` to `rel` under the test's directory; returns its path.
  std::string Write(const std::string& rel, const std::string& content) {
    const std::string path = dir_ + "/" + rel;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << content;
    return path;
  }

  Result<std::vector<ResolvedConfig>> Load(const std::string& path, const std::vector<std::string>& sets = {}) {
    return LoadExperiment(SchemaOf<ExperimentConfig>(), path, sets);
  }

  // The single run of `path`; fails the test on error or a sweep.
  ResolvedConfig LoadOne(const std::string& path, const std::vector<std::string>& sets = {}) {
    auto runs = Load(path, sets);
    EXPECT_TRUE(runs.ok()) << runs.status().message();
    if (!runs.ok()) return {};
    EXPECT_EQ(runs->size(), 1u);
    return runs->front();
  }

  std::string LoadError(const std::string& path, const std::vector<std::string>& sets = {}) {
    auto runs = Load(path, sets);
    EXPECT_FALSE(runs.ok());
    if (runs.ok()) return "";
    EXPECT_EQ(runs.status().code(), Status::Code::kInvalidInput);
    return runs.status().message();
  }

  std::string ErrorFor(const std::string& content) { return LoadError(Write("exp.yaml", content)); }

  ExperimentConfig BindRun(const ResolvedConfig& run) {
    ExperimentConfig c;
    const Status s = Bind(SchemaOf<ExperimentConfig>(), run, &c);
    EXPECT_TRUE(s.ok()) << s.message();
    return c;
  }

  std::string dir_;
};

TEST_F(ConfigLoadTest, NestedAndDottedKeysWithExactLocations) {
  const std::string path = Write("exp.yaml",
                                 "name: exp1\n"
                                 "device:\n"
                                 "  timing:\n"
                                 "    tR: 60us\n"
                                 "  geometry.channels: 16\n"
                                 "ftl.op: 28%\n"
                                 "tags: [a, \"b c\"]\n"
                                 "ftl:\n"
                                 "  victim: fifo\n");
  const ResolvedConfig run = LoadOne(path);
  EXPECT_EQ(run.sweep_label, "");
  ASSERT_EQ(run.values.size(), 6u);  // only explicitly set keys
  EXPECT_EQ(run.values.at("name").text, "exp1");
  EXPECT_EQ(run.values.at("name").loc.ToString(), path + ":1:7");
  EXPECT_EQ(run.values.at("device.timing.tR").text, "60us");
  EXPECT_EQ(run.values.at("device.timing.tR").loc.ToString(), path + ":4:9");
  EXPECT_EQ(run.values.at("device.geometry.channels").loc.ToString(), path + ":5:22");
  EXPECT_EQ(run.values.at("ftl.op").loc.ToString(), path + ":6:9");
  EXPECT_EQ(run.values.at("tags").text, "[a, \"b c\"]");

  const ExperimentConfig c = BindRun(run);
  EXPECT_EQ(c.name, "exp1");
  EXPECT_EQ(c.device.timing.t_read, Us(60));
  EXPECT_EQ(c.device.timing.t_prog, Ns(1300000));  // default
  EXPECT_EQ(c.device.geometry.channels, 16u);
  EXPECT_EQ(c.ftl.op.value, 0.28);
  EXPECT_EQ(c.ftl.victim, "fifo");
  EXPECT_THAT(c.tags, ElementsAre("a", "b c"));
}

TEST_F(ConfigLoadTest, EmptyAndCommentOnlyFilesAreEmptyConfigs) {
  for (const char* content : {"", "# nothing here\n\n", "---\n", "device:\n"}) {
    const ResolvedConfig run = LoadOne(Write("exp.yaml", content));
    EXPECT_TRUE(run.values.empty()) << content;
  }
}

TEST_F(ConfigLoadTest, WindowsLineEndingsAndByteOrderMarkAreAccepted) {
  const std::string path = Write("exp.yaml", "\xEF\xBB\xBFname: crlf\r\nftl:\r\n  op: 10%\r\n");
  const ResolvedConfig run = LoadOne(path);
  EXPECT_EQ(run.values.at("name").text, "crlf");
  EXPECT_EQ(run.values.at("ftl.op").text, "10%");
  EXPECT_EQ(run.values.at("ftl.op").loc.ToString(), path + ":3:7");
}

TEST_F(ConfigLoadTest, UnknownKeysSuggestTheClosestDeclaredKey) {
  const std::string path = dir_ + "/exp.yaml";
  EXPECT_EQ(ErrorFor("device:\n  timing:\n    tr: 5us\n"),
            path + ":3:5: unknown key 'device.timing.tr' — did you mean 'device.timing.tR'?");
  EXPECT_EQ(ErrorFor("ftl.victm: fifo\n"), path + ":1:1: unknown key 'ftl.victm' — did you mean 'ftl.victim'?");
  EXPECT_EQ(ErrorFor("name: x\nftl:\n  channels: 4\n"),
            path + ":3:3: unknown key 'ftl.channels' — did you mean 'device.geometry.channels'?");
  EXPECT_EQ(ErrorFor("devcie:\n  model: x\n"), path + ":1:1: unknown key 'devcie' — did you mean 'device'?");
  EXPECT_EQ(ErrorFor("Device.Model: x\n"), path + ":1:1: unknown key 'Device.Model' — did you mean 'device.model'?");
  EXPECT_EQ(ErrorFor("device.timng.tR: 5us\n"),
            path + ":1:1: unknown key 'device.timng.tR' — did you mean 'device.timing.tR'?");
  EXPECT_EQ(ErrorFor("bogus: 1\n"),
            path + ":1:1: unknown key 'bogus'; valid keys at the top level: name, seed, tags, device, ftl, include, "
                   "sweep");
  EXPECT_EQ(ErrorFor("ftl:\n  xyz: 1\n"),
            path + ":2:3: unknown key 'ftl.xyz'; valid keys in 'ftl': op, victim, wear_leveling, gc_slack, "
                   "hot_weight");
  EXPECT_THAT(ErrorFor("device.timing.tR.x: 1\n"), StartsWith(path + ":1:1: unknown key 'device.timing.tR.x'"));
  EXPECT_THAT(ErrorFor("device..model: 1\n"), StartsWith(path + ":1:1: unknown key 'device..model'"));
}

// Every error of single keys is reported in one pass, one per line in
// file order, then the --set ones, and a count; not only the first.
TEST_F(ConfigLoadTest, EveryKeyErrorIsReportedInOnePass) {
  const std::string path = dir_ + "/exp.yaml";
  EXPECT_EQ(LoadError(Write("exp.yaml", "ftl:\n  op: 107%\n  victm: fifo\ndevice.timing.tR: 75\nname: ok\n"),
                      {"bogus=1"}),
            path + ":2:7: ftl.op: out of range; must be between 0% and 100% (got '107%')\n" + path +
                ":3:3: unknown key 'ftl.victm' — did you mean 'ftl.victim'?\n" + path +
                ":4:19: device.timing.tR: missing unit; write e.g. 75us (units: ns, us, ms, s, min, h) (got '75')\n"
                "--set bogus=1: unknown key 'bogus'; valid keys at the top level: name, seed, tags, device, ftl, "
                "include, sweep\n4 errors");
  // A run of mistakes stops at the limit, and says so.
  std::string many;
  for (int i = 0; i < 30; ++i) many += "ftl.x" + std::to_string(i) + ": 1\n";
  const std::string msg = LoadError(Write("exp.yaml", many));
  EXPECT_EQ(std::count(msg.begin(), msg.end(), '\n'), 20);
  EXPECT_THAT(msg, testing::EndsWith("20 errors (the first 20; fix them and check again)"));
}

TEST_F(ConfigLoadTest, BadValuesAndShapesNameKeyAndText) {
  const std::string path = dir_ + "/exp.yaml";
  EXPECT_EQ(ErrorFor("ftl:\n  op: 107%\n"),
            path + ":2:7: ftl.op: out of range; must be between 0% and 100% (got '107%')");
  EXPECT_EQ(ErrorFor("device.timing.tR: 75\n"),
            path + ":1:19: device.timing.tR: missing unit; write e.g. 75us (units: ns, us, ms, s, min, h) "
                   "(got '75')");
  EXPECT_EQ(ErrorFor("device:\n  geometry: {page_size: 4K}\n"),
            path + ":2:25: device.geometry.page_size: unit 'K' is ambiguous; write KiB (powers of 1024) or KB "
                   "(powers of 1000) (got '4K')");
  EXPECT_EQ(ErrorFor("device.geometry.dies_per_channel: 4294967296\n"),
            path + ":1:35: device.geometry.dies_per_channel: out of range; must be between 1 and 4294967295 "
                   "(got '4294967296')");
  EXPECT_EQ(ErrorFor("device: 5\n"), path + ":1:9: device: is a section; expected a map of its keys, got a value '5'");
  EXPECT_EQ(ErrorFor("ftl.op: [1, 2]\n"), path + ":1:9: ftl.op: expected a single ratio value, got a list");
  EXPECT_EQ(ErrorFor("ftl.op: {a: 1}\n"), path + ":1:9: ftl.op: expected a single ratio value, got a map");
  EXPECT_EQ(ErrorFor("name:\n"), path + ":1:1: name: missing value (write \"\" for an empty string)");
  EXPECT_EQ(ErrorFor("seed: ~\n"), path + ":1:1: seed: missing value");
  EXPECT_EQ(ErrorFor("tags: [a, [b]]\n"), path + ":1:11: tags: list items must be single values, got a list");
  EXPECT_EQ(ErrorFor("- a\n- b\n"), path + ":1:1: the top level must be a map of keys, not a list");
  EXPECT_EQ(ErrorFor("name: a\n---\nname: b\n"), path + ":2:1: only one YAML document per file is allowed");
}

TEST_F(ConfigLoadTest, DuplicateKeysAreErrors) {
  const std::string path = dir_ + "/exp.yaml";
  EXPECT_EQ(ErrorFor("name: a\nseed: 1\nname: b\n"), path + ":3:1: duplicate key 'name' (first at line 1)");
  EXPECT_EQ(ErrorFor("ftl:\n  op: 1%\n  op: 2%\n"), path + ":3:3: duplicate key 'op' (first at line 2)");
  EXPECT_EQ(ErrorFor("device.model: a\ndevice:\n  model: b\n"),
            path + ":3:3: device.model: set twice in this file (first at " + path + ":1:1)");
}

TEST_F(ConfigLoadTest, YamlSyntaxErrorsCarryTheParserPosition) {
  const std::string path = dir_ + "/exp.yaml";
  EXPECT_THAT(ErrorFor("name: a\nseed: [1, 2\n"), StartsWith(path + ":3:1: YAML syntax error: "));
  EXPECT_THAT(ErrorFor("name: a\n  seed: 1\n"), StartsWith(path + ":2:7: YAML syntax error: "));
  EXPECT_EQ(ErrorFor("name: [a, b]]\n"), path + ":1:13: YAML syntax error: illegal flow end");
  EXPECT_EQ(ErrorFor("name: a: b\n"), path + ":1:8: YAML syntax error: illegal map value");
  EXPECT_EQ(ErrorFor("name: a\n\tseed: 1\n"),
            path + ":2:1: YAML syntax error: illegal tab when looking for indentation");
  // yaml-cpp alone would drop the text after a stray ',' (or loop on it).
  EXPECT_EQ(ErrorFor(",name: a\n"), path + ":1:1: YAML syntax error: unexpected ','");
  EXPECT_EQ(ErrorFor("[a],\n"), path + ":1:4: YAML syntax error: unexpected ','");
  EXPECT_THAT(ErrorFor("tags: " + std::string(5000, '[') + "\n"),
              ::testing::MatchesRegex(path + ":[0-9]+:[0-9]+: YAML syntax error: nested too deeply"));
  EXPECT_THAT(LoadError(Write("ok.yaml", "name: a\n"), {"tags=[a],"}),
              StartsWith("--set tags=[a],: tags: not a valid YAML value: YAML syntax error: unexpected ','"));
}

TEST_F(ConfigLoadTest, IncludesApplyFirstAndTheIncluderOverrides) {
  Write("presets/dev.yaml",
        "device:\n"
        "  model: fast\n"
        "  timing: {tR: 50us, tPROG: 1ms}\n");
  Write("presets/ftl.yaml", "ftl.victim: fifo\ndevice.model: slow\n");
  const std::string path = Write("exp.yaml",
                                 "device.timing.tR: 40us\n"
                                 "include: [presets/dev.yaml, presets/ftl.yaml]\n");
  const ResolvedConfig run = LoadOne(path);
  EXPECT_EQ(run.values.at("device.timing.tR").text, "40us");
  EXPECT_EQ(run.values.at("device.timing.tR").loc.ToString(), path + ":1:19");
  EXPECT_EQ(run.values.at("device.timing.tPROG").text, "1ms");
  EXPECT_EQ(run.values.at("device.timing.tPROG").loc.ToString(), dir_ + "/presets/dev.yaml:3:29");
  EXPECT_EQ(run.values.at("device.model").text, "slow");  // the later include wins
  EXPECT_EQ(run.values.at("device.model").loc.ToString(), dir_ + "/presets/ftl.yaml:2:15");
  EXPECT_EQ(run.values.at("ftl.victim").text, "fifo");
}

TEST_F(ConfigLoadTest, NestedIncludesAreRelativeToTheIncludingFile) {
  Write("base.yaml", "name: base\nseed: 7\nftl.op: 10%\n");
  Write("sub/mid.yaml", "include: ../base.yaml\nseed: 8\nftl.op: 20%\n");
  const std::string path = Write("exp.yaml", "include: sub/mid.yaml\nftl.op: 30%\n");
  const ResolvedConfig run = LoadOne(path);
  EXPECT_EQ(run.values.at("name").text, "base");
  EXPECT_EQ(run.values.at("seed").text, "8");
  EXPECT_EQ(run.values.at("ftl.op").text, "30%");
  EXPECT_EQ(run.values.at("name").loc.file, dir_ + "/base.yaml");
}

TEST_F(ConfigLoadTest, IncludeCyclesAndMissingFilesAreErrors) {
  Write("a.yaml", "include: b.yaml\n");
  Write("b.yaml", "name: b\ninclude: [a.yaml]\n");
  EXPECT_EQ(LoadError(dir_ + "/a.yaml"), dir_ + "/b.yaml:2:11: include cycle: " + dir_ + "/a.yaml -> " + dir_ +
                                             "/b.yaml -> " + dir_ + "/a.yaml");
  Write("self.yaml", "include: ./self.yaml\n");
  std::filesystem::create_directories(dir_ + "/sub");
  EXPECT_THAT(LoadError(dir_ + "/self.yaml"), HasSubstr("self.yaml:1:10: include cycle: "));

  const std::string path = Write("exp.yaml", "name: x\ninclude: nope.yaml\n");
  EXPECT_EQ(LoadError(path), path + ":2:10: include '" + dir_ + "/nope.yaml': cannot open config file: no such file");
  EXPECT_EQ(LoadError(dir_ + "/missing.yaml"), dir_ + "/missing.yaml: cannot open config file: no such file");
  EXPECT_EQ(ErrorFor("include: /dev/null\n"), path + ":1:10: include '/dev/null': is not a regular file");
  EXPECT_EQ(ErrorFor("include: sub\n"), path + ":1:10: include '" + dir_ + "/sub': is a directory, not a config file");
  EXPECT_EQ(ErrorFor("include: {a: b}\n"), path + ":1:10: include: expected a path or a list of paths, got a map");

  // A diamond (the same preset reached twice) is not a cycle.
  Write("d/common.yaml", "seed: 3\n");
  Write("d/left.yaml", "include: common.yaml\n");
  Write("d/right.yaml", "include: common.yaml\n");
  Write("d/top.yaml", "include: [left.yaml, right.yaml]\n");
  EXPECT_EQ(LoadOne(dir_ + "/d/top.yaml").values.at("seed").text, "3");
}

TEST_F(ConfigLoadTest, SetOverridesWinAndReportErrors) {
  const std::string path = Write("exp.yaml", "device.timing.tR: 40us\nname: file\n");
  const ResolvedConfig run =
      LoadOne(path, {"device.timing.tR=90us", "tags=[x, \"y z\"]", "name=first", "name = it's: fine"});
  EXPECT_EQ(run.values.at("device.timing.tR").text, "90us");
  EXPECT_EQ(run.values.at("device.timing.tR").loc.ToString(), "--set device.timing.tR=90us");
  EXPECT_EQ(run.values.at("name").text, " it's: fine");  // later --set wins; the value is verbatim
  const ExperimentConfig c = BindRun(run);
  EXPECT_EQ(c.device.timing.t_read, Us(90));
  EXPECT_THAT(c.tags, ElementsAre("x", "y z"));
  EXPECT_THAT(BindRun(LoadOne(path, {"tags=solo"})).tags, ElementsAre("solo"));

  EXPECT_EQ(LoadError(path, {"device.timing.tr=5us"}),
            "--set device.timing.tr=5us: unknown key 'device.timing.tr' — did you mean 'device.timing.tR'?");
  EXPECT_EQ(LoadError(path, {"ftl.op=2"}),
            "--set ftl.op=2: ftl.op: a bare number is a fraction, at most 1: this would be 200%; write 2% for a "
            "percentage (got '2')");
  EXPECT_EQ(LoadError(path, {"ftl.op=200%"}),
            "--set ftl.op=200%: ftl.op: out of range; must be between 0% and 100% (got '200%')");
  EXPECT_EQ(LoadError(path, {"device=1"}),
            "--set device=1: 'device' is a section; --set needs a key such as 'device.model'");
  EXPECT_EQ(LoadError(path, {"nokey"}), "--set nokey: expected key=value");
  EXPECT_EQ(LoadError(path, {"=5"}), "--set =5: expected key=value");
  EXPECT_THAT(LoadError(path, {"tags=[a"}), StartsWith("--set tags=[a: tags: not a valid YAML value: "));
}

TEST_F(ConfigLoadTest, SweepExpandsToTheGridInDeclarationOrder) {
  const std::string path = Write("exp.yaml",
                                 "ftl.op: 50%\n"
                                 "sweep:\n"
                                 "  ftl.op: [7%, 28%]\n"
                                 "  ftl:\n"
                                 "    victim: [greedy, fifo, cost_benefit]\n"
                                 "name: grid\n");
  auto runs = Load(path);
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_EQ(runs->size(), 6u);
  std::vector<std::string> labels;
  for (const ResolvedConfig& r : *runs) labels.push_back(r.sweep_label);
  EXPECT_THAT(labels, ElementsAre("ftl.op=7%,ftl.victim=greedy", "ftl.op=7%,ftl.victim=fifo",
                                  "ftl.op=7%,ftl.victim=cost_benefit", "ftl.op=28%,ftl.victim=greedy",
                                  "ftl.op=28%,ftl.victim=fifo", "ftl.op=28%,ftl.victim=cost_benefit"));
  const ResolvedConfig& r4 = (*runs)[4];
  EXPECT_EQ(r4.values.at("ftl.op").text, "28%");  // the sweep overrides the file's value
  EXPECT_EQ(r4.values.at("ftl.op").loc.ToString(), path + ":3:16");
  EXPECT_EQ(r4.values.at("ftl.victim").loc.ToString(), path + ":5:22");
  EXPECT_EQ(r4.values.at("name").text, "grid");
  const ExperimentConfig c = BindRun(r4);
  EXPECT_EQ(c.ftl.op.value, 0.28);
  EXPECT_EQ(c.ftl.victim, "fifo");

  EXPECT_EQ(LoadError(path, {"ftl.op=10%"}),
            "--set ftl.op=10%: ftl.op: key is also swept (at " + path +
                ":3:3); remove it from sweep: or drop the --set");
  // Other keys may still be set.
  EXPECT_EQ(Load(path, {"seed=9"})->size(), 6u);
}

TEST_F(ConfigLoadTest, SweepsMergeAcrossIncludesAndListsCanBeSwept) {
  Write("base.yaml", "sweep:\n  seed: [1, 2, 3]\n  name: [a, b]\n");
  const std::string path = Write("exp.yaml",
                                 "include: base.yaml\n"
                                 "sweep:\n"
                                 "  seed: [10, 20]\n"
                                 "  tags: [[x], [y, z]]\n");
  auto runs = Load(path);
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  std::vector<std::string> labels;
  for (const ResolvedConfig& r : *runs) labels.push_back(r.sweep_label);
  // seed keeps its place but takes the including file's list.
  EXPECT_THAT(labels, ElementsAre("seed=10,name=a,tags=[x]", "seed=10,name=a,tags=[y, z]", "seed=10,name=b,tags=[x]",
                                  "seed=10,name=b,tags=[y, z]", "seed=20,name=a,tags=[x]", "seed=20,name=a,tags=[y, z]",
                                  "seed=20,name=b,tags=[x]", "seed=20,name=b,tags=[y, z]"));
  EXPECT_THAT(BindRun((*runs)[1]).tags, ElementsAre("y", "z"));
}

TEST_F(ConfigLoadTest, BadSweepsAreReportedBeforeAnyRun) {
  const std::string path = dir_ + "/exp.yaml";
  EXPECT_EQ(ErrorFor("sweep:\n  ftl.op: [7%, 170%, 28%]\n"),
            path + ":2:16: ftl.op: out of range; must be between 0% and 100% (got '170%')");
  EXPECT_EQ(ErrorFor("sweep:\n  ftl.op: []\n"),
            path + ":2:11: sweep: ftl.op: expected a non-empty list of values, got an empty list");
  EXPECT_EQ(ErrorFor("sweep:\n  ftl.op: 7%\n"),
            path + ":2:11: sweep: ftl.op: expected a non-empty list of values, got a value '7%'");
  EXPECT_EQ(ErrorFor("sweep:\n  ftl.opp: [1%]\n"),
            path + ":2:3: unknown key 'ftl.opp' — did you mean 'ftl.op'?");
  EXPECT_EQ(ErrorFor("sweep: [a]\n"), path + ":1:8: sweep: expected a map of key -> list of values, got a list");
  EXPECT_EQ(ErrorFor("sweep:\n  seed: [1]\n  seed: [2]\n"), path + ":3:3: duplicate key 'seed' (first at line 2)");
  const std::string six = ": [1, 2, 3, 4, 5, 6]\n";
  EXPECT_EQ(ErrorFor("sweep:\n  seed" + six + "  name" + six + "  ftl.hot_weight" + six + "  ftl.gc_slack" + six +
                     "  device.geometry.dies_per_channel" + six + "  device.model" + six + "  device.geometry.channels" + six),
            path + ":2:3: sweep: expands to more than 100000 runs");
}

TEST_F(ConfigLoadTest, BindRejectsUnknownKeysAndBadText) {
  ResolvedConfig cfg;
  cfg.values["device.timing.tR"] = {"5us", SourceLoc{"x.yaml", 2, 3}};
  ExperimentConfig c = BindRun(cfg);
  EXPECT_EQ(c.device.timing.t_read, Us(5));
  EXPECT_EQ(c.device.timing.t_prog, Ns(1300000));

  cfg.values["device.nope"] = {"1", SourceLoc{"x.yaml", 4, 1}};
  EXPECT_EQ(Bind(SchemaOf<ExperimentConfig>(), cfg, &c).message(), "x.yaml:4:1: unknown key 'device.nope'");
  cfg.values.erase("device.nope");
  cfg.values["ftl.victim"] = {"lru", SourceLoc{"--set", 0, 0}};
  EXPECT_EQ(Bind(SchemaOf<ExperimentConfig>(), cfg, &c).message(),
            "--set: ftl.victim: not one of the choices greedy, fifo, cost_benefit (got 'lru')");
}

TEST_F(ConfigLoadTest, DumpOfDefaultsIsCompleteAndCommented) {
  const ExperimentConfig c = MakeDefault<ExperimentConfig>();
  EXPECT_EQ(DumpYaml(SchemaOf<ExperimentConfig>(), &c),
            "name: unnamed  # Experiment name\n"
            "seed: 1  # Run seed\n"
            "tags: []  # Free-form labels\n"
            "device:  # The SSD\n"
            "  model: generic  # Device model name\n"
            "  geometry:  # Flash array shape\n"
            "    channels: 8  # Flash channels\n"
            "    dies_per_channel: 4  # Dies on each channel\n"
            "    page_size: 16KiB  # Bytes per flash page\n"
            "  timing:  # NAND timings\n"
            "    tR: 75us  # Array read time per page\n"
            "    tPROG: 1.3ms  # Page program time\n"
            "    channel_rate: 333MB/s  # Channel bus rate\n"
            "ftl:  # Flash translation layer\n"
            "  op: 7%  # Over-provisioning ratio\n"
            "  victim: greedy  # GC victim policy\n"
            "  wear_leveling: false  # Static wear leveling\n"
            "  gc_slack: -2  # Free-block slack before GC (may be negative)\n"
            "  hot_weight: 0.5  # Weight of hot data in victim scoring\n");
}

TEST_F(ConfigLoadTest, DumpRoundTripsThroughLoad) {
  ExperimentConfig c = MakeDefault<ExperimentConfig>();
  c.name = "weird: \"name\" # not a comment\n\ttab \xC3\xBC \\ end";
  c.seed = std::numeric_limits<uint64_t>::max();
  c.tags = {"a, b", "", "null", "[x]", "-", "\xC3\xBCn\xC3\xAF", "#hash", "key: v"};
  c.device.model = "";
  c.device.geometry.channels = 64;
  c.device.geometry.page_size = Bytes{1536};
  c.device.timing.t_read = Ns(3800001);
  c.device.timing.t_prog = Ns(100000000);
  c.device.timing.channel_rate = Bandwidth{1e9 / 3};
  c.ftl.op = Ratio{1.0 / 3};
  c.ftl.victim = "cost_benefit";
  c.ftl.wear_leveling = true;
  c.ftl.gc_slack = std::numeric_limits<int32_t>::min();
  c.ftl.hot_weight = -1.2345678901234567e-300;

  const std::string dump = DumpYaml(SchemaOf<ExperimentConfig>(), &c);
  EXPECT_EQ(dump, DumpYaml(SchemaOf<ExperimentConfig>(), &c));  // deterministic
  EXPECT_THAT(dump, HasSubstr("    tR: 3.800001ms  # Array read time per page\n"));
  const ResolvedConfig run = LoadOne(Write("dump.yaml", dump));
  EXPECT_EQ(run.values.size(), SchemaOf<ExperimentConfig>().AllKeys().size());
  const ExperimentConfig back = BindRun(run);
  EXPECT_EQ(back.name, c.name);
  EXPECT_EQ(back.seed, c.seed);
  EXPECT_EQ(back.tags, c.tags);
  EXPECT_EQ(back.device.model, c.device.model);
  EXPECT_EQ(back.device.geometry.channels, c.device.geometry.channels);
  EXPECT_EQ(back.device.geometry.page_size, c.device.geometry.page_size);
  EXPECT_EQ(back.device.timing.t_read, c.device.timing.t_read);
  EXPECT_EQ(back.device.timing.t_prog, c.device.timing.t_prog);
  EXPECT_EQ(back.device.timing.channel_rate, c.device.timing.channel_rate);
  EXPECT_EQ(back.ftl.op, c.ftl.op);
  EXPECT_EQ(back.ftl.victim, c.ftl.victim);
  EXPECT_EQ(back.ftl.wear_leveling, c.ftl.wear_leveling);
  EXPECT_EQ(back.ftl.gc_slack, c.ftl.gc_slack);
  EXPECT_EQ(back.ftl.hot_weight, c.ftl.hot_weight);
  EXPECT_EQ(DumpYaml(SchemaOf<ExperimentConfig>(), &back), dump);
}

// ---------------------------------------------------------------------------
// Sections of named entries (Schema::Named).

struct TenantConfig {
  uint32_t depth = 0;
  std::string prio;
  static void Describe(Schema<TenantConfig>& s) {
    s.Param("depth", &TenantConfig::depth, "4", "Queue depth").Range(1, 64);
    s.Choice("prio", &TenantConfig::prio, "medium", {"low", "medium", "high"}, "Priority");
  }
};

struct MultiConfig {
  uint32_t x = 0;
  std::map<std::string, TenantConfig> tenants;
  static void Describe(Schema<MultiConfig>& s) {
    s.Param("x", &MultiConfig::x, "1", "A plain key");
    s.Named("tenants", &MultiConfig::tenants, "Tenants by name", "One tenant");
  }
};

class NamedSectionTest : public ConfigLoadTest {
 protected:
  Result<std::vector<ResolvedConfig>> LoadMulti(const std::string& content, const std::vector<std::string>& sets = {}) {
    return LoadExperiment(SchemaOf<MultiConfig>(), Write("multi.yaml", content), sets);
  }
};

TEST_F(NamedSectionTest, EntriesOfAnyNameBindWithTheirDefaults) {
  auto runs = LoadMulti(
      "tenants:\n"
      "  reader: {depth: 2, prio: high}\n"
      "  writer-1:\n"
      "    prio: low\n"
      "tenants.other.depth: 9\n",
      {"tenants.late.depth=3"});
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  MultiConfig c;
  ASSERT_TRUE(Bind(SchemaOf<MultiConfig>(), runs->front(), &c).ok());
  ASSERT_EQ(c.tenants.size(), 4u);
  EXPECT_EQ(c.tenants.at("reader").depth, 2u);
  EXPECT_EQ(c.tenants.at("reader").prio, "high");
  EXPECT_EQ(c.tenants.at("writer-1").depth, 4u);  // declared default
  EXPECT_EQ(c.tenants.at("writer-1").prio, "low");
  EXPECT_EQ(c.tenants.at("other").depth, 9u);
  EXPECT_EQ(c.tenants.at("late").depth, 3u);
  EXPECT_EQ(runs->front().values.at("tenants.reader.depth").loc.line, 2);
  // A config naming no entry has none.
  MultiConfig empty = MakeDefault<MultiConfig>();
  EXPECT_TRUE(empty.tenants.empty());
  EXPECT_EQ(GetKey(SchemaOf<MultiConfig>(), &c, "tenants.reader.prio").value(), "high");
  EXPECT_TRUE(SetKey(SchemaOf<MultiConfig>(), &c, "tenants.new.depth", "5").ok());
  EXPECT_EQ(c.tenants.at("new").depth, 5u);
}

TEST_F(NamedSectionTest, BadNamesKeysAndValuesAreErrorsWithTheirPlace) {
  auto bad_value = LoadMulti("tenants:\n  a:\n    depth: 99\n");
  ASSERT_FALSE(bad_value.ok());
  EXPECT_THAT(bad_value.status().message(), HasSubstr("multi.yaml:3:12: tenants.a.depth"));
  auto bad_key = LoadMulti("tenants:\n  a:\n    dpeth: 2\n");
  ASSERT_FALSE(bad_key.ok());
  EXPECT_THAT(bad_key.status().message(), HasSubstr("multi.yaml:3:5: unknown key 'tenants.a.dpeth'"));
  EXPECT_THAT(bad_key.status().message(), HasSubstr("valid keys in 'tenants.a': depth, prio"));
  auto bad_name = LoadMulti("tenants:\n  1st:\n    depth: 2\n");
  ASSERT_FALSE(bad_name.ok());
  EXPECT_THAT(bad_name.status().message(), HasSubstr("multi.yaml:2:3: unknown key 'tenants.1st'"));
  auto not_a_map = LoadMulti("tenants:\n  a: 3\n");
  ASSERT_FALSE(not_a_map.ok());
  EXPECT_THAT(not_a_map.status().message(), HasSubstr("tenants.a: is a section"));
}

TEST_F(NamedSectionTest, SweepsReachEntriesAndTheDumpRoundTrips) {
  auto runs = LoadMulti(
      "tenants: {a: {depth: 2}, b: {prio: low}}\n"
      "sweep:\n"
      "  tenants.a.depth: [1, 8]\n");
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_EQ(runs->size(), 2u);
  MultiConfig c;
  ASSERT_TRUE(Bind(SchemaOf<MultiConfig>(), (*runs)[1], &c).ok());
  EXPECT_EQ(c.tenants.at("a").depth, 8u);
  const std::string dump = DumpYaml(SchemaOf<MultiConfig>(), &c);
  EXPECT_THAT(dump, HasSubstr("tenants:  # Tenants by name\n  a:  # One tenant\n    depth: 8  # Queue depth\n"));
  auto back_runs = LoadExperiment(SchemaOf<MultiConfig>(), Write("dump.yaml", dump), {});
  ASSERT_TRUE(back_runs.ok()) << back_runs.status().message();
  MultiConfig back;
  ASSERT_TRUE(Bind(SchemaOf<MultiConfig>(), back_runs->front(), &back).ok());
  EXPECT_EQ(DumpYaml(SchemaOf<MultiConfig>(), &back), dump);
  const std::vector<std::string> keys = SchemaOf<MultiConfig>().AllKeys();
  EXPECT_EQ(keys, (std::vector<std::string>{"x", "tenants.<name>.depth", "tenants.<name>.prio"}));
}

}  // namespace
}  // namespace sim
