// JournalReplay (journal_replay.h): the journal's committed records
// replayed at mount.
#include "fs/f2fs/journal_replay.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <glog/logging.h>

namespace fs::f2fs {

JournalReplay::JournalReplay(const Deps& d)
    : layout_(*d.layout),
      q_(d.events),
      image_(d.image),
      io_(d.io),
      sm_(d.sm),
      nat_(d.nat),
      nodes_(d.nodes),
      ns_(d.ns),
      itab_(d.inodes),
      dp_(d.pages),
      cpm_(d.cp),
      journal_(d.journal),
      n_(d.counters),
      host_(d.host) {}

sim::Task<sim::Status> JournalReplay::Replay(const JournalPosition& cp, uint64_t* applied, uint64_t* recovered_key) {
  *applied = 0;
  const uint32_t n = layout_.journal_blocks;
  // Scan from the checkpoint's position while the blocks follow in
  // sequence; records count once their commit's last block is there.
  std::vector<JournalRecord> committed, pending;
  uint32_t off = cp.head % n;
  uint64_t seq = cp.block_seq;
  uint32_t end_off = off;
  uint64_t end_seq = seq;
  uint64_t next_record = cp.record_seq;
  uint64_t last_key = 0;
  std::string corrupt;
  for (uint32_t k = 0; k < n; ++k) {
    const BlockAddr a{static_cast<uint32_t>(layout_.journal_blkaddr() + off)};
    co_await io_->ReadBlock(a, Io::kJournal);
    const BlockPtr ptr = image_->Read(a);
    const auto* jb =
        ptr && ptr->type == BlockData::Type::kJournal ? static_cast<const JournalBlock*>(ptr.get()) : nullptr;
    if (!jb) break;
    DecodedJournalBlock d = DecodeJournalBlock(jb->bytes);
    if (d.status == JournalDecode::kBadMagic) break;
    if (d.status == JournalDecode::kCorrupt) {
      // Possibly a stale block of an earlier lap torn by a crash, or damage:
      // either way replay stops at the last good commit before it.
      corrupt = fmt::format("journal block {} (device block {}): {}", off, a.v, d.error);
      n_.corrupt_blocks->Inc();
      break;
    }
    if (d.header.seq != seq) break;  // a block of an earlier lap: the end of the log
    for (JournalRecord& r : d.records) pending.push_back(std::move(r));
    ++seq;
    off = (off + 1) % n;
    if (d.header.commit_end) {
      for (JournalRecord& r : pending) {
        next_record = std::max(next_record, r.seq + 1);
        if (r.seq >= cp.record_seq) committed.push_back(std::move(r));
      }
      pending.clear();
      last_key = std::max(last_key, d.header.commit);
      end_off = off;
      end_seq = seq;
    }
  }
  if (!corrupt.empty()) LOG(WARNING) << "f2fs journal replay stops at a bad block: " << corrupt;
  n_.dropped->Inc(pending.size());
  // Appends from here on (replay's own changes, then the operations)
  // continue after the last committed block.
  // New blocks continue at the end of the log with sequence numbers one
  // lap ahead: no block left in the ring from before (an incomplete commit,
  // or commits past a damaged block) can ever pass for a new one. The
  // mount's checkpoint records the new position before any commit.
  journal_->Load(end_off, end_seq + n, next_record);
  *recovered_key = last_key > cp.record_seq ? last_key : 0;
  cpm_->JournalLoaded(cp.record_seq);
  vfs::SharedLock lock = co_await cpm_->LockOp();
  for (const JournalRecord& r : committed) {
    const bool ok = co_await ApplyRecord(r);
    if (ok) {
      ++*applied;
      n_.replayed->Inc();
    } else {
      n_.skipped->Inc();
    }
  }
  co_return sim::Status::Ok();
}

sim::Task<bool> JournalReplay::Resize(Inode* in, uint64_t size) {
  if (I(in).size == size) co_return false;
  if (size > I(in).size) {
    // Growing adds a hole. An inline file growing past its inline area is
    // converted by the write that made it so; replay allocates no block,
    // so it converts only what has no content (else the DATA_WRITE of
    // block 0, if committed, brings the converted block).
    if (I(in).inline_data && size > kMaxInlineData) {
      const std::vector<uint8_t>& d = in->ipage->blk->inline_data;
      if (std::any_of(d.begin(), d.end(), [](uint8_t b) { return b != 0; })) co_return false;
      NodeBlock& ib = nodes_->MutInodeBlock(in);
      std::vector<uint8_t>().swap(ib.inline_data);
      ib.inode->inline_data = false;
    }
    MutI(in).size = size;
    co_return true;
  }
  // Shrinking restores metadata only, as a journal's replay does: the
  // blocks wholly past the new end are freed; the last page keeps what its
  // block holds (the zeroing of its tail was a data write the crash may
  // have lost).
  if (I(in).inline_data) {
    NodeBlock& b = nodes_->MutInodeBlock(in);
    b.inline_data.resize(std::min<uint64_t>(b.inline_data.size(), size));
    b.inode->size = size;
    co_return true;
  }
  const Errno e = co_await nodes_->TruncateBlocks(in, (size + kBlockSize - 1) / kBlockSize);
  if (e != Errno::kOk) co_return false;
  MutI(in).size = size;
  co_return true;
}

sim::Task<bool> JournalReplay::ApplyRecord(const JournalRecord& r) {
  switch (r.type) {
    case JournalRecordType::kCreate:
    case JournalRecordType::kMkdir: {
      const bool is_dir = r.type == JournalRecordType::kMkdir;
      Inode* dir0 = co_await ns_->GetInode(r.dir);
      if (!dir0 || !I(dir0).is_dir) co_return false;
      InodeRef dir(itab_, dir0);
      if (co_await ns_->DirLookup(dir0, r.name)) co_return false;
      if (!nat_->Valid(r.ino) || nat_->Get(r.ino).in_use || nat_->Get(r.ino).pending_free) co_return false;
      FsResult<Inode*> in = co_await ns_->NewInode(dir0, r.name, is_dir, r.ino);
      if (!in.ok()) co_return false;
      InodeRef created(itab_, in.value);
      const Errno e = co_await ns_->AddLink(dir0, r.name, r.ino, is_dir ? FileType::kDir : FileType::kRegular);
      if (e != Errno::kOk) {
        co_await ns_->DropLink(in.value);
        co_await host_->FreeInode(in.value);
        co_return false;
      }
      if (is_dir) ++MutI(dir0).links;
      co_return true;
    }
    case JournalRecordType::kUnlink:
    case JournalRecordType::kRmdir: {
      const bool is_dir = r.type == JournalRecordType::kRmdir;
      Inode* dir0 = co_await ns_->GetInode(r.dir);
      if (!dir0 || !I(dir0).is_dir) co_return false;
      InodeRef dir(itab_, dir0);
      std::optional<DentryLoc> loc = co_await ns_->DirLookup(dir0, r.name);
      if (!loc || loc->ino != r.ino || (loc->type == FileType::kDir) != is_dir) co_return false;
      Inode* t0 = co_await ns_->GetInode(r.ino);
      if (!t0) co_return false;
      InodeRef t(itab_, t0);
      if (is_dir && !co_await ns_->DirEmpty(t0)) co_return false;
      co_await ns_->RemoveLink(dir0, *loc);
      co_await ns_->DropLink(t0);
      if (is_dir) --MutI(dir0).links;
      if (t->unlinked && t->refs == 1) co_await host_->FreeInode(t0);
      co_return true;
    }
    case JournalRecordType::kLink: {
      Inode* dir0 = co_await ns_->GetInode(r.dir);
      if (!dir0 || !I(dir0).is_dir) co_return false;
      InodeRef dir(itab_, dir0);
      if (co_await ns_->DirLookup(dir0, r.name)) co_return false;
      Inode* s0 = co_await ns_->GetInode(r.ino);
      if (!s0 || I(s0).is_dir || s0->unlinked) co_return false;
      InodeRef src(itab_, s0);
      if (co_await ns_->AddLink(dir0, r.name, r.ino, FileType::kRegular) != Errno::kOk) co_return false;
      ++MutI(s0).links;
      co_return true;
    }
    case JournalRecordType::kRename: {
      Inode* df0 = co_await ns_->GetInode(r.dir);
      Inode* dt0 = co_await ns_->GetInode(r.dir2);
      if (!df0 || !dt0 || !I(df0).is_dir || !I(dt0).is_dir) co_return false;
      InodeRef df(itab_, df0), dt(itab_, dt0);
      std::optional<DentryLoc> lf = co_await ns_->DirLookup(df0, r.name);
      if (!lf || lf->ino != r.ino) co_return false;
      std::optional<DentryLoc> lt = co_await ns_->DirLookup(dt0, r.name2);
      if (lt && lt->ino == r.ino) co_return false;
      const bool src_dir = lf->type == FileType::kDir;
      Inode* s0 = co_await ns_->GetInode(r.ino);
      if (!s0) co_return false;
      InodeRef src(itab_, s0);
      InodeRef dst;
      if (lt) {
        Inode* d0 = co_await ns_->GetInode(lt->ino);
        if (!d0 || I(d0).is_dir != src_dir) co_return false;
        if (src_dir && !co_await ns_->DirEmpty(d0)) co_return false;
        dst = InodeRef(itab_, d0);
      }
      const FileType type = src_dir ? FileType::kDir : FileType::kRegular;
      if (lt) {
        co_await ns_->SetLink(dt0, *lt, r.ino, type);
        co_await ns_->DropLink(dst.get());
        if (dst->is_dir) --MutI(dt0).links;
      } else if (co_await ns_->AddLink(dt0, r.name2, r.ino, type) != Errno::kOk) {
        co_return false;
      }
      lf = co_await ns_->DirLookup(df0, r.name);
      CHECK(lf.has_value());
      co_await ns_->RemoveLink(df0, *lf);
      if (src_dir) {
        if (df0 != dt0) {
          std::optional<DentryLoc> dd = co_await ns_->DirLookup(s0, "..");
          CHECK(dd.has_value()) << "directory without '..'";
          co_await ns_->SetLink(s0, *dd, dt0->ino, FileType::kDir);
          --MutI(df0).links;
          ++MutI(dt0).links;
        }
        InodeFields& f = MutI(s0);
        f.pino = dt0->ino;
        f.name = r.name2;
      } else {
        MutI(s0).lost_pino = true;
        s0->cur_pino = dt0->ino;
        s0->cur_name = r.name2;
      }
      if (dst && dst->unlinked && dst->refs == 1) co_await host_->FreeInode(dst.get());
      co_return true;
    }
    case JournalRecordType::kSetattr:
    case JournalRecordType::kFsync: {
      Inode* in0 = co_await ns_->GetInode(r.ino);
      if (!in0 || I(in0).is_dir || in0->unlinked) co_return false;
      InodeRef in(itab_, in0);
      if (r.is_inline) {  // an fsync of an inline file: its data as then
        if (!I(in0).inline_data) co_return false;  // converted since (a later record has its blocks)
        NodeBlock& ib = nodes_->MutInodeBlock(in0);
        ib.inline_data.assign(r.name2.begin(), r.name2.end());
        ib.inode->size = r.size;
        co_return true;
      }
      co_return co_await Resize(in0, r.size);
    }
    case JournalRecordType::kDataWrite: {
      Inode* in0 = co_await ns_->GetInode(r.ino);
      if (!in0 || I(in0).is_dir || in0->unlinked) co_return false;
      InodeRef in(itab_, in0);
      // The block was written before the record (ordered mode); one another
      // record or the checkpoint already owns is left alone.
      if (!layout_.InMain(r.new_addr) || sm_->BlockValid(r.new_addr)) co_return false;
      // A block past i_size when it was written (an inline file converted
      // before the write that grows it) is no part of the file yet; the
      // size a later record carries brings the next one in.
      if (r.index * kBlockSize >= r.size) co_return false;
      if (I(in0).inline_data) {
        // The file left inline data for blocks after the checkpoint.
        NodeBlock& ib = nodes_->MutInodeBlock(in0);
        ib.inode->inline_data = false;
        ib.inline_data.clear();
      }
      DnodeRef dn = co_await nodes_->GetDnode(in0, r.index, /*alloc=*/true);
      if (!dn.np) co_return false;
      const BlockAddr src = dn.np->blk->Addr(dn.ofs);
      if (src == r.new_addr) co_return false;
      if (src == kNullAddr) {
        host_->AddRecoveredBlock();  // recovery proceeds even over the user limit
        ++MutI(in0).data_blocks;
      } else if (IsValidBlkaddr(src)) {
        sm_->Invalidate(src);
      }
      // The block holds the page as written then (after any truncate an
      // earlier record replayed into a cached page).
      dp_->Drop(in0, r.index);
      sm_->MarkValid(r.new_addr, Summary{dn.np->nid, static_cast<uint16_t>(dn.ofs), 0}, q_->now());
      NodeManager::Mut(dn.np).SetAddr(dn.ofs, r.new_addr);
      nodes_->SetDirty(dn.np, in0);
      // Writes only grow the size (truncates are records of their own).
      if (r.size > I(in0).size) MutI(in0).size = r.size;
      co_return true;
    }
  }
  co_return false;
}

}  // namespace fs::f2fs
