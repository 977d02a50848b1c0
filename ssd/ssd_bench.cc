// Wall-clock throughput of the host interface + NAND model: simulated host
// requests completed per second of host time, through Ssd -> DirectFtl ->
// NandArray on the MQSim default geometry, closed loop.
#include <vector>

#include <benchmark/benchmark.h>

#include "sim/event_queue.h"
#include "flash/nand_array.h"
#include "flash/nand_test_util.h"
#include "sim/rng.h"
#include "tests/fakes/fake_ftl.h"
#include "ssd/ssd.h"
#include "sim/stats.h"

namespace ssd {
namespace {

class LoopClient final : public ssd::BlockClient {
 public:
  void OnBlockComplete(ssd::BlockRequest* r) override { next(r); }
  std::function<void(ssd::BlockRequest*)> next;
};

void Run(benchmark::State& state, ssd::BlockOp op, uint64_t bytes, bool buffer) {
  const uint32_t qd = static_cast<uint32_t>(state.range(0));
  flash::Geometry geo;  // 8 ch x 4 chips x 2 dies x 2 planes, 2048 blocks x 256 pages x 8 KiB
  flash::FlashConfig fcfg = flash::testing::TestFlashConfig();
  fcfg.timing.cmd_overhead = sim::SimTime::Zero();
  fcfg.multi_plane.enabled = true;
  fcfg.cache_program = true;
  fcfg.scheduler = "read_priority";
  SsdConfig scfg = sim::MakeDefault<SsdConfig>();
  scfg.queue_depth = qd;
  if (buffer) scfg.write_buffer.size = sim::MiB(64);
  sim::EventQueue eq;
  sim::StatsRegistry stats;
  flash::NandArray array(&eq, geo, fcfg, stats.Root().Group("flash"));
  fakes::DirectFtl ftl(&eq, &array);
  ftl.Precondition(ftl::PreconditionSpec{});
  Ssd ssd(&eq, scfg, geo, &ftl, stats.Root().Group("ssd"));
  sim::Rng rng(1, "bench");
  const uint64_t slots = ssd.capacity() / bytes;
  uint64_t seq = 0;
  bool stop = false;
  LoopClient client;
  std::vector<ssd::BlockRequest> reqs(qd);
  auto issue = [&](ssd::BlockRequest* r) {
    r->op = op;
    r->length = bytes;
    r->offset = (op == ssd::BlockOp::kWrite ? (seq++ % slots) : rng.Uniform(slots)) * bytes;
    r->client = &client;
    ssd.Submit(r);
  };
  client.next = [&](ssd::BlockRequest* r) {
    if (!stop) issue(r);
  };
  for (auto& r : reqs) issue(&r);
  const uint64_t before = ssd.requests_completed();
  const uint64_t cmds_before = array.commands_completed();
  for (auto _ : state) eq.Run(eq.now() + sim::Ms(20));
  const double ios = static_cast<double>(ssd.requests_completed() - before);
  state.counters["host_ios/s"] = benchmark::Counter(ios, benchmark::Counter::kIsRate);
  state.counters["flash_cmds/s"] =
      benchmark::Counter(static_cast<double>(array.commands_completed() - cmds_before), benchmark::Counter::kIsRate);
  state.counters["sim_IOPS"] = static_cast<double>(ssd.requests_completed()) / eq.now().sec();
  stop = true;
  eq.Run();
}

void BM_RandomRead8K(benchmark::State& s) { Run(s, ssd::BlockOp::kRead, 8192, false); }
void BM_RandomRead4K(benchmark::State& s) { Run(s, ssd::BlockOp::kRead, 4096, false); }
void BM_SeqWrite8K(benchmark::State& s) { Run(s, ssd::BlockOp::kWrite, 8192, false); }
void BM_SeqWrite8KBuffered(benchmark::State& s) { Run(s, ssd::BlockOp::kWrite, 8192, true); }
void BM_SeqWrite128K(benchmark::State& s) { Run(s, ssd::BlockOp::kWrite, 131072, false); }

BENCHMARK(BM_RandomRead8K)->Arg(1)->Arg(64)->Arg(1024);
BENCHMARK(BM_RandomRead4K)->Arg(1024);
BENCHMARK(BM_SeqWrite8K)->Arg(512);
BENCHMARK(BM_SeqWrite8KBuffered)->Arg(512);
BENCHMARK(BM_SeqWrite128K)->Arg(64);

}  // namespace
}  // namespace ssd
