// Conformance suite: every registered die scheduler, under every
// combination of multi-plane, cache program and suspension, must complete
// every command, keep each plane's programs in submission order, never
// finish a command faster than its service time, and be deterministic.
#include "flash/die_scheduler.h"

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "sim/event_queue.h"
#include "flash/nand_array.h"
#include "flash/nand_test_util.h"
#include "sim/rng.h"
#include "sim/stats.h"

namespace flash {
namespace {

using sim::SimTime;

struct RunResult {
  std::vector<std::pair<uint64_t, int64_t>> finishes;  // (tag, finish ns) in completion order
  std::map<uint32_t, std::vector<uint64_t>> submitted_programs;  // per plane id
  std::map<uint32_t, std::vector<uint64_t>> finished_programs;
  uint64_t completed = 0;
  uint64_t too_fast = 0;
  uint32_t final_load = 0;
  uint64_t suspensions = 0;
  uint64_t multi_plane_ops = 0;
};

// Closed loop: `outstanding` random commands in flight until `total` completed.
RunResult RunRandom(const FlashConfig& cfg, uint64_t seed, uint32_t outstanding, uint64_t total) {
  const Geometry geo = testing::TinyGeometry();
  sim::EventQueue eq;
  sim::StatsRegistry stats;
  NandArray array(&eq, geo, cfg, stats.Root());
  sim::Rng rng(seed, "conformance");
  std::deque<FlashCommand> pool(outstanding);
  std::vector<uint32_t> next_page(geo.planes(), 0);
  RunResult res;
  uint64_t issued = 0;
  const SimTime tx = array.page_transfer_time();
  testing::RecordingClient client;

  auto issue = [&](FlashCommand* c) {
    const uint32_t plane = static_cast<uint32_t>(rng.Uniform(geo.planes()));
    const uint64_t r = rng.Uniform(100);
    c->kind = r < 55 ? FlashOpKind::kRead : (r < 95 ? FlashOpKind::kProgram : FlashOpKind::kErase);
    c->source = static_cast<CmdSource>(rng.Uniform(3));
    uint64_t block = static_cast<uint64_t>(plane) * geo.blocks_per_plane;
    uint32_t page = static_cast<uint32_t>(rng.Uniform(geo.pages_per_block));
    if (c->kind == FlashOpKind::kProgram) {
      const uint32_t n = next_page[plane]++;
      block += (n / geo.pages_per_block) % (geo.blocks_per_plane / 2);
      page = n % geo.pages_per_block;
      res.submitted_programs[plane].push_back(issued);
    } else if (c->kind == FlashOpKind::kErase) {
      block += geo.blocks_per_plane / 2 + rng.Uniform(geo.blocks_per_plane / 2);
      page = 0;
    } else {
      block += rng.Uniform(geo.blocks_per_plane);
    }
    c->ppn = Ppn{block * geo.pages_per_block + page};
    c->client = &client;
    c->tag = issued++;
    array.Submit(c);
  };
  client.on_done = [&](FlashCommand* c) {
    ++res.completed;
    res.finishes.emplace_back(c->tag, c->finish_time.ns());
    SimTime min;
    switch (c->kind) {
      case FlashOpKind::kRead:
        min = cfg.timing.cmd_overhead + cfg.timing.t_read + tx;
        break;
      case FlashOpKind::kProgram:
        min = cfg.timing.cmd_overhead + tx + cfg.timing.t_prog;
        break;
      case FlashOpKind::kErase:
        min = cfg.timing.cmd_overhead + cfg.timing.t_erase;
        break;
    }
    if (c->finish_time - c->submit_time < min) ++res.too_fast;
    if (c->kind == FlashOpKind::kProgram) res.finished_programs[geo.PlaneOfPpn(c->ppn)].push_back(c->tag);
    if (issued < total) issue(c);
  };
  for (FlashCommand& c : pool) issue(&c);
  eq.Run();
  for (uint32_t d = 0; d < geo.dies(); ++d) res.final_load += array.DieLoad(d);
  res.suspensions = array.suspensions();
  res.multi_plane_ops = static_cast<uint64_t>(stats.Value("multi_plane.ops"));
  return res;
}

// scheduler, multi-plane, cache program, suspend, channel arbitration
using Param = std::tuple<std::string, bool, bool, bool, std::string>;

class SchedulerConformanceTest : public ::testing::TestWithParam<Param> {
 protected:
  FlashConfig Config() const {
    FlashConfig cfg = testing::TestFlashConfig();
    cfg.scheduler = std::get<0>(GetParam());
    cfg.multi_plane.enabled = std::get<1>(GetParam());
    cfg.cache_program = std::get<2>(GetParam());
    cfg.suspend.program = cfg.suspend.erase = std::get<3>(GetParam());
    cfg.suspend.max_per_op = 3;
    cfg.channel_arbitration = std::get<4>(GetParam());
    cfg.timing.t_erase = sim::Us(1500);
    return cfg;
  }
};

TEST_P(SchedulerConformanceTest, CompletesEverythingInPlaneProgramOrder) {
  const RunResult r = RunRandom(Config(), 7, 48, 6000);
  EXPECT_EQ(r.completed, 6000u);
  EXPECT_EQ(r.too_fast, 0u);
  EXPECT_EQ(r.final_load, 0u);
  EXPECT_EQ(r.submitted_programs, r.finished_programs);
  // The combinations exercise what they enable.
  const FlashConfig cfg = Config();
  EXPECT_EQ(r.multi_plane_ops > 0, cfg.multi_plane.enabled);
  if (cfg.scheduler == "read_priority") {
    EXPECT_EQ(r.suspensions > 0, cfg.suspend.program);
  }
  if (cfg.scheduler == "fifo") {
    EXPECT_EQ(r.suspensions, 0u);
  }
}

TEST_P(SchedulerConformanceTest, Deterministic) {
  const RunResult a = RunRandom(Config(), 11, 32, 3000);
  const RunResult b = RunRandom(Config(), 11, 32, 3000);
  EXPECT_EQ(a.finishes, b.finishes);
  const RunResult c = RunRandom(Config(), 12, 32, 3000);
  EXPECT_NE(a.finishes, c.finishes);
}

INSTANTIATE_TEST_SUITE_P(AllPolicies, SchedulerConformanceTest,
                         ::testing::Combine(::testing::ValuesIn(DieSchedulerNames()), ::testing::Bool(),
                                            ::testing::Bool(), ::testing::Bool(),
                                            ::testing::Values("cmd_first", "fifo")),
                         [](const ::testing::TestParamInfo<Param>& info) {
                           return std::get<0>(info.param) + (std::get<1>(info.param) ? "_mp" : "") +
                                  (std::get<2>(info.param) ? "_cache" : "") +
                                  (std::get<3>(info.param) ? "_suspend" : "") + "_" + std::get<4>(info.param);
                         });

TEST(DieSchedulerRegistryTest, UnknownNameListsChoices) {
  DieSchedulerContext ctx;
  auto r = MakeDieScheduler("nope", ctx);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("fifo"), std::string::npos);
  EXPECT_NE(r.status().message().find("read_priority"), std::string::npos);
}

TEST(CommandListTest, TakePartnerKeepsListConsistent) {
  std::vector<FlashCommand> cmds(4);
  CommandList l;
  for (uint32_t i = 0; i < 4; ++i) {
    cmds[i].kind = FlashOpKind::kRead;
    cmds[i].addr.plane = i % 2;
    cmds[i].addr.page = i;
    l.PushBack(&cmds[i]);
  }
  FlashCommand lead;
  lead.kind = FlashOpKind::kRead;
  lead.addr.plane = 0;
  lead.addr.page = 3;
  PartnerRule rule;
  rule.taken_planes = 1;
  EXPECT_EQ(l.TakePartner(lead, rule), &cmds[3]);  // the tail
  EXPECT_EQ(l.size(), 3u);
  l.PushBack(&cmds[3]);
  EXPECT_EQ(l.PopFront(), &cmds[0]);
  EXPECT_EQ(l.PopFront(), &cmds[1]);
  EXPECT_EQ(l.PopFront(), &cmds[2]);
  EXPECT_EQ(l.PopFront(), &cmds[3]);
  EXPECT_TRUE(l.empty());
  rule.scan = 0;
  l.PushBack(&cmds[3]);
  EXPECT_EQ(l.TakePartner(lead, rule), nullptr);
}

}  // namespace
}  // namespace flash
