// Benchmarks of the F2FS model:
//  - BM_Seed001Fsync: the seed-001 experiment (4 jobs, 4 KiB random writes
//    to 2 GiB files, fsync every 32 writes), kernel dirty-node scan vs the
//    per-file dirty node list, on a fixed-latency NVMe-like device and on the
//    simulated SSD. Counters are simulated results (fsync latency etc.).
//  - BM_RandomWrites: simulated 4 KiB writes per wall-clock second.
#include <benchmark/benchmark.h>

#include <cstdio>

#include "tests/fakes/fixed_latency_device.h"
#include "tests/fsync_experiment.h"
#include "sim/config.h"

#include "ftl/ftl_config.h"
#include "ftl/ftl_factory.h"
#include "flash/nand_array.h"
#include "ssd/device_config.h"
#include "ssd/ssd.h"

namespace fs::f2fs {
namespace {

FsyncExperimentSpec Seed001Spec(bool list, uint64_t file_size, uint64_t writes_per_job) {
  FsyncExperimentSpec s;
  s.fs = sim::MakeDefault<F2fsConfig>();
  s.fs.fsync_node_lookup = list ? "list" : "scan";
  s.workload = Seed001Workload(4, file_size, writes_per_job);
  s.seed = 1;
  s.volume_bytes = 4 * file_size + (file_size * 4) / 4 + (512ull << 20);
  return s;
}

void Report(benchmark::State& state, const FsyncExperimentResult& r) {
  if (!r.ok) {
    state.SkipWithError(r.error.c_str());
    return;
  }
  state.counters["fsync_mean_us"] = r.fsync.mean() / 1e3;
  state.counters["fsync_p50_us"] = static_cast<double>(r.fsync.Percentile(0.5)) / 1e3;
  state.counters["fsync_p99_us"] = static_cast<double>(r.fsync.Percentile(0.99)) / 1e3;
  state.counters["data_us"] = r.fsync_data_mean_ns / 1e3;
  state.counters["node_us"] = r.fsync_node_mean_ns / 1e3;
  state.counters["flush_us"] = r.fsync_flush_mean_ns / 1e3;
  state.counters["visited"] = r.visited_mean;
  state.counters["nodes_written"] = r.nodes_written_per_fsync;
  state.counters["cps"] = static_cast<double>(r.checkpoints);
  state.counters["iops_sim"] = static_cast<double>(r.writes) / r.elapsed.sec();
  state.counters["fs_wa"] = r.write_amplification;
}

// Args: lookup (0 scan, 1 list), writes per job.
void BM_Seed001FsyncFixedDevice(benchmark::State& state) {
  const bool list = state.range(0) != 0;
  for (auto _ : state) {
    sim::EventQueue q;
    FsyncExperimentSpec spec = Seed001Spec(list, 2ull << 30, static_cast<uint64_t>(state.range(1)));
    fakes::FixedLatencyDeviceConfig dc;
    dc.capacity = spec.volume_bytes;
    dc.read_latency = sim::Us(60);
    dc.write_latency = sim::Us(15);
    dc.flush_latency = sim::Us(50);
    dc.bandwidth_bytes_per_sec = 2.5e9;
    fakes::FixedLatencyDevice dev(&q, dc);
    sim::StatsRegistry stats;
    const FsyncExperimentResult r = RunFsyncExperiment(spec, &q, &dev, &stats);
    Report(state, r);
  }
}
BENCHMARK(BM_Seed001FsyncFixedDevice)
    ->ArgNames({"list", "writes"})
    ->Args({0, 8192})
    ->Args({1, 8192})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// Args: lookup (0 scan, 1 list), writes per job, device (0: MLC timing with a
// 64 MiB write buffer; 1: low-latency SLC, 4 KiB pages, no buffer).
void BM_Seed001FsyncSsd(benchmark::State& state) {
  const bool list = state.range(0) != 0;
  const bool fast = state.range(2) != 0;
  for (auto _ : state) {
    sim::EventQueue q;
    sim::StatsRegistry stats;
    ssd::DeviceConfig dev_cfg = sim::MakeDefault<ssd::DeviceConfig>();
    dev_cfg.ssd.sector_size = sim::Bytes{4096};
    if (state.range(2) == 2) {
      // Low-latency NAND with wide parallelism (Optane/Z-NAND-like).
      dev_cfg.geometry.channels = 16;
      dev_cfg.geometry.chips_per_channel = 4;
      dev_cfg.geometry.dies_per_chip = 4;
      dev_cfg.geometry.planes_per_die = 1;
      dev_cfg.geometry.page_size = sim::KiB(4);
      dev_cfg.geometry.pages_per_block = 64;
      dev_cfg.geometry.blocks_per_plane = 192;  // 12 GiB raw
      dev_cfg.flash.timing.cell = "slc";
      dev_cfg.flash.timing.t_read = sim::Us(5);
      dev_cfg.flash.timing.t_prog = sim::Us(15);
      dev_cfg.flash.timing.channel_rate = sim::Bandwidth{2e9};
      dev_cfg.ssd.pcie_rate = sim::Bandwidth{16e9};
      dev_cfg.ssd.write_buffer.size = sim::Bytes{0};
    } else if (fast) {
      dev_cfg.geometry.page_size = sim::KiB(4);
      dev_cfg.geometry.blocks_per_plane = 96;  // 12 GiB raw
      dev_cfg.flash.timing.cell = "slc";
      dev_cfg.flash.timing.t_read = sim::Us(20);
      dev_cfg.flash.timing.t_prog = sim::Us(60);
      dev_cfg.flash.timing.channel_rate = sim::Bandwidth{1.2e9};
      dev_cfg.ssd.write_buffer.size = sim::Bytes{0};
    } else {
      dev_cfg.geometry.blocks_per_plane = 192;  // 12 GiB raw
      dev_cfg.ssd.write_buffer.size = sim::MiB(64);
    }
    ftl::FtlConfig ftl_cfg = sim::MakeDefault<ftl::FtlConfig>();
    flash::NandArray nand(&q, dev_cfg.geometry, dev_cfg.flash, stats.Root().Group("flash"));
    auto ftl = ftl::MakeFtl(ftl_cfg, &nand, &q, stats.Root().Group("ftl"));
    if (!ftl.ok()) {
      state.SkipWithError(ftl.status().message().c_str());
      return;
    }
    ssd::Ssd dev(&q, dev_cfg.ssd, dev_cfg.geometry, ftl->get(), stats.Root().Group("ssd"));
    FsyncExperimentSpec spec = Seed001Spec(list, 2ull << 30, static_cast<uint64_t>(state.range(1)));
    spec.volume_bytes = std::min<uint64_t>(spec.volume_bytes, dev.capacity() / 4096 * 4096);
    const FsyncExperimentResult r = RunFsyncExperiment(spec, &q, &dev, &stats);
    Report(state, r);
    state.counters["ftl_wa"] = stats.Value("ftl.write_amplification");
    q.Clear();
  }
}
BENCHMARK(BM_Seed001FsyncSsd)
    ->ArgNames({"list", "writes", "fast"})
    ->Args({0, 4096, 0})
    ->Args({1, 4096, 0})
    ->Args({0, 4096, 1})
    ->Args({1, 4096, 1})
    ->Args({0, 4096, 2})
    ->Args({1, 4096, 2})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// Wall-clock speed of the model: 4 KiB random writes with fsync every 32.
void BM_RandomWrites(benchmark::State& state) {
  uint64_t writes = 0;
  for (auto _ : state) {
    sim::EventQueue q;
    FsyncExperimentSpec spec = Seed001Spec(false, 256ull << 20, 20000);
    fakes::FixedLatencyDeviceConfig dc;
    dc.capacity = spec.volume_bytes;
    fakes::FixedLatencyDevice dev(&q, dc);
    sim::StatsRegistry stats;
    const FsyncExperimentResult r = RunFsyncExperiment(spec, &q, &dev, &stats);
    writes += r.writes;
  }
  state.counters["writes_per_s"] = benchmark::Counter(static_cast<double>(writes), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_RandomWrites)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fs::f2fs
