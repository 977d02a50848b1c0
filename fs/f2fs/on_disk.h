// F2FS on-disk vocabulary: constants, address types and the block formats.
//
// The model keeps what is on flash as structured C++ objects, one per 4 KiB
// block, instead of serialized bytes: a NodeBlock holds its footer and its
// address slots, a NatBlock its 455 entries, and so on. Each object is
// immutable once handed to the device (shared by pointer between the page
// cache and the flash image, cloned on the next modification), so a write
// costs no byte copy and a data block written with "content does not matter"
// costs nothing at all (a null pointer reads back as zeros).
//
// Sizes follow the kernel's formats (include/linux/f2fs_fs.h): 4 KiB blocks,
// 512-block segments, 923 inode address slots of which 873 are usable with
// the default inline xattr area, 1018 slots per direct/indirect node, 455
// NAT and 55 SIT entries per block, 38/6 NAT/SIT journal entries in a
// current-segment summary, 214 dentries per dentry block, 182 inline
// dentries, 3,488 bytes of inline data. Field encodings (bit packing, CRCs)
// are not reproduced: a checksum field stands for the CRC of a CP block.
#pragma once

#include <algorithm>
#include <array>
#include <bitset>
#include <compare>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/time.h"

namespace fs::f2fs {

inline constexpr uint32_t kBlockSize = 4096;
inline constexpr uint32_t kBlocksPerSeg = 512;
inline constexpr uint32_t kAddrsPerInode = 923;      // DEF_ADDRS_PER_INODE
inline constexpr uint32_t kInlineXattrAddrs = 50;    // DEFAULT_INLINE_XATTR_ADDRS
inline constexpr uint32_t kUsableAddrsPerInode = kAddrsPerInode - kInlineXattrAddrs;  // 873
inline constexpr uint32_t kAddrsPerBlock = 1018;     // ADDRS_PER_BLOCK
inline constexpr uint32_t kNidsPerBlock = 1018;      // NIDS_PER_BLOCK
inline constexpr uint32_t kNatEntriesPerBlock = 455;
inline constexpr uint32_t kSitEntriesPerBlock = 55;
inline constexpr uint32_t kNatJournalEntries = 38;
inline constexpr uint32_t kSitJournalEntries = 6;
inline constexpr uint32_t kOrphansPerBlock = 1020;
inline constexpr uint32_t kStolenPerBlock = 1020;  // 4-byte block addresses per stolen-list block
inline constexpr uint32_t kDentrySlotsPerBlock = 214;  // NR_DENTRY_IN_BLOCK
inline constexpr uint32_t kSlotLen = 8;                // name bytes per dentry slot
inline constexpr uint32_t kMaxInlineData = 4 * (kAddrsPerInode - kInlineXattrAddrs - 1);  // 3488
inline constexpr uint32_t kInlineDentrySlots = kMaxInlineData * 8 / ((11 + kSlotLen) * 8 + 1);  // 182
inline constexpr uint32_t kMaxNameLen = 255;
inline constexpr uint32_t kMaxDirHashDepth = 63;
// Summary entries that fit a compacted data-summary block besides the two
// journals, and per further block (SUM_ENTRY_SIZE 7, SUM_FOOTER_SIZE 5).
inline constexpr uint32_t kCompactFirstEntries = (kBlockSize - 2 * 507 - 5) / 7;  // 439
inline constexpr uint32_t kCompactNextEntries = (kBlockSize - 5) / 7;              // 584
// The SSA slot of a block a running transaction stole (see Summary).
inline constexpr uint16_t kStolenOfs = 0xFFFF;

// A block address on the volume (4 KiB units from the start of the device).
struct BlockAddr {
  uint32_t v = 0;
  constexpr auto operator<=>(const BlockAddr&) const = default;
};
inline constexpr BlockAddr kNullAddr{0};            // no block (hole)
inline constexpr BlockAddr kNewAddr{0xFFFFFFFFu};   // reserved, not yet written
constexpr bool IsValidBlkaddr(BlockAddr a) { return a != kNullAddr && a != kNewAddr; }

// A node id: index into the NAT. Inode numbers are the nids of inode blocks.
struct Nid {
  uint32_t v = 0;
  constexpr auto operator<=>(const Nid&) const = default;
};
inline constexpr Nid kNullNid{0};
inline constexpr Nid kNodeIno{1};
inline constexpr Nid kMetaIno{2};
inline constexpr Nid kRootIno{3};

// A segment number in the main area (0 = first main segment).
struct SegNo {
  uint32_t v = 0;
  constexpr auto operator<=>(const SegNo&) const = default;
};
inline constexpr SegNo kNullSegNo{0xFFFFFFFFu};

// The six active logs (curseg types), in the kernel's order, plus the
// in-memory log used for age-threshold GC migration.
enum class LogType : uint8_t { kHotData, kWarmData, kColdData, kHotNode, kWarmNode, kColdNode, kAtgcData };
inline constexpr int kNumLogs = 7;
inline constexpr int kNumPersistentLogs = 6;
constexpr bool IsNodeLog(LogType t) { return t == LogType::kHotNode || t == LogType::kWarmNode || t == LogType::kColdNode; }
std::string_view LogTypeName(LogType t);

// ---------------------------------------------------------------------------
// Block objects.

struct BlockData {
  enum class Type : uint8_t {
    kData, kDentry, kNode, kNat, kSit, kSummary, kCheckpoint, kCpSummary, kOrphan, kSuper, kJournal,
    kStolenList,  // addresses of stolen blocks, in the checkpoint pack
    kStale  // written content no reader may interpret any more (Image::Forget)
  };
  explicit BlockData(Type t) : type(t) {}
  virtual ~BlockData() = default;
  BlockData(const BlockData&) = default;
  BlockData& operator=(const BlockData&) = default;
  Type type;
};
using BlockPtr = std::shared_ptr<const BlockData>;

// The block as a T if it holds one of type `t`, else null (a missing,
// foreign or damaged block after a power cut).
template <class T>
const T* As(const BlockPtr& p, BlockData::Type t) {
  return p && p->type == t ? static_cast<const T*>(p.get()) : nullptr;
}

// A block that was written but whose content is no longer kept (see
// Image::Forget).
struct StaleBlock final : BlockData {
  StaleBlock() : BlockData(Type::kStale) {}
};

// User data (regular files). A null BlockPtr stands for a block of zeros.
struct DataBlock final : BlockData {
  DataBlock() : BlockData(Type::kData) { bytes.fill(0); }
  std::array<uint8_t, kBlockSize> bytes;
};

enum class FileType : uint8_t { kUnknown = 0, kRegular = 1, kDir = 2 };

// A dentry's hash is kept apart, in DentryArray::hashes.
struct Dentry {
  Nid ino;
  uint16_t name_len = 0;
  FileType type = FileType::kUnknown;
};

// A dentry area: `nr_slots` slots, each a Dentry, a hash and 8 name bytes; a name
// of n bytes takes ceil(n/8) consecutive slots (the first holds the Dentry;
// every other slot's Dentry and hash are the defaults — Insert and Remove
// keep that, and Find relies on it).
// Used for dentry blocks (214 slots) and inline dentries (182 slots).
struct DentryArray {
  explicit DentryArray(uint32_t slots = kDentrySlotsPerBlock) : nr_slots(slots) {}
  uint32_t nr_slots;
  // Stored for the slots up to the last one ever used (Insert grows them):
  // slots past their end are free, with the default Dentry. An inline
  // directory of a few entries keeps a few slots, not 182.
  std::vector<uint8_t> used;  // bitmap, one byte per slot
  std::vector<Dentry> dentries;
  std::vector<char> names;
  // The entries' hashes, one per stored slot (0 where no entry starts),
  // apart from the Dentries so that Find compares them four at a time.
  std::vector<uint32_t> hashes;
  // Slots in use (set in `used`), kept by Insert and Remove: FindRoom
  // answers -1 without a scan when fewer slots than asked are free.
  uint32_t used_slots = 0;
  uint32_t stored_slots() const { return static_cast<uint32_t>(used.size()); }

