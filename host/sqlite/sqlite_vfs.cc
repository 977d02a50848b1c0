#include "host/sqlite/sqlite_vfs.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>
#include <span>
#include <vector>

#include <fmt/format.h>
#include <glog/logging.h>

namespace host::sqlite {

std::string_view FileKindName(FileKind k) {
  switch (k) {
    case FileKind::kDb: return "db";
    case FileKind::kJournal: return "journal";
    case FileKind::kWal: return "wal";
    case FileKind::kSuperJournal: return "super_journal";
    case FileKind::kTemp: return "temp";
    case FileKind::kDir: return "dir";
  }
  return "?";
}

void SqliteVfsConfig::Describe(sim::Schema<SqliteVfsConfig>& s) {
  s.Choice("sync_call", &SqliteVfsConfig::sync_call, "fdatasync", {"fdatasync", "fsync"},
           "File-system call behind SQLite's xSync (Linux builds of SQLite use fdatasync)");
  s.Param("dir_sync", &SqliteVfsConfig::dir_sync, "true",
          "Sync the directory after creating a journal/WAL and on deletes SQLite marks durable, as the unix VFS");
  s.Param("sector_size", &SqliteVfsConfig::sector_size, "4KiB", "Sector size reported to SQLite (xSectorSize)")
      .Range(512, 65536);
  s.Param("powersafe_overwrite", &SqliteVfsConfig::powersafe_overwrite, "true",
          "Report SQLITE_IOCAP_POWERSAFE_OVERWRITE, as the unix VFS does by default");
  s.Param("temp_dir", &SqliteVfsConfig::temp_dir, "/tmp", "Directory for SQLite's unnamed temporary files");
  s.Param("epoch_unix_s", &SqliteVfsConfig::epoch_unix_s, "1577836800",
          "Wall-clock time (Unix seconds) SQLite sees at simulated time zero");
  s.Param("fs_transactions", &SqliteVfsConfig::fs_transactions, "false",
          "Commit each SQLite write transaction as one file-system transaction over the database files it "
          "changed (exF2FS; use with journal_mode memory or off)");
}

uint64_t VfsCounts::TotalSyncs() const {
  uint64_t n = 0;
  for (const Kind& k : kind) n += k.syncs;
  return n;
}
uint64_t VfsCounts::TotalBytesWritten() const {
  uint64_t n = 0;
  for (const Kind& k : kind) n += k.bytes_written;
  return n;
}
uint64_t VfsCounts::TotalBytesRead() const {
  uint64_t n = 0;
  for (const Kind& k : kind) n += k.bytes_read;
  return n;
}

VfsCounts VfsCounts::Minus(const VfsCounts& e) const {
  VfsCounts d;
  for (int i = 0; i < kFileKinds; ++i) {
    const Kind& a = kind[i];
    const Kind& b = e.kind[i];
    d.kind[i] = Kind{a.opens - b.opens,           a.closes - b.closes,
                     a.reads - b.reads,           a.writes - b.writes,
                     a.bytes_read - b.bytes_read, a.bytes_written - b.bytes_written,
                     a.syncs - b.syncs,           a.truncates - b.truncates,
                     a.deletes - b.deletes,       a.size_queries - b.size_queries,
                     a.short_reads - b.short_reads};
  }
  d.accesses = accesses - e.accesses;
  d.busy = busy - e.busy;
  d.sleeps = sleeps - e.sleeps;
  return d;
}

namespace {

constexpr int kShmSlots = SQLITE_SHM_NLOCK;  // 8

// The lock state of one database path, shared by every handle on it. The
// rules are those of the unix VFS among connections of one process:
// `level` is the highest lock any handle holds; a handle whose own level
// differs from it may only take SHARED, and only while no one holds
// PENDING or more; EXCLUSIVE needs every other SHARED holder gone, and a
// failed attempt leaves the requester at PENDING, which keeps new readers
// out until it gets EXCLUSIVE or drops back.
struct LockEntry {
  int level = SQLITE_LOCK_NONE;
  int n_shared = 0;  // handles holding SHARED or more
  int refs = 0;      // open handles on the path
};

// One WAL index (the contents of a -shm file), shared by its mappers.
struct ShmNode {
  size_t region_size = 0;
  std::vector<std::unique_ptr<uint8_t[]>> regions;
  int refs = 0;
  std::array<int, kShmSlots> shared{};
  std::array<const void*, kShmSlots> exclusive{};
};

}  // namespace

struct SqliteVfs::Impl {
  std::map<std::string, LockEntry> locks;
  // fs_transactions: the running set of each connection (fiber), with its
  // member files (VfsFile*, opaque here).
  struct TxSet {
    uint64_t key = 0;
    std::vector<void*> members;
  };
  std::map<const Fiber*, TxSet> tx;
  std::map<std::string, std::unique_ptr<ShmNode>> shms;
  sqlite3_io_methods methods{};
};

namespace {

// One open file. SQLite allocates szOsFile bytes and hands them to xOpen;
// the sqlite3_file header must come first.
struct VfsFile {
  sqlite3_file base;
  SqliteVfs* vfs;
  fs::FileSystem* fs;
  const SqliteVfsConfig* cfg;
  SqliteVfs::Impl* impl;
  VfsKindStats* stats;
  fs::Fd fd = -1;
  FileKind kind = FileKind::kDb;
  std::string path;
  bool dir_sync_pending = false;
  int lock_level = SQLITE_LOCK_NONE;
  LockEntry* lock = nullptr;
  const Fiber* tx_owner = nullptr;  // fs_transactions: the connection whose set holds the file
  ShmNode* shm = nullptr;
  uint16_t shm_shared = 0;
  uint16_t shm_excl = 0;
};

VfsFile* AsFile(sqlite3_file* f) { return reinterpret_cast<VfsFile*>(f); }

std::string ParentDir(const std::string& path) {
  size_t k = path.rfind('/');
  if (k == std::string::npos || k == 0) return "/";
  return path.substr(0, k);
}

FileKind KindOfName(std::string_view name) {
  auto ends = [&](std::string_view suffix) {
    return name.size() >= suffix.size() && name.substr(name.size() - suffix.size()) == suffix;
  };
  if (ends("-journal")) return FileKind::kJournal;
  if (ends("-wal")) return FileKind::kWal;
  size_t mj = name.rfind("-mj");
  if (mj != std::string_view::npos && name.find('/', mj) == std::string_view::npos) return FileKind::kSuperJournal;
  return FileKind::kDb;
}

}  // namespace

// The C callbacks. They are static members of a friend-free helper so they
// can reach SqliteVfs's private state through pAppData.
namespace {

SqliteVfs* VfsOf(sqlite3_vfs* v) { return static_cast<SqliteVfs*>(v->pAppData); }

}  // namespace

class VfsCallbacks {
 public:
  static FiberRuntime* Rt(SqliteVfs* v) {
    CHECK(v->rt_->InFiber()) << "SQLite file I/O outside a fiber";
    return v->rt_;
  }

