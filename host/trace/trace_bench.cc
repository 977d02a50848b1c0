// Trace parsing throughput: lines per wall-second for the common formats on
// generated files of 1 M lines (from the page cache after the first pass).
// Budget (ARCHITECTURE.md): >= 2 M lines/s.

// GCC 12 reports a false -Wrestrict inside boost's gzip header (its
// std::string back-inserter); the diagnostic lands in <string>, so it can
// only be silenced for the whole file.
#pragma GCC diagnostic ignored "-Wrestrict"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <benchmark/benchmark.h>
#include <boost/iostreams/device/file_descriptor.hpp>
#include <boost/iostreams/filter/gzip.hpp>
#include <boost/iostreams/filtering_stream.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include "host/trace/block_trace_reader.h"
#include "sim/rng.h"

namespace host {
namespace {

constexpr int kLines = 1'000'000;

// One generated line of `format` for request i.
std::string Line(const std::string& format, int i, sim::Rng& rng) {
  const uint64_t sector = rng.Uniform(1ull << 31);
  const uint64_t sectors = 8ull << rng.Uniform(5);
  const bool read = rng.Bernoulli(0.6);
  if (format == "msr") {
    return fmt::format("{},hm,0,{},{},{},{}", 128166372000000000ull + 1234ull * i, read ? "Read" : "Write",
                       sector * 512, sectors * 512, 500 + rng.Uniform(5000));
  }
  if (format == "tencent") {
    return fmt::format("{},{},{},{},{}", 1538323200 + i / 1000, sector, sectors, read ? 0 : 1, rng.Uniform(4000));
  }
  if (format == "alibaba") {
    return fmt::format("{},{},{},{},{}", rng.Uniform(1000), read ? 'R' : 'W', sector * 512, sectors * 512,
                       1577808000000000ull + 37ull * i);
  }
  if (format == "mqsim") {
    return fmt::format("{} {} {} {} {}", 938513000ull + 977ull * i, rng.Uniform(16), sector, sectors, read ? 1 : 0);
  }
  if (format == "disksim") {
    return fmt::format("{:.6f} {} {} {} {}", 0.977 * i, rng.Uniform(16), sector, sectors, read ? 1 : 0);
  }
  if (format == "blkparse") {
    return fmt::format("  8,16 {:3} {:8} {:5}.{:09} {:5}  D  {} {} + {} [fio]", i % 32, i, i / 100000,
                       (i % 100000) * 10000, 4000 + i % 7, read ? "R" : "WS", sector, sectors);
  }
  return "";
}

// Generated files, written once per process and removed at exit.
class Corpus {
 public:
  ~Corpus() {
    for (const auto& [key, path] : paths_) std::filesystem::remove(path);
  }
  const std::string& Get(const std::string& format, bool gzip) {
    const std::string key = format + (gzip ? ".gz" : "");
    auto it = paths_.find(key);
    if (it != paths_.end()) return it->second;
    const std::string path = (std::filesystem::temp_directory_path() /
                              fmt::format("fs_trace_bench_{}_{}", ::getpid(), key)).string();
    sim::Rng rng(1, "trace.bench." + format);
    boost::iostreams::filtering_ostream out;
    if (gzip) out.push(boost::iostreams::gzip_compressor());
    out.push(boost::iostreams::file_descriptor_sink(path));
    for (int i = 0; i < kLines; ++i) out << Line(format, i, rng) << '\n';
    out.reset();
    return paths_.emplace(key, path).first->second;
  }

 private:
  std::map<std::string, std::string> paths_;
};

Corpus& TheCorpus() {
  static Corpus corpus;
  return corpus;
}

void BM_ReadTrace(benchmark::State& state, const std::string& format, bool gzip) {
  const std::string& path = TheCorpus().Get(format, gzip);
  BlockTraceOptions options;
  options.format = format;
  uint64_t lines = 0;
  uint64_t bytes = 0;
  for (auto _ : state) {
    auto reader = OpenBlockTrace(path, options);
    if (!reader.ok()) {
      state.SkipWithError(reader.status().message().c_str());
      return;
    }
    BlockTraceRecord rec;
    for (;;) {
      sim::Result<bool> more = (*reader)->Next(&rec);
      if (!more.ok()) {
        state.SkipWithError(more.status().message().c_str());
        return;
      }
      if (!*more) break;
      bytes += rec.length_bytes;
    }
    lines += (*reader)->lines();
  }
  benchmark::DoNotOptimize(bytes);
  state.SetItemsProcessed(static_cast<int64_t>(lines));
}

BENCHMARK_CAPTURE(BM_ReadTrace, msr, std::string("msr"), false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReadTrace, tencent, std::string("tencent"), false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReadTrace, alibaba, std::string("alibaba"), false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReadTrace, mqsim, std::string("mqsim"), false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReadTrace, disksim, std::string("disksim"), false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReadTrace, blkparse, std::string("blkparse"), false)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ReadTrace, msr_gzip, std::string("msr"), true)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace host
