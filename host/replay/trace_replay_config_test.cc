#include "host/replay/trace_replay_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "sim/config.h"

namespace host {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr uint64_t kCap = uint64_t{1} << 30;

TraceReplayConfig Valid() {
  TraceReplayConfig c = sim::MakeDefault<TraceReplayConfig>();
  c.path = "t.csv";
  return c;
}

TEST(TraceReplayConfigTest, InClassValuesEqualDeclaredDefaults) {
  const TraceReplayConfig d = sim::MakeDefault<TraceReplayConfig>();
  const TraceReplayConfig c;
  EXPECT_EQ(sim::DumpYaml(sim::SchemaOf<TraceReplayConfig>(), &d), sim::DumpYaml(sim::SchemaOf<TraceReplayConfig>(), &c));
  EXPECT_EQ(d.mode, "open");
  EXPECT_EQ(d.fit, "error");
  EXPECT_EQ(d.volume_layout, "overlay");
  EXPECT_EQ(d.compact_granularity.value, 1u << 20);
  EXPECT_EQ(d.reader.on_error, "fail");
}

TEST(TraceReplayConfigTest, EveryKeyIsDeclared) {
  const std::vector<std::string> keys = sim::SchemaOf<TraceReplayConfig>().AllKeys();
  for (const char* k : {"path", "reader.format", "reader.on_error", "mode", "speedup", "iodepth", "max_backlog",
                        "volumes", "volume_layout", "fit", "trace_span", "compact_granularity", "align",
                        "skip_records", "max_records", "start_time", "end_time", "spread_ties", "loops", "include_trims",
                        "include_flushes"}) {
    EXPECT_NE(std::find(keys.begin(), keys.end(), k), keys.end()) << k;
  }
}

TEST(TraceReplayConfigTest, DefaultsAreValid) { EXPECT_TRUE(Valid().Validate(kCap, 512).ok()); }

struct BadCase {
  const char* name;
  void (*edit)(TraceReplayConfig*);
  const char* message;
};

TEST(TraceReplayConfigTest, ErrorsNameTheKey) {
  const BadCase cases[] = {
      {"no path", [](TraceReplayConfig* c) { c->path = ""; }, "workload.trace.path: no trace file given"},
      {"format", [](TraceReplayConfig* c) { c->reader.format = "nope"; }, "workload.trace.reader.format: "},
      {"mode", [](TraceReplayConfig* c) { c->mode = "half"; }, "workload.trace.mode: 'half' is not one of"},
      {"scale 0", [](TraceReplayConfig* c) { c->speedup = 0; }, "workload.trace.speedup: 0 is outside"},
      {"scale neg", [](TraceReplayConfig* c) { c->speedup = -2; }, "workload.trace.speedup: -2 is outside"},
      {"scale nan", [](TraceReplayConfig* c) { c->speedup = std::nan(""); }, "workload.trace.speedup:"},
      {"iodepth", [](TraceReplayConfig* c) { c->iodepth = 0; }, "workload.trace.iodepth: 0 is outside"},
      {"backlog", [](TraceReplayConfig* c) { c->max_backlog = 0; }, "workload.trace.max_backlog: 0 is outside"},
      {"volume", [](TraceReplayConfig* c) { c->volumes = {"x"}; }, "workload.trace.volumes: bad volume id 'x'"},
      {"devno", [](TraceReplayConfig* c) { c->volumes = {"8,x"}; }, "workload.trace.volumes: bad device number"},
      {"dup", [](TraceReplayConfig* c) { c->volumes = {"8,16", "8,16"}; }, "workload.trace.volumes: volume '8,16' is listed twice"},
      {"fit", [](TraceReplayConfig* c) { c->fit = "squash"; }, "workload.trace.fit: 'squash' is not one of"},
      {"layout", [](TraceReplayConfig* c) { c->volume_layout = "x"; }, "workload.trace.volume_layout:"},
      {"span", [](TraceReplayConfig* c) { c->trace_span = sim::GiB(1); }, "workload.trace.trace_span: is only used"},
      {"align", [](TraceReplayConfig* c) { c->align = sim::Bytes{1000}; }, "workload.trace.align: 1000 bytes is not"},
      {"align big", [](TraceReplayConfig* c) { c->align = sim::GiB(2); }, "workload.trace.align: 2147483648 bytes is larger"},
      {"gran",
       [](TraceReplayConfig* c) {
         c->fit = "compact";
         c->compact_granularity = sim::Bytes{1536};
         c->align = sim::Bytes{1024};
       },
       "workload.trace.compact_granularity: 1536 bytes"},
      {"window", [](TraceReplayConfig* c) {
         c->start_time = sim::Ms(5);
         c->end_time = sim::Ms(5);
       }, "workload.trace.end_time: 5ms is not after start_time"},
      {"spread negative", [](TraceReplayConfig* c) { c->spread_ties = sim::Ns(-1); },
       "workload.trace.spread_ties: -1ns is negative"},
      {"loops", [](TraceReplayConfig* c) { c->loops = 0; }, "workload.trace.loops: 0 is outside"},
  };
  for (const BadCase& bc : cases) {
    TraceReplayConfig c = Valid();
    bc.edit(&c);
    const sim::Status st = c.Validate(kCap, 512, "workload.trace");
    ASSERT_FALSE(st.ok()) << bc.name;
    EXPECT_EQ(st.code(), sim::Status::Code::kInvalidInput) << bc.name;
    EXPECT_THAT(st.message(), StartsWith(bc.message)) << bc.name;
  }
}

TEST(TraceReplayConfigTest, TooManyVolumesSideBySide) {
  TraceReplayConfig c = Valid();
  c.align = sim::MiB(512);
  c.volumes = {"1", "2", "3"};
  EXPECT_TRUE(c.Validate(kCap, 512).ok());  // overlay
  c.volume_layout = "split";
  const sim::Status st = c.Validate(kCap, 512);
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), StartsWith("volumes: 3 volumes side by side"));
}

TEST(TraceReplayConfigTest, ParsesVolumeIds) {
  EXPECT_EQ(ParseVolumeId("0").value(), 0u);
  EXPECT_EQ(ParseVolumeId("4294967295").value(), 4294967295u);
  EXPECT_EQ(ParseVolumeId("8,33").value(), MakeDevVolume(8, 33));
  EXPECT_FALSE(ParseVolumeId("4294967296").ok());
  EXPECT_FALSE(ParseVolumeId("").ok());
  EXPECT_FALSE(ParseVolumeId("-1").ok());
  EXPECT_FALSE(ParseVolumeId("4096,0").ok());
  EXPECT_THAT(ParseVolumeId("8,").status().message(), HasSubstr("bad device number '8,'"));
}

TEST(TraceReplayConfigTest, ResolvesRelativePathsAgainstBaseDir) {
  EXPECT_EQ(ResolveTracePath("t.csv", "/cfg/dir"), "/cfg/dir/t.csv");
  EXPECT_EQ(ResolveTracePath("../t.csv", "/cfg/dir"), "/cfg/dir/../t.csv");
  EXPECT_EQ(ResolveTracePath("/abs/t.csv", "/cfg/dir"), "/abs/t.csv");
  EXPECT_EQ(ResolveTracePath("t.csv", ""), "t.csv");
}

}  // namespace
}  // namespace host
