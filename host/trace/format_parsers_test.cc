// Each format's parser on the project's own samples (traces/samples/):
// exact field values of chosen records, and detection of every sample.
#include <gtest/gtest.h>

#include "host/trace/block_trace_reader.h"
#include "host/trace/trace_test_util.h"

namespace host {
namespace {

using trace_test::ReadAllFile;
using trace_test::SamplePath;
using Op = BlockTraceRecord::Op;

struct Expect {
  size_t index;
  int64_t time_ns;
  Op op;
  uint64_t offset;
  uint64_t length;
  uint32_t volume;
  uint64_t line_no;
};

void CheckRecords(const std::vector<BlockTraceRecord>& recs, size_t count, std::initializer_list<Expect> want) {
  ASSERT_EQ(recs.size(), count);
  for (const Expect& e : want) {
    SCOPED_TRACE(testing::Message() << "record " << e.index);
    const BlockTraceRecord& r = recs.at(e.index);
    EXPECT_TRUE(r.valid_time);
    EXPECT_EQ(r.time.ns(), e.time_ns);
    EXPECT_EQ(r.op, e.op);
    EXPECT_EQ(r.offset_bytes, e.offset);
    EXPECT_EQ(r.length_bytes, e.length);
    EXPECT_EQ(r.volume, e.volume);
    EXPECT_EQ(r.line_no, e.line_no);
  }
}

BlockTraceOptions Named(const std::string& format) {
  BlockTraceOptions o;
  o.format = format;
  return o;
}

TEST(MsrFormat, FiletimeTicksAndBytes) {
  CheckRecords(ReadAllFile(SamplePath("msr.csv"), Named("msr")), 6,
               {{0, 0, Op::kRead, 4096, 8192, 1, 1},
                {1, 1'250'000, Op::kWrite, 1048576, 4096, 1, 2},
                {4, 300'000'000, Op::kRead, 21474836480, 131072, 1, 5}});
}

TEST(Systor17Format, HeaderSkippedSecondsWithFraction) {
  const auto recs = ReadAllFile(SamplePath("systor17.csv"), Named("systor17"));
  CheckRecords(recs, 5,
               {{0, 0, Op::kRead, 1294483456, 4096, 3, 2},
                {2, 900'000, Op::kWrite, 0, 512, 5, 4},  // empty Response field is allowed
                {3, 1'499'900'000, Op::kRead, 4096, 65536, 5, 5},
                {4, 1'499'901'000, Op::kRead, 1294487552, 4096, 3, 6}});
}

TEST(TencentFormat, SectorsAndVolume) {
  CheckRecords(ReadAllFile(SamplePath("tencent.csv"), Named("tencent")), 5,
               {{0, 0, Op::kRead, 1048576, 4096, 1283, 1},
                {2, 1'000'000'000, Op::kWrite, 4096, 512, 27, 3},
                {4, 3'000'000'000, Op::kWrite, 1099511627776, 4096, 27, 5}});
}

TEST(AlibabaFormat, MicrosecondTimestamps) {
  CheckRecords(ReadAllFile(SamplePath("alibaba.csv"), Named("alibaba")), 5,
               {{0, 0, Op::kWrite, 8973156352, 4096, 419, 1},
                {1, 240'000, Op::kRead, 126703644672, 16384, 419, 2},
                {3, 2'499'990'000, Op::kRead, 4096, 131072, 7, 4}});
}

TEST(CloudPhysicsFormat, ScsiOpcodes) {
  const auto recs = ReadAllFile(SamplePath("cloudphysics.csv"), Named("cloudphysics"));
  CheckRecords(recs, 8,
               {{0, 0, Op::kRead, 512000, 4096, 0, 2},
                {1, 3'000'000'000, Op::kWrite, 21981565440, 512, 0, 3},
                {3, 10'000'000'000, Op::kRead, 1073741824, 65536, 0, 5},    // READ(16)
                {4, 11'000'000'000, Op::kWrite, 4096, 4096, 0, 6},          // WRITE(16)
                {5, 12'000'000'000, Op::kFlush, 0, 0, 0, 7},                // SYNCHRONIZE CACHE
                {6, 500'000'000'000, Op::kWrite, 39424, 1024, 0, 8},        // WRITE(6)
                {7, 501'000'000'000, Op::kRead, 39936, 512, 0, 9}});        // READ(6)
}

// libCacheSim's converter writes the vscsi timestamp in seconds (ts/10^6):
// a two-hour trace spans two hours, not 7.2 ms (the old microsecond
// default); a CSV with microseconds is read with time_unit 1us.
TEST(CloudPhysicsFormat, TimeColumnIsSeconds) {
  const std::string csv = "version,time,op,size,lbn\n1,1000,28,4096,8\n2,4600,2a,4096,16\n1,8200,28,512,0\n";
  BlockTraceOptions o = Named("cloudphysics");
  auto recs = trace_test::ReadAllMemory(csv, o);
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[2].time, sim::Sec(7200));
  EXPECT_EQ(recs[1].time, sim::Sec(3600));
  o.time_unit = sim::Us(1);
  recs = trace_test::ReadAllMemory(csv, o);
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[2].time, sim::Us(7200));
  // Detected without a format name, with the same unit.
  recs = trace_test::ReadAllMemory(csv, {});
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[2].time, sim::Sec(7200));
}

TEST(UmassSpcFormat, AsuSectorsSeconds) {
  CheckRecords(ReadAllFile(SamplePath("umass_spc.csv"), Named("umass_spc")), 5,
               {{0, 0, Op::kWrite, 155426304, 3584, 0, 1},
                {2, 26'214'000, Op::kRead, 155429888, 4096, 0, 3},
                {3, 100'000'000, Op::kRead, 8192, 512, 2, 4},
                {4, 1'250'500'000, Op::kWrite, 28465152, 8192, 1, 5}});
}

TEST(FiuFormat, NanosecondsBlocksAndDevice) {
  CheckRecords(ReadAllFile(SamplePath("fiu.txt"), Named("fiu")), 5,
               {{0, 0, Op::kWrite, 462983966720, 4096, MakeDevVolume(6, 0), 1},
                {1, 16'475, Op::kWrite, 462983970816, 8192, MakeDevVolume(6, 0), 2},
                {3, 1'735'163, Op::kRead, 1048576, 16384, MakeDevVolume(8, 16), 4}});
}

TEST(BlkparseFormat, DispatchEventsRwbsAndSummary) {
  const auto recs = ReadAllFile(SamplePath("blkparse.txt"), Named("blkparse"));
  const uint32_t dev = MakeDevVolume(8, 16);
  CheckRecords(recs, 6,
               {{0, 0, Op::kWrite, 1048576, 4096, dev, 4},
                {1, 197'400, Op::kRead, 512000000, 8192, dev, 7},
                {2, 995'900, Op::kFlush, 0, 0, dev, 9},
                {3, 1'495'900, Op::kWrite, 2097152, 4096, dev, 10},
                {4, 1'995'900, Op::kTrim, 4194304, 1048576, dev, 11},
                {5, 2'495'900, Op::kRead, 20971520, 131072, dev, 12}});
  EXPECT_EQ(recs[0].flags, 0);
  EXPECT_EQ(recs[1].flags, BlockTraceRecord::kFlagSync);
  EXPECT_EQ(recs[3].flags, BlockTraceRecord::kFlagPreflush | BlockTraceRecord::kFlagFua |
                               BlockTraceRecord::kFlagSync | BlockTraceRecord::kFlagMeta);
  EXPECT_EQ(recs[5].flags, 0);  // 'A' (read-ahead) carries no flag
}

TEST(BlkparseFormat, ActionOptionSelectsEvents) {
  BlockTraceOptions o = Named("blkparse");
  o.action = "Q";
  const auto queued = ReadAllFile(SamplePath("blkparse.txt"), o);
  ASSERT_EQ(queued.size(), 2u);
  EXPECT_EQ(queued[0].line_no, 1u);
  EXPECT_EQ(queued[1].op, Op::kRead);
  EXPECT_EQ(queued[1].time.ns(), 200'000);
  o.action = "C";
  const auto completed = ReadAllFile(SamplePath("blkparse.txt"), o);
  ASSERT_EQ(completed.size(), 1u);
  EXPECT_EQ(completed[0].line_no, 8u);
}

TEST(DiskSimFormats, MqsimNanosecondsDisksimMilliseconds) {
  CheckRecords(ReadAllFile(SamplePath("mqsim.trace"), Named("mqsim")), 5,
               {{0, 0, Op::kWrite, 264719034ull * 512, 8192, 0, 1},
                {1, 500, Op::kRead, 197570570ull * 512, 4096, 3, 2},
                {3, 249'000, Op::kWrite, 0, 131072, 15, 4}});
  CheckRecords(ReadAllFile(SamplePath("disksim.trace"), Named("disksim")), 5,
               {{1, 125'000, Op::kWrite, 67890ull * 512, 8192, 0, 2},
                {4, 10'000'001, Op::kRead, 99999ull * 512, 512, 1, 5}});
}

TEST(DiskSimFormats, TimeUnitOverride) {
  BlockTraceOptions o = Named("mqsim");
  o.time_unit = sim::Us(1);
  const auto recs = ReadAllFile(SamplePath("mqsim.trace"), o);
  ASSERT_EQ(recs.size(), 5u);
  EXPECT_EQ(recs[1].time.ns(), 500'000);
}

// A DiskSim trace written with %g has times like "5e-05" (ms) without a
// decimal point; they were rejected, and such a file would be taken for
// MQSim's integer nanoseconds.
TEST(DiskSimFormats, ExponentTimesAreDiskSimMilliseconds) {
  const std::string trace = "0 0 8 8 1\n5e-05 0 16 8 0\n1.5e+01 0 24 8 1\n";
  sim::Result<std::unique_ptr<BlockTraceReader>> r = OpenBlockTraceFromMemory("t.trace", trace, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)->format(), "disksim");
  const auto recs = trace_test::ReadAll(r->get());
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[1].time.ns(), 50);
  EXPECT_EQ(recs[2].time.ns(), 15'000'000);
}

TEST(WiscSeeFormat, DispatchOnlyControlIgnoredNoneTime) {
  const auto recs = ReadAllFile(SamplePath("wiscsee.txt"), Named("wiscsee"));
  ASSERT_EQ(recs.size(), 5u);
  CheckRecords({recs.begin(), recs.begin() + 4}, 4,
               {{0, 0, Op::kWrite, 0, 4096, 0, 2},
                {1, 496'522, Op::kRead, 8192, 16384, 0, 4},
                {2, 8'496'522, Op::kTrim, 1048576, 1048576, 0, 5},
                {3, 8'497'022, Op::kWrite, 4096, 131072, 0, 6}});
  EXPECT_EQ(recs[0].flags, BlockTraceRecord::kFlagSync);
  EXPECT_EQ(recs[1].flags, 0);
  EXPECT_FALSE(recs[4].valid_time);  // timestamp "None"
  EXPECT_EQ(recs[4].offset_bytes, 65536u);
}

// WiscSee writes its times with Python's str(float): small values come out
// in exponent notation ("7.3902e-05"). The reader rejected them, so real
// event files failed to parse and were not detected without a format name.
TEST(WiscSeeFormat, ExponentNotationAndDetection) {
  const std::string events =
      "3241 D write 0 4096 5e-06 0 False\n"
      "3241 D write 4096 4096 7.8902e-05 7.3902e-05 False\n"
      "3241 D write 8192 8192 0.000125 4.6098e-05 True\n"
      "3241 C write 8192 8192 0.000300 0.000175 True\n"
      "3241 D read 0 4096 0.500125 0.5 False\n"
      "3241 D discard 1048576 1048576 1.000125 0.5 False\n"
      "3241 D write 12288 4096 1.2e+01 11.0 False\n";
  for (const BlockTraceOptions& o : {Named("wiscsee"), BlockTraceOptions{}}) {
    sim::Result<std::unique_ptr<BlockTraceReader>> r = OpenBlockTraceFromMemory("events.txt", events, o);
    ASSERT_TRUE(r.ok()) << r.status().message();
    EXPECT_EQ((*r)->format(), "wiscsee");
    const auto recs = trace_test::ReadAll(r->get());
    ASSERT_EQ(recs.size(), 6u);
    EXPECT_EQ(recs[1].time.ns(), 73'902);
    EXPECT_EQ(recs[2].time.ns(), 120'000);
    EXPECT_EQ(recs[3].time.ns(), 500'120'000);
    EXPECT_EQ(recs[4].op, Op::kTrim);
    EXPECT_EQ(recs[5].time.ns(), 11'999'995'000);
  }
}

struct DetectCase {
  const char* file;
  const char* format;
};

class DetectSample : public testing::TestWithParam<DetectCase> {};

TEST_P(DetectSample, PicksTheRightFormat) {
  sim::Result<std::unique_ptr<BlockTraceReader>> r = OpenBlockTrace(SamplePath(GetParam().file), {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)->format(), GetParam().format);
  // Detection reads ahead; every record must still come out.
  BlockTraceOptions named;
  named.format = GetParam().format;
  EXPECT_EQ(trace_test::ReadAll(r->get()).size(),
            ReadAllFile(SamplePath(GetParam().file), named).size());
}

INSTANTIATE_TEST_SUITE_P(AllSamples, DetectSample,
                         testing::Values(DetectCase{"msr.csv", "msr"}, DetectCase{"systor17.csv", "systor17"},
                                         DetectCase{"tencent.csv", "tencent"}, DetectCase{"alibaba.csv", "alibaba"},
                                         DetectCase{"cloudphysics.csv", "cloudphysics"},
                                         DetectCase{"umass_spc.csv", "umass_spc"}, DetectCase{"fiu.txt", "fiu"},
                                         DetectCase{"blkparse.txt", "blkparse"},
                                         DetectCase{"mqsim.trace", "mqsim"},
                                         DetectCase{"disksim.trace", "disksim"},
                                         DetectCase{"wiscsee.txt", "wiscsee"}),
                         [](const testing::TestParamInfo<DetectCase>& i) { return std::string(i.param.format); });

TEST(DetectFormat, EverySampleMatchesOnlyItsOwnParser) {
  // Each sample parses cleanly with its own format and fails with every
  // other format: the formats' line grammars do not overlap on them.
  const std::vector<std::pair<std::string, std::string>> samples = {
      {"msr.csv", "msr"},         {"systor17.csv", "systor17"}, {"tencent.csv", "tencent"},
      {"alibaba.csv", "alibaba"}, {"cloudphysics.csv", "cloudphysics"}, {"umass_spc.csv", "umass_spc"},
      {"fiu.txt", "fiu"},         {"blkparse.txt", "blkparse"}, {"wiscsee.txt", "wiscsee"}};
  for (const auto& [file, own] : samples) {
    for (const std::string& other : BuiltinFormats().Names()) {
      if (other == own) continue;
      auto r = OpenBlockTrace(SamplePath(file), Named(other));
      ASSERT_TRUE(r.ok());
      BlockTraceRecord rec;
      sim::Result<bool> first = (*r)->Next(&rec);
      EXPECT_FALSE(first.ok()) << file << " parsed as " << other;
    }
  }
}

}  // namespace
}  // namespace host
