#include "fs/f2fs/journal_format.h"

#include <cstring>

#include <boost/crc.hpp>
#include <fmt/format.h>
#include <glog/logging.h>

namespace fs::f2fs {
namespace {

// Header field offsets in slot 0.
constexpr size_t kOffMagic = 0, kOffVersion = 4, kOffFlags = 6, kOffSeq = 8, kOffCommit = 16, kOffRecords = 24,
                 kOffSlotsUsed = 26, kOffChecksum = 28;

class Writer {
 public:
  explicit Writer(uint8_t* p) : p_(p) {}
  void U8(uint8_t v) { *p_++ = v; }
  void U16(uint16_t v) { Le(v, 2); }
  void U32(uint32_t v) { Le(v, 4); }
  void U64(uint64_t v) { Le(v, 8); }
  void Bytes(const std::string& s) {
    std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
  }

 private:
  void Le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) *p_++ = static_cast<uint8_t>(v >> (8 * i));
  }
  uint8_t* p_;
};

class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}
  bool ok() const { return ok_; }
  uint8_t U8() { return static_cast<uint8_t>(Le(1)); }
  uint16_t U16() { return static_cast<uint16_t>(Le(2)); }
  uint32_t U32() { return static_cast<uint32_t>(Le(4)); }
  uint64_t U64() { return Le(8); }
  std::string Bytes(size_t n) {
    if (static_cast<size_t>(end_ - p_) < n) {
      ok_ = false;
      return {};
    }
    std::string s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }

 private:
  uint64_t Le(int n) {
    if (end_ - p_ < n) {
      ok_ = false;
      return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= uint64_t{*p_++} << (8 * i);
    return v;
  }
  const uint8_t* p_;
  const uint8_t* end_;
  bool ok_ = true;
};

uint64_t ReadLe(const std::array<uint8_t, kBlockSize>& b, size_t off, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint64_t{b[off + i]} << (8 * i);
  return v;
}

bool KnownType(uint8_t t) {
  switch (static_cast<JournalRecordType>(t)) {
    case JournalRecordType::kCreate:
    case JournalRecordType::kMkdir:
    case JournalRecordType::kUnlink:
    case JournalRecordType::kLink:
    case JournalRecordType::kRename:
    case JournalRecordType::kSetattr:
    case JournalRecordType::kDataWrite:
    case JournalRecordType::kRmdir:
    case JournalRecordType::kFsync:
      return true;
  }
  return false;
}

}  // namespace

const char* JournalRecordTypeName(JournalRecordType t) {
  switch (t) {
    case JournalRecordType::kCreate: return "create";
    case JournalRecordType::kMkdir: return "mkdir";
    case JournalRecordType::kUnlink: return "unlink";
    case JournalRecordType::kLink: return "link";
    case JournalRecordType::kRename: return "rename";
    case JournalRecordType::kSetattr: return "setattr";
    case JournalRecordType::kDataWrite: return "data_write";
    case JournalRecordType::kRmdir: return "rmdir";
    case JournalRecordType::kFsync: return "fsync";
  }
  return "?";
}

uint32_t JournalRecord::MaxName2(JournalRecordType t) {
  return t == JournalRecordType::kFsync ? kMaxInlineData : kMaxNameLen;
}

uint32_t JournalRecord::Slots() const {
  const size_t bytes = kJournalRecordHeader + kJournalRecordFixed + name.size() + name2.size();
  return static_cast<uint32_t>((bytes + kJournalSlotSize - 1) / kJournalSlotSize);
}

bool JournalRecord::operator==(const JournalRecord& o) const {
  return type == o.type && seq == o.seq && ino == o.ino && dir == o.dir && dir2 == o.dir2 &&
         replaced == o.replaced && name == o.name && name2 == o.name2 && size == o.size && index == o.index &&
         dnode == o.dnode && ofs_in_node == o.ofs_in_node && old_addr == o.old_addr && new_addr == o.new_addr &&
         is_inline == o.is_inline;
}

uint32_t JournalBlockChecksum(const std::array<uint8_t, kBlockSize>& bytes) {
  boost::crc_32_type crc;
  crc.process_bytes(bytes.data(), kOffChecksum);
  const uint8_t zero[4] = {0, 0, 0, 0};
  crc.process_bytes(zero, 4);
  crc.process_bytes(bytes.data() + kOffChecksum + 4, kBlockSize - kOffChecksum - 4);
  return crc.checksum();
}

