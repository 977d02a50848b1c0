// The third-party samples in ../shared/traces, read in place: totals a
// user can check against the published descriptions of these traces.
#include <cmath>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "host/trace/block_trace_reader.h"
#include "host/trace/trace_info.h"
#include "host/trace/trace_test_util.h"

namespace host {
namespace {

using trace_test::SharedTracePath;
using Op = BlockTraceRecord::Op;

TraceInfo Info(const std::string& path, const BlockTraceOptions& options = {}) {
  auto reader = OpenBlockTrace(path, options);
  EXPECT_TRUE(reader.ok()) << reader.status().message();
  if (!reader.ok()) return {};
  sim::Result<TraceInfo> info = Summarize(reader->get());
  EXPECT_TRUE(info.ok()) << info.status().message();
  return info.ok() ? *info : TraceInfo();
}

double Mb(uint64_t bytes) { return std::round(static_cast<double>(bytes) / 1e5) / 10; }

TEST(SharedTraces, MsrCambridgeSample) {
  const std::string path = SharedTracePath("block/msr-cambridge1-sample.csv");
  const TraceInfo info = Info(path);
  EXPECT_EQ(info.format, "msr");
  EXPECT_EQ(info.stats.records, 1000u);
  EXPECT_EQ(info.stats.skipped, 0u);
  EXPECT_EQ(info.op(Op::kRead).count, 508u);
  EXPECT_EQ(info.op(Op::kWrite).count, 492u);

  // Byte totals recomputed independently with a naive split of each line.
  std::ifstream in(path);
  std::string line;
  uint64_t read_bytes = 0, write_bytes = 0;
  uint64_t first_ticks = 0, last_ticks = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    ASSERT_EQ(f.size(), 7u) << line;
    (f[3] == "Read" ? read_bytes : write_bytes) += std::stoull(f[5]);
    last_ticks = std::stoull(f[0]);
    if (first_ticks == 0) first_ticks = last_ticks;
  }
  EXPECT_EQ(info.op(Op::kRead).bytes, read_bytes);
  EXPECT_EQ(info.op(Op::kWrite).bytes, write_bytes);
  EXPECT_EQ(Mb(read_bytes), 6.1);
  EXPECT_EQ(Mb(write_bytes), 3.6);
  // Time is FILETIME ticks of 100 ns from the first record; about 127 s.
  EXPECT_EQ(info.last_time.ns(), static_cast<int64_t>(last_ticks - first_ticks) * 100);
  EXPECT_NEAR(info.duration().sec(), 127, 1);
  EXPECT_EQ(info.volumes.size(), 1u);
}

TEST(SharedTraces, MqsimTpccSmall) {
  const TraceInfo info = Info(SharedTracePath("mqsim/tpcc-small.trace"));
  EXPECT_EQ(info.format, "mqsim");
  EXPECT_EQ(info.stats.records, 6999u);
  EXPECT_EQ(info.op(Op::kRead).count, 4381u);
  EXPECT_EQ(info.op(Op::kWrite).count, 2618u);
  // Sectors of 512 B summed independently: 36.3 MB read, 23.4 MB written.
  std::ifstream in(SharedTracePath("mqsim/tpcc-small.trace"));
  uint64_t t, dev, lba, sectors, type, bytes[2] = {0, 0};
  while (in >> t >> dev >> lba >> sectors >> type) bytes[type] += sectors * 512;
  EXPECT_EQ(info.op(Op::kRead).bytes, bytes[1]);
  EXPECT_EQ(info.op(Op::kWrite).bytes, bytes[0]);
  EXPECT_EQ(Mb(bytes[1]), 36.3);
  EXPECT_EQ(Mb(bytes[0]), 23.4);
  EXPECT_NEAR(info.duration().ms(), 136, 1);
  EXPECT_EQ(info.volumes.size(), 16u);
  EXPECT_EQ(info.volumes.begin()->first, 0u);
  EXPECT_EQ(info.volumes.rbegin()->first, 15u);
}

TEST(SharedTraces, BlkparseOutput) {
  const TraceInfo info = Info(SharedTracePath("block/blkparse-output.txt"));
  EXPECT_EQ(info.format, "blkparse");
  EXPECT_EQ(info.stats.records, 673u);
  EXPECT_EQ(info.stats.skipped, 0u);
  EXPECT_EQ(info.op(Op::kRead).count, 161u);
  EXPECT_EQ(info.op(Op::kWrite).count, 512u);
  // Matches blkparse's own summary: "Read Dispatches: 161, 644KiB",
  // "Write Dispatches: 512, 131072KiB".
  EXPECT_EQ(info.op(Op::kRead).bytes, 644u * 1024);
  EXPECT_EQ(info.op(Op::kWrite).bytes, 131072u * 1024);
  EXPECT_EQ(info.size_histogram[18], 512u);  // every write is 256 KiB
  EXPECT_EQ(info.volumes.size(), 1u);
  EXPECT_EQ(info.volumes.begin()->first, MakeDevVolume(8, 33));
  // 757 lines: 673 requests plus 4 no-data commands and the summary block.
  EXPECT_EQ(info.stats.lines, 757u);
  EXPECT_EQ(info.stats.ignored, 757u - 673u);
}

TEST(SharedTraces, BlkparseWritesAreSync) {
  auto reader = OpenBlockTrace(SharedTracePath("block/blkparse-output.txt"), {});
  ASSERT_TRUE(reader.ok());
  for (const BlockTraceRecord& r : trace_test::ReadAll(reader->get())) {
    if (r.op == Op::kWrite) {
      ASSERT_EQ(r.flags, BlockTraceRecord::kFlagSync) << "line " << r.line_no;
    } else {
      ASSERT_EQ(r.flags, 0) << "line " << r.line_no;
    }
  }
}

TEST(SharedTraces, TraceInfoReportMentionsTheTotals) {
  const std::string report = FormatTraceInfo(Info(SharedTracePath("block/msr-cambridge1-sample.csv")));
  EXPECT_NE(report.find("format      msr\n"), std::string::npos) << report;
  EXPECT_NE(report.find("reads       508 requests"), std::string::npos) << report;
  EXPECT_NE(report.find("(6.1 MB)"), std::string::npos) << report;
  EXPECT_NE(report.find("writes      492 requests"), std::string::npos) << report;
  EXPECT_NE(report.find("(3.6 MB)"), std::string::npos) << report;
}

}  // namespace
}  // namespace host
