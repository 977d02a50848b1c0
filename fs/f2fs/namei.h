// Namei: the namespace calls of the F2FS model — the kernel's namei.c
// (f2fs_create, f2fs_mkdir, f2fs_unlink, f2fs_rmdir, f2fs_rename,
// f2fs_link) over the NamespaceManager's directories, path walks and
// inode creation (namespace_manager.h).
//
// Contract:
// - Each call takes the path(s), answers as Linux does (ENOENT, EEXIST,
//   ENOTDIR, EISDIR, ENOTEMPTY, EINVAL for a directory moved into itself,
//   EPERM for a directory's hard link, trailing '/' rules) and, when it
//   changes the namespace, first runs foreground cleaning if space is short
//   (f2fs_balance_fs, Host::BalanceFs).
// - Locks, in the kernel's order: the parent's i_rwsem exclusive (rename:
//   both parents in inode order), then the target's, then cp_rwsem shared
//   (f2fs_lock_op) for the change itself; the name is looked up again under
//   cp_rwsem before it is changed.
// - Every change is told to the Durability mode (OnCreate, OnUnlink,
//   OnRename, OnLink) when it is made, and with a journal the record's CPU
//   is charged (JournalCommitter::Cpu).
// - An inode whose last link went while nobody else holds it is freed at
//   once (Host::FreeInode); otherwise at its last close.
// - OpenInode resolves open(2)'s path to an inode reference: creating a
//   regular file under O_CREAT, refusing per O_EXCL, O_DIRECTORY, a trailing
//   '/' and a directory opened for writing. Truncation and the descriptor
//   are the caller's.
//
// State owned: none (the names are the NamespaceManager's, the inodes'
// fields the NodeManager's). Who calls it: the F2fs's FileSystem calls. It
// calls the NamespaceManager, the NodeManager (inode fields), the
// InodeTable, the CheckpointManager (cp_rwsem), the Durability mode, the
// JournalCommitter and, through its Host, foreground cleaning and inode
// freeing.
#pragma once

#include <string_view>

#include "fs/f2fs/checkpoint_manager.h"
#include "fs/f2fs/durability.h"
#include "fs/f2fs/inode_table.h"
#include "fs/f2fs/journal_committer.h"
#include "fs/f2fs/namespace_manager.h"
#include "fs/f2fs/node_manager.h"
#include "fs/file_system.h"
#include "sim/event_queue.h"
#include "sim/task.h"

namespace fs::f2fs {

class Namei {
 public:
  class Host {
   public:
    virtual ~Host() = default;
    virtual sim::Task<void> BalanceFs() = 0;  // f2fs_balance_fs
    virtual sim::Task<void> FreeInode(Inode* inode) = 0;
  };
  struct Deps {
    sim::EventQueue* events = nullptr;
    NamespaceManager* ns = nullptr;
    NodeManager* nodes = nullptr;
    InodeTable* inodes = nullptr;
    CheckpointManager* cp = nullptr;
    Durability* durability = nullptr;
    JournalCommitter* committer = nullptr;  // with the journal durability mode
    Host* host = nullptr;
  };
  explicit Namei(const Deps& d);
  Namei(const Namei&) = delete;
  Namei& operator=(const Namei&) = delete;

  // open(2) up to the descriptor: the inode `path` names, created with
  // O_CREAT; `flags` as FileSystem::Open's. `*parent` receives the parent
  // directory's reference, which the caller holds until open(2) returns
  // (the path walk's reference on the parent, as the kernel's nameidata).
  sim::Task<FsResult<InodeRef>> OpenInode(std::string_view path, uint32_t flags, ParentRef* parent);
  sim::Task<FsStatus> Mkdir(std::string_view path);
  sim::Task<FsStatus> Unlink(std::string_view path);
  sim::Task<FsStatus> Rmdir(std::string_view path);
  sim::Task<FsStatus> Rename(std::string_view from, std::string_view to);
  sim::Task<FsStatus> Link(std::string_view existing, std::string_view new_path);

 private:
  // unlink (is_dir false) and rmdir (true): the same locks, lookups and
  // removal; rmdir also needs an empty directory and drops the parent's
  // link count.
  sim::Task<FsStatus> RemoveName(std::string_view path, bool is_dir);
  const InodeFields& I(const Inode* inode) const { return nodes_->I(inode); }
  InodeFields& MutI(Inode* inode) { return nodes_->MutI(inode); }

  sim::EventQueue* q_;
  NamespaceManager* ns_;
  NodeManager* nodes_;
  InodeTable* itab_;
  CheckpointManager* cpm_;
  Durability* durability_;
  JournalCommitter* jcm_;
  Host* host_;
};

}  // namespace fs::f2fs