  // Syncs the directory `dir` (open, sync, close), as unix does after
  // creating a journal. Failure to open it is ignored, like unix.
  static void SyncDir(SqliteVfs* v, const std::string& dir) {
    FiberRuntime* rt = Rt(v);
    VfsKindStats& st = v->kind_stats_[static_cast<int>(FileKind::kDir)];
    auto fd = rt->AwaitTask(v->fs_->Open(dir, fs::kRdOnly | fs::kDirectory));
    if (!fd.ok()) return;
    st.opens.Inc();
    if (v->use_fsync_) {
      rt->AwaitTask(v->fs_->Fsync(fd.value));
    } else {
      rt->AwaitTask(v->fs_->Fdatasync(fd.value));
    }
    st.syncs.Inc();
    rt->AwaitTask(v->fs_->Close(fd.value));
    st.closes.Inc();
  }

  // --- sqlite3_io_methods -------------------------------------------------

  static int Close(sqlite3_file* pf) {
    VfsFile* f = AsFile(pf);
    SqliteVfs* v = f->vfs;
    FiberRuntime* rt = Rt(v);
    if (f->shm) ShmUnmap(pf, 0);
    if (f->lock) {
      Unlock(pf, SQLITE_LOCK_NONE);
      auto it = v->impl_->locks.find(f->path);
      CHECK(it != v->impl_->locks.end());
      if (--it->second.refs == 0) v->impl_->locks.erase(it);
      f->lock = nullptr;
    }
    auto r = rt->AwaitTask(v->fs_->Close(f->fd));
    f->stats->closes.Inc();
    --v->open_files_;
    f->~VfsFile();
    return r.ok() ? SQLITE_OK : SQLITE_IOERR_CLOSE;
  }

