// Image: what is on the flash of the volume, i.e. the file system's
// persistent state, with the device's durability semantics.
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
// outlives file-system instances: mount a new F2fs on it after a cut.
//
// Memory: one pointer (plus a write id) per block; block objects are shared
// with the page cache; a null pointer is a block of zeros. A block whose
// content no mount and no reader can use any more (a durable checkpoint
// freed it) is forgotten (Forget): it then reads as one shared marker of
// type kStale — written, of unknown content, which no As<> accepts — so
// the memory of the old version goes while the block still shows written
// (a sequential-write check after a mount sees it programmed).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <unordered_map>
#include <vector>

#include "fs/f2fs/on_disk.h"

namespace fs::f2fs {

class Image {
 public:
  explicit Image(uint64_t blocks);
  // Memory an image of `blocks` blocks takes before any write (the
  // contents written later come on top).
  static uint64_t BaseMemoryBytes(uint64_t blocks) { return blocks * (sizeof(BlockPtr) + sizeof(uint64_t)); }
  Image(const Image&) = delete;
  Image& operator=(const Image&) = delete;

  uint64_t blocks() const { return durable_.size(); }

  // Newest submitted content of `addr` (nullptr: zeros / never written).
  const BlockPtr& Read(BlockAddr addr) const;
  const BlockPtr& ReadDurable(BlockAddr addr) const;

  // A write of one block was submitted; returns its id.
  uint64_t Submit(BlockAddr addr, BlockPtr content);
  // A trim of [start, start + count) was submitted (count > 0): a write of
  // zeros per block. Returns the first block's write id; block i's is
  // first + i.
  uint64_t SubmitTrim(BlockAddr start, uint32_t count);
  // The device completed write `id`; FUA writes are durable at once.
  void Complete(uint64_t id, bool fua);
  // A flush was submitted: returns the marker FlushEnd() needs.
  uint64_t FlushBegin() const { return completed_seq_; }
  // The flush completed: every write completed before FlushBegin() is durable.
  void FlushEnd(uint64_t marker);

  // The durable content of [start, start + count) will never be read as what
  // it is (a durable checkpoint freed those blocks; no valid pointer names
  // them): keep only the marker that they hold something. Pending writes
  // are untouched. Blocks of zeros stay zeros.
  void Forget(BlockAddr start, uint32_t count);
  uint64_t forgotten_blocks() const { return forgotten_; }

  // Writes durable content directly (formatting, before any I/O).
  void WriteDurable(BlockAddr addr, BlockPtr content);

  // Power cut. keep(addr, completed) decides, for each volatile write in
  // submission order (each block of a trim on its own), whether it reached
  // the medium anyway.
  void PowerCut(const std::function<bool(BlockAddr addr, bool completed)>& keep);

  size_t volatile_writes() const { return live_pending_; }
  uint64_t durable_writes() const { return durable_writes_; }

 private:
  struct Pending {
    uint64_t id = 0;
    BlockAddr addr;
    BlockPtr content;
    uint64_t completed_seq = 0;  // 0 = in flight
    bool done = false;           // durable or superseded
  };
  Pending* Find(uint64_t id);
  void Promote(Pending& p);
  void Compact();

  std::vector<BlockPtr> durable_;
  std::vector<uint64_t> durable_id_;  // id of the write that produced durable_[a] (0 = format)
  std::deque<Pending> pending_;       // submission order; ids base_id_ ... base_id_ + size - 1
  uint64_t base_id_ = 1;
  uint64_t next_id_ = 1;
  uint64_t completed_seq_ = 0;
  size_t live_pending_ = 0;
  uint64_t durable_writes_ = 0;
  uint64_t forgotten_ = 0;
  // Newest submitted write per address among pending writes.
  std::unordered_map<uint32_t, uint64_t> newest_;
};

}  // namespace fs::f2fs