  static uint32_t SlotsFor(size_t name_len) { return static_cast<uint32_t>((name_len + kSlotLen - 1) / kSlotLen); }
  std::string_view NameAt(uint32_t slot) const {
    return std::string_view(&names[static_cast<size_t>(slot) * kSlotLen], dentries[slot].name_len);
  }
  // Slot of `name` or -1.
  int Find(std::string_view name, uint32_t hash) const;
  // First run of `slots` free slots or -1.
  int FindRoom(uint32_t slots) const;
  void Insert(int slot, std::string_view name, uint32_t hash, Nid ino, FileType type);
  void Remove(int slot);
  bool Empty() const;  // no slot used
  uint32_t UsedEntries() const;
  // Calls fn(slot, dentry) for every entry, in slot order.
  template <class Fn>
  void ForEach(Fn&& fn) const {
    for (uint32_t s = 0; s < stored_slots();) {
      if (!used[s]) { ++s; continue; }
      fn(s, dentries[s]);
      s += std::max<uint32_t>(1, SlotsFor(dentries[s].name_len));
    }
  }
};

// A directory data block. Its entries change only through Insert and
// Remove here (not through `d`), which keep `filter`: bit FilterBit(h) is
// set for the hash h of every entry (a Bloom filter with one probe). A
// clear bit proves that no entry has the hash, so Find passes over the
// block after one cache line instead of scanning its 214 hashes (a lookup
// in an F2FS directory reads two blocks at every hash level above the one
// holding the name). Remove leaves the bits set; every kFilterStaleLimit-th
// remove rebuilds the filter from the entries. Find's answer is the full
// scan's. Only dentry blocks carry a filter: inline dentries live in inode
// blocks, of which the Image keeps many versions.
//
// Behind the filter, `tags` holds one byte per slot: TagOf(hash) where an
// entry starts, 0 elsewhere. Find compares sixteen tags at a time (14
// compares for a block, instead of 54 of four hashes) and checks the hash
// and name only where the tag matched; its answer is DentryArray::Find's,
// the first matching slot.
struct DentryBlock final : BlockData {
  DentryBlock() : BlockData(Type::kDentry) {}
  static constexpr uint32_t kFilterBits = 1024;
  static constexpr uint32_t kFilterStaleLimit = 16;
  static constexpr uint32_t kTagSlots = (kDentrySlotsPerBlock + 15) / 16 * 16;
  static uint32_t FilterBit(uint32_t hash) { return (hash * 0x9E3779B1u) >> 22; }
  // Bits 14..21 of the filter's product, never 0 (the tag of a slot where
  // no entry starts).
  static uint8_t TagOf(uint32_t hash) {
    const auto t = static_cast<uint8_t>((hash * 0x9E3779B1u) >> 14);
    return t != 0 ? t : 1;
  }
  std::array<uint64_t, kFilterBits / 64> filter{};
  uint32_t filter_stale = 0;  // removes since the filter was last rebuilt
  alignas(16) std::array<uint8_t, kTagSlots> tags{};
  DentryArray d{kDentrySlotsPerBlock};

