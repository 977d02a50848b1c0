// Namei (namei.h): the namespace calls.
#include "fs/f2fs/namei.h"

#include <optional>
#include <utility>

#include <glog/logging.h>

namespace fs::f2fs {

Namei::Namei(const Deps& d)
    : q_(d.events),
      ns_(d.ns),
      nodes_(d.nodes),
      itab_(d.inodes),
      cpm_(d.cp),
      durability_(d.durability),
      jcm_(d.committer),
      host_(d.host) {}

sim::Task<FsResult<InodeRef>> Namei::OpenInode(std::string_view path, uint32_t flags, ParentRef* parent) {
  const bool want_write = (flags & (kWrOnly | kRdWr)) != 0;
  if (flags & kCreat) co_await host_->BalanceFs();
  ParentRef& p = *parent;
  p = co_await ns_->LookupParent(path);
  if (p.err != Errno::kOk) co_return FsResult<InodeRef>{InodeRef(), p.err};
  InodeRef target;
  if (p.name.empty()) {
    if ((flags & kCreat) && (flags & kExcl)) co_return FsResult<InodeRef>{InodeRef(), Errno::kExist};
    if (want_write) co_return FsResult<InodeRef>{InodeRef(), Errno::kIsDir};
    target = InodeRef(itab_, p.dir.get());
  } else {
    Inode* dir = p.dir.get();
    if (!dir->is_dir) co_return FsResult<InodeRef>{InodeRef(), Errno::kNotDir};
    co_await dir->lock.LockExclusive();
    vfs::ExclusiveLock g(&dir->lock);
    std::optional<DentryLoc> loc = co_await ns_->DirLookup(dir, p.name);
    if (loc && p.dir_required && loc->type != FileType::kDir) co_return FsResult<InodeRef>{InodeRef(), Errno::kNotDir};
    if (!loc) {
      if (!(flags & kCreat)) co_return FsResult<InodeRef>{InodeRef(), Errno::kNoEnt};
      if (p.dir_required) co_return FsResult<InodeRef>{InodeRef(), Errno::kIsDir};  // O_CREAT of "name/"
      vfs::SharedLock cp = co_await cpm_->LockOp();
      FsResult<Inode*> r = co_await ns_->NewInode(dir, p.name, /*is_dir=*/false);
      if (!r.ok()) co_return FsResult<InodeRef>{InodeRef(), r.err};
      InodeRef created(itab_, r.value);
      const Errno e = co_await ns_->AddLink(dir, p.name, r.value->ino, FileType::kRegular);
      if (e != Errno::kOk) {
        co_await ns_->DropLink(r.value);
        co_await host_->FreeInode(r.value);
        co_return FsResult<InodeRef>{InodeRef(), e};
      }
      durability_->OnCreate(dir->ino, r.value->ino, p.name, /*is_dir=*/false);
      if (jcm_) co_await jcm_->Cpu();
      target = std::move(created);
    } else {
      if ((flags & kCreat) && (flags & kExcl)) co_return FsResult<InodeRef>{InodeRef(), Errno::kExist};
      Inode* in = itab_->Find(loc->ino);  // GetInode's first step, inline
      if (in == nullptr) in = co_await ns_->GetInode(loc->ino);
      CHECK(in != nullptr) << "dentry to a missing inode " << loc->ino.v;
      target = InodeRef(itab_, in);
      if (in->is_dir && want_write) co_return FsResult<InodeRef>{InodeRef(), Errno::kIsDir};
    }
  }
  co_return FsResult<InodeRef>{std::move(target), Errno::kOk};
}

sim::Task<FsStatus> Namei::Mkdir(std::string_view path) {
  co_await host_->BalanceFs();
  ParentRef p = co_await ns_->LookupParent(path);
  if (p.err != Errno::kOk) co_return FsStatus{false, p.err};
  if (p.name.empty()) co_return FsStatus{false, Errno::kExist};
  Inode* dir = p.dir.get();
  if (!dir->is_dir) co_return FsStatus{false, Errno::kNotDir};
  co_await dir->lock.LockExclusive();
  vfs::ExclusiveLock g(&dir->lock);
  if (co_await ns_->DirLookup(dir, p.name)) co_return FsStatus{false, Errno::kExist};
  vfs::SharedLock cp = co_await cpm_->LockOp();
  FsResult<Inode*> r = co_await ns_->NewInode(dir, p.name, /*is_dir=*/true);
  if (!r.ok()) co_return FsStatus{false, r.err};
  InodeRef created(itab_, r.value);
  const Errno e = co_await ns_->AddLink(dir, p.name, r.value->ino, FileType::kDir);
  if (e != Errno::kOk) {
    co_await ns_->DropLink(r.value);
    co_await host_->FreeInode(r.value);
    co_return FsStatus{false, e};
  }
  ++MutI(dir).links;
  durability_->OnCreate(dir->ino, r.value->ino, p.name, /*is_dir=*/true);
  if (jcm_) co_await jcm_->Cpu();
  co_return FsStatus{true, Errno::kOk};
}

sim::Task<FsStatus> Namei::Unlink(std::string_view path) { return RemoveName(path, /*is_dir=*/false); }

sim::Task<FsStatus> Namei::Rmdir(std::string_view path) { return RemoveName(path, /*is_dir=*/true); }

sim::Task<FsStatus> Namei::RemoveName(std::string_view path, bool is_dir) {
  co_await host_->BalanceFs();
  ParentRef p = co_await ns_->LookupParent(path);
  if (p.err != Errno::kOk) co_return FsStatus{false, p.err};
  if (p.name.empty()) co_return FsStatus{false, is_dir ? Errno::kInval : Errno::kIsDir};
  Inode* dir = p.dir.get();
  if (!dir->is_dir) co_return FsStatus{false, Errno::kNotDir};
  co_await dir->lock.LockExclusive();
  vfs::ExclusiveLock g(&dir->lock);
  std::optional<DentryLoc> loc = co_await ns_->DirLookup(dir, p.name);
  if (!loc) co_return FsStatus{false, Errno::kNoEnt};
  if (is_dir) {
    if (loc->type != FileType::kDir) co_return FsStatus{false, Errno::kNotDir};
  } else {
    if (loc->type == FileType::kDir) co_return FsStatus{false, Errno::kIsDir};
    if (p.dir_required) co_return FsStatus{false, Errno::kNotDir};  // "file/"
  }
  Inode* t0 = itab_->Find(loc->ino);  // GetInode's first step, inline
  if (t0 == nullptr) t0 = co_await ns_->GetInode(loc->ino);
  CHECK(t0 != nullptr);
  InodeRef t(itab_, t0);
  co_await t->lock.LockExclusive();
  vfs::ExclusiveLock tg(&t->lock);
  if (is_dir && !co_await ns_->DirEmpty(t.get())) co_return FsStatus{false, Errno::kNotEmpty};
  vfs::SharedLock cp = co_await cpm_->LockOp();
  loc = co_await ns_->DirLookup(dir, p.name);
  CHECK(loc.has_value());
  co_await ns_->RemoveLink(dir, *loc);
  co_await ns_->DropLink(t.get());
  if (is_dir) --MutI(dir).links;
  durability_->OnUnlink(dir->ino, t->ino, p.name, is_dir);
  if (jcm_) co_await jcm_->Cpu();
  if (t->unlinked && t->refs == 1) co_await host_->FreeInode(t.get());
  co_return FsStatus{true, Errno::kOk};
}

sim::Task<FsStatus> Namei::Rename(std::string_view from, std::string_view to) {
  co_await host_->BalanceFs();
  ParentRef pf = co_await ns_->LookupParent(from);
  if (pf.err != Errno::kOk) co_return FsStatus{false, pf.err};
  ParentRef pt = co_await ns_->LookupParent(to);
  if (pt.err != Errno::kOk) co_return FsStatus{false, pt.err};
  if (pf.name.empty() || pt.name.empty()) co_return FsStatus{false, Errno::kInval};
  Inode* df = pf.dir.get();
  Inode* dt = pt.dir.get();
  if (!df->is_dir || !dt->is_dir) co_return FsStatus{false, Errno::kNotDir};
  // Lock the parents in inode order.
  Inode* first = df->ino.v <= dt->ino.v ? df : dt;
  Inode* second = first == df ? dt : df;
  co_await first->lock.LockExclusive();
  vfs::ExclusiveLock g1(&first->lock);
  vfs::ExclusiveLock g2;
  if (second != first) {
    co_await second->lock.LockExclusive();
    g2 = vfs::ExclusiveLock(&second->lock);
  }
  std::optional<DentryLoc> lf = co_await ns_->DirLookup(df, pf.name);
  if (!lf) co_return FsStatus{false, Errno::kNoEnt};
  std::optional<DentryLoc> lt = co_await ns_->DirLookup(dt, pt.name);
  if (lt && lt->ino == lf->ino) co_return FsStatus{true, Errno::kOk};
  const bool src_dir = lf->type == FileType::kDir;
  Inode* s0 = co_await ns_->GetInode(lf->ino);
  CHECK(s0 != nullptr);
  InodeRef src(itab_, s0);
  if (src_dir) {
    // The target directory must not be the source or inside it.
    Nid cur = dt->ino;
    while (true) {
      if (cur == src->ino) co_return FsStatus{false, Errno::kInval};
      if (cur == kRootIno) break;
      Inode* c = co_await ns_->GetInode(cur);
      CHECK(c != nullptr);
      cur = I(c).pino;
    }
  }
  InodeRef dst;
  if (lt) {
    Inode* d0 = co_await ns_->GetInode(lt->ino);
    CHECK(d0 != nullptr);
    dst = InodeRef(itab_, d0);
    const bool dst_dir = d0->is_dir;
    if (src_dir && !dst_dir) co_return FsStatus{false, Errno::kNotDir};
    if (!src_dir && dst_dir) co_return FsStatus{false, Errno::kIsDir};
    if (dst_dir && !co_await ns_->DirEmpty(d0)) co_return FsStatus{false, Errno::kNotEmpty};
  }
  vfs::SharedLock cp = co_await cpm_->LockOp();
  const FileType type = src_dir ? FileType::kDir : FileType::kRegular;
  if (lt) {
    lt = co_await ns_->DirLookup(dt, pt.name);
    CHECK(lt.has_value());
    co_await ns_->SetLink(dt, *lt, src->ino, type);
    co_await ns_->DropLink(dst.get());
    if (dst->is_dir) --MutI(dt).links;
  } else {
    const Errno e = co_await ns_->AddLink(dt, pt.name, src->ino, type);
    if (e != Errno::kOk) co_return FsStatus{false, e};
  }
  lf = co_await ns_->DirLookup(df, pf.name);
  CHECK(lf.has_value());
  co_await ns_->RemoveLink(df, *lf);
  if (src_dir) {
    if (df != dt) {
      std::optional<DentryLoc> dd = co_await ns_->DirLookup(src.get(), "..");
      CHECK(dd.has_value()) << "directory without '..'";
      co_await ns_->SetLink(src.get(), *dd, dt->ino, FileType::kDir);
      --MutI(df).links;
      ++MutI(dt).links;
    }
    InodeFields& f = MutI(src.get());
    f.pino = dt->ino;
    f.name = pt.name;
  } else {
    InodeFields& f = MutI(src.get());
    f.lost_pino = true;
    src->cur_pino = dt->ino;
    src->cur_name = pt.name;
  }
  MutI(src.get()).ctime = q_->now();
  durability_->OnRename(df->ino, pf.name, dt->ino, pt.name, src->ino, dst ? dst->ino : kNullNid);
  if (jcm_) co_await jcm_->Cpu();
  if (dst && dst->unlinked && dst->refs == 1) co_await host_->FreeInode(dst.get());
  co_return FsStatus{true, Errno::kOk};
}

// f2fs_link: the new dentry (f2fs_add_link with FI_INC_LINK) and i_nlink + 1
// under the parent's and the file's locks and cp_rwsem. The inode keeps its
// i_pino/i_name (the first name); an fsync of a file with more than one
// link writes a checkpoint (need_do_checkpoint: CP_HARDLINK).
sim::Task<FsStatus> Namei::Link(std::string_view existing, std::string_view new_path) {
  co_await host_->BalanceFs();
  // Linux's order: the old path, then the new name's parent and the name
  // itself, and only then whether the old one is a directory (vfs_link).
  ParentRef ps = co_await ns_->LookupParent(existing);
  if (ps.err != Errno::kOk) co_return FsStatus{false, ps.err};
  std::optional<DentryLoc> ls;
  bool src_dir = ps.name.empty();  // "/"
  if (!src_dir) {
    if (!ps.dir->is_dir) co_return FsStatus{false, Errno::kNotDir};
    co_await ps.dir->lock.LockShared();
    vfs::SharedLock sg(&ps.dir->lock);
    ls = co_await ns_->DirLookup(ps.dir.get(), ps.name);
    if (!ls) co_return FsStatus{false, Errno::kNoEnt};
    src_dir = ls->type == FileType::kDir;
    if (!src_dir && ps.dir_required) co_return FsStatus{false, Errno::kNotDir};  // "file/"
  }
  ParentRef p = co_await ns_->LookupParent(new_path);
  if (p.err != Errno::kOk) co_return FsStatus{false, p.err};
  if (p.name.empty()) co_return FsStatus{false, Errno::kExist};  // "/"
  Inode* dir = p.dir.get();
  if (!dir->is_dir) co_return FsStatus{false, Errno::kNotDir};
  co_await dir->lock.LockExclusive();
  vfs::ExclusiveLock g(&dir->lock);
  if (co_await ns_->DirLookup(dir, p.name)) co_return FsStatus{false, Errno::kExist};
  if (p.dir_required) co_return FsStatus{false, Errno::kNoEnt};  // "new/": nothing to create
  if (src_dir) co_return FsStatus{false, Errno::kPerm};
  Inode* s0 = co_await ns_->GetInode(ls->ino);
  if (!s0) co_return FsStatus{false, Errno::kNoEnt};
  InodeRef src(itab_, s0);
  co_await src->lock.LockExclusive();
  vfs::ExclusiveLock sg(&src->lock);
  if (src->unlinked) co_return FsStatus{false, Errno::kNoEnt};  // its last name went meanwhile
  vfs::SharedLock cp = co_await cpm_->LockOp();
  const Errno e = co_await ns_->AddLink(dir, p.name, src->ino, FileType::kRegular);
  if (e != Errno::kOk) co_return FsStatus{false, e};
  InodeFields& f = MutI(src.get());
  ++f.links;
  f.ctime = q_->now();
  durability_->OnLink(dir->ino, src->ino, p.name);
  if (jcm_) co_await jcm_->Cpu();
  co_return FsStatus{true, Errno::kOk};
}
}  // namespace fs::f2fs
