// ext4 on-disk vocabulary: the volume layout mke2fs computes and the block
// formats, kept (as in the F2FS model) as immutable C++ objects, one per
// 4 KiB block, shared between the model's state snapshots and the image.
//
// Sizes follow the kernel's formats (fs/ext4/ext4.h, ext4_extents.h,
// include/linux/jbd2.h): 64-byte group descriptors (64bit feature), 16
// inodes of 256 bytes per inode-table block, 4 extents in the inode and 340
// per extent block, directory entries of 8 bytes + the name rounded up to 4
// with a 12-byte checksum tail per leaf block (metadata_csum), 508 index
// entries in an htree root, 16-byte journal block tags (csum v3). Field
// encodings (bit packing, CRCs) are not reproduced: a sequence number in
// each logged copy stands for its tag checksum.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/status.h"
#include "sim/time.h"

namespace fs::ext4 {

inline constexpr uint32_t kBlockSize = 4096;
inline constexpr uint32_t kGroupDescSize = 64;
inline constexpr uint32_t kDescsPerBlock = kBlockSize / kGroupDescSize;  // 64
inline constexpr uint32_t kInodeExtents = 4;                            // i_block: header + 4 entries
inline constexpr uint32_t kExtentsPerBlock = (kBlockSize - 12) / 12;     // 340
inline constexpr uint32_t kMaxExtentLen = 32768;                        // EXT_INIT_MAX_LEN
inline constexpr uint32_t kDirTail = 12;                                // ext4_dir_entry_tail
inline constexpr uint32_t kDirLeafBytes = kBlockSize - kDirTail;
inline constexpr uint32_t kDxRootEntries = (kBlockSize - 32 - 8) / 8;   // 507 after "." / ".." and dx_root_info
inline constexpr uint32_t kDxNodeEntries = (kBlockSize - 8 - 8) / 8;    // 510
inline constexpr uint32_t kJournalTagsPerBlock = (kBlockSize - 12 - 4) / 16;  // 255 (csum v3 tags)
inline constexpr uint32_t kRevokesPerBlock = (kBlockSize - 16 - 4) / 8;      // 1019 (64-bit records)
inline constexpr uint32_t kRootIno = 2;
inline constexpr uint32_t kJournalIno = 8;
inline constexpr uint32_t kFirstIno = 11;  // s_first_ino: 1..10 reserved
inline constexpr uint32_t kMaxNameLen = 255;

// Directory entry size: inode, rec_len, name_len, type and the name
// rounded up to 4 bytes (EXT4_DIR_REC_LEN).
constexpr uint32_t DirRecLen(size_t name_len) { return 8 + ((static_cast<uint32_t>(name_len) + 3) & ~3u); }

// A block number on the volume (4 KiB units from the start of the device).
struct BlockNo {
  uint32_t v = 0;
  constexpr auto operator<=>(const BlockNo&) const = default;
};

// mke2fs's layout of a volume.
struct Layout {
  uint32_t blocks = 0;             // blocks on the volume
  uint32_t blocks_per_group = 0;
  uint32_t groups = 0;
  uint32_t inodes_per_group = 0;
  uint32_t inode_size = 256;
  uint32_t itable_blocks = 0;      // inode-table blocks per group
  uint32_t gdt_blocks = 0;         // group-descriptor blocks
  uint32_t flex_bg = 16;
  uint32_t journal_start = 0;      // first block of the journal (its superblock)
  uint32_t journal_blocks = 0;
  std::vector<uint32_t> block_bitmap, inode_bitmap, inode_table;  // per group
  std::vector<bool> has_super;     // the group starts with a superblock copy (sparse_super)

