// Randomized robustness test: valid lines of every format, mutated
// (truncated, bytes flipped, fields deleted/duplicated/swapped, garbage and
// NUL inserted, numbers made huge or negative, lines made too long). Every
// parser must either accept the line or reject it with an InvalidInput
// "path:line:" message, never crash or hang, and skip mode must count
// exactly the lines fail mode rejects.
#include <gtest/gtest.h>

#include "host/trace/block_trace_reader.h"
#include "host/trace/trace_test_util.h"
#include "sim/rng.h"

namespace host {
namespace {

constexpr int kMutationsPerFormat = 1500;
constexpr uint64_t kSeed = 20240611;

struct FuzzCase {
  const char* format;
  const char* file;
};

// The lines of `file` that the format turns into records.
std::vector<std::string> RecordLines(const FuzzCase& c) {
  const std::string text = trace_test::ReadFile(trace_test::SamplePath(c.file));
  std::vector<std::string> lines;
  for (size_t start = 0; start < text.size();) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  BlockTraceOptions o;
  o.format = c.format;
  std::vector<std::string> out;
  for (const BlockTraceRecord& r : trace_test::ReadAllFile(trace_test::SamplePath(c.file), o)) {
    if (r.valid_time) out.push_back(lines.at(r.line_no - 1));
  }
  return out;
}

char RandomByte(sim::Rng& rng) {
  static constexpr std::string_view kInteresting = ",. \t-+#0123456789xXeE:;()[]\r\"'";
  for (;;) {
    const char c = rng.Bernoulli(0.5) ? kInteresting[rng.Uniform(kInteresting.size())]
                                      : static_cast<char>(rng.Uniform(256));
    if (c != '\n') return c;  // a newline would split the line in two
  }
}

// Byte ranges of the fields of `line` (split at ',' or blanks).
std::vector<std::pair<size_t, size_t>> FieldSpans(const std::string& line) {
  std::vector<std::pair<size_t, size_t>> spans;
  const bool csv = line.find(',') != std::string::npos && line.find(' ') == std::string::npos;
  size_t i = 0;
  while (i < line.size()) {
    if (!csv) {
      while (i < line.size() && line[i] == ' ') ++i;
      if (i == line.size()) break;
    }
    size_t j = i;
    while (j < line.size() && (csv ? line[j] != ',' : line[j] != ' ')) ++j;
    spans.emplace_back(i, j);
    i = j + 1;
  }
  return spans;
}

std::string Mutate(const std::string& line, sim::Rng& rng) {
  std::string s = line;
  const auto spans = FieldSpans(s);
  const auto [fb, fe] = spans.empty() ? std::pair<size_t, size_t>{0, 0} : spans[rng.Uniform(spans.size())];
  switch (rng.Uniform(11)) {
    case 0:  // truncate
      s.resize(rng.Uniform(s.size() + 1));
      break;
    case 1:  // flip bytes
      for (int k = 1 + static_cast<int>(rng.Uniform(3)); k > 0 && !s.empty(); --k) {
        s[rng.Uniform(s.size())] = RandomByte(rng);
      }
      break;
    case 2:  // delete a field with its separator
      s.erase(fb, std::min(fe + 1, s.size()) - fb);
      break;
    case 3: {  // insert garbage
      std::string junk;
      for (int k = 1 + static_cast<int>(rng.Uniform(8)); k > 0; --k) junk += RandomByte(rng);
      s.insert(rng.Uniform(s.size() + 1), junk);
      break;
    }
    case 4: {  // a huge number in place of a field
      static constexpr const char* kHuge[] = {"18446744073709551615", "18446744073709551616",
                                              "99999999999999999999999999", "9223372036854775807",
                                              "4294967296", "36028797018963968", "0", "0.0000000001"};
      s.replace(fb, fe - fb, kHuge[rng.Uniform(std::size(kHuge))]);
      break;
    }
    case 5:  // embedded NUL
      s.insert(rng.Uniform(s.size() + 1), 1, '\0');
      break;
    case 6:  // a line longer than the limit
      s.append(70000, s.empty() ? '1' : s.back());
      break;
    case 7:  // duplicate a field
      if (!spans.empty()) s.insert(fe, (s.find(',') != std::string::npos ? "," : " ") + s.substr(fb, fe - fb));
      break;
    case 8:  // swap two fields
      if (spans.size() >= 2) {
        const auto [gb, ge] = spans[rng.Uniform(spans.size())];
        const std::string a = s.substr(fb, fe - fb), b = s.substr(gb, ge - gb);
        if (fb < gb) {
          s.replace(gb, ge - gb, a);
          s.replace(fb, fe - fb, b);
        } else if (gb < fb) {
          s.replace(fb, fe - fb, b);
          s.replace(gb, ge - gb, a);
        }
      }
      break;
    case 9:  // negative field
      s.insert(fb, "-");
      break;
    default:  // empty field
      s.erase(fb, fe - fb);
      break;
  }
  return s;
}

struct ReadOutcome {
  sim::Status status;
  uint64_t records = 0;
  BlockTraceStats stats;
};

ReadOutcome ReadData(const std::string& data, const std::string& format, const std::string& on_error) {
  BlockTraceOptions o;
  o.format = format;
  o.on_error = on_error;
  ReadOutcome run;
  auto reader = OpenBlockTraceFromMemory("fuzz.trace", data, o);
  if (!reader.ok()) {
    run.status = reader.status();
    return run;
  }
  BlockTraceRecord rec;
  // Bounded: each call consumes at least one line.
  for (size_t calls = 0; calls < 1'000'000; ++calls) {
    sim::Result<bool> more = (*reader)->Next(&rec);
    if (!more.ok()) {
      run.status = more.status();
      break;
    }
    if (!*more) break;
    ++run.records;
  }
  run.stats = (*reader)->stats();
  return run;
}

class TraceFuzz : public testing::TestWithParam<FuzzCase> {};

TEST_P(TraceFuzz, MutatedLinesFailCleanlyAndSkipModeAgrees) {
  const FuzzCase& c = GetParam();
  const std::vector<std::string> valid = RecordLines(c);
  ASSERT_GE(valid.size(), 2u);
  sim::Rng rng(kSeed, std::string("trace.fuzz.") + c.format);

  // Everything mutated, in one file: totals must add up to the per-line runs.
  std::string big = valid[0] + "\n";
  uint64_t want_skipped = 0, want_records = 1, want_dropped = 0;
  int rejected = 0;
  for (int i = 0; i < kMutationsPerFormat; ++i) {
    const std::string& base = valid[rng.Uniform(valid.size())];
    const std::string mutated = Mutate(base, rng);
    SCOPED_TRACE(testing::Message() << c.format << " mutation " << i << ": '" << Excerpt(mutated) << "'");
    const std::string data = valid[0] + "\n" + mutated + "\n" + valid[1] + "\n";

    const ReadOutcome fail = ReadData(data, c.format, "fail");
    const ReadOutcome skip = ReadData(data, c.format, "skip");
    ASSERT_TRUE(skip.status.ok()) << skip.status.message();
    if (!fail.status.ok()) {
      ++rejected;
      EXPECT_EQ(fail.status.code(), sim::Status::Code::kInvalidInput);
      ASSERT_TRUE(fail.status.message().starts_with("fuzz.trace:2: ")) << fail.status.message();
      EXPECT_EQ(fail.records, 1u);
      EXPECT_EQ(skip.stats.skipped, 1u);
      ASSERT_EQ(skip.stats.first_errors.size(), 1u);
      EXPECT_EQ(skip.stats.first_errors[0], fail.status.message());
      EXPECT_EQ(skip.records, 2u);
    } else {
      EXPECT_EQ(skip.stats.skipped, 0u);
      EXPECT_EQ(skip.records, fail.records);
    }
    // Detection must not crash either; it may or may not find the format.
    const ReadOutcome detect = ReadData(data, "", "skip");
    EXPECT_TRUE(detect.status.ok() || detect.status.code() == sim::Status::Code::kInvalidInput);

    big += mutated + "\n" + valid[i % valid.size()] + "\n";
    want_skipped += skip.stats.skipped;
    want_records += (skip.records - 2) + 1;
    want_dropped += skip.stats.zero_length_dropped;
  }
  const ReadOutcome all = ReadData(big, c.format, "skip");
  ASSERT_TRUE(all.status.ok()) << all.status.message();
  EXPECT_EQ(all.stats.skipped, want_skipped);
  EXPECT_EQ(all.records, want_records);
  EXPECT_EQ(all.stats.zero_length_dropped, want_dropped);
  EXPECT_EQ(all.stats.lines, 1u + 2u * kMutationsPerFormat);
  RecordProperty("rejected", rejected);
  // The mutations are strong enough to break most lines.
  EXPECT_GT(rejected, kMutationsPerFormat / 2);
}

INSTANTIATE_TEST_SUITE_P(
    AllFormats, TraceFuzz,
    testing::Values(FuzzCase{"msr", "msr.csv"}, FuzzCase{"systor17", "systor17.csv"},
                    FuzzCase{"tencent", "tencent.csv"}, FuzzCase{"alibaba", "alibaba.csv"},
                    FuzzCase{"cloudphysics", "cloudphysics.csv"}, FuzzCase{"umass_spc", "umass_spc.csv"},
                    FuzzCase{"fiu", "fiu.txt"}, FuzzCase{"blkparse", "blkparse.txt"},
                    FuzzCase{"mqsim", "mqsim.trace"}, FuzzCase{"disksim", "disksim.trace"},
                    FuzzCase{"wiscsee", "wiscsee.txt"}),
    [](const testing::TestParamInfo<FuzzCase>& i) { return std::string(i.param.format); });

}  // namespace
}  // namespace host
