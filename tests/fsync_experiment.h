// The seed-001 fsync experiment on any block device: format and mount F2FS,
// run the file fio workload (host/fsworkload/file_fio.h; by default N jobs,
// each with its own file, random 4 KiB writes, fsync every 32), report the
// fsync latency split and the dirty node pages visited per fsync.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fs/f2fs/f2fs.h"
#include "fs/f2fs/image.h"
#include "host/fsworkload/file_fio.h"
#include "ssd/block_device.h"
#include "sim/config.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/task.h"

namespace fs::f2fs {

// The seed's workload: `jobs` jobs, each writing `writes_per_job` random
// 4 KiB blocks of its own sparse `file_size` file in the root directory,
// with an fsync after every 32 writes.
inline host::FileFioConfig Seed001Workload(uint32_t jobs, uint64_t file_size, uint64_t writes_per_job) {
  host::FileFioConfig w = sim::MakeDefault<host::FileFioConfig>();
  w.rw = "randwrite";
  w.bs = sim::KiB(4);
  w.numjobs = jobs;
  w.size = sim::Bytes{file_size};
  w.directory = "/";
  w.fsync = 32;
  w.layout = false;
  w.number_ios = writes_per_job;
  return w;
}

struct FsyncExperimentSpec {
  F2fsConfig fs;
  uint64_t volume_bytes = 0;  // formatted size (<= device capacity)
  host::FileFioConfig workload = Seed001Workload(4, 2ull << 30, 1000);
  uint64_t seed = 1;          // run seed of the workload
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
  sim::SimTime elapsed;            // the workload's measured phase
  double write_amplification = 0;
};

// Runs the experiment on `q`/`dev` (both fresh). `stats` receives the FS
// statistics under "fs." and the workload's under "workload.".
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
  const host::FsWorkloadEnv wenv{q, fs.get(), stats->Root().Group("workload"), spec.seed};
  sim::Result<std::unique_ptr<host::FileFioWorkload>> made =
      host::FileFioWorkload::Create(spec.workload, wenv, "workload.fio_files");
  std::unique_ptr<host::FileFioWorkload> workload;  // goes before `fs` and `threads`
  if (!made.ok()) {
    res.error = made.status().message();
  } else {
    workload = std::move(made).value();
    workload->Start();
    while (!workload->done() && q->Step()) {
    }
    res.elapsed = workload->end_time() - workload->start_time();
    if (!workload->done()) res.error = "the workload did not finish";
    if (!workload->run_status().ok()) res.error = workload->run_status().message();
    const host::OpStats::Op* writes = workload->ops().Find("write");
    const host::OpStats::Op* fsyncs = workload->ops().Find("fsync");
    res.writes = writes->count.value();
    if (writes->errors.value() > 0) res.error = "write errors";
    if (fsyncs != nullptr) {  // declared only with fsync > 0
      res.fsyncs = fsyncs->count.value();
      res.fsync.Merge(fsyncs->lat);
      if (fsyncs->errors.value() > 0) res.error = "fsync errors";
    }
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
  res.ok = res.error.empty();
  fs->PowerCut();  // stop the background threads; the caller clears the queue
  q->Clear();
  workload.reset();      // its threads use the file system
  threads.DestroyAll();  // the mount thread, if the device left it unfinished
  fs.reset();
  return res;
}

}  // namespace fs::f2fs