  static int Read(sqlite3_file* pf, void* buf, int amt, sqlite3_int64 off) {
    VfsFile* f = AsFile(pf);
    FiberRuntime* rt = Rt(f->vfs);
    auto r = rt->AwaitTask(
        f->fs->Pread(f->fd, static_cast<uint64_t>(off), std::span<uint8_t>(static_cast<uint8_t*>(buf), amt)));
    f->stats->reads.Inc();
    if (!r.ok()) return SQLITE_IOERR_READ;
    f->stats->bytes_read.Inc(r.value);
    if (r.value < static_cast<uint64_t>(amt)) {
      std::memset(static_cast<uint8_t*>(buf) + r.value, 0, amt - r.value);
      f->stats->short_reads.Inc();
      return SQLITE_IOERR_SHORT_READ;
    }
    return SQLITE_OK;
  }

  static int Write(sqlite3_file* pf, const void* buf, int amt, sqlite3_int64 off) {
    VfsFile* f = AsFile(pf);
    FiberRuntime* rt = Rt(f->vfs);
    auto r = rt->AwaitTask(f->fs->Pwrite(f->fd, static_cast<uint64_t>(off),
                                         std::span<const uint8_t>(static_cast<const uint8_t*>(buf), amt),
                                         static_cast<uint64_t>(amt)));
    f->stats->writes.Inc();
    if (!r.ok()) return r.err == fs::Errno::kNoSpc ? SQLITE_FULL : SQLITE_IOERR_WRITE;
    f->stats->bytes_written.Inc(r.value);
    return r.value == static_cast<uint64_t>(amt) ? SQLITE_OK : SQLITE_FULL;
  }

  static int Truncate(sqlite3_file* pf, sqlite3_int64 size) {
    VfsFile* f = AsFile(pf);
    FiberRuntime* rt = Rt(f->vfs);
    auto r = rt->AwaitTask(f->fs->Ftruncate(f->fd, static_cast<uint64_t>(size)));
    f->stats->truncates.Inc();
    return r.ok() ? SQLITE_OK : SQLITE_IOERR_TRUNCATE;
  }

  static int Sync(sqlite3_file* pf, int flags) {
    VfsFile* f = AsFile(pf);
    SqliteVfs* v = f->vfs;
    FiberRuntime* rt = Rt(v);
    if (f->tx_owner != nullptr) {
      v->tx_syncs_skipped_.Inc();  // the set's commit makes it durable
      return SQLITE_OK;
    }
    fs::FsStatus r = v->use_fsync_ ? rt->AwaitTask(f->fs->Fsync(f->fd))
                                                  : rt->AwaitTask(f->fs->Fdatasync(f->fd));
    f->stats->syncs.Inc();
    if (!r.ok()) return SQLITE_IOERR_FSYNC;
    if (f->dir_sync_pending) {
      SyncDir(v, ParentDir(f->path));
      f->dir_sync_pending = false;
    }
    return SQLITE_OK;
  }

  static int FileSize(sqlite3_file* pf, sqlite3_int64* size) {
    VfsFile* f = AsFile(pf);
    FiberRuntime* rt = Rt(f->vfs);
    auto r = rt->AwaitTask(f->fs->Fstat(f->fd));
    f->stats->size_queries.Inc();
    if (!r.ok()) return SQLITE_IOERR_FSTAT;
    *size = static_cast<sqlite3_int64>(r.value.size);
    return SQLITE_OK;
  }

  // fs_transactions: `f` (holding a write lock) joins the set of the
  // calling connection, creating and starting it first if there is none.
  static int JoinTx(VfsFile* f) {
    SqliteVfs* v = f->vfs;
    FiberRuntime* rt = Rt(v);
    const Fiber* me = rt->current();
    SqliteVfs::Impl::TxSet& set = v->impl_->tx[me];
    const bool fresh = set.key == 0;
    auto added = rt->AwaitTask(v->fs_->TxAdd(set.key, f->fd));
    if (!added.ok()) {
      NoteTxError(v, fmt::format("adding {} to a file-system transaction: {}", f->path, fs::ErrnoName(added.err)));
      if (fresh) v->impl_->tx.erase(me);
      return SQLITE_IOERR_LOCK;
    }
    set.key = added.value;
    set.members.push_back(f);
    f->tx_owner = me;
    if (fresh) {
      auto st = rt->AwaitTask(v->fs_->TxStart(set.key));
      if (!st.ok()) {
        NoteTxError(v, fmt::format("starting the file-system transaction of {}: {}", f->path, fs::ErrnoName(st.err)));
        EndTx(v, me, /*commit=*/false);
        return SQLITE_IOERR_LOCK;
      }
    }
    return SQLITE_OK;
  }

