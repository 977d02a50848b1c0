// MeteredFs: a FileSystem decorator that measures every call a workload
// makes (calls, errors and latency per call kind; bytes moved; fsyncs).
//
// Workloads issue their measured calls through it and their unmeasured
// setup (fileset preallocation, layout, trace preparation) directly on the
// file system underneath. Latency is the simulated time from the call to
// its completion. Bytes count what read/pread returned and what
// write/pwrite accepted.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "fs/file_system.h"
#include "sim/event_queue.h"
#include "sim/stats.h"

namespace host {

class MeteredFs final : public fs::FileSystem {
 public:
  enum Call : uint8_t {
    kOpen,
    kClose,
    kRead,
    kWrite,
    kPread,
    kPwrite,
    kFtruncate,
    kTruncate,
    kFsync,
    kFdatasync,
    kFstat,
    kStat,
    kUnlink,
    kMkdir,
    kRmdir,
    kRename,
    kReaddir,
    kSync,
    kLink,
    kNumCalls
  };
  static std::string_view CallName(Call c);

  struct CallStats {
    sim::Counter calls;
    sim::Counter errors;
    sim::Histogram lat;  // ns
  };

  // `inner` must outlive this object.
  MeteredFs(sim::EventQueue* q, fs::FileSystem* inner) : q_(q), inner_(inner) {}

  // Registers "<g>.<call>.{calls,errors,lat}" for every call kind, and
  // "<g>.during_checkpoint.{calls,lat}": the calls of any kind that
  // overlapped the file system's checkpointing.
  void Register(const sim::StatGroup& g) const;

  const CallStats& call(Call c) const { return calls_[c]; }
  const sim::Histogram& during_checkpoint_lat() const { return during_cp_lat_; }
  uint64_t calls_total() const;
  uint64_t bytes_read() const { return bytes_read_.value(); }
  uint64_t bytes_written() const { return bytes_written_.value(); }
  uint64_t fsyncs() const { return calls_[kFsync].calls.value() + calls_[kFdatasync].calls.value(); }
  // write/pwrite calls on descriptors opened with O_SYNC (each one durable
  // on return, as if followed by fsync).
  uint64_t sync_writes() const { return sync_writes_.value(); }
  // Call records allocated: the most calls measured at once (a record is
  // reused once its call has ended).
  size_t call_records() const { return records_.size(); }
  const sim::Counter& bytes_read_counter() const { return bytes_read_; }
  const sim::Counter& bytes_written_counter() const { return bytes_written_; }

  sim::Task<fs::FsResult<fs::Fd>> Open(std::string_view path, uint32_t flags) override;
  sim::Task<fs::FsStatus> Close(fs::Fd fd) override;
  sim::Task<fs::FsResult<uint64_t>> Read(fs::Fd fd, std::span<uint8_t> out) override;
  sim::Task<fs::FsResult<uint64_t>> Write(fs::Fd fd, std::span<const uint8_t> data, uint64_t length) override;
  sim::Task<fs::FsResult<uint64_t>> Pread(fs::Fd fd, uint64_t offset, std::span<uint8_t> out) override;
  sim::Task<fs::FsResult<uint64_t>> ReadDiscard(fs::Fd fd, uint64_t length) override;
  sim::Task<fs::FsResult<uint64_t>> PreadDiscard(fs::Fd fd, uint64_t offset, uint64_t length) override;
  sim::Task<fs::FsResult<uint64_t>> Pwrite(fs::Fd fd, uint64_t offset, std::span<const uint8_t> data,
                                           uint64_t length) override;
  sim::Task<fs::FsStatus> Ftruncate(fs::Fd fd, uint64_t size) override;
  sim::Task<fs::FsStatus> Truncate(std::string_view path, uint64_t size) override;
  sim::Task<fs::FsStatus> Fsync(fs::Fd fd) override;
  sim::Task<fs::FsStatus> Fdatasync(fs::Fd fd) override;
  sim::Task<fs::FsResult<fs::FileStat>> Fstat(fs::Fd fd) override;
  sim::Task<fs::FsResult<fs::FileStat>> Stat(std::string_view path) override;
  sim::Task<fs::FsStatus> Unlink(std::string_view path) override;
  sim::Task<fs::FsStatus> Mkdir(std::string_view path) override;
  sim::Task<fs::FsStatus> Rmdir(std::string_view path) override;
  sim::Task<fs::FsStatus> Rename(std::string_view from, std::string_view to) override;
  sim::Task<fs::FsStatus> Link(std::string_view existing, std::string_view new_path) override;
  sim::Task<fs::FsResult<std::vector<std::string>>> Readdir(std::string_view path) override;
  sim::Task<fs::FsStatus> Sync() override;
  // Passes through to the wrapped file system (instantaneous, not counted).
  fs::FsStatus DropCaches() override { return inner_->DropCaches(); }
  // Transactions pass through to the wrapped file system, untimed.
  sim::Task<fs::FsResult<uint64_t>> TxAdd(uint64_t key, fs::Fd fd) override { return inner_->TxAdd(key, fd); }
  sim::Task<fs::FsStatus> TxStart(uint64_t key) override { return inner_->TxStart(key); }
  sim::Task<fs::FsStatus> TxCommit(uint64_t key) override { return inner_->TxCommit(key); }
  sim::Task<fs::FsStatus> TxEnd(uint64_t key) override { return inner_->TxEnd(key); }
  sim::Task<fs::FsStatus> AtomicWriteStart(fs::Fd fd) override { return inner_->AtomicWriteStart(fd); }
  sim::Task<fs::FsStatus> AtomicWriteCommit(fs::Fd fd) override { return inner_->AtomicWriteCommit(fd); }
  sim::Task<fs::FsStatus> AtomicWriteAbort(fs::Fd fd) override { return inner_->AtomicWriteAbort(fd); }

