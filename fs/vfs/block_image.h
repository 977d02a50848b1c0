// BlockImage: what is on the flash of a volume, i.e. a file system's
// persistent state, with the device's durability semantics. Every model
// that keeps its on-disk blocks as immutable objects (F2FS, ext4) uses it
// with its own block type.
//
// The file system hands the content of every block write to the image when
// it submits the write (Submit), and reports the device's completions
// (Complete) and cache flushes (FlushBegin/FlushEnd). A write is durable
// once it completed with FUA, or completed before a flush that completed
// (the flush was submitted after the write's completion). Writes that are
// in flight or merely completed are volatile: a device with a volatile
// cache may lose any subset of them at a power cut.
//
// A trim (SubmitTrim) is recorded as a write of zeros to each block of its
// range, one write per block, with the same durability: the zeros are
// volatile until the trim completed and a later flush completed (or a
// power cut keeps them), so a power cut may keep the trim of some blocks of
// a range and not of others.
//
// Read() returns the newest content submitted for a block (what the device
// would return; the file system never reads a block while a write to it is
// in flight, except for content it already holds); after a trim, null
// (zeros). ReadDurable() is what a power cut right now is sure to keep.
//
// A power cut (PowerCut) keeps the durable content plus a caller-chosen
// subset of the volatile writes (applied in submission order; a trimmed
// block is one write with null content) and forgets the rest. The image
// outlives file-system instances: mount a new one on it after a cut.
//
// Memory: one pointer (plus a write id) per block; block objects are shared
// with the page cache; a null pointer is a block of zeros.
//
// Block: the model's block object type (held as shared_ptr<const Block>);
// Addr: its block address type, a struct with an unsigned field `v`.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include <glog/logging.h>

namespace fs::vfs {

template <class Block, class Addr>
class BlockImage {
 public:
  using Ptr = std::shared_ptr<const Block>;

  explicit BlockImage(uint64_t blocks) : durable_(blocks), durable_id_(blocks, 0) {}
  // Memory an image of `blocks` blocks takes before any write (the
  // contents written later come on top).
  static uint64_t BaseMemoryBytes(uint64_t blocks) { return blocks * (sizeof(Ptr) + sizeof(uint64_t)); }
  BlockImage(const BlockImage&) = delete;
  BlockImage& operator=(const BlockImage&) = delete;

  uint64_t blocks() const { return durable_.size(); }

  // Newest submitted content of `addr` (nullptr: zeros / never written).
  const Ptr& Read(Addr addr) const {
    CHECK_LT(addr.v, durable_.size());
    auto it = newest_.find(addr.v);
    if (it != newest_.end()) return pending_[it->second - base_id_].content;
    return durable_[addr.v];
  }
  const Ptr& ReadDurable(Addr addr) const {
    CHECK_LT(addr.v, durable_.size());
    return durable_[addr.v];
  }

  // A write of one block was submitted; returns its id.
  uint64_t Submit(Addr addr, Ptr content) {
    CHECK_LT(addr.v, durable_.size()) << "write beyond the volume";
    const uint64_t id = next_id_++;
    Pending p;
    p.id = id;
    p.addr = addr;
    p.content = std::move(content);
    pending_.push_back(std::move(p));
    ++live_pending_;
    newest_[addr.v] = id;
    return id;
  }
  // A trim of [start, start + count) was submitted (count > 0): a write of
  // zeros per block. Returns the first block's write id; block i's is
  // first + i.
  uint64_t SubmitTrim(Addr start, uint32_t count) {
    CHECK_GT(count, 0u);
    CHECK_LE(uint64_t{start.v} + count, durable_.size()) << "trim beyond the volume";
    const uint64_t first = next_id_;
    for (uint32_t i = 0; i < count; ++i) {
      Addr a = start;
      a.v = start.v + i;
      Submit(a, nullptr);
    }
    return first;
  }
  // The device completed write `id`; FUA writes are durable at once.
  void Complete(uint64_t id, bool fua) {
    Pending* p = Find(id);
    CHECK(p != nullptr && p->completed_seq == 0 && !p->done) << "completion of an unknown write " << id;
    p->completed_seq = ++completed_seq_;
    if (fua) Promote(*p);
    Compact();
  }
  // A flush was submitted: returns the marker FlushEnd() needs.
  uint64_t FlushBegin() const { return completed_seq_; }
  // The flush completed: every write completed before FlushBegin() is durable.
  void FlushEnd(uint64_t marker) {
    for (Pending& p : pending_) {
      if (!p.done && p.completed_seq != 0 && p.completed_seq <= marker) Promote(p);
    }
    Compact();
  }

  // Writes durable content directly (formatting, before any I/O).
  void WriteDurable(Addr addr, Ptr content) {
    CHECK_LT(addr.v, durable_.size());
    CHECK(!newest_.count(addr.v)) << "direct write under a pending write";
    durable_[addr.v] = std::move(content);
  }

  // Power cut. keep(addr, completed) decides, for each volatile write in
  // submission order (each block of a trim on its own), whether it reached
  // the medium anyway.
  void PowerCut(const std::function<bool(Addr addr, bool completed)>& keep) {
    for (Pending& p : pending_) {
      if (p.done) continue;
      if (keep(p.addr, p.completed_seq != 0)) Promote(p);
    }
    pending_.clear();
    newest_.clear();
    base_id_ = next_id_;
    live_pending_ = 0;
  }

  size_t volatile_writes() const { return live_pending_; }
  uint64_t durable_writes() const { return durable_writes_; }

 protected:
  struct Pending {
    uint64_t id = 0;
    Addr addr;
    Ptr content;
    uint64_t completed_seq = 0;  // 0 = in flight
    bool done = false;           // durable or superseded
  };
  Pending* Find(uint64_t id) {
    if (id < base_id_ || id >= base_id_ + pending_.size()) return nullptr;
    return &pending_[id - base_id_];
  }
  void Promote(Pending& p) {
    if (p.done) return;
    p.done = true;
    --live_pending_;
    // A newer write to the same block that is already durable wins.
    if (durable_id_[p.addr.v] < p.id) {
      durable_[p.addr.v] = p.content;
      durable_id_[p.addr.v] = p.id;
      ++durable_writes_;
    }
    auto it = newest_.find(p.addr.v);
    if (it != newest_.end() && it->second == p.id) newest_.erase(it);
  }
  void Compact() {
    while (!pending_.empty() && pending_.front().done) {
      pending_.pop_front();
      ++base_id_;
    }
  }

  std::vector<Ptr> durable_;
  std::vector<uint64_t> durable_id_;  // id of the write that produced durable_[a] (0 = format)
  std::deque<Pending> pending_;       // submission order; ids base_id_ ... base_id_ + size - 1
  uint64_t base_id_ = 1;
  uint64_t next_id_ = 1;
  uint64_t completed_seq_ = 0;
  size_t live_pending_ = 0;
  uint64_t durable_writes_ = 0;
  // Newest submitted write per address among pending writes.
  std::unordered_map<decltype(Addr{}.v), uint64_t> newest_;
};

}  // namespace fs::vfs
