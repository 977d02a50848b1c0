#include <unistd.h>
// Randomized robustness tests for the configuration system: mutated YAML
// files, random --set overrides and random value texts must never crash or
// hang, every failure must be a located InvalidInput, and everything that
// loads must bind and survive a dump/reload round trip. Seeds are fixed, so
// a failure reproduces; the failing input is printed.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/config.h"
#include "sim/config_test_schema.h"
#include "sim/rng.h"

namespace sim {
namespace {

using config_testing::ExperimentConfig;

// Valid experiment files the mutations start from.
const char* const kSeeds[] = {
    "name: exp1\n"
    "seed: 42\n"
    "device:\n"
    "  model: fast\n"
    "  geometry: {channels: 16, dies_per_channel: 2, page_size: 4KiB}\n"
    "  timing:\n"
    "    tR: 3.8ms   # comment\n"
    "    channel_rate: 8Gb/s\n"
    "ftl.op: 7%\n",

    "include: base.yaml\n"
    "tags: [a, \"b c\", 'd']\n"
    "ftl:\n"
    "  victim: fifo\n"
    "  gc_slack: -3\n"
    "  hot_weight: 1.5e-3\n"
    "sweep:\n"
    "  ftl.op: [7%, 28%]\n"
    "  device:\n"
    "    timing.tPROG: [1ms, 2ms, 1500us]\n",

    "device.geometry.channels: 8\n"
    "device.timing.tR: 75us\n"
    "device.timing.tPROG: 1_300us\n"
    "ftl.wear_leveling: yes\n"
    "tags:\n"
    "  - one\n"
    "  - two\n"
    "name: \"quoted: name\"\n",

    "# only a sweep\n"
    "sweep:\n"
    "  seed: [1, 2, 3]\n"
    "  tags: [[x], [y, z]]\n",
};

const char* const kBaseFile = "device.model: base\nseed: 7\n";

// Characters and fragments that stress a YAML parser.
const char kSpecialChars[] = ":-[]{},#&*!|>'\"%@`?\t\n \\.0123456789eE+_%/abcxyzKMGiBs";
const char* const kFragments[] = {
    "&x ",  "*x",       "!!str ",  "<<: ",     "? ",         "|\n",    ">\n",        "---\n",   "...\n",
    "%YAML 1.2\n", "\t",  "\r\n",    "~",        "null",       "\"\\u0000\"", "''",      "{",       "[",
    "include: ", "sweep: ", "include: SELF\n" /* the file itself */, "include: .\n", "include: [base.yaml, base.yaml]\n",
    "sweep: {seed: [", "device.", "timing.", "\xEF\xBB\xBF", "\xE2\x80\xA8", "\xF0\x9F\x98\x80", "\xC3",
    "\xFF\xFE",
};

std::string RandomUtf8(Rng& rng) {
  // A mix of valid code points (incl. BOM, line separator, emoji) and invalid bytes.
  switch (rng.Uniform(4)) {
    case 0: return std::string(1, static_cast<char>(0x80 + rng.Uniform(0x80)));  // stray byte
    case 1: {
      const uint32_t cp = 0x80 + static_cast<uint32_t>(rng.Uniform(0x780));
      return {static_cast<char>(0xC0 | (cp >> 6)), static_cast<char>(0x80 | (cp & 0x3F))};
    }
    case 2: {
      const uint32_t cp = 0x800 + static_cast<uint32_t>(rng.Uniform(0xF000));
      return {static_cast<char>(0xE0 | (cp >> 12)), static_cast<char>(0x80 | ((cp >> 6) & 0x3F)),
              static_cast<char>(0x80 | (cp & 0x3F))};
    }
    default: return std::string(1, static_cast<char>(rng.Uniform(32)));  // control character
  }
}

// Applies one random mutation to `s`.
void Mutate(Rng& rng, std::string& s) {
  const size_t pos = s.empty() ? 0 : rng.Uniform(s.size() + 1);
  switch (rng.Uniform(11)) {
    case 0:  // delete a run of characters
      if (!s.empty() && pos < s.size()) s.erase(pos, 1 + rng.Uniform(4));
      break;
    case 1:  // insert a special character
      s.insert(pos, 1, kSpecialChars[rng.Uniform(sizeof(kSpecialChars) - 1)]);
      break;
    case 2:  // swap adjacent characters
      if (pos + 1 < s.size()) std::swap(s[pos], s[pos + 1]);
      break;
    case 3:  // truncate
      s.resize(pos);
      break;
    case 4:  // unicode and invalid bytes
      s.insert(pos, RandomUtf8(rng));
      break;
    case 5: {  // deep flow nesting
      const size_t depth = 1 + rng.Uniform(3000);
      s.insert(pos, rng.Uniform(2) ? std::string(depth, '[') : [&] {
        std::string t;
        for (size_t i = 0; i < depth; ++i) t += "{a: ";
        return t;
      }());
      break;
    }
    case 6: {  // deep block nesting
      std::string t;
      const size_t depth = 1 + rng.Uniform(200);
      for (size_t i = 0; i < depth; ++i) t += std::string(2 * i, ' ') + (rng.Uniform(2) ? "device:\n" : "a:\n");
      s.insert(pos, t);
      break;
    }
    case 7: {  // huge or extreme numbers
      std::string num;
      switch (rng.Uniform(3)) {
        case 0: num = std::string(1 + rng.Uniform(400), static_cast<char>('1' + rng.Uniform(9))); break;
        case 1: num = "1e" + std::to_string(rng.Uniform(100000)); break;
        default: num = "0." + std::string(rng.Uniform(100), '0') + "1"; break;
      }
      s.insert(pos, num);
      break;
    }
    case 8:  // tabs for indentation
      if (pos < s.size() && s[pos] == ' ') s[pos] = '\t';
      else s.insert(pos, "\t");
      break;
    case 9: {  // duplicate a line
      const size_t begin = s.rfind('\n', pos == 0 ? 0 : pos - 1);
      const size_t start = begin == std::string::npos ? 0 : begin + 1;
      const size_t end = s.find('\n', start);
      const std::string line = s.substr(start, end == std::string::npos ? std::string::npos : end - start + 1);
      s.insert(start, line);
      break;
    }
    default:  // a YAML or config fragment
      s.insert(pos, kFragments[rng.Uniform(std::size(kFragments))]);
      break;
  }
}

bool StartsWithLocation(const std::string& msg, const std::string& path) {
  return msg.size() > path.size() + 1 && msg.compare(0, path.size(), path) == 0 && msg[path.size()] == ':' &&
         std::isdigit(static_cast<unsigned char>(msg[path.size() + 1]));
}

class ConfigFuzzTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Unique per test and process: ctest runs tests in parallel processes.
    dir_ = testing::TempDir() + "flashstack_config_fuzz_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name() + "_" + std::to_string(getpid());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ + "/base.yaml") << kBaseFile;
  }
  std::string dir_;
};

