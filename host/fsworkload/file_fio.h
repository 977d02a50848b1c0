// FileFioWorkload: fio's file I/O (psync engine) on an fs::FileSystem:
// numjobs simulated threads doing pread/pwrite on files.
//
// Files. Each job has its own file "<directory>/job<i>" of `size` bytes, or
// with shared_file all jobs use "<directory>/shared". Files are opened at
// setup (O_RDWR|O_CREAT, plus O_DIRECT with direct and O_SYNC with sync)
// and, with layout (fio's default "laying out IO file"), first written
// sequentially to their full size in 1 MiB writes; none of this is
// measured. They are closed after the measured phase.
//
// I/O. Per I/O a job draws, in order: read or write (mixed patterns, by
// rwmixread), then the offset (random patterns: uniform over the file in
// bs units). Sequential jobs start at offset 0 of their own file, or at
// job_index * size / numjobs (rounded down to bs) of the shared file, and
// wrap at the end of the file. After every `fsync`-th write of a job it
// issues fsync(), after every `fdatasync`-th write fdatasync(); with
// end_fsync every job fsyncs once at the end. Without a rate a job issues
// its next I/O when the previous completes (plus think_time); with
// rate_iops, I/O k of a job is due at start + k / rate_iops (open loop) and
// is issued at that time or, if the job is late, as soon as the previous
// one completes.
//
// Bounds: total_ios I/Os or io_size bytes over all jobs, number_ios I/Os of
// each job (fio's per-job number_ios), or runtime; reads and writes count,
// syncs do not. At least one must be set; the first reached ends a job.
//
// Example (the seed-001 setting: 4 KiB random writes, 4 jobs, one 2 GiB
// file, fsync every 32 writes):
//   rw: randwrite, bs: 4KiB, numjobs: 4, size: 2GiB, shared_file: true,
//   fsync: 32, runtime: 10s
//
// Statistics: FsWorkload's, with op.{read,write,fsync,fdatasync}.*.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "host/fsworkload/fs_workload.h"
#include "sim/config.h"
#include "sim/units.h"

namespace host {

struct FileFioConfig {
  std::string rw = "randwrite";
  sim::Ratio rwmixread{0.5};
  sim::Bytes bs{4096};
  uint32_t numjobs = 1;
  sim::Bytes size{uint64_t{1} << 30};
  bool shared_file = false;
  std::string directory = "/fio";
  uint32_t fsync = 0;
  uint32_t fdatasync = 0;
  bool end_fsync = false;
  bool direct = false;
  bool sync = false;
  bool layout = true;
  uint64_t total_ios = 0;
  uint64_t number_ios = 0;
  sim::Bytes io_size{0};
  sim::SimTime runtime;
  sim::SimTime think_time;
  double rate_iops = 0;

  static void Describe(sim::Schema<FileFioConfig>& s);
  // Cross-field checks; errors are "<path>.<key>: problem".
  sim::Status Validate(std::string_view path = "") const;
};

class FileFioWorkload final : public FsWorkload {
 public:
  static sim::Result<std::unique_ptr<FileFioWorkload>> Create(const FileFioConfig& cfg, FsWorkloadEnv env,
                                                              std::string_view path = "");
  // REQUIRES: cfg.Validate().ok().
  FileFioWorkload(const FileFioConfig& cfg, FsWorkloadEnv env);
  ~FileFioWorkload() override;

  const FileFioConfig& config() const { return cfg_; }
  uint64_t ios_issued() const { return ios_; }
  // The file each job uses.
  const std::string& file_of(uint32_t job) const { return paths_[cfg_.shared_file ? 0 : job]; }

 private:
  sim::Task<void> Setup() override;
  sim::Task<void> Worker(uint32_t index) override;
  sim::Task<void> Teardown() override;
  bool Budget(uint64_t bytes);

  FileFioConfig cfg_;
  bool sequential_ = false;
  bool mixed_ = false;
  bool reads_ = false;  // single-op patterns: read (else write)
  std::vector<std::string> paths_;
  std::vector<fs::Fd> fds_;  // per file
  std::vector<uint8_t> buf_;
  uint32_t op_read_ = 0, op_write_ = 0, op_fsync_ = 0, op_fdatasync_ = 0;
  uint64_t ios_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace host