  // Commits (or aborts) the set of connection `owner` and dissolves it.
  static int EndTx(SqliteVfs* v, const Fiber* owner, bool commit) {
    auto it = v->impl_->tx.find(owner);
    if (it == v->impl_->tx.end()) return SQLITE_OK;
    FiberRuntime* rt = Rt(v);
    const SqliteVfs::Impl::TxSet set = it->second;
    v->impl_->tx.erase(it);
    for (void* m : set.members) static_cast<VfsFile*>(m)->tx_owner = nullptr;
    int rc = SQLITE_OK;
    if (commit) {
      const sim::SimTime t0 = rt->queue()->now();
      auto st = rt->AwaitTask(v->fs_->TxCommit(set.key));
      if (st.ok()) {
        v->tx_commits_.Inc();
        v->tx_commit_lat_.Record((rt->queue()->now() - t0).ns());
      } else {
        NoteTxError(v, fmt::format("committing a file-system transaction: {}", fs::ErrnoName(st.err)));
        rc = st.err == fs::Errno::kNoSpc ? SQLITE_FULL : SQLITE_IOERR_FSYNC;
      }
    } else {
      v->tx_aborts_.Inc();
    }
    // After a failed commit the transaction still runs: ending the set
    // drops it, which is the rollback SQLite then believes in.
    auto end = rt->AwaitTask(v->fs_->TxEnd(set.key));
    if (!end.ok() && rc == SQLITE_OK) {
      NoteTxError(v, fmt::format("ending a file-system transaction: {}", fs::ErrnoName(end.err)));
      rc = SQLITE_IOERR;
    }
    return rc;
  }

  static void NoteTxError(SqliteVfs* v, std::string what) {
    if (v->tx_error_.empty()) v->tx_error_ = std::move(what);
  }

  static int Lock(sqlite3_file* pf, int want) {
    VfsFile* f = AsFile(pf);
    CHECK(f->lock != nullptr);
    CHECK(want != SQLITE_LOCK_PENDING) << "SQLite never asks for PENDING directly";
    LockEntry& e = *f->lock;
    if (f->lock_level >= want) return SQLITE_OK;
    if (f->lock_level != e.level && (e.level >= SQLITE_LOCK_PENDING || want > SQLITE_LOCK_SHARED)) {
      f->vfs->busy_.Inc();
      return SQLITE_BUSY;
    }
    if (want == SQLITE_LOCK_SHARED) {
      CHECK_EQ(f->lock_level, SQLITE_LOCK_NONE);
      f->lock_level = SQLITE_LOCK_SHARED;
      ++e.n_shared;
      e.level = std::max(e.level, SQLITE_LOCK_SHARED);
      return SQLITE_OK;
    }
    CHECK_GE(f->lock_level, SQLITE_LOCK_SHARED) << "RESERVED/EXCLUSIVE need SHARED first";
    if (want == SQLITE_LOCK_EXCLUSIVE && e.n_shared > 1) {
      f->lock_level = e.level = SQLITE_LOCK_PENDING;
      f->vfs->busy_.Inc();
      return SQLITE_BUSY;
    }
    const int had = f->lock_level;
    f->lock_level = e.level = want;
    if (f->cfg->fs_transactions && f->kind == FileKind::kDb && f->tx_owner == nullptr) {
      const int rc = JoinTx(f);
      if (rc != SQLITE_OK) {
        // Back to the level held before (SHARED or more: no one else could
        // have taken a write lock meanwhile).
        f->lock_level = e.level = had;
        return rc;
      }
    }
    return SQLITE_OK;
  }

  static int Unlock(sqlite3_file* pf, int to) {
    VfsFile* f = AsFile(pf);
    CHECK(f->lock != nullptr);
    CHECK_LE(to, SQLITE_LOCK_SHARED);
    // A member's write transaction ends without a commit: SQLite rolled
    // back (or the connection closes mid-transaction).
    if (f->tx_owner != nullptr) EndTx(f->vfs, f->tx_owner, /*commit=*/false);
    LockEntry& e = *f->lock;
    if (f->lock_level <= to) return SQLITE_OK;
    if (f->lock_level > SQLITE_LOCK_SHARED) e.level = SQLITE_LOCK_SHARED;
    if (to == SQLITE_LOCK_NONE) {
      CHECK_GT(e.n_shared, 0);
      if (--e.n_shared == 0) e.level = SQLITE_LOCK_NONE;
    }
    f->lock_level = to;
    return SQLITE_OK;
  }

  static int CheckReservedLock(sqlite3_file* pf, int* out) {
    VfsFile* f = AsFile(pf);
    CHECK(f->lock != nullptr);
    *out = f->lock->level > SQLITE_LOCK_SHARED ? 1 : 0;
    return SQLITE_OK;
  }

