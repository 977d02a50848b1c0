// MobigenReplay: replays a MobiGen syscall trace (mobigen_trace.h) on an
// fs::FileSystem, one simulated thread per trace thread, each issuing its
// lines in order.
//
// Timing. timing=timed: a thread waits until start + (t_us - first_us) /
// speedup before each line (open loop, as Mobibench's replayer sleeps
// until each line's time; speedup 2 = twice as fast, as for block traces);
// a line that comes due while the thread is still busy is issued at once
// and counted late. timing=afap: no waits. speedup is at least
// kMinMobigenSpeedup; Create rejects a trace whose scaled span exceeds
// sim::kMaxReplaySpan and warns beyond sim::kLongSimulatedSpan.
//
// Calls, following Mobibench's replayer (shell/mobibench.c do_script):
//  - open: a quoted path is opened as is; an unquoted one (MobiGen keeps
//    only its first two components) becomes "<dir>/temp_<tid>_<n>.dat"
//    (n counts the thread's such opens). Flags: open_flags=mobibench uses
//    O_RDONLY when the recorded flags start with O_RDONLY and
//    O_RDWR|O_CREAT|O_TRUNC otherwise; open_flags=trace uses the recorded
//    flags. A successful open maps the trace descriptor to the new one (a
//    descriptor still mapped is closed first: an implicit close).
//  - read/write/pread/pwrite move the recorded byte counts (synthetic
//    data; a negative count, a failed original call, moves 0 bytes);
//    fsync/fdatasync/fstat64/close act on the mapped descriptor; stat64,
//    lstat64 and access are stat(); unlink is unlink(). Reads beyond EOF
//    return short (often 0 bytes, e.g. preads of databases the replay
//    created empty), exactly as on the replayer; requested and returned
//    bytes are both counted.
//  - Descriptors map per process (fd_scope=process, default: a trace
//    descriptor is the process's, as strace records it and as the
//    replayer's single table does) or per thread (fd_scope=thread). A line
//    on an unmapped descriptor (opened before tracing began, or by a line
//    that failed) is skipped (unmapped_fd=skip, what the replayer does) or
//    executed after an implicit open of "<dir>/implicit_<tid>_<fd>_<n>.dat"
//    with O_RDWR|O_CREAT (unmapped_fd=open, default), so every line runs.
//  - Unknown calls are counted (per name), never executed.
// Implicit opens/closes use the file system directly (unmeasured) and are
// counted separately.
//
// Preparation (prepare=true, unmeasured): "<dir>" is created, and so is
// everything the trace shows existing before it was used: quoted paths
// opened O_RDONLY successfully, stat64/lstat64/access with result 0,
// unlink with result 0 — as directories when other paths lie below them,
// else as files sized to the largest extent the trace reads from them.
// Without it those opens fail (ENOENT) as on a fresh file system.
//
// Accounting: executed + unknown + skipped lines + unmapped skips = lines.
// An executed call the file system refused is counted failed (and in
// op.<call>.errors); failed_as_recorded counts those the trace shows
// failing too (its result or byte count negative, a nonzero status).
//
// A trace without a single known call (empty, only blank, malformed or
// unknown lines) is an error: there is nothing to replay.
//
// Statistics: FsWorkload's, with op.<call>.* per syscall name (bytes =
// bytes returned/accepted), plus mobigen.{lines, executed, failed,
// failed_as_recorded, unknown, skipped_lines, unmapped_skipped,
// implicit_opens, implicit_closes, short_reads, read_bytes_requested,
// late_ops, lateness (ns), unknown.<name>}. Report() puts the failures,
// unknown calls, skips, short reads and lateness in the run's summary.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "host/fsworkload/fs_workload.h"
#include "host/fsworkload/mobigen_trace.h"
#include "sim/config.h"

namespace host {

// Smallest and largest speedup (a timed replay a million times slower or
// faster than recorded), the bounds of workload.trace.speedup.
inline constexpr double kMinMobigenSpeedup = 1e-6;
inline constexpr double kMaxMobigenSpeedup = 1e6;

struct MobigenConfig {
  std::string trace;
  std::string dir = "/mobigen";
  std::string timing = "timed";
  double speedup = 1.0;
  std::string fd_scope = "process";
  std::string unmapped_fd = "open";
  std::string open_flags = "mobibench";
  bool prepare = true;
  std::string on_error = "fail";