std::shared_ptr<JournalBlock> EncodeJournalBlock(const JournalBlockHeader& h,
                                                 const std::vector<JournalRecord>& records) {
  auto blk = std::make_shared<JournalBlock>();
  uint8_t* base = blk->bytes.data();
  uint32_t slot = 1;
  for (const JournalRecord& r : records) {
    CHECK_LE(r.name.size(), kMaxNameLen);
    CHECK_LE(r.name2.size(), JournalRecord::MaxName2(r.type));
    const uint32_t n = r.Slots();
    CHECK_LE(slot + n, kJournalSlotsPerBlock) << "journal records do not fit one block";
    Writer w(base + slot * kJournalSlotSize);
    w.U8(static_cast<uint8_t>(r.type));
    w.U8(static_cast<uint8_t>(n));
    w.U16(static_cast<uint16_t>(kJournalRecordFixed + r.name.size() + r.name2.size()));
    w.U32(0);
    w.U64(r.seq);
    w.U32(r.ino.v);
    w.U32(r.dir.v);
    w.U32(r.dir2.v);
    w.U32(r.replaced.v);
    w.U32(r.dnode.v);
    w.U16(r.ofs_in_node);
    w.U16(r.is_inline ? 1 : 0);
    w.U64(r.size);
    w.U64(r.index);
    w.U32(r.old_addr.v);
    w.U32(r.new_addr.v);
    w.U16(static_cast<uint16_t>(r.name.size()));
    w.U16(static_cast<uint16_t>(r.name2.size()));
    w.Bytes(r.name);
    w.Bytes(r.name2);
    slot += n;
  }
  Writer w(base);
  w.U32(kJournalMagic);
  w.U16(kJournalVersion);
  w.U16(h.commit_end ? kJournalCommitFlag : 0);
  w.U64(h.seq);
  w.U64(h.commit);
  w.U16(static_cast<uint16_t>(records.size()));
  w.U16(static_cast<uint16_t>(slot));
  const uint32_t c = JournalBlockChecksum(blk->bytes);
  Writer(base + kOffChecksum).U32(c);
  return blk;
}

DecodedJournalBlock DecodeJournalBlock(const std::array<uint8_t, kBlockSize>& b) {
  DecodedJournalBlock out;
  if (ReadLe(b, kOffMagic, 4) != kJournalMagic) return out;  // kBadMagic: not a journal block
  out.status = JournalDecode::kCorrupt;
  if (ReadLe(b, kOffChecksum, 4) != JournalBlockChecksum(b)) {
    out.error = "checksum mismatch";
    return out;
  }
  if (ReadLe(b, kOffVersion, 2) != kJournalVersion) {
    out.error = fmt::format("version {} (expected {})", ReadLe(b, kOffVersion, 2), kJournalVersion);
    return out;
  }
  const uint64_t flags = ReadLe(b, kOffFlags, 2);
  if (flags & ~uint64_t{kJournalCommitFlag}) {
    out.error = fmt::format("unknown flags {:#x}", flags);
    return out;
  }
  out.header.seq = ReadLe(b, kOffSeq, 8);
  out.header.commit = ReadLe(b, kOffCommit, 8);
  out.header.commit_end = (flags & kJournalCommitFlag) != 0;
  const uint32_t nrec = static_cast<uint32_t>(ReadLe(b, kOffRecords, 2));
  const uint32_t used = static_cast<uint32_t>(ReadLe(b, kOffSlotsUsed, 2));
  if (used < 1 || used > kJournalSlotsPerBlock || nrec > used - 1) {
    out.error = fmt::format("{} records in {} slots", nrec, used);
    return out;
  }
  uint32_t slot = 1;
  for (uint32_t i = 0; i < nrec; ++i) {
    if (slot >= used) {
      out.error = fmt::format("record {} starts past the {} slots used", i, used);
      return out;
    }
    const uint8_t* p = b.data() + slot * kJournalSlotSize;
    Reader r(p, (used - slot) * kJournalSlotSize);
    JournalRecord rec;
    const uint8_t type = r.U8();
    const uint8_t n = r.U8();
    const uint16_t payload = r.U16();
    r.U32();
    if (!KnownType(type)) {
      out.error = fmt::format("record {}: unknown type {}", i, type);
      return out;
    }
    if (n == 0 || slot + n > used || kJournalRecordHeader + payload > n * kJournalSlotSize ||
        payload < kJournalRecordFixed) {
      out.error = fmt::format("record {}: {} slots, {} payload bytes", i, n, payload);
      return out;
    }
    rec.type = static_cast<JournalRecordType>(type);
    rec.seq = r.U64();
    rec.ino = Nid{r.U32()};
    rec.dir = Nid{r.U32()};
    rec.dir2 = Nid{r.U32()};
    rec.replaced = Nid{r.U32()};
    rec.dnode = Nid{r.U32()};
    rec.ofs_in_node = r.U16();
    const uint16_t rflags = r.U16();
    if (rflags & ~1u) {
      out.error = fmt::format("record {}: unknown flags {:#x}", i, rflags);
      return out;
    }
    rec.is_inline = (rflags & 1) != 0;
    rec.size = r.U64();
    rec.index = r.U64();
    rec.old_addr = BlockAddr{r.U32()};
    rec.new_addr = BlockAddr{r.U32()};
    const uint16_t l1 = r.U16(), l2 = r.U16();
    if (l1 > kMaxNameLen || l2 > JournalRecord::MaxName2(rec.type) || kJournalRecordFixed + l1 + l2 != payload) {
      out.error = fmt::format("record {}: names of {} and {} bytes in a payload of {}", i, l1, l2, payload);
      return out;
    }
    rec.name = r.Bytes(l1);
    rec.name2 = r.Bytes(l2);
    if (!r.ok() || rec.Slots() != n) {
      out.error = fmt::format("record {}: truncated", i);
      return out;
    }
    out.records.push_back(std::move(rec));
    slot += n;
  }
  if (slot != used) {
    out.error = fmt::format("records end at slot {}, header says {}", slot, used);
    out.records.clear();
    return out;
  }
  out.status = JournalDecode::kOk;
  return out;
}

}  // namespace fs::f2fs
