#include "host/sqlite/ycsb_properties.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/rng.h"

namespace host::sqlite {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::map<std::string, std::string> AsMap(const std::vector<JavaProperty>& v) {
  std::map<std::string, std::string> m;
  for (const JavaProperty& p : v) m[p.key] = p.value;
  return m;
}

std::vector<JavaProperty> Parse(std::string_view text) {
  auto r = ParseJavaProperties(text, "t.properties");
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : std::vector<JavaProperty>{};
}

TEST(JavaPropertiesTest, SeparatorsCommentsAndBlankLines) {
  const auto v = Parse(
      "# a comment\n"
      "! another comment\n"
      "\n"
      "   \t\n"
      "a=1\n"
      "b : 2\n"
      "c 3\n"
      "  d\t=\t4\n"
      "e\n"
      "f=\n"
      "g==5\n"
      "h = value with  spaces  \n");
  ASSERT_EQ(v.size(), 8u);
  const auto m = AsMap(v);
  EXPECT_EQ(m.at("a"), "1");
  EXPECT_EQ(m.at("b"), "2");
  EXPECT_EQ(m.at("c"), "3");
  EXPECT_EQ(m.at("d"), "4");
  EXPECT_EQ(m.at("e"), "");
  EXPECT_EQ(m.at("f"), "");
  EXPECT_EQ(m.at("g"), "=5") << "only one separator is skipped";
  EXPECT_EQ(m.at("h"), "value with  spaces  ") << "trailing blanks stay, as in Java";
  EXPECT_EQ(v[0].line, 5);
  EXPECT_EQ(v[3].line, 8);
}

TEST(JavaPropertiesTest, ContinuationsAndEscapes) {
  const auto v = Parse(
      "list = a,\\\n"
      "       b,\\\n"
      "   # not a comment\n"
      "next=1\n"
      "k\\=ey\\:x = v\\tw\\nx\\\\y\\z\n"
      "uni=\\u00e9\\u20AC\\uD83D\\uDE00\n"
      "even=ends in two\\\\\n"
      "after=even\n");
  const auto m = AsMap(v);
  EXPECT_EQ(m.at("list"), "a,b,# not a comment");
  EXPECT_EQ(m.at("next"), "1");
  EXPECT_EQ(m.at("k=ey:x"), "v\tw\nx\\yz");
  EXPECT_EQ(m.at("uni"), "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
  EXPECT_EQ(m.at("even"), "ends in two\\");
  EXPECT_EQ(m.at("after"), "even");
  EXPECT_EQ(v[0].line, 1);
  EXPECT_EQ(v[1].line, 4);
}

TEST(JavaPropertiesTest, LineEndingsAndRepeatedKeys) {
  const auto v = Parse("a=1\r\nb=2\rc=3\n\r\na=4");
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].key, "a");
  EXPECT_EQ(v[0].value, "4") << "the last value wins";
  EXPECT_EQ(v[0].line, 5) << "\r\n, \r and \n each end one line";
  EXPECT_EQ(v[2].key, "c");
  EXPECT_EQ(v[2].line, 3);
  EXPECT_TRUE(Parse("").empty());
  EXPECT_TRUE(Parse("# only\n\n").empty());
}

TEST(JavaPropertiesTest, MalformedUnicodeEscapeNamesTheLine) {
  for (const char* bad : {"ok=1\nx=\\u12\n", "ok=1\nx=\\uZZZZ\n", "ok=1\nx\\u00=1\n"}) {
    auto r = ParseJavaProperties(bad, "w.properties");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_THAT(r.status().message(), StartsWith("w.properties:2: ")) << bad;
  }
}

TEST(JavaPropertiesTest, ReadsEveryPropertyFileYcsbShips) {
  const std::string dir = std::string(FLASHSTACK_SHARED_DIR) + "/traces/workloads/ycsb/";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << dir << " is not there";
  for (const char* f : {"workloada", "workloadb", "workloadc", "workloadd", "workloade", "workloadf",
                        "workload_template", "tsworkloada", "tsworkload_template"}) {
    auto r = ReadJavaPropertiesFile(dir + f);
    ASSERT_TRUE(r.ok()) << f << ": " << r.status().message();
    const auto m = AsMap(*r);
    EXPECT_TRUE(m.count("workload")) << f;
    EXPECT_TRUE(m.count("recordcount")) << f;
  }
  auto a = ReadJavaPropertiesFile(dir + "workloada");
  ASSERT_TRUE(a.ok());
  const auto m = AsMap(*a);
  EXPECT_EQ(m.at("readproportion"), "0.5");
  EXPECT_EQ(m.at("requestdistribution"), "zipfian");
  EXPECT_EQ(m.at("workload"), "site.ycsb.workloads.CoreWorkload");
}

TEST(JavaPropertiesTest, UnreadableFilesAreErrors) {
  auto r = ReadJavaPropertiesFile("/nonexistent/workloadx");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("/nonexistent/workloadx: cannot read"));
}

// ---- randomized input ------------------------------------------------------

// Escapes `s` so that it reads back as itself as a key (or a value).
std::string Escape(const std::string& s, bool key) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\\') out += "\\\\";
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c == '\f') out += "\\f";
    else if (key && (c == '=' || c == ':' || c == ' ')) out += std::string("\\") + c;
    else if (key && i == 0 && (c == '#' || c == '!')) out += std::string("\\") + c;
    else if (!key && i == 0 && (c == ' ' || c == '=' || c == ':')) out += std::string("\\") + c;
    else out += c;
  }
  return out;
}

