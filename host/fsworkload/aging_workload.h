// AgingWorkload: file-system aging by git history (Conway et al., "File
// Systems Fated for Senescence? Nonsense, Says Science!", FAST'17), from a
// git-aging trace (host/fsworkload/aging_trace.h, made by
// tools/git_age_trace.py).
//
// One simulated thread, in the measured phase:
//  mode aged:  replays pulls 0 .. pulls-1 on the mounted file system, and
//              runs a grep test after pull 0, after every pull whose index
//              is a multiple of grep_every, and after the last pull.
//  mode clean: replays the trace in memory only (no file-system calls) up
//              to pull clean_at, then writes that tree onto the fresh file
//              system as `cp -a` would: depth first, names of a directory
//              in sorted (byte) order, each directory made before its
//              contents, each file written whole; then one grep test.
// Replay of an operation (paths are "/" + the trace's path):
//   write   Open(kWrOnly|kCreat|kTrunc), Pwrite of the size in chunks of
//           kWriteChunk bytes (data does not matter: empty span), Close
//   append  Open(kWrOnly|kCreat|kAppend), Write in chunks, Close
//   mkdir, rmdir, unlink, rename   the call of that name
// The trace is also applied to an in-memory model of the tree, in both
// modes; an operation the model says is impossible (unlink of a missing
// file, mkdir of an existing path, rmdir of a non-empty directory, ...)
// stops the run with InvalidInput "<trace>:<line>: ..." before any
// file-system call; a call that fails on the file system (ENOSPC, EIO)
// stops it with IoError naming the line and the errno.
//
// The grep test (Conway's `grep -r` of the whole mount after a remount):
// Sync(), DropCaches() (a file system that cannot drop its caches is an
// Unsupported error here), then a depth-first walk from "/" in the order
// Readdir returns names (the file system's own order, never sorted), Stat
// of each name, and every regular file read whole with Read calls of
// read_size bytes. Measured: the walk's simulated time, files, bytes read,
// and from the device (FsWorkloadEnv::device, if any), over the read
// requests submitted during the walk in submission order:
//   DLS (dynamic layout score) = 1 - discontiguities / blocks, where
//     discontiguities = (requests whose offset differs from the previous
//     request's end) - 1 and blocks = sum of lengths / 4096;
//   flash_blocks_per_MiB, channels_per_MiB: the read stream, cut into
//     windows of 1 MiB (256 units of 4 KiB, in submission order), touches
//     so many distinct flash blocks (channels) per window: the mean over
//     windows, a last partial window counting as one. Each 4 KiB unit is
//     located with BlockDevice::Locate at submission; units it cannot place
//     (unmapped, in the write buffer) are counted as unlocated and left out.
//
// Statistics: FsWorkload's, with op.pull.* (one per pulled commit; clean
// mode: one for the whole copy) and op.grep.* (one per grep test, bytes =
// bytes read); and under "<group>.aging": pulls, bytes_written (replay),
// op.<mkdir|rmdir|write|append|unlink|rename>, grep_points, and for each
// grep point k = 0, 1, ...: grep.<k>.{pulls, files, bytes, time (s),
// s_per_GiB, dls, read_requests, flash_blocks_per_MiB, channels_per_MiB,
// unlocated_units, tree_files, tree_bytes} (null before it ran; device
// figures null without a device).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "host/fsworkload/aging_trace.h"
#include "host/fsworkload/fs_workload.h"
#include "sim/config.h"
#include "sim/units.h"

namespace ssd {
class BlockDevice;
}

namespace host {

struct AgingConfig {
  std::string trace;
  uint64_t pulls = 0;
  uint32_t grep_every = 100;
  std::string mode = "aged";
  int64_t clean_at = -1;
  sim::Bytes read_size{32 * 1024};

  static void Describe(sim::Schema<AgingConfig>& s);
  // Key checks that need no trace.
  sim::Status Validate(std::string_view path = "") const;
  // Checks against a parsed trace (pulls and clean_at within it).
  sim::Status ValidateAgainst(const AgingTrace& trace, std::string_view path = "") const;
};

// The device reads of one grep walk, in submission order: the dynamic
// layout score and the flash footprint (see the header comment). `device`
// (may be null: no places) answers Locate for every 4 KiB unit read.
class ReadStream {
 public:
  static constexpr uint64_t kUnit = 4096;        // DLS block, Locate unit
  static constexpr uint64_t kWindowUnits = 256;  // 1 MiB of units