TEST_F(ConfigFuzzTest, MutatedFilesFailCleanlyOrRoundTrip) {
  const SchemaNode& root = SchemaOf<ExperimentConfig>();
  int loaded = 0, failed = 0;
  for (uint64_t seed = 1; seed <= 3000; ++seed) {
    Rng rng(seed, "config.fuzz");
    std::string text = kSeeds[rng.Uniform(std::size(kSeeds))];
    const uint64_t mutations = 1 + rng.Uniform(4);
    for (uint64_t m = 0; m < mutations; ++m) Mutate(rng, text);
    // Fresh files, removed afterwards: rewriting one file in place makes
    // some file systems flush it to disk on every close.
    const std::string path = dir_ + "/fuzz" + std::to_string(seed) + ".yaml";
    const std::string dump_path = dir_ + "/dump" + std::to_string(seed) + ".yaml";
    for (size_t at = text.find("SELF"); at != std::string::npos; at = text.find("SELF")) {
      text.replace(at, 4, "fuzz" + std::to_string(seed) + ".yaml");
    }
    std::ofstream(path, std::ios::binary) << text;
    struct Cleanup {
      std::string a, b;
      ~Cleanup() {
        std::filesystem::remove(a);
        std::filesystem::remove(b);
      }
    } cleanup{path, dump_path};

    auto runs = LoadExperiment(root, path, {});
    if (!runs.ok()) {
      ++failed;
      EXPECT_EQ(runs.status().code(), Status::Code::kInvalidInput) << "seed " << seed;
      EXPECT_TRUE(StartsWithLocation(runs.status().message(), path))
          << "seed " << seed << ": " << runs.status().message() << "\ninput:\n" << text;
      continue;
    }
    ++loaded;
    ASSERT_GE(runs->size(), 1u);
    // Whatever loads binds, and its dump loads back to the same values.
    for (const ResolvedConfig& run : *runs) {
      ExperimentConfig cfg;
      const Status bound = Bind(root, run, &cfg);
      ASSERT_TRUE(bound.ok()) << "seed " << seed << ": " << bound.message() << "\ninput:\n" << text;
      const std::string dump = DumpYaml(root, &cfg);
      std::filesystem::remove(dump_path);
      std::ofstream(dump_path, std::ios::binary) << dump;
      auto again = LoadExperiment(root, dump_path, {});
      ASSERT_TRUE(again.ok()) << "seed " << seed << ": " << again.status().message() << "\ndump:\n" << dump;
      ASSERT_EQ(again->size(), 1u);
      ExperimentConfig back;
      ASSERT_TRUE(Bind(root, again->front(), &back).ok());
      ASSERT_EQ(DumpYaml(root, &back), dump) << "seed " << seed;
    }
  }
  // The mutations should exercise both outcomes substantially.
  EXPECT_GT(loaded, 200);
  EXPECT_GT(failed, 1000);
}