  static int FileControl(sqlite3_file* pf, int op, void* arg) {
    VfsFile* f = AsFile(pf);
    switch (op) {
      case SQLITE_FCNTL_LOCKSTATE:
        *static_cast<int*>(arg) = f->lock_level;
        return SQLITE_OK;
      case SQLITE_FCNTL_VFSNAME:
        *static_cast<char**>(arg) = sqlite3_mprintf("%s", f->vfs->name());
        return SQLITE_OK;
      case SQLITE_FCNTL_HAS_MOVED:
        *static_cast<int*>(arg) = 0;
        return SQLITE_OK;
      case SQLITE_FCNTL_COMMIT_PHASETWO:
        // The pager committed (every database's phase one is done): the
        // set becomes durable, all at once.
        if (f->tx_owner != nullptr) return EndTx(f->vfs, f->tx_owner, /*commit=*/true);
        return SQLITE_OK;
      case SQLITE_FCNTL_SIZE_HINT:
        // The unix VFS acts on size hints only when a chunk size is set
        // (SQLITE_FCNTL_CHUNK_SIZE), which it is not by default.
        return SQLITE_OK;
      default:
        return SQLITE_NOTFOUND;
    }
  }

  static int SectorSize(sqlite3_file* pf) { return static_cast<int>(AsFile(pf)->cfg->sector_size.value); }

  static int DeviceCharacteristics(sqlite3_file* pf) {
    return AsFile(pf)->cfg->powersafe_overwrite ? SQLITE_IOCAP_POWERSAFE_OVERWRITE : 0;
  }

  static int ShmMap(sqlite3_file* pf, int region, int region_size, int extend, void volatile** pp) {
    VfsFile* f = AsFile(pf);
    if (!f->shm) {
      auto& slot = f->impl->shms[f->path];
      if (!slot) slot = std::make_unique<ShmNode>();
      f->shm = slot.get();
      ++f->shm->refs;
    }
    ShmNode& n = *f->shm;
    if (n.region_size == 0) n.region_size = static_cast<size_t>(region_size);
    CHECK_EQ(n.region_size, static_cast<size_t>(region_size)) << "WAL-index regions of two sizes";
    if (static_cast<size_t>(region) >= n.regions.size()) {
      if (!extend) {
        *pp = nullptr;
        return SQLITE_OK;
      }
      while (n.regions.size() <= static_cast<size_t>(region)) {
        n.regions.push_back(std::unique_ptr<uint8_t[]>(new uint8_t[n.region_size]()));
      }
    }
    *pp = n.regions[region].get();
    return SQLITE_OK;
  }

  static int ShmLock(sqlite3_file* pf, int ofst, int n, int flags) {
    VfsFile* f = AsFile(pf);
    CHECK(f->shm != nullptr);
    CHECK(ofst >= 0 && n >= 1 && ofst + n <= kShmSlots);
    ShmNode& s = *f->shm;
    const uint16_t mask = static_cast<uint16_t>(((1u << (ofst + n)) - 1) & ~((1u << ofst) - 1));
    if (flags & SQLITE_SHM_UNLOCK) {
      for (int i = ofst; i < ofst + n; ++i) {
        if (f->shm_excl & (1u << i)) s.exclusive[i] = nullptr;
        if (f->shm_shared & (1u << i)) --s.shared[i];
      }
      f->shm_excl &= static_cast<uint16_t>(~mask);
      f->shm_shared &= static_cast<uint16_t>(~mask);
      return SQLITE_OK;
    }
    if (flags & SQLITE_SHM_SHARED) {
      for (int i = ofst; i < ofst + n; ++i) {
        if (s.exclusive[i] && s.exclusive[i] != f) {
          f->vfs->busy_.Inc();
          return SQLITE_BUSY;
        }
      }
      for (int i = ofst; i < ofst + n; ++i) {
        if (!(f->shm_shared & (1u << i))) ++s.shared[i];
      }
      f->shm_shared |= mask;
      return SQLITE_OK;
    }
    // Exclusive.
    for (int i = ofst; i < ofst + n; ++i) {
      const int mine = (f->shm_shared & (1u << i)) ? 1 : 0;
      if ((s.exclusive[i] && s.exclusive[i] != f) || s.shared[i] - mine > 0) {
        f->vfs->busy_.Inc();
        return SQLITE_BUSY;
      }
    }
    for (int i = ofst; i < ofst + n; ++i) s.exclusive[i] = f;
    f->shm_excl |= mask;
    return SQLITE_OK;
  }