  bool MayHold(uint32_t hash) const {
    const uint32_t b = FilterBit(hash);
    return (filter[b >> 6] >> (b & 63)) & 1;
  }
  // Slot of `name` or -1 (DentryArray::Find's answer, behind the filter and
  // the tags).
  int Find(std::string_view name, uint32_t hash) const;
  void Insert(int slot, std::string_view name, uint32_t hash, Nid ino, FileType type);
  void Remove(int slot);
  // True when the filter has the bit of every entry's hash (fsck).
  bool FilterCoversEntries() const;
  // True when every slot's tag is its entry's TagOf(hash), or 0 where no
  // entry starts (fsck).
  bool TagsMatchEntries() const;
};

// Dentry name hash (the model's own 31-bit string hash; "." and ".." hash
// to 0 as in F2FS).
uint32_t DentryHash(std::string_view name);

enum class NodeKind : uint8_t { kInode, kDirect, kIndirect, kDoubleIndirect };

struct NodeFooter {
  Nid nid;
  Nid ino;
  uint32_t ofs = 0;  // node offset in the file's node tree (0 = inode)
  bool cold = false;   // dnode of a regular file (goes to the warm node log)
  bool fsync = false;  // written by fsync: roll-forward recovers it
  bool dent = false;   // inode whose dentry roll-forward must re-link
  uint64_t cp_ver = 0;
  BlockAddr next_blkaddr;  // next block of this log (roll-forward chain)
};

// Inode fields the model keeps (i_mode, i_links, i_size, i_pino, i_name,
// i_inline, i_current_depth, i_advise, times, i_nid[5]).
struct InodeFields {
  bool is_dir = false;
  uint32_t links = 1;
  uint64_t size = 0;
  uint64_t data_blocks = 0;  // data block addresses allocated or reserved
  Nid pino;                  // parent directory (for roll-forward)
  std::string name;          // name in the parent (for roll-forward)
  bool inline_data = false;
  bool inline_dentry = false;
  uint32_t current_depth = 0;  // directory hash levels in use
  bool cold = false;           // cold file (cold extension): cold data log + IPU
  bool hot = false;            // hot file (hot extension)
  bool lost_pino = false;      // renamed since pino/name were recorded (FADVISE_LOST_PINO)
  sim::SimTime mtime;
  sim::SimTime ctime;
  uint32_t generation = 0;
  std::array<Nid, 5> i_nid{};  // direct, direct, indirect, indirect, double indirect
};

// Inode, direct node or (double-)indirect node.
struct NodeBlock final : BlockData {
  NodeBlock() : BlockData(Type::kNode) {}
  NodeFooter footer;
  NodeKind kind = NodeKind::kDirect;
  // Data block addresses (inode: i_addr[0..872]; direct node: 1018) or
  // child nids (indirect nodes), as raw 32-bit values. Slots past the
  // vector's end are 0: the vector grows only when a non-zero value is set,
  // so the node blocks of empty and small files (every version the Image
  // keeps) stay small.
  std::vector<uint32_t> slots;
  std::optional<InodeFields> inode;       // kInode only
  std::vector<uint8_t> inline_data;       // inline file data up to the last byte given (<= kMaxInlineData); zeros past it
  std::optional<DentryArray> inline_dents;  // inline directory
  // An exF2FS master node: a transaction's commit record in the warm node
  // log (FSYNC-marked, no nid, never valid after its write): roll-forward
  // recovery replays every node of these member inodes up to it.
  bool master = false;
  std::vector<Nid> members;