TEST_F(ConfigFuzzTest, RandomOverridesFailWithTheirOwnPrefix) {
  const SchemaNode& root = SchemaOf<ExperimentConfig>();
  const std::string path = dir_ + "/exp.yaml";
  std::ofstream(path) << "sweep:\n  seed: [1, 2]\n";
  const char* const keys[] = {"name", "seed", "tags", "device", "device.model", "device.timing.tR", "ftl.op",
                              "ftl.victim", "ftl.gc_slack", "device.geometry.page_size", "device.timing.channel_rate",
                              "Ftl.Op", "ftl..op", "", " ", "device.timing.tR.x"};
  const char* const values[] = {"", "1", "-1", "75us", "7%", "[a, b]", "[a", "\"q\"", "'", "fifo", "4K", "2MiB",
                                "8Gb/s", "1e999", "~", "null", "{a: 1}", "[[x]]", "\xFF", "a=b", " 3 "};
  for (uint64_t seed = 1; seed <= 1000; ++seed) {
    Rng rng(seed, "config.fuzz.set");
    std::vector<std::string> sets;
    const uint64_t n = 1 + rng.Uniform(3);
    for (uint64_t i = 0; i < n; ++i) {
      std::string o = keys[rng.Uniform(std::size(keys))];
      if (rng.Uniform(8) != 0) o += "=";
      o += values[rng.Uniform(std::size(values))];
      if (rng.Uniform(4) == 0) Mutate(rng, o);
      sets.push_back(std::move(o));
    }
    auto runs = LoadExperiment(root, path, sets);
    if (runs.ok()) {
      ExperimentConfig cfg;
      for (const ResolvedConfig& run : *runs) ASSERT_TRUE(Bind(root, run, &cfg).ok()) << "seed " << seed;
      continue;
    }
    EXPECT_EQ(runs.status().code(), Status::Code::kInvalidInput);
    EXPECT_EQ(runs.status().message().rfind("--set ", 0), 0u) << "seed " << seed << ": " << runs.status().message();
  }
}