  uint32_t GroupFirst(uint32_t g) const { return g * blocks_per_group; }
  uint32_t GroupBlocks(uint32_t g) const {
    return g + 1 < groups ? blocks_per_group : blocks - GroupFirst(g);
  }
  uint32_t GroupOf(uint32_t block) const { return block / blocks_per_group; }
  uint32_t inodes() const { return groups * inodes_per_group; }
  uint32_t InodesPerBlock() const { return kBlockSize / inode_size; }
  uint32_t InodeGroup(uint32_t ino) const { return (ino - 1) / inodes_per_group; }
  // The inode-table block holding inode `ino`.
  uint32_t InodeBlock(uint32_t ino) const {
    const uint32_t idx = (ino - 1) % inodes_per_group;
    return inode_table[InodeGroup(ino)] + idx / InodesPerBlock();
  }
  // Blocks a fresh volume uses for each group's own metadata: superblock
  // copies and descriptors at the group start, and (packed into the first
  // group of each flex group) bitmaps and inode tables.
  std::vector<std::pair<uint32_t, uint32_t>> MetadataRuns() const;
};

// e2fsprogs' ext2fs_default_journal_size() in blocks (0: no journal fits).
uint32_t DefaultJournalBlocks(uint64_t blocks);

// The layout of a volume of `blocks` 4 KiB blocks, or why it cannot be
// formatted. journal_blocks 0 = the default size.
sim::Result<Layout> ComputeLayout(uint64_t blocks, uint32_t blocks_per_group, uint64_t inode_ratio,
                                  uint32_t inode_size, uint32_t flex_bg, uint32_t journal_blocks);

// ---------------------------------------------------------------------------
// Block objects.

struct Block {
  enum class Type : uint8_t {
    kData, kSuper, kGroupDesc, kBitmap, kInodeTable, kExtent, kDir,
    kJournalSuper, kJournalDesc, kJournalRevoke, kJournalCommit, kJournalCopy
  };
  explicit Block(Type t) : type(t) {}
  virtual ~Block() = default;
  Block(const Block&) = default;
  Block& operator=(const Block&) = default;
  Type type;
};
using BlockPtr = std::shared_ptr<const Block>;

template <class T>
const T* As(const BlockPtr& b) {
  return b && b->type == T::kType ? static_cast<const T*>(b.get()) : nullptr;
}

// File data; a null BlockPtr stands for a block of zeros.
struct DataBlock final : Block {
  static constexpr Type kType = Type::kData;
  DataBlock() : Block(kType) { bytes.fill(0); }
  std::array<uint8_t, kBlockSize> bytes;
};

struct SuperBlock final : Block {
  static constexpr Type kType = Type::kSuper;
  SuperBlock() : Block(kType) {}
  Layout layout;
  uint32_t hash_seed = 0;
  uint64_t mounts = 0;
  std::vector<uint32_t> orphans;  // s_last_orphan chain: inodes unlinked while open
};

struct GroupDesc {
  uint32_t free_blocks = 0;
  uint32_t free_inodes = 0;
  uint32_t used_dirs = 0;
  uint32_t itable_unused = 0;  // inodes never used at the end of the table (uninit_bg)
  constexpr bool operator==(const GroupDesc&) const = default;
};
struct GroupDescBlock final : Block {
  static constexpr Type kType = Type::kGroupDesc;
  GroupDescBlock() : Block(kType) {}
  std::vector<GroupDesc> descs;  // up to kDescsPerBlock
};

struct BitmapBlock final : Block {
  static constexpr Type kType = Type::kBitmap;
  BitmapBlock() : Block(kType) {}
  std::vector<uint64_t> words;
};

struct Extent {
  uint32_t lblk = 0;  // first file block
  uint32_t pblk = 0;  // first volume block (leaf) or the child block (index)
  uint32_t len = 0;   // blocks (leaf); 0 in an index entry
  constexpr bool operator==(const Extent&) const = default;
};

struct DiskInode {
  uint8_t mode = 0;  // 0 free, 1 regular file, 2 directory
  uint16_t links = 0;
  uint64_t size = 0;  // i_disksize
  int64_t mtime_ns = 0;
  uint8_t depth = 0;  // extent-tree depth: 0 = the extents are in the inode
  std::vector<Extent> root;  // i_block: up to kInodeExtents leaf extents or index entries
  uint32_t parent = 0;       // directories: ".." (held in the first directory block on disk)
};
struct InodeTableBlock final : Block {
  static constexpr Type kType = Type::kInodeTable;
  InodeTableBlock() : Block(kType) {}
  std::vector<DiskInode> inodes;  // InodesPerBlock() slots
};

// An extent-tree block below the inode: leaf extents (depth 0) or index
// entries naming the blocks one level down.
struct ExtentBlock final : Block {
  static constexpr Type kType = Type::kExtent;
  ExtentBlock() : Block(kType) {}
  uint8_t depth = 0;
  std::vector<Extent> entries;
};

struct DirEntry {
  uint32_t ino = 0;
  std::string name;
};
// A directory block: a leaf of entries, or (htree) the root / an interior
// node mapping hash ranges to leaf blocks.
struct DirBlock final : Block {
  static constexpr Type kType = Type::kDir;
  DirBlock() : Block(kType) {}
  enum class Kind : uint8_t { kLeaf, kDxRoot, kDxNode };
  Kind kind = Kind::kLeaf;
  std::vector<DirEntry> entries;                       // leaf
  std::vector<std::pair<uint32_t, uint32_t>> index;    // dx: (lowest hash, logical block)
};

// The journal (jbd2): a ring of blocks after its superblock.
struct JournalSuperBlock final : Block {
  static constexpr Type kType = Type::kJournalSuper;
  JournalSuperBlock() : Block(kType) {}
  uint32_t sequence = 1;  // s_sequence: the first transaction expected in the log
  uint32_t start = 0;     // s_start: ring position of that transaction; 0 = nothing to replay
};
struct JournalDescBlock final : Block {
  static constexpr Type kType = Type::kJournalDesc;
  JournalDescBlock() : Block(kType) {}
  uint32_t sequence = 0;
  std::vector<uint32_t> tags;  // home blocks of the logged copies that follow, in order
};
struct JournalRevokeBlock final : Block {
  static constexpr Type kType = Type::kJournalRevoke;
  JournalRevokeBlock() : Block(kType) {}
  uint32_t sequence = 0;
  std::vector<uint32_t> blocks;
};
struct JournalCommitBlock final : Block {
  static constexpr Type kType = Type::kJournalCommit;
  JournalCommitBlock() : Block(kType) {}
  uint32_t sequence = 0;
  uint32_t blocks = 0;  // descriptor, copies and revoke blocks of the transaction
};
// A metadata block as logged by transaction `sequence`.
struct JournalCopyBlock final : Block {
  static constexpr Type kType = Type::kJournalCopy;
  JournalCopyBlock() : Block(kType) {}
  uint32_t sequence = 0;
  uint32_t home = 0;
  BlockPtr content;
};

}  // namespace fs::ext4