std::string RandomText(sim::Rng& rng, size_t max_len) {
  static constexpr std::string_view kChars = "abcXYZ019._-=:# !\\\t\n\r\fé";
  std::string s;
  for (uint64_t n = rng.Uniform(max_len + 1); n > 0; --n) s += kChars[rng.Uniform(kChars.size())];
  return s;
}

// Documents written from known entries with random layout (separators,
// blanks, continuations, comments, blank lines, line endings) read back as
// those entries, on the right lines.
TEST(JavaPropertiesTest, RandomizedDocumentsRoundTrip) {
  sim::Rng rng(11, "ycsb.properties.roundtrip");
  static const char* const kEol[] = {"\n", "\r\n", "\r"};
  static const char* const kSep[] = {"=", ":", " ", " = ", "\t:\t", "  "};
  for (int round = 0; round < 500; ++round) {
    std::map<std::string, std::pair<std::string, int>> expect;  // key -> value, line
    std::string doc;
    int line = 1;
    const char* eol = kEol[rng.Uniform(3)];
    for (int e = 0, n = static_cast<int>(rng.Uniform(12)); e < n; ++e) {
      if (rng.Bernoulli(0.2)) {
        doc += std::string(rng.Bernoulli(0.5) ? "#" : "  !") + "comment = x\\" + eol;  // no continuation
        ++line;
      }
      if (rng.Bernoulli(0.2)) {
        doc += std::string(rng.Bernoulli(0.5) ? "" : " \t") + eol;
        ++line;
      }
      std::string key = RandomText(rng, 8);
      if (key.empty()) key = "k";
      const std::string value = RandomText(rng, 20);
      std::string text = (rng.Bernoulli(0.3) ? "  " : "") + Escape(key, true) + kSep[rng.Uniform(6)];
      const std::string v = Escape(value, false);
      const int first_line = line;
      // Split the value over continuation lines at random points: not
      // inside an escape, nor before a blank (the next line's leading
      // blanks are dropped).
      std::string written;
      for (size_t i = 0; i < v.size(); ++i) {
        written += v[i];
        if (v[i] == '\\') {
          written += v[++i];
          continue;
        }
        if (i + 1 < v.size() && v[i + 1] != ' ' && rng.Bernoulli(0.05)) {
          written += std::string("\\") + eol + (rng.Bernoulli(0.5) ? "   " : "");
          ++line;
        }
      }
      doc += text + written + eol;
      ++line;
      expect[key] = {value, first_line};
    }
    auto r = ParseJavaProperties(doc, "r");
    ASSERT_TRUE(r.ok()) << r.status().message() << "\n" << doc;
    ASSERT_EQ(r->size(), expect.size()) << doc;
    for (const JavaProperty& p : *r) {
      ASSERT_TRUE(expect.count(p.key)) << "unexpected key '" << p.key << "'\n" << doc;
      EXPECT_EQ(p.value, expect[p.key].first) << "key '" << p.key << "'\n" << doc;
      EXPECT_EQ(p.line, expect[p.key].second) << "key '" << p.key << "'\n" << doc;
    }
  }
}

// Mutated copies of a real workload file: never a crash; an error names the
// source and a line within the text; every entry's line is within it.
TEST(JavaPropertiesTest, MutatedFilesParseOrFailWithALine) {
  const std::string base =
      "# Workload\nrecordcount=1000\noperationcount=1000\nworkload=site.ycsb.workloads.CoreWorkload\n"
      "readallfields=true\nreadproportion=0.5\nupdateproportion=0.5\nrequestdistribution=zipfian\n"
      "key\\u0041=\\u00e9\\\n  continued\n";
  static constexpr std::string_view kPieces[] = {"\\", "\\u", "\\u00", "\n", "\r", "=", ":", " ", "#", "!",
                                                 "\\\n", "\xff", std::string_view("\0", 1), "\t", "\\uD800"};
  sim::Rng rng(5, "ycsb.properties.mutate");
  int errors = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string s = base;
    for (uint64_t k = 0, n = 1 + rng.Uniform(5); k < n && !s.empty(); ++k) {
      const size_t at = rng.Uniform(s.size());
      switch (rng.Uniform(4)) {
        case 0: s.erase(at, 1 + rng.Uniform(4)); break;
        case 1: s.insert(at, kPieces[rng.Uniform(std::size(kPieces))]); break;
        case 2: s[at] = static_cast<char>(rng.Uniform(256)); break;
        default: s.resize(at); break;
      }
    }
    int lines = 1;
    for (char c : s) lines += c == '\n' || c == '\r';
    auto r = ParseJavaProperties(s, "m");
    if (!r.ok()) {
      ++errors;
      EXPECT_THAT(r.status().message(), StartsWith("m:"));
      const int at = std::atoi(r.status().message().c_str() + 2);
      EXPECT_GE(at, 1);
      EXPECT_LE(at, lines);
      continue;
    }
    for (const JavaProperty& p : *r) {
      EXPECT_GE(p.line, 1);
      EXPECT_LE(p.line, lines);
    }
  }
  EXPECT_GT(errors, 0) << "the mutations never produced a malformed escape";
}

}  // namespace
}  // namespace host::sqlite