// Random text for one value: number-like with units, or arbitrary bytes.
std::string RandomValueText(Rng& rng) {
  static const char* const kUnits[] = {"",    "ns",   "us",   "\xC2\xB5s", "ms",   "s",    "sec",  "min",
                                       "h",   "B",    "KB",   "kB",        "MB",   "GiB",  "KiB",  "TiB",
                                       "K",   "Mb",   "B/s",  "MB/s",      "GB/s", "KiB/s", "Gb/s", "MT/s",
                                       "Gbps", "%",   "x",    "e",         "E5",   "/s",   " ",    "_"};
  std::string s;
  if (rng.Uniform(4) == 0) {
    const uint64_t len = rng.Uniform(24);
    for (uint64_t i = 0; i < len; ++i) {
      s += rng.Uniform(3) == 0 ? RandomUtf8(rng) : std::string(1, kSpecialChars[rng.Uniform(sizeof(kSpecialChars) - 1)]);
    }
    return s;
  }
  if (rng.Uniform(4) == 0) s += rng.Uniform(2) ? "-" : "+";
  const uint64_t int_digits = rng.Uniform(rng.Uniform(4) == 0 ? 30 : 6);
  for (uint64_t i = 0; i < int_digits; ++i) {
    s += static_cast<char>('0' + rng.Uniform(10));
    if (rng.Uniform(10) == 0) s += '_';
  }
  if (rng.Uniform(3) == 0) {
    s += '.';
    const uint64_t frac = rng.Uniform(rng.Uniform(4) == 0 ? 30 : 5);
    for (uint64_t i = 0; i < frac; ++i) s += static_cast<char>('0' + rng.Uniform(10));
  }
  if (rng.Uniform(5) == 0) s += "e" + std::to_string(rng.UniformRange(-400, 400));
  if (rng.Uniform(3) == 0) s += ' ';
  s += kUnits[rng.Uniform(std::size(kUnits))];
  return s;
}

// The canonical text of a parsed value, as the field's Format would write it.
std::string Canonical(const ParamValue& v) {
  switch (v.kind) {
    case ParamKind::kBool: return internal::FormatBool(v.b);
    case ParamKind::kInt: return std::to_string(v.i);
    case ParamKind::kUint: return std::to_string(v.u);
    case ParamKind::kDouble: return internal::FormatDouble(v.d);
    case ParamKind::kDuration: return internal::FormatDuration(v.t);
    case ParamKind::kBytes: return internal::FormatBytes(Bytes{v.u});
    case ParamKind::kBandwidth: return internal::FormatBandwidth(Bandwidth{v.d});
    case ParamKind::kRatio: return internal::FormatRatio(Ratio{v.d});
    case ParamKind::kStringList: return internal::FormatStringList(v.list);
    case ParamKind::kString:
    case ParamKind::kChoice: return v.s;
  }
  return "";
}

bool SameValue(const ParamValue& a, const ParamValue& b) {
  return a.b == b.b && a.i == b.i && a.u == b.u && a.t == b.t && a.s == b.s && a.list == b.list &&
         (a.d == b.d || (std::isnan(a.d) && std::isnan(b.d)));
}

TEST(ConfigFuzzParseTest, RandomTextsParseOrFailAndCanonicalFormsRoundTrip) {
  const ParamKind kinds[] = {ParamKind::kBool,     ParamKind::kInt,       ParamKind::kUint,
                             ParamKind::kDouble,   ParamKind::kDuration,  ParamKind::kBytes,
                             ParamKind::kBandwidth, ParamKind::kRatio,    ParamKind::kString,
                             ParamKind::kChoice,   ParamKind::kStringList};
  Rng rng(7, "config.fuzz.values");
  int parsed = 0;
  for (int i = 0; i < 20000; ++i) {
    ParamDecl decl;
    decl.key = "k";
    decl.kind = kinds[rng.Uniform(std::size(kinds))];
    if (decl.kind == ParamKind::kChoice) decl.choices = {"greedy", "fifo"};
    std::string text = RandomValueText(rng);
    if (decl.kind == ParamKind::kStringList && rng.Uniform(2)) text = "[" + text + ", " + RandomValueText(rng) + "]";
    Result<ParamValue> v = ParseParamValue(decl, text);
    if (!v.ok()) {
      EXPECT_FALSE(v.status().message().empty());
      continue;
    }
    ++parsed;
    // Strings keep arbitrary bytes; lists only round-trip when YAML can carry them.
    if (decl.kind == ParamKind::kStringList) {
      bool ascii = true;
      for (const std::string& item : v->list) {
        for (char c : item) ascii &= static_cast<unsigned char>(c) < 0x80;
      }
      if (!ascii) continue;
    }
    const std::string canon = Canonical(v.value());
    Result<ParamValue> again = ParseParamValue(decl, canon);
    ASSERT_TRUE(again.ok()) << ParamKindName(decl.kind) << " '" << text << "' -> '" << canon
                            << "': " << again.status().message();
    EXPECT_TRUE(SameValue(v.value(), again.value())) << ParamKindName(decl.kind) << " '" << text << "' -> '"
                                                     << canon << "'";
  }
  EXPECT_GT(parsed, 4000);
}

}  // namespace
}  // namespace sim
