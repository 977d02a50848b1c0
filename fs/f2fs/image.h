// Image: what is on the flash of the F2FS volume — vfs::BlockImage
// (fs/vfs/block_image.h: submissions, completions, flushes, power cuts)
// over F2FS's block objects, plus forgetting what no reader can use.
//
// A block whose content no mount and no reader can use any more (a durable
// checkpoint freed it) is forgotten (Forget): it then reads as one shared
// marker of type kStale — written, of unknown content, which no As<>
// accepts — so the memory of the old version goes while the block still
// shows written (a sequential-write check after a mount sees it
// programmed).
#pragma once

#include <cstdint>

#include "fs/f2fs/on_disk.h"
#include "fs/vfs/block_image.h"

namespace fs::f2fs {

class Image : public vfs::BlockImage<BlockData, BlockAddr> {
 public:
  using vfs::BlockImage<BlockData, BlockAddr>::BlockImage;

  // The durable content of [start, start + count) will never be read as what
  // it is (a durable checkpoint freed those blocks; no valid pointer names
  // them): keep only the marker that they hold something. Pending writes
  // are untouched. Blocks of zeros stay zeros.
  void Forget(BlockAddr start, uint32_t count);
  uint64_t forgotten_blocks() const { return forgotten_; }

 private:
  uint64_t forgotten_ = 0;
};

}  // namespace fs::f2fs