  static void ShmBarrier(sqlite3_file*) { std::atomic_thread_fence(std::memory_order_seq_cst); }

  static int ShmUnmap(sqlite3_file* pf, int /*delete_flag*/) {
    VfsFile* f = AsFile(pf);
    if (!f->shm) return SQLITE_OK;
    ShmLock(pf, 0, kShmSlots, SQLITE_SHM_UNLOCK | SQLITE_SHM_SHARED);
    if (--f->shm->refs == 0) f->impl->shms.erase(f->path);
    f->shm = nullptr;
    return SQLITE_OK;
  }

  // --- sqlite3_vfs ---------------------------------------------------------

  static int Open(sqlite3_vfs* pv, const char* name, sqlite3_file* pf, int flags, int* out_flags) {
    SqliteVfs* v = VfsOf(pv);
    FiberRuntime* rt = Rt(v);
    pf->pMethods = nullptr;
    FileKind kind = FileKind::kTemp;
    switch (flags & 0x0FFF00) {
      case SQLITE_OPEN_MAIN_DB: kind = FileKind::kDb; break;
      case SQLITE_OPEN_MAIN_JOURNAL: kind = FileKind::kJournal; break;
      case SQLITE_OPEN_WAL: kind = FileKind::kWal; break;
      case SQLITE_OPEN_SUPER_JOURNAL: kind = FileKind::kSuperJournal; break;
      default: kind = FileKind::kTemp; break;
    }
    std::string path;
    if (name != nullptr) {
      path = name;
    } else {
      // Like unix: a generated name in the temp directory, unlinked at once.
      // The directory is created on first use (unix expects it to exist).
      if (!v->temp_dir_ready_) {
        auto st = rt->AwaitTask(v->fs_->Mkdir(v->cfg_.temp_dir));
        v->temp_dir_ready_ = st.ok() || st.err == fs::Errno::kExist;
      }
      path = fmt::format("{}/etilqs_{:016x}", v->cfg_.temp_dir == "/" ? "" : v->cfg_.temp_dir, v->temp_seq_++);
    }
    uint32_t fl = (flags & SQLITE_OPEN_READWRITE) ? fs::kRdWr : fs::kRdOnly;
    if (flags & SQLITE_OPEN_CREATE) fl |= fs::kCreat;
    if (flags & SQLITE_OPEN_EXCLUSIVE) fl |= fs::kExcl;
    VfsKindStats& st = v->kind_stats_[static_cast<int>(kind)];
    auto fd = rt->AwaitTask(v->fs_->Open(path, fl));
    if (!fd.ok()) return SQLITE_CANTOPEN;
    st.opens.Inc();
    const bool delete_on_close = (flags & SQLITE_OPEN_DELETEONCLOSE) != 0;
    if (delete_on_close) {
      rt->AwaitTask(v->fs_->Unlink(path));
      st.deletes.Inc();
    }
    auto* f = new (pf) VfsFile{};
    f->vfs = v;
    f->fs = v->fs_;
    f->cfg = &v->cfg_;
    f->impl = v->impl_.get();
    f->stats = &st;
    f->fd = fd.value;
    f->kind = kind;
    f->path = path;
    f->dir_sync_pending = v->cfg_.dir_sync && (flags & SQLITE_OPEN_CREATE) &&
                          (kind == FileKind::kJournal || kind == FileKind::kSuperJournal || kind == FileKind::kWal);
    if (kind == FileKind::kDb || kind == FileKind::kTemp) {
      LockEntry& e = v->impl_->locks[path];
      ++e.refs;
      f->lock = &e;
    }
    pf->pMethods = &v->impl_->methods;
    ++v->open_files_;
    if (out_flags) *out_flags = flags;
    return SQLITE_OK;
  }

  static int Delete(sqlite3_vfs* pv, const char* name, int sync_dir) {
    SqliteVfs* v = VfsOf(pv);
    FiberRuntime* rt = Rt(v);
    auto r = rt->AwaitTask(v->fs_->Unlink(name));
    if (!r.ok()) return r.err == fs::Errno::kNoEnt ? SQLITE_IOERR_DELETE_NOENT : SQLITE_IOERR_DELETE;
    v->kind_stats_[static_cast<int>(KindOfName(name))].deletes.Inc();
    if (sync_dir && v->cfg_.dir_sync) SyncDir(v, ParentDir(name));
    return SQLITE_OK;
  }

