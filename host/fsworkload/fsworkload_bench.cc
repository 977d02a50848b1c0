// Throughput of the file-system workloads against MemFs (default service
// times), so the figures are the cost of the workload, the coroutines, the
// MemFs model and the event engine per operation:
//  - MobiGen parsing (lines per wall-second; budget >= 2 M lines/s),
//  - git-aging trace parsing (the shipped sample; the same budget),
//  - MobiGen replay of the Twitter trace, as fast as possible,
//  - filebench varmail (stock parameters) operations per wall-second,
//  - fio on files (4 KiB random writes, 4 jobs) I/Os per wall-second.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "fs/memfs/mem_fs.h"
#include "host/fsworkload/aging_trace.h"
#include "host/fsworkload/file_fio.h"
#include "host/fsworkload/filebench_workload.h"
#include "host/fsworkload/mobigen_replay.h"
#include "host/fsworkload/mobigen_trace.h"

namespace host {
namespace {

const char* const kTwitter = FLASHSTACK_SHARED_DIR "/traces/mobibench/mobigen.out.twitter";

std::string ReadAll(const char* path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void BM_MobigenParse(benchmark::State& state) {
  // Eight copies of the Twitter trace one after the other (130 k lines).
  const std::string one = ReadAll(kTwitter);
  std::string text;
  for (int copy = 0; copy < 8; ++copy) {
    std::istringstream in(one);
    std::string line;
    while (std::getline(in, line)) {
      const size_t a = line.find(' ');
      const size_t b = line.find(' ', a + 1);
      const long long t = std::stoll(line.substr(a + 1, b - a - 1)) + copy * 200'000'000LL;
      text += line.substr(0, a + 1) + std::to_string(t) + line.substr(b) + "\n";
    }
  }
  uint64_t lines = 0;
  for (auto _ : state) {
    sim::Result<MobigenTrace> t = ParseMobigen(text, "bench");
    if (!t.ok()) state.SkipWithError("parse failed");
    lines += t.ok() ? t->lines : 0;
    benchmark::DoNotOptimize(t);
  }
  state.counters["lines/s"] = benchmark::Counter(static_cast<double>(lines), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_MobigenParse)->Unit(benchmark::kMillisecond);

void BM_AgingParse(benchmark::State& state) {
  // The shipped sample history, its pulls repeated eight times (62 k lines).
  const std::string one = ReadAll(FLASHSTACK_SOURCE_DIR "/traces/aging/flashstack_200.trace");
  std::string text = std::string(kAgingTraceMagic) + "\n";
  std::istringstream in(one);
  std::vector<std::string> body;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') body.push_back(line);
  }
  uint64_t pull = 0;
  for (int copy = 0; copy < 8; ++copy) {
    for (const std::string& line : body) {
      text += line.rfind("pull ", 0) == 0 ? "pull " + std::to_string(pull++) + line.substr(line.rfind(' ')) : line;
      text += "\n";
    }
  }
  uint64_t lines = 0;
  for (auto _ : state) {
    sim::Result<AgingTrace> t = ParseAgingTrace(text, "bench");
    if (!t.ok()) state.SkipWithError("parse failed");
    lines += t.ok() ? t->lines : 0;
    benchmark::DoNotOptimize(t);
  }
  state.counters["lines/s"] = benchmark::Counter(static_cast<double>(lines), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_AgingParse)->Unit(benchmark::kMillisecond);

void BM_MobigenReplayTwitter(benchmark::State& state) {
  auto trace = std::make_shared<const MobigenTrace>(ReadMobigenFile(kTwitter).value());
  uint64_t ops = 0;
  for (auto _ : state) {
    sim::EventQueue q;
    fs::MemFs memfs(&q, sim::MakeDefault<fs::MemFsConfig>());
    sim::StatsRegistry reg;
    MobigenConfig c = sim::MakeDefault<MobigenConfig>();
    c.timing = "afap";
    MobigenReplay r(trace, c, FsWorkloadEnv{&q, &memfs, reg.Root().Group("workload"), 1});
    r.Start();
    q.Run();
    ops += r.executed_total();
  }
  state.counters["calls/s"] = benchmark::Counter(static_cast<double>(ops), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_MobigenReplayTwitter)->Unit(benchmark::kMillisecond);

void BM_FilebenchVarmail(benchmark::State& state) {
  uint64_t ops = 0;
  for (auto _ : state) {
    sim::EventQueue q;
    fs::MemFs memfs(&q, sim::MakeDefault<fs::MemFsConfig>());
    sim::StatsRegistry reg;
    FilebenchConfig c = sim::MakeDefault<FilebenchConfig>();
    c.run_time = sim::Sec(1);
    auto w = FilebenchWorkload::Create(c, FsWorkloadEnv{&q, &memfs, reg.Root().Group("workload"), 1}).value();
    w->Start();
    q.Run();
    ops += w->fb_ops();
  }
  state.counters["ops/s"] = benchmark::Counter(static_cast<double>(ops), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_FilebenchVarmail)->Unit(benchmark::kMillisecond);

void BM_FileFioRandWrite(benchmark::State& state) {
  uint64_t ios = 0;
  for (auto _ : state) {
    sim::EventQueue q;
    fs::MemFs memfs(&q, sim::MakeDefault<fs::MemFsConfig>());
    sim::StatsRegistry reg;
    FileFioConfig c = sim::MakeDefault<FileFioConfig>();
    c.numjobs = 4;
    c.size = sim::GiB(2);
    c.shared_file = true;
    c.fsync = 32;
    c.total_ios = 400000;
    auto w = FileFioWorkload::Create(c, FsWorkloadEnv{&q, &memfs, reg.Root().Group("workload"), 1}).value();
    w->Start();
    q.Run();
    ios += w->ios_issued();
  }
  state.counters["ios/s"] = benchmark::Counter(static_cast<double>(ios), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_FileFioRandWrite)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace host
