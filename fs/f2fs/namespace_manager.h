// NamespaceManager: the F2FS model's names — the kernel's dir.c, namei.c
// and inline.c for directories (f2fs_find_entry, f2fs_add_regular_entry,
// f2fs_add_inline_entry, f2fs_convert_inline_dir, f2fs_delete_entry,
// f2fs_set_link, f2fs_empty_dir, f2fs_readdir), path walks, and the
// inodes as names find them (f2fs_iget, f2fs_new_inode, the link count a
// name holds).
//
// Contract:
// - LookupParent resolves every component but the last ("." and ".."
//   included; "a/b/." is a/b, which must be a directory), taking each
//   directory's i_rwsem shared while it searches it; LookupPath resolves
//   the whole path. Errors: ENOENT, ENOTDIR, ENAMETOOLONG, EINVAL ("..").
// - DirLookup finds a name (inline dentries, or the multi-level hash: at
//   each level the bucket's 2 or 4 blocks), CPU charged per block searched;
//   AddLink inserts (converting an inline directory that is full, growing
//   the depth), RemoveLink deletes (punching an emptied dentry block),
//   SetLink repoints; each marks the directory trans_dir and touches its
//   times. The caller holds the directory's i_rwsem exclusive and cp_rwsem
//   shared for a change.
// - GetInode is iget (the table, or the inode page loaded; the path walk
//   and the hot callers try InodeTable::Find first and make the coroutine
//   call only for an inode not in memory, which changes nothing: GetInode
//   returns a cached inode without suspending); NewInode makes
//   an inode (nid allocated, or `want` for journal replay; hot/cold by
//   extension; a directory's "." and ".."), counted through
//   Host::InodeCreated; DropLink takes a name's link away and makes the
//   inode an orphan at zero.
//
// State owned: none beyond the directory format; the names live in dentry
// pages (the host's page cache, reached through Host) and inline dentries
// (inode pages, the NodeManager's). Guarded by the directories' i_rwsem and
// cp_rwsem as above; bookkeeping runs between suspension points.
//
// Who calls it: the F2fs's namespace calls (open with O_CREAT, mkdir,
// unlink, rmdir, rename, link, readdir, stat), the journal's replay and
// roll-forward recovery. It calls the NodeManager, the InodeTable, the
// IoManager (dentry block reads), the Image and, for dentry pages, space
// accounting and CPU time, its Host.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fs/f2fs/f2fs_config.h"
#include "fs/f2fs/image.h"
#include "fs/f2fs/inode_table.h"
#include "fs/f2fs/io_manager.h"
#include "fs/f2fs/node_manager.h"
#include "fs/f2fs/on_disk.h"
#include "fs/file_system.h"
#include "fs/vfs/page_cache.h"
#include "fs/vfs/sync_primitives.h"
#include "sim/cpu.h"
#include "sim/event_queue.h"
#include "sim/task.h"
#include "sim/time.h"

namespace fs::f2fs {

// Where a name is: its inode and type, the dentry block (-1: inline) and slot.
struct DentryLoc {
  Nid ino;
  FileType type = FileType::kUnknown;
  int64_t block = -1;  // dentry block index, -1 = inline
  int slot = -1;
};

// A path's directory (referenced) and last component.
struct ParentRef {
  InodeRef dir;
  std::string name;           // "" for the root
  Errno err = Errno::kOk;
  bool dir_required = false;  // the path ended with '/' (or "/.")
};

class NamespaceManager {
 public:
  // The data path's dentry pages, space accounting and CPU time.
  class Host {
   public:
    virtual ~Host() = default;
    virtual sim::CpuBurst Cpu(sim::SimTime d) = 0;
    virtual bool IncValidBlocks(uint64_t n) = 0;
    virtual void DecValidBlocks(uint64_t n) = 0;
    virtual void InodeCreated() = 0;  // valid_inode_count
    virtual DataPage* FindDataPage(Inode* inode, uint64_t index) = 0;
    virtual DataPage* NewDataPage(Inode* inode, uint64_t index) = 0;
    virtual void DropDataPage(Inode* inode, uint64_t index) = 0;
    virtual void SetDataPageDirty(Inode* inode, DataPage* p) = 0;
    virtual DentryBlock& MutDents(DataPage* p) = 0;
  };
  struct Deps {
    const F2fsConfig* cfg = nullptr;
    sim::EventQueue* events = nullptr;
    Image* image = nullptr;
    vfs::PageCache* cache = nullptr;
    IoManager* io = nullptr;
    NodeManager* nodes = nullptr;
    InodeTable* inodes = nullptr;
    vfs::LockClass* i_rwsem = nullptr;
    Host* host = nullptr;
  };
  explicit NamespaceManager(const Deps& d);
  NamespaceManager(const NamespaceManager&) = delete;
  NamespaceManager& operator=(const NamespaceManager&) = delete;

  sim::Task<Inode*> GetInode(Nid ino);
  sim::Task<ParentRef> LookupParent(std::string_view path);
  sim::Task<FsResult<Nid>> LookupPath(std::string_view path);
  sim::Task<std::optional<DentryLoc>> DirLookup(Inode* dir, std::string_view name);
  sim::Task<DataPage*> GetDentryPage(Inode* dir, uint64_t index, bool create, Errno* err);
  sim::Task<Errno> AddLink(Inode* dir, std::string_view name, Nid ino, FileType type);
  sim::Task<Errno> RemoveLink(Inode* dir, const DentryLoc& loc);
  sim::Task<Errno> SetLink(Inode* dir, const DentryLoc& loc, Nid ino, FileType type);
  sim::Task<Errno> ConvertInlineDir(Inode* dir);
  // `want`: the inode number to take (journal replay); null: the next free.
  sim::Task<FsResult<Inode*>> NewInode(Inode* dir, std::string_view name, bool is_dir, Nid want = kNullNid);
  sim::Task<Errno> DropLink(Inode* inode);  // links--; orphan at zero
  sim::Task<bool> DirEmpty(Inode* dir);
  sim::Task<std::vector<std::pair<std::string, Dentry>>> ListDir(Inode* dir);
  void TouchDir(Inode* dir);

 private:
  const InodeFields& I(const Inode* inode) const { return nodes_->I(inode); }
  InodeFields& MutI(Inode* inode) { return nodes_->MutI(inode); }

  const F2fsConfig& cfg_;
  sim::EventQueue* q_;
  Image* image_;
  vfs::PageCache* cache_;
  IoManager* io_;
  NodeManager* nodes_;
  InodeTable* itab_;
  vfs::LockClass* i_rwsem_;
  Host* host_;
};

}  // namespace fs::f2fs
