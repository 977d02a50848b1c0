// A minimal fio-like file job for F2FS experiments and tests: one file,
// fixed-size writes (random or sequential, content does not matter), an
// fsync every N writes. The full file workload generators live in host/;
// this one exists so the seed-001 fsync experiment (4 jobs, 4 KiB writes,
// 2 GiB files, fsync every 32 writes) runs inside the fs layer's own bench
// and tests.
#pragma once

#include <cstdint>
#include <string>

#include "fs/file_system.h"
#include "sim/config.h"
#include "sim/event_queue.h"
#include "sim/rng.h"
#include "sim/stats.h"
#include "sim/task.h"

namespace fs::f2fs {

struct FioFileJobSpec {
  std::string path;
  uint64_t file_size = 2ull << 30;
  uint32_t block_size = 4096;
  uint64_t writes = 1000;
  uint32_t fsync_every = 32;  // 0 = never
  bool random = true;
  bool layout = false;  // write the whole file sequentially (then fsync) first
  uint64_t seed = 1;
};

// Configuration of a group of fio-like file jobs (YAML workload.fio_file).
struct FioFileConfig {
  uint32_t jobs = 4;
  sim::Bytes file_size;
  sim::Bytes bs;
  std::string rw;  // randwrite | write
  uint32_t fsync_every = 32;
  uint64_t writes_per_job = 0;
  bool layout = false;
  static void Describe(sim::Schema<FioFileConfig>& s) {
    s.Param("jobs", &FioFileConfig::jobs, "4", "Jobs; each writes its own file").Range(1, 4096);
    s.Param("file_size", &FioFileConfig::file_size, "2GiB", "Size of each job's file").Min(4096);
    s.Param("bs", &FioFileConfig::bs, "4KiB", "Write size").Min(512);
    s.Choice("rw", &FioFileConfig::rw, "randwrite", {"randwrite", "write"}, "Random or sequential writes");
    s.Param("fsync_every", &FioFileConfig::fsync_every, "32", "fsync after this many writes (0 = never)");
    s.Param("writes_per_job", &FioFileConfig::writes_per_job, "4096", "Writes each job issues").Min(1);
    s.Param("layout", &FioFileConfig::layout, "false", "Write each file sequentially (and fsync) before the run");
  }
  // The job description of job `i`.
  FioFileJobSpec Job(uint32_t i, uint64_t seed) const {
    FioFileJobSpec j;
    j.path = "/job" + std::to_string(i) + ".0.0";
    j.file_size = file_size.value;
    j.block_size = static_cast<uint32_t>(bs.value);
    j.writes = writes_per_job;
    j.fsync_every = fsync_every;
    j.random = rw == "randwrite";
    j.layout = layout;
    j.seed = seed + i;
    return j;
  }
};

struct FioFileJobResult {
  uint64_t writes = 0;
  uint64_t fsyncs = 0;
  uint64_t errors = 0;
  sim::SimTime start;
  sim::SimTime end;
};

// Runs the job; fsync latencies (as the application sees them) go to
// `fsync_lat`, write latencies to `write_lat` (either may be null).
inline sim::Task<void> RunFioFileJob(FileSystem* fs, sim::EventQueue* q, FioFileJobSpec spec,
                                     sim::Histogram* fsync_lat, sim::Histogram* write_lat,
                                     FioFileJobResult* out) {
  sim::Rng rng(spec.seed, "fio_file_job." + spec.path);
  FsResult<Fd> fd = co_await fs->Open(spec.path, kCreat | kRdWr);
  if (!fd.ok()) {
    ++out->errors;
    co_return;
  }
  const uint64_t blocks = spec.file_size / spec.block_size;
  if (spec.layout) {
    for (uint64_t b = 0; b < blocks; ++b) {
      FsResult<uint64_t> r = co_await fs->Pwrite(fd.value, b * spec.block_size, {}, spec.block_size);
      if (!r.ok()) ++out->errors;
    }
    co_await fs->Fsync(fd.value);
  }
  out->start = q->now();
  uint64_t seq = 0;
  for (uint64_t i = 0; i < spec.writes; ++i) {
    const uint64_t b = spec.random ? rng.Uniform(blocks) : (seq++ % blocks);
    const sim::SimTime t0 = q->now();
    FsResult<uint64_t> r = co_await fs->Pwrite(fd.value, b * spec.block_size, {}, spec.block_size);
    if (!r.ok()) ++out->errors;
    if (write_lat) write_lat->Record((q->now() - t0).ns());
    ++out->writes;
    if (spec.fsync_every && (i + 1) % spec.fsync_every == 0) {
      const sim::SimTime f0 = q->now();
      FsStatus s = co_await fs->Fsync(fd.value);
      if (!s.ok()) ++out->errors;
      if (fsync_lat) fsync_lat->Record((q->now() - f0).ns());
      ++out->fsyncs;
    }
  }
  out->end = q->now();
  co_await fs->Close(fd.value);
}

}  // namespace fs::f2fs