  static void Describe(sim::Schema<MobigenConfig>& s);
};

class MobigenReplay final : public FsWorkload {
 public:
  // Reads and parses cfg.trace. Errors: "<path>.trace: cannot read ...",
  // the trace's "<file>:<line>: ..." message, or "<path>.speedup|trace:
  // ..." for a scaled span beyond kMaxReplaySpan.
  static sim::Result<std::unique_ptr<MobigenReplay>> Create(const MobigenConfig& cfg, FsWorkloadEnv env,
                                                            std::string_view path = "");
  // The reading, parsing and span checks of Create (what `check` runs).
  static sim::Result<std::shared_ptr<const MobigenTrace>> Load(const MobigenConfig& cfg, std::string_view path = "");
  // Replays an already parsed trace (cfg.trace and cfg.on_error unused).
  MobigenReplay(std::shared_ptr<const MobigenTrace> trace, const MobigenConfig& cfg, FsWorkloadEnv env);
  ~MobigenReplay() override;

  const MobigenTrace& trace() const { return *trace_; }
  uint64_t executed(MobigenCall c) const { return executed_[static_cast<size_t>(c)]; }
  uint64_t executed_total() const { return executed_total_.value(); }
  uint64_t unmapped_skipped() const { return unmapped_skipped_.value(); }
  uint64_t implicit_opens() const { return implicit_opens_.value(); }
  uint64_t implicit_closes() const { return implicit_closes_.value(); }
  uint64_t short_reads() const { return short_reads_.value(); }
  uint64_t late_ops() const { return late_ops_.value(); }
  uint64_t failed() const { return failed_.value(); }
  uint64_t failed_as_recorded() const { return failed_as_recorded_.value(); }
  // Summary lines for the run's report: lines and calls, failures by call,
  // unknown calls by name, skipped lines, short reads, lateness.
  std::string Report() const;
  // Paths created by preparation (sorted; directories end with '/').
  const std::vector<std::string>& prepared() const { return prepared_; }

 private:
  struct FdMap;

  sim::Task<void> Setup() override;
  sim::Task<void> Worker(uint32_t index) override;
  sim::Task<void> Teardown() override;
  sim::Task<void> Execute(uint32_t thread, const MobigenRecord& r);
  // The descriptor for trace fd `fd` of `thread`, opening one implicitly
  // if policy says so; -1 if the line is to be skipped.
  sim::Task<fs::Fd> Lookup(uint32_t thread, int32_t fd);
  FdMap& MapOf(uint32_t thread);
  void PlanPreparation(std::vector<std::string>* dirs, std::vector<std::pair<std::string, uint64_t>>* files) const;

  std::shared_ptr<const MobigenTrace> trace_;
  MobigenConfig cfg_;
  bool timed_ = true;
  bool process_scope_ = true;
  bool implicit_open_ = true;
  bool trace_flags_ = false;
  std::string dir_;
  std::vector<std::unique_ptr<FdMap>> maps_;  // one (process) or one per thread
  std::vector<uint32_t> temp_opens_;          // per thread
  std::vector<uint32_t> implicit_count_;      // per thread
  std::vector<uint8_t> buf_;
  std::array<uint32_t, kNumMobigenCalls> op_ids_{};
  std::array<uint64_t, kNumMobigenCalls> executed_{};
  std::array<uint64_t, kNumMobigenCalls> failed_by_call_{};
  std::vector<std::string> prepared_;

  sim::Counter lines_, executed_total_, failed_, failed_as_recorded_, unknown_, skipped_lines_, unmapped_skipped_, implicit_opens_,
      implicit_closes_, short_reads_, read_requested_, late_ops_;
  sim::Histogram lateness_;
  std::vector<std::unique_ptr<sim::Counter>> unknown_by_name_;
};

}  // namespace host
