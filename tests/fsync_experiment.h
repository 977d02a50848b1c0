// The seed-001 fsync experiment on any block device: format and mount F2FS,
// run N fio-like file jobs (random 4 KiB writes, fsync every 32), report
// the fsync latency split and the dirty node pages visited per fsync.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fs/f2fs/f2fs.h"
#include "tests/fio_file_job.h"
#include "fs/f2fs/image.h"
#include "ssd/block_device.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/task.h"

namespace fs::f2fs {

struct FsyncExperimentSpec {
  F2fsConfig fs;
  uint64_t volume_bytes = 0;  // formatted size (<= device capacity)
  uint32_t jobs = 4;
  FioFileJobSpec job;         // path/seed are per job
};

struct FsyncExperimentResult {
  bool ok = false;
  std::string error;
  sim::Histogram fsync;            // application-visible fsync latency
  double fsync_data_mean_ns = 0;   // phase means inside the FS
  double fsync_node_mean_ns = 0;
  double fsync_flush_mean_ns = 0;
  double fsync_cp_mean_ns = 0;
  double visited_mean = 0;         // dirty node pages visited per fsync node lookup
  double nodes_written_per_fsync = 0;
  uint64_t writes = 0;
  uint64_t fsyncs = 0;
  uint64_t checkpoints = 0;
  sim::SimTime elapsed;
  double write_amplification = 0;
};

// Runs the experiment on `q`/`dev` (both fresh). `stats` receives the FS
// statistics under "fs.".
inline FsyncExperimentResult RunFsyncExperiment(const FsyncExperimentSpec& spec, sim::EventQueue* q,
                                                ssd::BlockDevice* dev, sim::StatsRegistry* stats) {
  FsyncExperimentResult res;
  Image image(spec.volume_bytes / kBlockSize);
  sim::Status st = F2fs::Format(spec.fs, spec.volume_bytes, &image);
  if (!st.ok()) {
    res.error = st.message();
    return res;
  }
  std::unique_ptr<F2fs> fs;
  bool mounted = false;
  // (The Env is built outside the coroutine: GCC mishandles aggregate
  // temporaries inside co_await expressions.)
  F2fs::Env env;
  env.events = q;
  env.device = dev;
  env.image = &image;
  env.stats = stats->Root().Group("fs");
  auto mount = [&]() -> sim::Task<void> {
    auto r = co_await F2fs::Mount(spec.fs, env);
    if (r.ok()) fs = std::move(r).value();
    else res.error = r.status().message();
    mounted = true;
  };
  sim::ThreadGroup threads(q);  // goes before `fs` (and anything else they use)
  threads.Spawn(mount());
  while (!mounted && q->Step()) {
  }
  if (!fs) return res;
  std::vector<FioFileJobResult> jr(spec.jobs);
  uint32_t done = 0;
  auto job = [&](uint32_t i) -> sim::Task<void> {
    FioFileJobSpec js = spec.job;
    js.path = "/job" + std::to_string(i) + ".0.0";
    js.seed = spec.job.seed + i;
    co_await RunFioFileJob(fs.get(), q, js, &res.fsync, nullptr, &jr[i]);
    ++done;
  };
  const sim::SimTime t0 = q->now();
  for (uint32_t i = 0; i < spec.jobs; ++i) threads.Spawn(job(i));
  while (done < spec.jobs && q->Step()) {
  }
  res.elapsed = q->now() - t0;
  for (const auto& r : jr) {
    res.writes += r.writes;
    res.fsyncs += r.fsyncs;
    if (r.errors) res.error = "job errors";
  }
  auto mean = [&](const char* name) {
    const sim::Histogram* h = stats->FindHistogram(name);
    return h ? h->mean() : 0.0;
  };
  res.fsync_data_mean_ns = mean("fs.fsync.lat_data");
  res.fsync_node_mean_ns = mean("fs.fsync.lat_node");
  res.fsync_flush_mean_ns = mean("fs.fsync.lat_flush");
  res.fsync_cp_mean_ns = mean("fs.fsync.lat_checkpoint");
  res.visited_mean = mean("fs.fsync.nodes_visited");
  const double calls = stats->Value("fs.fsync.calls");
  res.nodes_written_per_fsync = calls > 0 ? stats->Value("fs.fsync.nodes_written") / calls : 0;
  res.checkpoints = fs->checkpoints();
  res.write_amplification = stats->Value("fs.write_amplification");
  res.ok = res.error.empty() && done == spec.jobs;
  fs->PowerCut();  // stop the background threads; the caller clears the queue
  q->Clear();
  threads.DestroyAll();  // jobs the device left unfinished
  fs.reset();
  return res;
}

}  // namespace fs::f2fs
