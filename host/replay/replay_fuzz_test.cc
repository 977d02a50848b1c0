// No input crashes or hangs the replay: extreme addresses and times, and
// randomly damaged traces under random configurations, always end with
// every issued request completed and every request valid for the device.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "host/replay/replay_test_util.h"
#include "sim/rng.h"

namespace host {
namespace {

using testing::ReplayBench;

constexpr uint64_t kTop = UINT64_MAX;

// MSR lines carry byte offsets, so any 64-bit offset can be written.
std::string MsrLine(uint64_t filetime, uint32_t disk, bool read, uint64_t offset, uint64_t size) {
  return fmt::format("{},hm,{},{},{},{},100\n", filetime, disk, read ? "Read" : "Write", offset, size);
}

std::string ExtremeTrace() {
  const uint64_t t = 128166385295514663ull;
  return MsrLine(t, 0, true, 0, 512) + MsrLine(t + 1, 0, false, kTop - 1023, 512) +  // near 2^64
         MsrLine(t + 2, 1, true, kTop - 512 * 1024 * 1024ull, 512 * 1024 * 1024ull) +  // 512 MiB up to 2^64
         MsrLine(t + 3, 0, false, 1ull << 40, 4096) + MsrLine(t, 7, true, 12345 * 512, 512) +  // time goes back
         MsrLine(t + 10000000000000000ull, 0, true, 4096, 4096);                             // 32 years later
}

TEST(ReplayRobustnessTest, ExtremeAddressesAndTimesInEveryMode) {
  for (const char* fit : {"wrap", "scale", "compact", "error"}) {
    for (const char* layout : {"overlay", "split"}) {
      for (const char* mode : {"open", "closed"}) {
        SCOPED_TRACE(fmt::format("{} {} {}", fit, layout, mode));
        TraceReplayConfig cfg = sim::MakeDefault<TraceReplayConfig>();
        cfg.path = "mem";
        cfg.reader.format = "msr";
        cfg.fit = fit;
        cfg.volume_layout = layout;
        cfg.mode = mode;
        cfg.iodepth = 2;
        cfg.max_backlog = 1;
        cfg.align = sim::KiB(4);
        cfg.loops = 2;
        ReplayBench bench(uint64_t{64} << 20);
        auto made = bench.FromMemory(cfg, ExtremeTrace());
        ASSERT_TRUE(made.ok()) << made.status().message();
        bench.Run(made->get());
        const TraceReplayer& r = **made;
        ASSERT_TRUE(r.done());
        EXPECT_EQ(r.issued(), r.completed());
        EXPECT_EQ(bench.device.violations(), 0u);
        if (std::string(fit) == "error") {
          EXPECT_EQ(r.status().code(), sim::Status::Code::kInvalidInput);
          EXPECT_EQ(r.status().message().rfind("mem:2: request beyond the device", 0), 0u) << r.status().message();
        } else {
          EXPECT_TRUE(r.status().ok()) << r.status().message();
          EXPECT_EQ(r.issued(), 12u);
        }
      }
    }
  }
}

std::string SharedLines(size_t n) {
  std::ifstream in(testing::SharedTracePath("mqsim/tpcc-small.trace"));
  std::string out, line;
  for (size_t i = 0; i < n && std::getline(in, line); ++i) out += line + "\n";
  return out;
}

std::string Damage(const std::string& text, sim::Rng& rng) {
  std::string s = text;
  const uint64_t edits = 1 + rng.Uniform(12);
  static const char* kPieces[] = {"99999999999999999999", "18446744073709551615", "-1", " ", "\n", "0", "1.5",
                                  "9223372036854775807", "\t", "x", "1 2 3 4 5 6", "4294967295"};
  for (uint64_t e = 0; e < edits && !s.empty(); ++e) {
    const size_t pos = rng.Uniform(s.size());
    switch (rng.Uniform(4)) {
      case 0:
        s[pos] = static_cast<char>(rng.Uniform(256));
        break;
      case 1:
        s.erase(pos, 1 + rng.Uniform(8));
        break;
      case 2:
        s.insert(pos, kPieces[rng.Uniform(std::size(kPieces))]);
        break;
      default:
        s.insert(pos, s.substr(rng.Uniform(s.size()), rng.Uniform(40)));
        break;
    }
  }
  return s;
}

TEST(ReplayRobustnessTest, DamagedTracesUnderRandomConfigs) {
  const std::string base = SharedLines(200);
  ASSERT_FALSE(base.empty());
  sim::Rng rng(7, "replay.fuzz");
  const char* fits[] = {"wrap", "scale", "compact", "error"};
  const double scales[] = {1e-6, 1e-3, 1.0, 1e3};
  int finished_ok = 0, stopped = 0, rejected = 0;
  for (int iter = 0; iter < 300; ++iter) {
    SCOPED_TRACE(iter);
    const std::string trace = Damage(base, rng);
    TraceReplayConfig cfg = sim::MakeDefault<TraceReplayConfig>();
    cfg.path = "mem";
    cfg.reader.format = rng.Uniform(4) == 0 ? "" : "mqsim";
    cfg.reader.on_error = rng.Uniform(2) ? "skip" : "fail";
    cfg.fit = fits[rng.Uniform(4)];
    cfg.volume_layout = rng.Uniform(2) ? "split" : "overlay";
    cfg.mode = rng.Uniform(2) ? "open" : "closed";
    cfg.speedup = scales[rng.Uniform(4)];
    cfg.iodepth = static_cast<uint32_t>(1 + rng.Uniform(8));
    cfg.max_backlog = static_cast<uint32_t>(1 + rng.Uniform(8));
    cfg.align = sim::Bytes{rng.Uniform(2) ? 0u : 4096u};
    cfg.loops = static_cast<uint32_t>(1 + rng.Uniform(3));
    cfg.skip_records = rng.Uniform(3) == 0 ? rng.Uniform(50) : 0;
    cfg.max_records = rng.Uniform(3) == 0 ? rng.Uniform(100) : 0;
    if (rng.Uniform(4) == 0) cfg.end_time = sim::Ms(1 + static_cast<double>(rng.Uniform(100)));
    if (rng.Uniform(3) == 0) cfg.spread_ties = sim::Us(static_cast<double>(rng.Uniform(2000)));
    ReplayBench bench(uint64_t{1 + rng.Uniform(64)} << 20);
    auto made = bench.FromMemory(cfg, trace);
    if (!made.ok()) {
      ++rejected;
      EXPECT_NE(made.status().message().find("mem"), std::string::npos) << made.status().message();
      continue;
    }
    bench.Run(made->get());
    const TraceReplayer& r = **made;
    ASSERT_TRUE(r.done());
    EXPECT_EQ(r.issued(), r.completed());
    EXPECT_EQ(bench.device.violations(), 0u);
    EXPECT_LE(r.backlog_max(), cfg.max_backlog);
    EXPECT_LE(r.outstanding_max(), cfg.iodepth);
    if (r.status().ok()) {
      ++finished_ok;
      EXPECT_LE(r.issued(), r.records_read());
    } else {
      ++stopped;
      EXPECT_EQ(r.status().code(), sim::Status::Code::kInvalidInput);
      EXPECT_EQ(r.status().message().rfind("mem", 0), 0u) << r.status().message();
    }
  }
  // The mix exercised every outcome.
  EXPECT_GT(finished_ok, 50);
  EXPECT_GT(stopped, 10);
  EXPECT_GT(rejected, 0);
}

}  // namespace
}  // namespace host
