// Txbench: the transaction microbenchmarks of exF2FS's repository (seed 003,
// §C6 of the F2FS reference), on any file system of the model.
//
//   - throughput_volume: `transactions` transactions, each `writes` random
//     `write_size` overwrites of one preallocated `file_size` file
//     (10,000 x 3 x 4 KiB on a 4 MiB file), committed as an exF2FS
//     transaction (mode set), an F2FS atomic write (mode atomic) or plain
//     writes and an fsync (mode fsync: durable, not atomic);
//   - multi_aw: one transaction of `writes` x `write_size` per thread,
//     `threads` threads each writing its own new file (file_size 0:
//     appends), committed once for all (1-8 threads, 128 MiB in all).
//
// Files: "<dir>/f<i>" for i < files; thread t writes files t, t + threads,
// ... (a file is written by one thread). Setup creates them, writes
// file_size bytes to each and fsyncs them (unmeasured).
//
// One transaction (mode set): the files form one set (TxAdd in setup);
// thread 0 starts it, every thread writes `writes` times to each of its
// files, and once all have, thread 0 commits; the next transaction starts
// when the commit returned. Mode atomic: each thread, per file, starts an
// atomic write, writes, commits it (no atomicity across files). Mode fsync:
// each thread writes and fsyncs each of its files.
//
// Statistics (under "<group>.txbench"): txns, txn.lat (start to durable,
// ns), commit_lat (the commit or fsync calls alone), txn_per_s.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "host/fsworkload/fs_workload.h"
#include "host/fsworkload/notifier.h"
#include "sim/config.h"
#include "sim/stats.h"
#include "sim/units.h"

namespace host {

struct TxbenchConfig {
  std::string mode = "set";
  uint32_t files = 1;
  uint32_t threads = 1;
  sim::Bytes file_size{4ull << 20};
  uint64_t transactions = 10000;
  uint64_t writes = 3;
  sim::Bytes write_size{4096};
  std::string dir = "/txbench";

  static void Describe(sim::Schema<TxbenchConfig>& s);
  sim::Status Validate(std::string_view path = "") const;
};

class TxbenchWorkload final : public FsWorkload {
 public:
  static sim::Result<std::unique_ptr<TxbenchWorkload>> Create(const TxbenchConfig& cfg, FsWorkloadEnv env,
                                                              std::string_view path = "");
  // REQUIRES: cfg.Validate().ok().
  TxbenchWorkload(const TxbenchConfig& cfg, FsWorkloadEnv env);
  ~TxbenchWorkload() override;

  uint64_t txns() const { return txns_.value(); }
  const sim::Histogram& txn_latency() const { return txn_lat_; }

 private:
  sim::Task<void> Setup() override;
  sim::Task<void> Worker(uint32_t index) override;
  void OnStop() override { barrier_.NotifyAll(); }
  // All threads meet; false if the run is stopping.
  sim::Task<bool> Meet();
  sim::Task<bool> WriteFile(uint32_t thread, uint32_t file, uint64_t txn);
  std::string FileName(uint32_t i) const;
  void Fail(std::string_view what, fs::Errno e);

  TxbenchConfig cfg_;
  std::vector<fs::Fd> fds_;
  uint64_t key_ = 0;
  Notifier barrier_;
  uint32_t arrived_ = 0;
  uint64_t generation_ = 0;
  sim::Counter txns_;
  sim::Histogram txn_lat_, commit_lat_;
  uint32_t op_txn_ = 0;
};

}  // namespace host