  explicit ReadStream(const ssd::BlockDevice* device = nullptr) : device_(device) {}
  // One read request (bytes); located now.
  void Add(uint64_t offset, uint64_t length);
  // Closes the last (partial) window. REQUIRES: called once, after the last Add.
  void Finish();

  uint64_t requests() const { return requests_; }
  uint64_t blocks() const { return bytes_ / kUnit; }
  // Requests starting elsewhere than the previous one's end, less one.
  uint64_t discontiguities() const { return starts_ > 0 ? starts_ - 1 : 0; }
  uint64_t located() const { return located_; }
  uint64_t unlocated() const { return units_ - located_; }
  // 1 - discontiguities / blocks; NaN without reads.
  double Dls() const;
  // Distinct flash blocks / channels per 1 MiB window of the read stream,
  // the mean over windows (a last, partial window counts as one); NaN
  // without reads or without a device.
  double FlashBlocksPerMiB() const { return PerWindow(window_blocks_); }
  double ChannelsPerMiB() const { return PerWindow(window_channels_); }
  uint64_t windows() const { return windows_; }

 private:
  void CloseWindow();
  double PerWindow(uint64_t v) const;

  const ssd::BlockDevice* device_;
  uint64_t requests_ = 0, bytes_ = 0, starts_ = 0, units_ = 0, located_ = 0;
  uint64_t window_blocks_ = 0, window_channels_ = 0, windows_ = 0;
  bool have_prev_ = false;
  uint64_t prev_end_ = 0;
  uint64_t window_fill_ = 0;
  std::vector<uint64_t> window_block_ids_;
  std::vector<uint32_t> window_channel_ids_;
};

class AgingWorkload final : public FsWorkload {
 public:
  static constexpr uint64_t kWriteChunk = 64 * 1024;

  // Reads and checks the trace named by cfg.trace.
  static sim::Result<std::shared_ptr<const AgingTrace>> Load(const AgingConfig& cfg, std::string_view path);
  static sim::Result<std::unique_ptr<AgingWorkload>> Create(const AgingConfig& cfg, FsWorkloadEnv env,
                                                            std::string_view path = "");
  // REQUIRES: cfg.ValidateAgainst(*trace).ok().
  AgingWorkload(std::shared_ptr<const AgingTrace> trace, const AgingConfig& cfg, FsWorkloadEnv env);
  ~AgingWorkload() override;

  struct GrepPoint {
    bool done = false;
    uint64_t pulls = 0;  // pulls replayed before it (index + 1)
    uint64_t files = 0, bytes = 0;
    double seconds = 0;
    ReadStream reads;
    bool measured_device = false;  // a device was observed
    uint64_t tree_files = 0, tree_bytes = 0;  // of the in-memory model
  };
  const std::vector<GrepPoint>& points() const { return points_; }
  uint64_t pulls_done() const { return pulls_.value(); }
  // The summary lines of the run.
  std::string Report() const;

  // The in-memory tree the trace has built so far (introspection): a
  // directory's subdirectories and files (sizes).
  struct Dir {
    std::map<std::string, std::unique_ptr<Dir>> dirs;
    std::map<std::string, uint64_t> files;
  };
  const Dir& model() const { return root_; }

 private:
  class Observer;

  sim::Task<void> Worker(uint32_t index) override;
  // Applies record r to the model; empty, or why it is impossible.
  std::string Model(const AgingRecord& r);
  sim::Task<bool> Replay(const AgingRecord& r);
  sim::Task<bool> WriteFile(const std::string& path, uint64_t bytes, bool append, std::string_view where);
  sim::Task<bool> CopyTree(const Dir& d, const std::string& path);
  sim::Task<bool> Grep(GrepPoint* point);
  sim::Task<bool> Walk(const std::string& dir, GrepPoint* point);
  bool Fail(const AgingRecord& r, std::string_view what, fs::Errno e);
  void ModelTotals(const Dir& d, uint64_t* files, uint64_t* bytes) const;

  std::shared_ptr<const AgingTrace> trace_;
  AgingConfig cfg_;
  ssd::BlockDevice* device_;
  uint64_t last_pull_ = 0;  // replayed pulls: [0, last_pull_]
  std::vector<GrepPoint> points_;
  Dir root_;
  std::vector<uint8_t> buf_;
  std::unique_ptr<Observer> observer_;

  GrepPoint* measuring_ = nullptr;  // the grep test running now
  uint32_t op_pull_ = 0, op_grep_ = 0;

  sim::Counter pulls_, bytes_written_;
  std::array<sim::Counter, kNumAgingOps> op_counts_;
};

}  // namespace host