  static int Access(sqlite3_vfs* pv, const char* name, int flags, int* out) {
    SqliteVfs* v = VfsOf(pv);
    FiberRuntime* rt = Rt(v);
    auto r = rt->AwaitTask(v->fs_->Stat(name));
    v->accesses_.Inc();
    if (flags == SQLITE_ACCESS_EXISTS) {
      *out = r.ok() && (r.value.is_dir || r.value.size > 0) ? 1 : 0;
    } else {
      *out = r.ok() ? 1 : 0;
    }
    return SQLITE_OK;
  }

  static int FullPathname(sqlite3_vfs*, const char* name, int n_out, char* out) {
    std::string p = name;
    while (p.rfind("./", 0) == 0) p.erase(0, 2);
    if (p.empty() || p[0] != '/') p.insert(p.begin(), '/');
    if (static_cast<int>(p.size()) >= n_out) return SQLITE_CANTOPEN;
    std::memcpy(out, p.c_str(), p.size() + 1);
    return SQLITE_OK;
  }

  static void* DlOpen(sqlite3_vfs*, const char*) { return nullptr; }
  static void DlError(sqlite3_vfs*, int n, char* out) {
    sqlite3_snprintf(n, out, "loadable extensions are not supported by the flashstack VFS");
  }
  static void (*DlSym(sqlite3_vfs*, void*, const char*))(void) { return nullptr; }
  static void DlClose(sqlite3_vfs*, void*) {}

  static int Randomness(sqlite3_vfs* pv, int n, char* out) {
    SqliteVfs* v = VfsOf(pv);
    for (int i = 0; i < n; i += 8) {
      uint64_t x = v->rng_.Next();
      std::memcpy(out + i, &x, std::min(8, n - i));
    }
    return n;
  }

  static int Sleep(sqlite3_vfs* pv, int micros) {
    SqliteVfs* v = VfsOf(pv);
    Rt(v)->Sleep(sim::Us(micros));
    v->sleeps_.Inc();
    return micros;
  }

  static int CurrentTimeInt64(sqlite3_vfs* pv, sqlite3_int64* out) {
    SqliteVfs* v = VfsOf(pv);
    // Julian day number in milliseconds, as the unix VFS computes it.
    constexpr sqlite3_int64 kUnixEpochJulianMs = 24405875LL * 8640000LL;
    *out = kUnixEpochJulianMs + static_cast<sqlite3_int64>(v->cfg_.epoch_unix_s) * 1000 +
           v->rt_->queue()->now().ns() / 1000000;
    return SQLITE_OK;
  }

  static int CurrentTime(sqlite3_vfs* pv, double* out) {
    sqlite3_int64 ms = 0;
    CurrentTimeInt64(pv, &ms);
    *out = static_cast<double>(ms) / 86400000.0;
    return SQLITE_OK;
  }