 private:
  // What a metered call needs at its end: the call kind, its start (time
  // and the file system's checkpointing then), the counter of the bytes it
  // moves (data calls) and open's flags. Pooled: one per call in flight.
  struct CallRecord final : sim::FinishHook {
    MeteredFs* m = nullptr;
    sim::Counter* bytes = nullptr;
    sim::SimTime t0;
    fs::FileSystem::CheckpointActivity cp0;
    uint32_t open_flags = 0;
    Call c = kOpen;
    CallRecord* next_free = nullptr;
  };

  // Returns `inner` (created, not yet started, by the wrapped file system)
  // set to record the call's latency and outcome when it ends, from a
  // FinishHook: no coroutine frame of its own, and the caller resumes right
  // after the recording as it would after a wrapping coroutine. The call
  // starts now: callers await what they call at once.
  template <class R>
  sim::Task<R> Metered(Call c, sim::Task<R> inner, sim::Counter* bytes = nullptr, uint32_t open_flags = 0) {
    CallRecord* rec = free_records_;
    if (rec != nullptr) {
      free_records_ = rec->next_free;
    } else {
      rec = &records_.emplace_back();
      rec->m = this;
    }
    rec->finished = &Finished<R>;
    rec->bytes = bytes;
    rec->t0 = q_->now();
    rec->cp0 = inner_->checkpoint_activity();
    rec->open_flags = open_flags;
    rec->c = c;
    if (inner.SetFinishHook(rec)) return inner;
    // The wrapped task is observed already (a MeteredFs under this one):
    // the record goes back, and a coroutine around the task measures it.
    rec->next_free = free_records_;
    free_records_ = rec;
    return Timed(c, std::move(inner), bytes, open_flags);
  }
  template <class R>
  static void Finished(sim::FinishHook* h, const void* value) noexcept {
    CallRecord* rec = static_cast<CallRecord*>(h);
    rec->m->End(rec->c, rec->t0, rec->cp0, *static_cast<const R*>(value), rec->bytes, rec->open_flags);
    rec->next_free = rec->m->free_records_;
    rec->m->free_records_ = rec;
  }
  // The same, as a coroutine around `inner`.
  template <class R>
  sim::Task<R> Timed(Call c, sim::Task<R> inner, sim::Counter* bytes, uint32_t open_flags) {
    const sim::SimTime t0 = q_->now();
    const fs::FileSystem::CheckpointActivity cp0 = inner_->checkpoint_activity();
    R r = co_await inner;
    End(c, t0, cp0, r, bytes, open_flags);
    co_return r;
  }
  // Records a call's end: its latency and outcome, whether it overlapped
  // checkpointing, the bytes it moved; an open's O_SYNC descriptor.
  template <class R>
  void End(Call c, sim::SimTime t0, fs::FileSystem::CheckpointActivity cp0, const R& r, sim::Counter* bytes,
           uint32_t open_flags) {
    Note(c, t0, r.ok());
    const fs::FileSystem::CheckpointActivity cp1 = inner_->checkpoint_activity();
    if (cp0.running || cp1.running || cp1.begun != cp0.begun) {
      during_cp_calls_.Inc();
      during_cp_lat_.Record((q_->now() - t0).ns());
    }
    if constexpr (std::is_same_v<R, fs::FsResult<uint64_t>>) {
      if (bytes != nullptr && r.ok()) bytes->Inc(r.value);
    }
    if constexpr (std::is_same_v<R, fs::FsResult<fs::Fd>>) {
      if (r.ok() && r.value >= 0) {
        if (static_cast<size_t>(r.value) >= sync_fd_.size()) sync_fd_.resize(static_cast<size_t>(r.value) + 1, false);
        sync_fd_[r.value] = (open_flags & fs::kSync) != 0;
      }
    }
  }

  void Note(Call c, sim::SimTime t0, bool ok) {
    CallStats& s = calls_[c];
    s.calls.Inc();
    if (!ok) s.errors.Inc();
    s.lat.Record((q_->now() - t0).ns());
  }

  sim::EventQueue* q_;
  fs::FileSystem* inner_;
  bool IsSync(fs::Fd fd) const { return fd >= 0 && static_cast<size_t>(fd) < sync_fd_.size() && sync_fd_[fd]; }

  std::array<CallStats, kNumCalls> calls_;
  // Calls of every kind that overlapped a checkpoint of the file system
  // (FileSystem::checkpoint_activity), and their latency.
  sim::Counter during_cp_calls_;
  sim::Histogram during_cp_lat_;  // ns
  sim::Counter bytes_read_;
  sim::Counter bytes_written_;
  sim::Counter sync_writes_;
  std::vector<bool> sync_fd_;  // by descriptor: opened with O_SYNC
  std::deque<CallRecord> records_;  // stable addresses
  CallRecord* free_records_ = nullptr;
};

}  // namespace host
