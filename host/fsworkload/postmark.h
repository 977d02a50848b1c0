// PostmarkWorkload: NetApp's PostMark (v1.51) small-file benchmark on an
// fs::FileSystem.
//
// One run (per instance; instances run side by side in "<location>/p<i>"
// when there are several):
//  1. create `number` files, sizes uniform in [size_low, size_high];
//  2. `transactions` transactions, each a read or an append of a random
//     existing file (read chosen with probability bias_read / 10) and then
//     a create or a delete (create with probability bias_create / 10); a
//     bias of -1 disables that half. Reads read the whole file; an append
//     adds a uniform 1..(size_high - size) bytes when the file is below
//     size_high. The run stops early ("out of files") if every file has
//     been deleted;
//  3. delete every remaining file.
// File slots (2 x number), names ("<n>" counting creations, under
// "s<k>/" when subdirectories > 1) and the choice of files follow
// postmark.c. Files are written with fopen("w")/fopen("a") semantics
// (O_WRONLY|O_CREAT|O_TRUNC, O_WRONLY|O_CREAT|O_APPEND) and read with
// O_RDONLY. With buffered I/O (postmark's default, C stdio) the file
// system sees buffer_size-byte calls (the last one shorter); unbuffered,
// read_block / write_block calls plus the final remainder call (which may
// be 0 bytes, as postmark issues it).
//
// With fsync (not in postmark.c; the ParaFS evaluation runs PostMark with
// fsync), every file written — created or appended — is fsynced before
// its close.
//
// Measured: all three phases (PostMark's "total time"); the location and
// subdirectories are made at setup and removed after the run.
//
// Statistics: FsWorkload's, with op.{create,read,append,delete}.* and
// postmark.{transactions,files_created,files_deleted,files_read,
// files_appended}; transactions_per_sec.
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

struct PostmarkConfig {
  uint32_t number = 500;
  uint64_t transactions = 500;
  sim::Bytes size_low{500};
  sim::Bytes size_high{10000};
  sim::Bytes read_block{512};
  sim::Bytes write_block{512};
  int32_t bias_read = 5;
  int32_t bias_create = 5;
  bool buffered = true;
  sim::Bytes buffer_size{4096};
  uint32_t subdirectories = 0;
  std::string location = "/postmark";
  uint32_t instances = 1;
  bool fsync = false;

  static void Describe(sim::Schema<PostmarkConfig>& s);
  sim::Status Validate(std::string_view path = "") const;
};

class PostmarkWorkload final : public FsWorkload {
 public:
  static sim::Result<std::unique_ptr<PostmarkWorkload>> Create(const PostmarkConfig& cfg, FsWorkloadEnv env,
                                                               std::string_view path = "");
  // REQUIRES: cfg.Validate().ok().
  PostmarkWorkload(const PostmarkConfig& cfg, FsWorkloadEnv env);
  ~PostmarkWorkload() override;

  struct Totals {
    sim::Counter transactions, files_created, files_deleted, files_read, files_appended;
  };
  const Totals& totals() const { return totals_; }
  // True if an instance ran out of files before its last transaction.
  bool ran_out_of_files() const { return out_of_files_; }

 private:
  struct Slot {
    std::string name;
    uint64_t size = 0;  // 0 = free slot
  };
  struct Instance;

  sim::Task<void> Setup() override;
  sim::Task<void> Worker(uint32_t index) override;
  sim::Task<void> Teardown() override;
  sim::Task<void> CreateFile(Instance& in);
  sim::Task<void> DeleteFile(Instance& in, size_t slot);
  sim::Task<void> ReadFile(Instance& in, size_t slot);
  sim::Task<void> AppendFile(Instance& in, size_t slot);
  // Writes `size` bytes to a fresh descriptor as postmark's (f)write loop.
  sim::Task<bool> WriteBlocks(fs::Fd fd, uint64_t size);
  uint64_t Rnd(sim::Rng& r, int64_t x) { return x > 0 ? r.Uniform(static_cast<uint64_t>(x)) : 0; }
  size_t FindUsed(Instance& in);
  std::string Base(uint32_t instance) const;

  PostmarkConfig cfg_;
  std::vector<std::unique_ptr<Instance>> instances_;
  std::vector<uint8_t> buf_;
  uint32_t op_create_ = 0, op_read_ = 0, op_append_ = 0, op_delete_ = 0;
  Totals totals_;
  bool out_of_files_ = false;
};

}  // namespace host
