// Fsck: the F2FS model's consistency checker (fsck.f2fs -f), run on the
// current state: cached pages win over what is on flash.
//
// Contract:
// - Run() verifies NAT <-> nodes (every reachable node's entry in use, of
//   its inode, reached once; every allocated nid reachable), node footers
//   and offsets, SIT counts and bitmaps <-> the blocks referenced, SSA <->
//   owners, no block referenced twice, blocks within EOF, directory
//   structure (".", "..", hashes, buckets, depth), link counts, orphans,
//   the logs pointing at unused blocks, space accounting (valid blocks,
//   nodes, inodes) and the dirty node lists; the first inconsistency found
//   is returned as InvalidInput("fsck: ...").
// - It changes nothing: it sees every table through a const pointer, so
//   it may run between any two operations (the caller makes sure no
//   synchronous section is half-done: between suspension points).
//
// State owned: none beyond the view. Who calls it: the F2fs (Check), for
// tests, the crash tests and run.power_cut. It calls nobody.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fs/f2fs/image.h"
#include "fs/f2fs/inode_table.h"
#include "fs/f2fs/layout.h"
#include "fs/f2fs/nat_table.h"
#include "fs/f2fs/node_cache.h"
#include "fs/f2fs/on_disk.h"
#include "fs/f2fs/segment_manager.h"
#include "sim/status.h"

namespace fs::f2fs {

class Fsck {
 public:
  struct View {
    const Layout* layout = nullptr;
    const SegmentManager* sm = nullptr;
    const NatTable* nat = nullptr;
    const NodeCache* nodes = nullptr;
    const InodeTable* inodes = nullptr;
    const Image* image = nullptr;
    // Transactions: master nodes written since the last checkpoint, and the
    // blocks running transactions stole -> (ino, page index).
    const std::vector<BlockAddr>* live_masters = nullptr;
    const std::unordered_map<uint32_t, std::pair<Nid, uint64_t>>* stolen = nullptr;
    uint64_t valid_block_count = 0;  // total_valid_block_count
    uint32_t valid_inode_count = 0;
  };
  explicit Fsck(const View& v);

  sim::Status Run() const;

 private:
  const Layout& layout_;
  const SegmentManager* sm_;
  const NatTable* nat_;
  const NodeCache* cache_;
  const InodeTable* itab_;
  const Image* image_;
  const std::vector<BlockAddr>* live_masters_;
  const std::unordered_map<uint32_t, std::pair<Nid, uint64_t>>* stolen_;
  const uint64_t valid_block_count_;
  const uint32_t valid_inode_count_;
};

}  // namespace fs::f2fs