  bool IsInode() const { return kind == NodeKind::kInode; }
  bool IsDnode() const { return kind == NodeKind::kInode || kind == NodeKind::kDirect; }
  uint32_t AddrSlots() const { return kind == NodeKind::kInode ? kUsableAddrsPerInode : kAddrsPerBlock; }
  uint32_t Slot(uint32_t i) const { return i < slots.size() ? slots[i] : 0; }
  void SetSlot(uint32_t i, uint32_t v) {
    if (i >= slots.size()) {
      if (v == 0) return;
      slots.resize(std::min<size_t>(kAddrsPerBlock, std::max<size_t>(i + 1, slots.size() * 2)));
    }
    slots[i] = v;
  }
  BlockAddr Addr(uint32_t i) const { return BlockAddr{Slot(i)}; }
  void SetAddr(uint32_t i, BlockAddr a) { SetSlot(i, a.v); }
  Nid Child(uint32_t i) const { return Nid{Slot(i)}; }
  void SetChild(uint32_t i, Nid n) { SetSlot(i, n.v); }
};

struct RawNatEntry {
  uint8_t version = 0;
  Nid ino;
  BlockAddr addr;
};
struct NatBlock final : BlockData {
  NatBlock() : BlockData(Type::kNat) {}
  std::array<RawNatEntry, kNatEntriesPerBlock> entries{};
};

struct RawSitEntry {
  uint16_t valid = 0;
  uint8_t type = 0xFF;  // LogType of the log that wrote the segment
  std::bitset<kBlocksPerSeg> map;
  int64_t mtime_ns = 0;
};
struct SitBlock final : BlockData {
  SitBlock() : BlockData(Type::kSit) {}
  std::array<RawSitEntry, kSitEntriesPerBlock> entries{};
};

// Owner of a main-area block: data -> (dnode nid, slot in it); node -> (nid, 0).
// A block a running transaction wrote early (stolen, not yet in any dnode)
// is owned by (its inode, kStolenOfs).
struct Summary {
  Nid nid;
  uint16_t ofs_in_node = 0;
  uint8_t version = 0;
  constexpr bool operator==(const Summary&) const = default;
};
// One SSA block (the summary of one main segment).
struct SummaryBlock final : BlockData {
  SummaryBlock() : BlockData(Type::kSummary) {}
  bool is_node = false;
  std::array<Summary, kBlocksPerSeg> entries{};
};

struct NatJournalEntry {
  Nid nid;
  RawNatEntry entry;
};
struct SitJournalEntry {
  SegNo segno;
  RawSitEntry entry;
};

// The summaries kept inside a checkpoint pack: the three data cursegs (with
// the NAT journal of HOT_DATA and the SIT journal of COLD_DATA) and, on
// umount, the three node cursegs. Stored whole in the first of the pack's
// summary blocks; the other summary blocks of the pack hold an empty
// continuation object (they exist for the I/O count).
struct CpSummaryBlock final : BlockData {
  CpSummaryBlock() : BlockData(Type::kCpSummary) {}
  bool continuation = false;
  std::array<std::vector<Summary>, 3> data;  // entries [0, blkoff) per data curseg
  std::vector<NatJournalEntry> nat_journal;
  std::vector<SitJournalEntry> sit_journal;
  bool has_node = false;
  std::array<std::vector<Summary>, 3> node;
  // With regions (allocation policy regions() = R > 1): the same for the
  // logs of regions 1 .. R-1, three per region (hot, warm, cold).
  std::vector<std::vector<Summary>> region_data;
  std::vector<std::vector<Summary>> region_node;
  // Per region_data entry (when not empty): the log's summary is not in
  // the pack but in its open segment's SSA block (unchanged since an
  // earlier pack; CheckpointWriter).
  std::vector<uint8_t> region_data_in_ssa;
};

struct OrphanBlock final : BlockData {
  OrphanBlock() : BlockData(Type::kOrphan) {}
  std::vector<Nid> inos;
};

// The addresses of the blocks running transactions had stolen when the
// checkpoint was taken (after the orphan blocks in the pack). The pack names
// them itself because the SSA is updated in place: a commit after the
// checkpoint re-owns stolen blocks there, and a cut before the next pack
// leaves the SSA newer than the pack a mount reads.
struct StolenListBlock final : BlockData {
  StolenListBlock() : BlockData(Type::kStolenList) {}
  std::vector<uint32_t> addrs;
};

struct CurSegState {
  SegNo segno;
  uint16_t blkoff = 0;
  bool ssr = false;  // allocation mode of the log
};

// Where a log type's stripe over the regions stands (SegmentManager): the
// region taking its next block and the blocks that region still takes
// (0: a whole stripe unit).
struct StripeState {
  uint16_t region = 0;
  uint16_t left = 0;
};

// The checkpoint block (#1 and #2 of a pack carry the same object).
struct CheckpointBlock final : BlockData {
  CheckpointBlock() : BlockData(Type::kCheckpoint) {}
  uint64_t cp_ver = 0;
  uint64_t user_block_count = 0;
  uint64_t valid_block_count = 0;
  // Blocks running transactions had stolen (valid in this pack's SIT,
  // listed in its StolenListBlocks): mount frees them, and roll-forward
  // takes back those a committed transaction names.
  uint64_t stolen_blocks = 0;
  uint32_t stolen_list_blocks = 0;  // StolenListBlocks after the orphan blocks
  uint32_t rsvd_segment_count = 0;
  uint32_t overprov_segment_count = 0;
  uint32_t free_segment_count = 0;
  std::array<CurSegState, kNumPersistentLogs> cursegs{};  // by LogType (region 0)
  // With regions: the logs of regions 1 .. R-1, at (r - 1) *
  // kNumPersistentLogs + LogType, and each log type's stripe position.
  std::vector<CurSegState> region_cursegs;
  std::array<StripeState, kNumPersistentLogs> stripes{};
  bool umount = false;
  bool orphan_present = false;
  uint32_t cp_pack_total_block_count = 0;
  uint32_t cp_pack_start_sum = 0;    // offset of the first summary block in the pack
  uint32_t data_sum_blocks = 0;
  uint32_t orphan_blocks = 0;
  uint32_t valid_node_count = 0;
  uint32_t valid_inode_count = 0;
  Nid next_free_nid;
  std::vector<bool> sit_bitmap;  // per SIT block: which copy is valid
  std::vector<bool> nat_bitmap;  // per NAT block: which copy is valid
  // Durability mode `journal`: where replay starts (the journal block at
  // offset `journal_head` of the area, whose sequence number must be
  // `journal_block_seq`) and the first record the checkpoint does not cover.
  uint32_t journal_head = 0;
  uint64_t journal_block_seq = 0;
  uint64_t journal_record_seq = 0;
  uint64_t checksum = 0;         // Checksum() at write time (stands for the CRC)

