// Wall-clock throughput of the NAND array model: flash commands completed
// per second of host time, closed loop over the MQSim default geometry.
#include <deque>
#include <string>

#include <benchmark/benchmark.h>

#include "sim/event_queue.h"
#include "flash/nand_array.h"
#include "flash/nand_test_util.h"
#include "sim/rng.h"
#include "sim/stats.h"

namespace flash {
namespace {

// mix: 0 = random reads, 1 = mixed 70% reads / 30% programs, 2 = sequential programs.
void RunLoop(benchmark::State& state, int mix, const std::string& scheduler, bool multi_plane) {
  const uint32_t outstanding = static_cast<uint32_t>(state.range(0));
  Geometry geo;  // 8 ch x 4 chips x 2 dies x 2 planes
  FlashConfig cfg = testing::TestFlashConfig();
  cfg.timing.cmd_overhead = sim::SimTime::Zero();
  cfg.scheduler = scheduler;
  cfg.multi_plane.enabled = multi_plane;
  cfg.cache_program = true;
  sim::EventQueue eq;
  sim::StatsRegistry stats;
  NandArray array(&eq, geo, cfg, stats.Root());
  sim::Rng rng(1, "bench");
  std::deque<FlashCommand> pool(outstanding);
  uint64_t seq = 0;
  const uint64_t pages = geo.pages();
  testing::RecordingClient client;
  auto issue = [&](FlashCommand* c) {
    const bool read = mix == 0 || (mix == 1 && rng.Uniform(10) < 7);
    c->kind = read ? FlashOpKind::kRead : FlashOpKind::kProgram;
    if (read) {
      c->ppn = Ppn{rng.Uniform(pages)};
    } else {
      // Stripe over planes, pages in order within each plane.
      const uint64_t s = seq++;
      const uint64_t plane = s % geo.planes();
      const uint64_t n = (s / geo.planes()) % (static_cast<uint64_t>(geo.blocks_per_plane) * geo.pages_per_block);
      c->ppn = Ppn{plane * geo.blocks_per_plane * geo.pages_per_block + n};
    }
    c->client = &client;
    array.Submit(c);
  };
  client.on_done = [&](FlashCommand* c) { issue(c); };
  for (FlashCommand& c : pool) issue(&c);
  uint64_t done_before = array.commands_completed();
  const uint64_t events_before = eq.events_processed();
  for (auto _ : state) {
    eq.Run(eq.now() + sim::Ms(10));
  }
  const uint64_t cmds = array.commands_completed() - done_before;
  state.counters["cmds/s"] = benchmark::Counter(static_cast<double>(cmds), benchmark::Counter::kIsRate);
  state.counters["events/cmd"] =
      static_cast<double>(eq.events_processed() - events_before) / static_cast<double>(cmds ? cmds : 1);
  state.counters["sim_cmds/sim_s"] = static_cast<double>(array.commands_completed()) / eq.now().sec();
  client.on_done = nullptr;
  eq.Run();  // drain so no event is destroyed while scheduled
}

void BM_RandomReads(benchmark::State& s) { RunLoop(s, 0, "fifo", false); }
void BM_RandomReadsReadPriority(benchmark::State& s) { RunLoop(s, 0, "read_priority", false); }
void BM_MixedReadProgram(benchmark::State& s) { RunLoop(s, 1, "read_priority", true); }
void BM_SequentialPrograms(benchmark::State& s) { RunLoop(s, 2, "fifo", true); }

BENCHMARK(BM_RandomReads)->Arg(64)->Arg(1024);
BENCHMARK(BM_RandomReadsReadPriority)->Arg(1024);
BENCHMARK(BM_MixedReadProgram)->Arg(1024);
BENCHMARK(BM_SequentialPrograms)->Arg(512);

}  // namespace
}  // namespace flash
