#include "host/trace/trace_info.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "host/trace/trace_test_util.h"

namespace host {
namespace {

using Op = BlockTraceRecord::Op;
using testing::HasSubstr;

TraceInfo Summary(std::string_view data, const std::string& format, const std::string& on_error = "fail") {
  BlockTraceOptions o;
  o.format = format;
  o.on_error = on_error;
  auto reader = OpenBlockTraceFromMemory("t.trace", data, o);
  EXPECT_TRUE(reader.ok()) << reader.status().message();
  sim::Result<TraceInfo> info = Summarize(reader->get());
  EXPECT_TRUE(info.ok()) << info.status().message();
  return info.ok() ? *info : TraceInfo();
}

TEST(TraceInfo, CountsBytesHistogramSpanVolumes) {
  const TraceInfo info = Summary(
      "1000 2 100 8 1\n"      // read 4 KiB at 51200 on volume 2
      "2000 2 0 1 0\n"        // write 512 B at 0
      "1500 7 1000 24 0\n"    // write 12 KiB (bucket 8 KiB), earlier than the previous record
      "9000 2 2048 256 1\n",  // read 128 KiB
      "mqsim");
  EXPECT_EQ(info.stats.records, 4u);
  EXPECT_EQ(info.op(Op::kRead).count, 2u);
  EXPECT_EQ(info.op(Op::kRead).bytes, 4096u + 131072u);
  EXPECT_EQ(info.op(Op::kWrite).count, 2u);
  EXPECT_EQ(info.op(Op::kWrite).bytes, 512u + 12288u);
  EXPECT_EQ(info.op(Op::kTrim).count, 0u);
  EXPECT_EQ(info.size_histogram[9], 1u);   // 512
  EXPECT_EQ(info.size_histogram[12], 1u);  // 4096
  EXPECT_EQ(info.size_histogram[13], 1u);  // 12288 in [8192, 16384)
  EXPECT_EQ(info.size_histogram[17], 1u);  // 131072
  EXPECT_EQ(info.min_offset, 0u);
  EXPECT_EQ(info.max_end, 2048u * 512 + 131072);
  EXPECT_EQ(info.span(), info.max_end);
  EXPECT_EQ(info.duration().ns(), 8000);
  EXPECT_EQ(info.stats.time_backwards, 1u);
  EXPECT_EQ(info.volumes, (std::map<uint32_t, uint64_t>{{2, 3}, {7, 1}}));
}

TEST(TraceInfo, FlushesTrimsAndSkippedLinesInReport) {
  const TraceInfo info = Summary(
      "8,0 1 1 0.0 1 D W 0 + 8 [p]\n"
      "8,0 1 2 0.5 1 D FN [p]\n"
      "8,0 1 3 1.0 1 D D 64 + 2048 [p]\n"
      "8,0 1 4 1.5 1 D Q 0 + 8 [p]\n",
      "blkparse", "skip");
  EXPECT_EQ(info.op(Op::kFlush).count, 1u);
  EXPECT_EQ(info.op(Op::kTrim).bytes, 1048576u);
  EXPECT_EQ(info.stats.skipped, 1u);
  const std::string report = FormatTraceInfo(info);
  EXPECT_THAT(report, HasSubstr("trace       t.trace\n"));
  EXPECT_THAT(report, HasSubstr("format      blkparse\n"));
  EXPECT_THAT(report, HasSubstr("lines       4 (3 records, 0 ignored, 1 skipped as malformed"));
  EXPECT_THAT(report, HasSubstr("duration    1s (1000000000 ns)"));
  EXPECT_THAT(report, HasSubstr("trims       1 request, 1048576 bytes (1.0 MB)"));
  EXPECT_THAT(report, HasSubstr("flushes     1 request\n"));
  EXPECT_THAT(report, HasSubstr("volumes     1: 8,0 (3)\n"));
  EXPECT_THAT(report, HasSubstr("sizes       4KiB: 1  1MiB: 1"));
  EXPECT_THAT(report, HasSubstr("skipped     t.trace:4: RWBS: unknown operation in 'Q'"));
}

TEST(TraceInfo, ReportIsDeterministic) {
  const std::string path = trace_test::SamplePath("tencent.csv");
  auto report = [&] {
    auto reader = OpenBlockTrace(path, {});
    EXPECT_TRUE(reader.ok());
    return FormatTraceInfo(Summarize(reader->get()).value());
  };
  const std::string a = report();
  EXPECT_EQ(a, report());
  EXPECT_THAT(a, HasSubstr("volumes     2: 27 (2), 1283 (3)\n"));
}

TEST(TraceInfo, FailModeErrorIsReturned) {
  BlockTraceOptions o;
  o.format = "mqsim";
  auto reader = OpenBlockTraceFromMemory("t.trace", "1 0 0 8 1\nbad\n", o);
  ASSERT_TRUE(reader.ok());
  sim::Result<TraceInfo> info = Summarize(reader->get());
  ASSERT_FALSE(info.ok());
  EXPECT_THAT(info.status().message(), testing::StartsWith("t.trace:2: "));
}

}  // namespace
}  // namespace host
