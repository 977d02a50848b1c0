#include "fs/f2fs/namespace_manager.h"

#include <algorithm>

#include <glog/logging.h>

#include "fs/vfs/path.h"

namespace fs::f2fs {

namespace {

uint32_t DirBuckets(uint32_t level) {
  return level < kMaxDirHashDepth / 2 ? 1u << level : 1u << (kMaxDirHashDepth / 2 - 1);
}
uint32_t BucketBlocks(uint32_t level) { return level < kMaxDirHashDepth / 2 ? 2 : 4; }
uint64_t DirBlockIndex(uint32_t level, uint32_t bucket) {
  uint64_t bidx = 0;
  for (uint32_t i = 0; i < level; ++i) bidx += uint64_t{DirBuckets(i)} * BucketBlocks(i);
  return bidx + uint64_t{bucket} * BucketBlocks(level);
}

bool HasExtension(std::string_view name, const std::vector<std::string>& exts) {
  // A match needs a '.' before the extension: a name without one (most
  // names a benchmark creates) skips the list.
  if (name.find('.') == std::string_view::npos) return false;
  for (const std::string& e : exts) {
    if (name.size() > e.size() + 1 && name[name.size() - e.size() - 1] == '.' &&
        name.substr(name.size() - e.size()) == e)
      return true;
  }
  return false;
}

}  // namespace

NamespaceManager::NamespaceManager(const Deps& d)
    : cfg_(*d.cfg),
      q_(d.events),
      image_(d.image),
      cache_(d.cache),
      io_(d.io),
      nodes_(d.nodes),
      itab_(d.inodes),
      i_rwsem_(d.i_rwsem),
      host_(d.host) {}

sim::Task<Inode*> NamespaceManager::GetInode(Nid ino) {
  if (Inode* in = itab_->Find(ino)) co_return in;
  if (!nodes_->nat().Valid(ino) || !nodes_->nat().Get(ino).in_use) co_return nullptr;
  NodePage* np = co_await nodes_->Load(ino);
  if (Inode* in = itab_->Find(ino)) co_return in;
  if (!np || !np->blk->IsInode()) co_return nullptr;
  auto in = std::make_unique<Inode>(q_, i_rwsem_);
  in->ino = ino;
  in->ipage = np;
  cache_->Pin(np);
  co_return itab_->Insert(std::move(in));
}

void NamespaceManager::TouchDir(Inode* dir) {
  InodeFields& f = MutI(dir);
  f.mtime = q_->now();
  f.ctime = q_->now();
  itab_->MarkTransDir(dir);
}

// ---- Lookup.

sim::Task<ParentRef> NamespaceManager::LookupParent(std::string_view path) {
  ParentRef r;
  vfs::ParsedPath pp = vfs::ParsePath(path);
  if (pp.err != Errno::kOk) {
    r.err = pp.err;
    co_return r;
  }
  // "a/b/." names a/b itself, which must be a directory.
  if (pp.last == "." && !pp.dirs.empty()) {
    pp.last = pp.dirs.back();
    pp.dirs.pop_back();
    pp.dir_required = true;
  }
  r.dir_required = pp.dir_required;
  // GetInode's first step (the table) runs inline; only an inode not in
  // memory makes the coroutine call (a frame saved per path component).
  Inode* root = itab_->Find(kRootIno);
  if (root == nullptr) root = co_await GetInode(kRootIno);
  CHECK(root != nullptr) << "root inode missing";
  InodeRef cur(itab_, root);
  if (pp.is_root || pp.last == ".") {
    r.dir = std::move(cur);
    r.name = "";
    co_return r;
  }
  for (const std::string_view c : pp.dirs) {
    if (vfs::CheckName(c) != Errno::kOk) {
      r.err = Errno::kNameTooLong;
      co_return r;
    }
    Nid next;
    if (c == "..") {
      next = I(cur.get()).pino.v ? I(cur.get()).pino : kRootIno;
      if (cur->ino == kRootIno) next = kRootIno;
    } else {
      std::optional<DentryLoc> loc;
      {
        Inode* d = cur.get();
        co_await d->lock.LockShared();
        vfs::SharedLock g(&d->lock);
        loc = co_await DirLookup(d, c);
      }
      if (!loc) {
        r.err = Errno::kNoEnt;
        co_return r;
      }
      if (loc->type != FileType::kDir) {
        r.err = Errno::kNotDir;
        co_return r;
      }
      next = loc->ino;
    }
    Inode* n = itab_->Find(next);
    if (n == nullptr) n = co_await GetInode(next);
    if (!n) {
      r.err = Errno::kNoEnt;
      co_return r;
    }
    cur = InodeRef(itab_, n);
  }
  if (vfs::CheckName(pp.last) != Errno::kOk) {
    r.err = Errno::kNameTooLong;
    co_return r;
  }
  if (pp.last == "..") {
    r.err = Errno::kInval;
    co_return r;
  }
  r.dir = std::move(cur);
  r.name = std::string(pp.last);
  co_return r;
}

sim::Task<FsResult<Nid>> NamespaceManager::LookupPath(std::string_view path) {
  ParentRef p = co_await LookupParent(path);
  if (p.err != Errno::kOk) co_return FsResult<Nid>{Nid{}, p.err};
  if (p.name.empty()) co_return FsResult<Nid>{kRootIno, Errno::kOk};
  Inode* d = p.dir.get();
  if (!d->is_dir) co_return FsResult<Nid>{Nid{}, Errno::kNotDir};
  co_await d->lock.LockShared();
  vfs::SharedLock g(&d->lock);
  std::optional<DentryLoc> loc = co_await DirLookup(d, p.name);
  if (!loc) co_return FsResult<Nid>{Nid{}, Errno::kNoEnt};
  if (p.dir_required && loc->type != FileType::kDir) co_return FsResult<Nid>{Nid{}, Errno::kNotDir};
  co_return FsResult<Nid>{loc->ino, Errno::kOk};
}

sim::Task<DataPage*> NamespaceManager::GetDentryPage(Inode* dir, uint64_t index, bool create, Errno* err) {
  if (DataPage* p = host_->FindDataPage(dir, index)) co_return p;
  DnodeRef dn;
  if (!nodes_->TryGetDnodeCached(dir, index, &dn) || (!dn.np && create)) dn = co_await nodes_->GetDnode(dir, index, create);
  if (DataPage* p = host_->FindDataPage(dir, index)) co_return p;
  if (!dn.np) {
    if (create && err) *err = dn.err == Errno::kOk ? Errno::kNoSpc : dn.err;
    co_return nullptr;
  }
  const BlockAddr a = dn.np->blk->Addr(dn.ofs);
  if (a == kNullAddr) {
    if (!create) co_return nullptr;
    if (!host_->IncValidBlocks(1)) {
      if (err) *err = Errno::kNoSpc;
      co_return nullptr;
    }
    NodeManager::Mut(dn.np).SetAddr(dn.ofs, kNewAddr);
    nodes_->SetDirty(dn.np, dir);
    InodeFields& f = MutI(dir);
    ++f.data_blocks;
    if (f.size < (index + 1) * kBlockSize) f.size = (index + 1) * kBlockSize;
    DataPage* p = host_->NewDataPage(dir, index);
    p->dents = std::make_shared<DentryBlock>();
    host_->SetDataPageDirty(dir, p);
    co_return p;
  }
  if (a == kNewAddr) {
    DataPage* p = host_->NewDataPage(dir, index);
    p->dents = std::make_shared<DentryBlock>();
    co_return p;
  }
  co_await io_->ReadBlock(a, Io::kDentry);
  if (DataPage* p = host_->FindDataPage(dir, index)) co_return p;
  const BlockPtr& c = image_->Read(a);
  CHECK(c && c->type == BlockData::Type::kDentry) << "dentry block " << a.v << " of dir " << dir->ino.v
                                                  << " is not a dentry block";
  DataPage* p = host_->NewDataPage(dir, index);
  p->dents = std::const_pointer_cast<DentryBlock>(std::static_pointer_cast<const DentryBlock>(c));
  co_return p;
}

sim::Task<std::optional<DentryLoc>> NamespaceManager::DirLookup(Inode* dir, std::string_view name) {
  const uint32_t hash = DentryHash(name);
  if (I(dir).inline_dentry) {
    co_await host_->Cpu(cfg_.cpu.dentry_block_search);
    const DentryArray& d = *dir->ipage->blk->inline_dents;
    const int s = d.Find(name, hash);
    if (s < 0) co_return std::nullopt;
    co_return DentryLoc{d.dentries[s].ino, d.dentries[s].type, -1, s};
  }
  const uint32_t depth = I(dir).current_depth;
  int64_t searched = 0;
  std::optional<DentryLoc> found;
  for (uint32_t level = 0; level < depth && !found; ++level) {
    const uint32_t nb = DirBuckets(level), nblk = BucketBlocks(level);
    const uint64_t bidx = DirBlockIndex(level, hash % nb);
    for (uint64_t b = bidx; b < bidx + nblk; ++b) {
      // A cached block without a coroutine call (GetDentryPage's own first step).
      DataPage* p = host_->FindDataPage(dir, b);
      if (!p) p = co_await GetDentryPage(dir, b, false, nullptr);
      if (!p) continue;
      ++searched;
      const int s = p->dents->Find(name, hash);
      if (s >= 0) {
        found = DentryLoc{p->dents->d.dentries[s].ino, p->dents->d.dentries[s].type, static_cast<int64_t>(b), s};
        break;
      }
    }
  }
  co_await host_->Cpu(cfg_.cpu.dentry_block_search * std::max<int64_t>(1, searched));
  co_return found;
}

sim::Task<Errno> NamespaceManager::ConvertInlineDir(Inode* dir) {
  auto blk = std::make_shared<DentryBlock>();
  const DentryArray& src = *dir->ipage->blk->inline_dents;
  src.ForEach([&](uint32_t s, const Dentry& d) {
    blk->Insert(static_cast<int>(s), src.NameAt(s), src.hashes[s], d.ino, d.type);
  });
  // Block 0 is i_addr[0] of the inode.
  if (!host_->IncValidBlocks(1)) co_return Errno::kNoSpc;
  NodeBlock& ib = nodes_->MutInodeBlock(dir);
  ib.SetAddr(0, kNewAddr);
  ib.inline_dents.reset();
  ib.inode->inline_dentry = false;
  ib.inode->current_depth = 1;
  ++ib.inode->data_blocks;
  if (ib.inode->size < kBlockSize) ib.inode->size = kBlockSize;
  host_->DropDataPage(dir, 0);
  DataPage* p = host_->NewDataPage(dir, 0);
  p->dents = std::move(blk);
  host_->SetDataPageDirty(dir, p);
  co_return Errno::kOk;
}

sim::Task<Errno> NamespaceManager::AddLink(Inode* dir, std::string_view name, Nid ino, FileType type) {
  const uint32_t hash = DentryHash(name);
  const uint32_t slots = DentryArray::SlotsFor(name.size());
  itab_->MarkTransDir(dir);
  if (I(dir).inline_dentry) {
    co_await host_->Cpu(cfg_.cpu.dentry_block_search);
    const int s = dir->ipage->blk->inline_dents->FindRoom(slots);
    if (s >= 0) {
      nodes_->MutInodeBlock(dir).inline_dents->Insert(s, name, hash, ino, type);
      TouchDir(dir);
      co_return Errno::kOk;
    }
    const Errno e = co_await ConvertInlineDir(dir);
    if (e != Errno::kOk) co_return e;
  }
  int64_t searched = 0;
  for (uint32_t level = 0;; ++level) {
    if (level >= kMaxDirHashDepth) co_return Errno::kNoSpc;
    if (level == I(dir).current_depth) MutI(dir).current_depth = level + 1;
    const uint32_t nb = DirBuckets(level), nblk = BucketBlocks(level);
    const uint64_t bidx = DirBlockIndex(level, hash % nb);
    for (uint64_t b = bidx; b < bidx + nblk; ++b) {
      Errno err = Errno::kOk;
      // A cached block without a coroutine call (GetDentryPage's own first step).
      DataPage* p = host_->FindDataPage(dir, b);
      if (!p) p = co_await GetDentryPage(dir, b, true, &err);
      if (!p) co_return err == Errno::kOk ? Errno::kNoSpc : err;
      ++searched;
      const int s = p->dents->d.FindRoom(slots);
      if (s < 0) continue;
      host_->MutDents(p).Insert(s, name, hash, ino, type);
      host_->SetDataPageDirty(dir, p);
      TouchDir(dir);
      co_await host_->Cpu(cfg_.cpu.dentry_block_search * searched);
      co_return Errno::kOk;
    }
  }
}

sim::Task<Errno> NamespaceManager::RemoveLink(Inode* dir, const DentryLoc& loc) {
  itab_->MarkTransDir(dir);
  if (loc.block < 0) {
    nodes_->MutInodeBlock(dir).inline_dents->Remove(loc.slot);
    TouchDir(dir);
    co_return Errno::kOk;
  }
  DataPage* p = co_await GetDentryPage(dir, static_cast<uint64_t>(loc.block), false, nullptr);
  CHECK(p != nullptr) << "dentry block " << loc.block << " of dir " << dir->ino.v << " vanished";
  host_->MutDents(p).Remove(loc.slot);
  if (loc.block != 0 && p->dents->d.Empty()) {
    // An empty dentry block is punched (f2fs_delete_entry).
    const uint64_t idx = static_cast<uint64_t>(loc.block);
    host_->DropDataPage(dir, idx);
    DnodeRef dn;
    if (!nodes_->TryGetDnodeCached(dir, idx, &dn)) dn = co_await nodes_->GetDnode(dir, idx, false);
    if (dn.np) nodes_->ReleaseDataAddr(dir, dn.np, dn.ofs);
  } else {
    host_->SetDataPageDirty(dir, p);
  }
  TouchDir(dir);
  co_return Errno::kOk;
}

sim::Task<Errno> NamespaceManager::SetLink(Inode* dir, const DentryLoc& loc, Nid ino, FileType type) {
  itab_->MarkTransDir(dir);
  if (loc.block < 0) {
    Dentry& d = nodes_->MutInodeBlock(dir).inline_dents->dentries[loc.slot];
    d.ino = ino;
    d.type = type;
    TouchDir(dir);
    co_return Errno::kOk;
  }
  DataPage* p = co_await GetDentryPage(dir, static_cast<uint64_t>(loc.block), false, nullptr);
  CHECK(p != nullptr);
  Dentry& d = host_->MutDents(p).d.dentries[loc.slot];
  d.ino = ino;
  d.type = type;
  host_->SetDataPageDirty(dir, p);
  TouchDir(dir);
  co_return Errno::kOk;
}

sim::Task<FsResult<Inode*>> NamespaceManager::NewInode(Inode* dir, std::string_view name, bool is_dir, Nid want) {
  if (!host_->IncValidBlocks(1)) co_return FsResult<Inode*>{nullptr, Errno::kNoSpc};
  std::optional<Nid> nid;
  if (want != kNullNid) {
    nodes_->nat().AllocSpecific(want, want);
    nid = want;
  } else {
    nid = nodes_->nat().AllocNid(kNullNid);
  }
  if (!nid) {
    host_->DecValidBlocks(1);
    co_return FsResult<Inode*>{nullptr, Errno::kNoSpc};
  }
  auto blk = std::make_shared<NodeBlock>();
  blk->kind = NodeKind::kInode;
  blk->footer.nid = *nid;
  blk->footer.ino = *nid;
  blk->footer.ofs = 0;
  blk->footer.cold = !is_dir;
  InodeFields f;
  f.is_dir = is_dir;
  f.links = is_dir ? 2 : 1;
  f.pino = dir->ino;
  f.name = std::string(name);
  f.mtime = f.ctime = q_->now();
  f.generation = nid->v;
  if (is_dir) {
    f.inline_dentry = cfg_.inline_dentry;
  } else {
    f.inline_data = cfg_.inline_data;
    f.cold = HasExtension(name, cfg_.mkfs.cold_extensions);
    f.hot = !f.cold && HasExtension(name, cfg_.mkfs.hot_extensions);
  }
  blk->inode = std::move(f);
  if (is_dir && cfg_.inline_dentry) {
    blk->inline_dents.emplace(kInlineDentrySlots);
    blk->inline_dents->Insert(0, ".", 0, *nid, FileType::kDir);
    blk->inline_dents->Insert(1, "..", 0, dir->ino, FileType::kDir);
  }
  NodePage* np = nodes_->Insert(*nid, std::move(blk));
  auto in = std::make_unique<Inode>(q_, i_rwsem_);
  in->ino = *nid;
  in->ipage = np;
  cache_->Pin(np);
  Inode* raw = itab_->Insert(std::move(in));
  nodes_->SetDirty(np, raw);
  host_->InodeCreated();
  if (is_dir && !cfg_.inline_dentry) {
    Errno err = Errno::kOk;
    DataPage* p = co_await GetDentryPage(raw, 0, true, &err);
    if (!p) co_return FsResult<Inode*>{nullptr, err};
    DentryBlock& d = host_->MutDents(p);
    d.Insert(0, ".", 0, *nid, FileType::kDir);
    d.Insert(1, "..", 0, dir->ino, FileType::kDir);
    MutI(raw).current_depth = 1;
  }
  co_return FsResult<Inode*>{raw, Errno::kOk};
}

sim::Task<bool> NamespaceManager::DirEmpty(Inode* dir) {
  std::vector<std::pair<std::string, Dentry>> l = co_await ListDir(dir);
  co_return l.empty();
}

sim::Task<std::vector<std::pair<std::string, Dentry>>> NamespaceManager::ListDir(Inode* dir) {
  std::vector<std::pair<std::string, Dentry>> out;
  auto take = [&](const DentryArray& d) {
    d.ForEach([&](uint32_t s, const Dentry& e) {
      const std::string_view n = d.NameAt(s);
      if (n == "." || n == "..") return;
      out.emplace_back(std::string(n), e);
    });
  };
  if (I(dir).inline_dentry) {
    take(*dir->ipage->blk->inline_dents);
    co_await host_->Cpu(cfg_.cpu.dentry_block_search);
    co_return out;
  }
  const uint64_t nblocks = (I(dir).size + kBlockSize - 1) / kBlockSize;
  int64_t searched = 0;
  for (uint64_t b = 0; b < nblocks; ++b) {
    DataPage* p = co_await GetDentryPage(dir, b, false, nullptr);
    if (!p) continue;
    ++searched;
    take(p->dents->d);
  }
  co_await host_->Cpu(cfg_.cpu.dentry_block_search * std::max<int64_t>(1, searched));
  co_return out;
}

sim::Task<Errno> NamespaceManager::DropLink(Inode* inode) {
  InodeFields& f = MutI(inode);
  f.ctime = q_->now();
  if (f.is_dir) {
    f.links = 0;
  } else {
    CHECK_GT(f.links, 0u);
    --f.links;
  }
  if (f.links == 0) {
    inode->unlinked = true;
    itab_->AddOrphan(inode->ino);
  }
  co_return Errno::kOk;
}

}  // namespace fs::f2fs
