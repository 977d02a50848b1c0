// Recovery (recovery.h): orphans and roll-forward recovery at mount.
#include "fs/f2fs/recovery.h"

#include <map>
#include <optional>
#include <set>
#include <string>

#include <glog/logging.h>

namespace fs::f2fs {

Recovery::Recovery(const Deps& d)
    : layout_(*d.layout),
      q_(d.events),
      image_(d.image),
      cache_(d.cache),
      io_(d.io),
      sm_(d.sm),
      nat_(d.nat),
      nodes_(d.nodes),
      ns_(d.ns),
      itab_(d.inodes),
      dp_(d.pages),
      cpm_(d.cp),
      txm_(d.tx),
      i_rwsem_(d.i_rwsem),
      journal_(d.journal),
      erase_before_reuse_(d.erase_before_reuse),
      n_(d.counters),
      host_(d.host) {}

sim::Task<void> Recovery::RecoverOrphans(const std::vector<Nid>& orphans) {
  for (Nid ino : orphans) {
    Inode* in = co_await ns_->GetInode(ino);
    if (!in) continue;
    in->unlinked = true;
    itab_->AddOrphan(ino);
    vfs::SharedLock cp = co_await cpm_->LockOp();
    co_await host_->FreeInode(in);
  }
}

sim::Task<sim::Status> Recovery::RollForward() {
  struct Entry {
    BlockAddr last_fsync;
    BlockAddr last_dentry;
  };
  std::map<uint32_t, Entry> entries;
  std::set<uint32_t> created;  // inodes that did not exist at the checkpoint
  std::vector<BlockAddr> chain;
  std::set<uint32_t> visited;
  // ---- Pass 1 (find_fsync_dnodes): follow the warm node chain from the
  //      checkpoint's write position while the cp_ver matches.
  BlockAddr blk = sm_->NextAddr(LogType::kWarmNode);
  while (layout_.InMain(blk) && !visited.count(blk.v)) {
    co_await io_->ReadBlock(blk, Io::kNode);
    const BlockPtr ptr = image_->Read(blk);
    const auto* node = As<NodeBlock>(ptr, BlockData::Type::kNode);
    if (!node || node->footer.cp_ver != cpm_->version()) break;
    visited.insert(blk.v);
    chain.push_back(blk);
    if (node->master) {
      // A committed transaction: every node of its members up to here is
      // replayed (members that no longer exist are left out).
      for (Nid m : node->members) {
        const bool exists =
            nat_->Valid(m) && nat_->Get(m).in_use && (IsValidBlkaddr(nat_->Get(m).addr) || itab_->Find(m) != nullptr);
        if (exists) entries[m.v].last_fsync = blk;
      }
      blk = node->footer.next_blkaddr;
      continue;
    }
    if (node->footer.fsync && node->IsDnode()) {
      const Nid ino = node->footer.ino;
      auto it = entries.find(ino.v);
      if (it == entries.end()) {
        // An inode journal replay created has no address yet but exists.
        const bool exists = nat_->Valid(ino) && nat_->Get(ino).in_use &&
                            (IsValidBlkaddr(nat_->Get(ino).addr) || itab_->Find(ino) != nullptr);
        if (!exists) {
          if (!(node->IsInode() && node->footer.dent && nat_->Valid(ino))) {
            blk = node->footer.next_blkaddr;
            continue;
          }
          // A new file (f2fs_recover_inode_page): its nid is taken now, before
          // recovery allocates any other node.
          if (nat_->Get(ino).in_use || nat_->Get(ino).pending_free) {
            blk = node->footer.next_blkaddr;
            continue;
          }
          nat_->AllocSpecific(ino, ino);
          host_->AddRecoveredBlock();  // recovery proceeds even over the user limit
          auto nb = std::make_shared<NodeBlock>();
          nb->kind = NodeKind::kInode;
          nb->footer = node->footer;
          nb->footer.fsync = nb->footer.dent = false;
          nb->inode = node->inode;
          nb->inode->size = 0;
          nb->inode->data_blocks = 0;
          nb->inode->links = 1;
          nb->inode->i_nid = {};
          nb->inline_data.clear();
          NodePage* np = nodes_->Insert(ino, std::move(nb));
          auto in = std::make_unique<Inode>(q_, i_rwsem_);
          in->ino = ino;
          in->ipage = np;
          cache_->Pin(np);
          Inode* raw = itab_->Insert(std::move(in));
          nodes_->SetDirty(np, raw);
          host_->InodeCreated();
          created.insert(ino.v);
          n_.inodes->Inc();
        }
        it = entries.emplace(ino.v, Entry{}).first;
      }
      it->second.last_fsync = blk;
      if (node->IsInode() && node->footer.dent) it->second.last_dentry = blk;
    }
    blk = node->footer.next_blkaddr;
  }
  if (entries.empty()) {
    if (erase_before_reuse_) co_return host_->MoveLogsPastUncheckpointedWrites(/*all=*/false);
    co_return sim::Status::Ok();
  }
  // Blocks of the chain stay untouched until the recovery checkpoint.
  for (BlockAddr b : chain) sm_->ReserveSegment(layout_.SegOf(b));

  // ---- Pass 2 (recover_data): replay the chain in order.
  vfs::SharedLock cp = co_await cpm_->LockOp();
  std::set<uint32_t> touched;
  std::set<uint32_t> unlinked_new;  // recovered new files that could not be re-linked
  std::set<uint32_t> named;
  for (BlockAddr b : chain) {
    const BlockPtr ptr = image_->Read(b);
    const auto* node = As<NodeBlock>(ptr, BlockData::Type::kNode);
    CHECK(node != nullptr);
    if (node->master) {
      bool replayed = false;
      for (Nid m : node->members) {
        auto it = entries.find(m.v);
        if (it == entries.end() || it->second.last_fsync != b) continue;
        entries.erase(it);
        replayed = true;
      }
      if (replayed) txm_->CountRecovered();
      continue;
    }
    const Nid ino = node->footer.ino;
    auto it = entries.find(ino.v);
    if (it == entries.end()) continue;
    const Entry e = it->second;
    Inode* in0 = co_await ns_->GetInode(ino);
    if (!in0) {
      entries.erase(it);
      continue;
    }
    InodeRef ref(itab_, in0);
    Inode* in = ref.get();
    touched.insert(ino.v);
    if (node->IsInode()) {
      // recover_inode: size, times and inline data follow the fsynced inode.
      NodeBlock& ib = nodes_->MutInodeBlock(in);
      ib.inode->size = node->inode->size;
      ib.inode->mtime = node->inode->mtime;
      ib.inode->ctime = node->inode->ctime;
      if (node->inode->inline_data && ib.inode->inline_data) ib.inline_data = node->inline_data;
      if (!node->inode->inline_data && ib.inode->inline_data) {
        ib.inode->inline_data = false;
        ib.inline_data.clear();
      }
      // With a journal, an inode that existed before roll-forward (in the
      // checkpoint or created by replay) keeps the names the journal gave
      // it: its fsync-time name may have been renamed or unlinked since.
      if (e.last_dentry == b && !(journal_ && !created.count(in->ino.v))) {
        const Nid pino = node->inode->pino;
        const std::string name = node->inode->name;
        Inode* dir0 = co_await ns_->GetInode(pino);
        if (dir0 && I(dir0).is_dir) {
          InodeRef dir(itab_, dir0);
          std::optional<DentryLoc> loc = co_await ns_->DirLookup(dir0, name);
          bool relink = true;
          if (loc && loc->ino != in->ino) {
            if (loc->type == FileType::kDir) {
              // A directory holds the name (its rename was not checkpointed):
              // the directory stays and the file is not re-linked.
              relink = false;
            } else {
              // recover_dentry: another file holds the name; it loses the link.
              Inode* other0 = co_await ns_->GetInode(loc->ino);
              if (other0) {
                InodeRef other(itab_, other0);
                co_await ns_->RemoveLink(dir0, *loc);
                co_await ns_->DropLink(other0);
                if (other0->unlinked && other0->refs == 1) co_await host_->FreeInode(other0);
              }
              loc.reset();
            }
          }
          if (relink && !loc) {
            const Errno err = co_await ns_->AddLink(dir0, name, in->ino, FileType::kRegular);
            if (err == Errno::kOk) n_.dentries->Inc();
            else relink = false;
          }
          if (relink) {
            named.insert(in->ino.v);
            unlinked_new.erase(in->ino.v);
          } else if (created.count(in->ino.v) && !named.count(in->ino.v)) {
            unlinked_new.insert(in->ino.v);
          }
        } else if (created.count(in->ino.v) && !named.count(in->ino.v)) {
          unlinked_new.insert(in->ino.v);
        }
      }
    }
    // do_recover_data: the dnode's addresses, by file offset.
    if (!(node->IsInode() && node->inode->inline_data) && !I(in).inline_data) {
      const uint64_t start = StartBlockOfDnode(node->footer.ofs);
      const uint32_t n = node->AddrSlots();
      for (uint32_t s = 0; s < n; ++s) {
        const BlockAddr dest = node->Addr(s);
        const uint64_t index = start + s;
        DnodeRef dn;
        if (!nodes_->TryGetDnodeCached(in, index, &dn) || (!dn.np && dest != kNullAddr))
          dn = co_await nodes_->GetDnode(in, index, dest != kNullAddr);
        if (!dn.np) continue;
        const BlockAddr src = dn.np->blk->Addr(dn.ofs);
        if (src == dest) continue;
        if (dest == kNullAddr) {
          nodes_->ReleaseDataAddr(in, dn.np, dn.ofs);
          continue;
        }
        if (dest != kNewAddr && (!layout_.InMain(dest) || sm_->BlockValid(dest))) continue;
        if (src == kNullAddr) {
          host_->AddRecoveredBlock();
          ++nodes_->MutI(in).data_blocks;
        } else if (IsValidBlkaddr(src)) {
          sm_->Invalidate(src);
        }
        // A page journal replay left cached is older than the fsynced block.
        if (journal_) dp_->Drop(in, index);
        if (dest != kNewAddr)
          sm_->MarkValid(dest, Summary{dn.np->nid, static_cast<uint16_t>(dn.ofs), 0}, q_->now());
        NodeManager::Mut(dn.np).SetAddr(dn.ofs, dest);
        nodes_->SetDirty(dn.np, in);
      }
    }
    n_.dnodes->Inc();
    if (e.last_fsync == b) entries.erase(ino.v);
  }
  if (txm_->stats().recovered.value() > 0) txm_->RegisterStats();
  // Files left without a name are released like orphans.
  for (uint32_t ino : unlinked_new) {
    Inode* in = itab_->Find(Nid{ino});
    if (!in || in->unlinked || I(in).links == 0) continue;
    touched.erase(ino);
    co_await ns_->DropLink(in);
    if (in->unlinked && in->refs == 0) co_await host_->FreeInode(in);
  }
  // Blocks beyond the recovered size are dropped.
  for (uint32_t ino : touched) {
    Inode* in = itab_->Find(Nid{ino});
    if (!in || I(in).inline_data) continue;
    InodeRef ref(itab_, in);
    co_await nodes_->TruncateBlocks(in, (I(in).size + kBlockSize - 1) / kBlockSize);
  }
  cp.Release();
  // No log may overwrite what recovery adopted before the checkpoint.
  if (erase_before_reuse_) co_return host_->MoveLogsPastUncheckpointedWrites(/*all=*/true);
  sm_->MoveAllLogsToNewSegments();
  co_return sim::Status::Ok();
}

}  // namespace fs::f2fs
