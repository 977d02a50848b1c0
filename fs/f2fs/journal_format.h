// The on-disk format of F2FS-J's metadata journal (durability mode
// `journal`, journal.h): records in 128-byte slots, 32 slots per 4 KiB
// journal block, each block self-describing.
//
// Block (4096 bytes, little-endian):
//   slot 0, the header:
//     u32 magic (kJournalMagic)  u16 version (1)  u16 flags (kCommitFlag:
//     the last block of a commit)  u64 seq (block sequence number, +1 per
//     block over the journal's life)  u64 commit (commit number)
//     u16 records  u16 slots_used (header included)  u32 checksum (CRC-32 of
//     the 4096 bytes with this field zero)  zeros to 128
//   slots 1..31: records, each in one or more whole slots:
//     u8 type  u8 slots  u16 payload bytes  u32 zero, then the payload:
//     u64 seq (record sequence number)  u32 ino  u32 dir  u32 dir2
//     u32 replaced  u32 dnode  u16 ofs_in_node  u16 flags (1: inline)  u64 size
//     u64 index  u32 old_addr  u32 new_addr  u16 name length
//     u16 name2 length, then the names' bytes (name2 of an fsync record:
//     up to kMaxInlineData bytes of inline data).
//   A record never spans two blocks; unused slots are zero.
//
// Contract: Decode(Encode(records)) returns the records; Decode rejects a
// block whose magic, version, counts or checksum do not hold (kBadMagic for
// a block that is no journal block of this format — the end of the log —,
// kCorrupt for one that claims to be and fails a check), and never reads
// past the block.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fs/f2fs/on_disk.h"

namespace fs::f2fs {

inline constexpr uint32_t kJournalSlotSize = 128;
inline constexpr uint32_t kJournalSlotsPerBlock = kBlockSize / kJournalSlotSize;  // 32
inline constexpr uint32_t kJournalMagic = 0x4A463246;  // "F2FJ"
inline constexpr uint16_t kJournalVersion = 1;
inline constexpr uint16_t kJournalCommitFlag = 1;
inline constexpr uint32_t kJournalRecordHeader = 8;
inline constexpr uint32_t kJournalRecordFixed = 60;  // payload bytes before the names

// Record types; the numbers of the F2FS-J artifact where it has the type.
enum class JournalRecordType : uint8_t {
  kCreate = 0,
  kMkdir = 1,
  kUnlink = 2,
  kLink = 3,
  kRename = 4,
  kSetattr = 6,
  kDataWrite = 11,
  kRmdir = 12,
  kFsync = 13,  // an fsync: the file's size and, for an inline file, its inline data (in name2)
};
const char* JournalRecordTypeName(JournalRecordType t);

struct JournalRecord {
  JournalRecordType type = JournalRecordType::kCreate;
  uint64_t seq = 0;  // record sequence number (append order over the journal's life)
  // The inode the record is about: create/mkdir the new inode; unlink/rmdir
  // the one unlinked; link the target; rename the moved one; setattr and
  // data write the file.
  Nid ino;
  Nid dir;       // the parent (rename: the source directory)
  Nid dir2;      // rename: the target directory
  Nid replaced;  // rename: the inode the target name held (null: none)
  std::string name;   // the name in `dir`
  std::string name2;  // rename: the name in `dir2`; fsync of an inline file: its inline data
  uint64_t size = 0;  // setattr: the new size; data write: i_size at the write; fsync: i_size
  bool is_inline = false;  // fsync: the file keeps its data inline (in name2)
  // Data write: the block's file offset (in blocks) and NAT/SIT/SSA deltas
  // (the dnode and slot owning it, its old and new addresses).
  uint64_t index = 0;
  Nid dnode;
  uint16_t ofs_in_node = 0;
  BlockAddr old_addr;
  BlockAddr new_addr;

  // Slots the record takes (1 .. 31).
  // Longest name2 of a record of type `t`.
  static uint32_t MaxName2(JournalRecordType t);
  uint32_t Slots() const;
  bool operator==(const JournalRecord& o) const;
};

// A journal block as stored: its 4096 bytes.
struct JournalBlock final : BlockData {
  JournalBlock() : BlockData(Type::kJournal) { bytes.fill(0); }
  std::array<uint8_t, kBlockSize> bytes;
};

struct JournalBlockHeader {
  uint64_t seq = 0;
  uint64_t commit = 0;
  bool commit_end = false;  // kJournalCommitFlag
};

// Encodes `records` (each Slots() <= 31, in order) into one block.
// CHECK-fails if they do not fit: callers pack with Slots().
std::shared_ptr<JournalBlock> EncodeJournalBlock(const JournalBlockHeader& h,
                                                 const std::vector<JournalRecord>& records);

enum class JournalDecode : uint8_t { kOk, kBadMagic, kCorrupt };
struct DecodedJournalBlock {
  JournalDecode status = JournalDecode::kBadMagic;
  std::string error;  // kCorrupt: what failed
  JournalBlockHeader header;
  std::vector<JournalRecord> records;
};
DecodedJournalBlock DecodeJournalBlock(const std::array<uint8_t, kBlockSize>& bytes);

// CRC-32 (IEEE 802.3, as F2FS's f2fs_crc32) of `bytes` with the checksum
// field taken as zero.
uint32_t JournalBlockChecksum(const std::array<uint8_t, kBlockSize>& bytes);

}  // namespace fs::f2fs