  static int GetLastError(sqlite3_vfs*, int, char*) { return 0; }
};

SqliteVfs::SqliteVfs(FiberRuntime* runtime, fs::FileSystem* fs, const SqliteVfsConfig& cfg, uint64_t seed,
                     sim::StatGroup stats)
    : rt_(runtime), fs_(fs), cfg_(cfg), rng_(seed, "sqlite.vfs.randomness"), impl_(std::make_unique<Impl>()) {
  CHECK(rt_ != nullptr && fs_ != nullptr);
  CHECK(cfg_.sync_call == "fdatasync" || cfg_.sync_call == "fsync") << "bad sync_call " << cfg_.sync_call;
  if (cfg_.temp_dir.empty()) cfg_.temp_dir = "/tmp";
  use_fsync_ = cfg_.sync_call == "fsync";
  name_ = fmt::format("flashstack-{}", static_cast<const void*>(this));

  sqlite3_io_methods& m = impl_->methods;
  m.iVersion = 2;  // shared memory for WAL; no xFetch (no mmap)
  m.xClose = &VfsCallbacks::Close;
  m.xRead = &VfsCallbacks::Read;
  m.xWrite = &VfsCallbacks::Write;
  m.xTruncate = &VfsCallbacks::Truncate;
  m.xSync = &VfsCallbacks::Sync;
  m.xFileSize = &VfsCallbacks::FileSize;
  m.xLock = &VfsCallbacks::Lock;
  m.xUnlock = &VfsCallbacks::Unlock;
  m.xCheckReservedLock = &VfsCallbacks::CheckReservedLock;
  m.xFileControl = &VfsCallbacks::FileControl;
  m.xSectorSize = &VfsCallbacks::SectorSize;
  m.xDeviceCharacteristics = &VfsCallbacks::DeviceCharacteristics;
  m.xShmMap = &VfsCallbacks::ShmMap;
  m.xShmLock = &VfsCallbacks::ShmLock;
  m.xShmBarrier = &VfsCallbacks::ShmBarrier;
  m.xShmUnmap = &VfsCallbacks::ShmUnmap;

  vfs_.iVersion = 2;
  vfs_.szOsFile = static_cast<int>(sizeof(VfsFile));
  vfs_.mxPathname = 512;
  vfs_.zName = name_.c_str();
  vfs_.pAppData = this;
  vfs_.xOpen = &VfsCallbacks::Open;
  vfs_.xDelete = &VfsCallbacks::Delete;
  vfs_.xAccess = &VfsCallbacks::Access;
  vfs_.xFullPathname = &VfsCallbacks::FullPathname;
  vfs_.xDlOpen = &VfsCallbacks::DlOpen;
  vfs_.xDlError = &VfsCallbacks::DlError;
  vfs_.xDlSym = &VfsCallbacks::DlSym;
  vfs_.xDlClose = &VfsCallbacks::DlClose;
  vfs_.xRandomness = &VfsCallbacks::Randomness;
  vfs_.xSleep = &VfsCallbacks::Sleep;
  vfs_.xCurrentTime = &VfsCallbacks::CurrentTime;
  vfs_.xGetLastError = &VfsCallbacks::GetLastError;
  vfs_.xCurrentTimeInt64 = &VfsCallbacks::CurrentTimeInt64;
  int rc = sqlite3_vfs_register(&vfs_, /*makeDflt=*/0);
  CHECK_EQ(rc, SQLITE_OK) << "sqlite3_vfs_register failed";

  for (int i = 0; i < kFileKinds; ++i) {
    sim::StatGroup g = stats.Group(FileKindName(static_cast<FileKind>(i)));
    VfsKindStats& k = kind_stats_[i];
    g.Add(&k.opens, "opens", "calls", "Files opened");
    g.Add(&k.closes, "closes", "calls", "Files closed");
    g.Add(&k.reads, "reads", "calls", "xRead calls (pread)");
    g.Add(&k.writes, "writes", "calls", "xWrite calls (pwrite)");
    g.Add(&k.bytes_read, "bytes_read", "bytes", "Bytes returned by reads");
    g.Add(&k.bytes_written, "bytes_written", "bytes", "Bytes written");
    g.Add(&k.syncs, "syncs", "calls", "fsync/fdatasync calls");
    g.Add(&k.truncates, "truncates", "calls", "xTruncate calls (ftruncate)");
    g.Add(&k.deletes, "deletes", "calls", "Files unlinked");
    g.Add(&k.size_queries, "size_queries", "calls", "xFileSize calls (fstat)");
    g.Add(&k.short_reads, "short_reads", "calls", "Reads that hit the end of the file");
  }
  stats.Add(&accesses_, "accesses", "calls", "xAccess calls (stat)");
  stats.Add(&busy_, "busy", "calls", "Lock requests answered SQLITE_BUSY");
  stats.Add(&sleeps_, "sleeps", "calls", "xSleep calls (busy-handler waits)");
  if (cfg_.fs_transactions) {
    sim::StatGroup t = stats.Group("tx");
    t.Add(&tx_commits_, "commits", "calls", "File-system transactions committed (SQLite commits)");
    t.Add(&tx_aborts_, "aborts", "calls", "File-system transactions aborted (SQLite rollbacks)");
    t.Add(&tx_syncs_skipped_, "syncs_skipped", "calls", "xSync calls of member files left to the commit");
    t.Add(&tx_commit_lat_, "commit_lat", "ns", "Time of TxCommit");
  }
}

SqliteVfs::~SqliteVfs() {
  sqlite3_vfs_unregister(&vfs_);
  LOG_IF(WARNING, open_files_ > 0) << "SQLite VFS " << name_ << " destroyed with " << open_files_
                                   << " open files";
}

VfsCounts SqliteVfs::Snapshot() const {
  VfsCounts c;
  for (int i = 0; i < kFileKinds; ++i) {
    const VfsKindStats& k = kind_stats_[i];
    c.kind[i] = VfsCounts::Kind{k.opens.value(),         k.closes.value(),        k.reads.value(),
                                k.writes.value(),        k.bytes_read.value(),    k.bytes_written.value(),
                                k.syncs.value(),         k.truncates.value(),     k.deletes.value(),
                                k.size_queries.value(),  k.short_reads.value()};
  }
  c.accesses = accesses_.value();
  c.busy = busy_.value();
  c.sleeps = sleeps_.value();
  return c;
}

}  // namespace host::sqlite