  uint64_t Checksum() const;
};

struct Layout;
// The superblock (blocks 0 and 1): the geometry mkfs chose.
struct SuperBlock final : BlockData {
  SuperBlock() : BlockData(Type::kSuper) {}
  uint64_t block_count = 0;
  uint32_t segs_per_sec = 1;
  uint32_t secs_per_zone = 1;
  double overprovision_pct = 0;
  uint32_t regions = 1;  // of the allocation policy at mkfs (LayoutParams::regions)
  uint32_t journal_blocks = 0;  // the journal area (LayoutParams::journal_blocks)
  bool journal_at_head = false;  // LayoutParams::journal_at_head (else at the end)
  uint64_t zoned_main_block = 0;  // LayoutParams::zoned_main_block (0: not zoned)
  uint32_t usable_segs_per_sec = 0;  // LayoutParams::usable_segs_per_sec
  std::vector<std::string> cold_extensions;
  std::vector<std::string> hot_extensions;
};

// Node-tree geometry: where file block `index` lives. level 0: in the inode
// (slot = index); 1: direct node under i_nid[nid_slot]; 2: via an indirect
// node; 3: via the double-indirect node. `offsets` are the slot indices
// along the path (inode i_nid slot, then child slots), `node_ofs` the node
// offsets (footer.ofs) of the nodes along the path.
struct NodePath {
  int level = 0;
  std::array<uint32_t, 4> offsets{};
  std::array<uint32_t, 4> node_ofs{};
};
// REQUIRES: index < MaxFileBlocks().
NodePath GetNodePath(uint64_t index);
uint64_t MaxFileBlocks();
// First file block index covered by the dnode with node offset `ofs`
// (0 for the inode). REQUIRES: ofs is a dnode offset.
uint64_t StartBlockOfDnode(uint32_t ofs);
// True if a node offset denotes a direct node or the inode.
bool IsDnodeOffset(uint32_t ofs);

}  // namespace fs::f2fs
