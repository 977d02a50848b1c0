#include "fs/memfs/mem_fs.h"

#include <optional>

#include <algorithm>
#include <cstring>

namespace fs {

namespace {


bool Readable(uint32_t flags) { return (flags & (kWrOnly | kRdWr)) != kWrOnly; }
bool Writable(uint32_t flags) { return (flags & (kWrOnly | kRdWr)) != 0; }

}  // namespace

void MemFsConfig::Describe(sim::Schema<MemFsConfig>& s) {
  s.Param("open_latency", &MemFsConfig::open_latency, "2us", "Service time of open()");
  s.Param("close_latency", &MemFsConfig::close_latency, "1us", "Service time of close()");
  s.Param("read_latency", &MemFsConfig::read_latency, "1us",
          "Fixed part of the service time of read()/pread() (plus bytes / read_bandwidth)");
  s.Param("write_latency", &MemFsConfig::write_latency, "2us",
          "Fixed part of the service time of write()/pwrite() (plus bytes / write_bandwidth)");
  s.Param("fsync_latency", &MemFsConfig::fsync_latency, "20us",
          "Service time of fsync(); also added to every write on an O_SYNC descriptor");
  s.Param("fdatasync_latency", &MemFsConfig::fdatasync_latency, "15us", "Service time of fdatasync()");
  s.Param("stat_latency", &MemFsConfig::stat_latency, "1us", "Service time of stat()/fstat()");
  s.Param("unlink_latency", &MemFsConfig::unlink_latency, "5us", "Service time of unlink()");
  s.Param("mkdir_latency", &MemFsConfig::mkdir_latency, "5us", "Service time of mkdir()");
  s.Param("rmdir_latency", &MemFsConfig::rmdir_latency, "5us", "Service time of rmdir()");
  s.Param("rename_latency", &MemFsConfig::rename_latency, "5us", "Service time of rename()");
  s.Param("link_latency", &MemFsConfig::link_latency, "5us", "Service time of link()");
  s.Param("readdir_latency", &MemFsConfig::readdir_latency, "2us", "Service time of a whole-directory readdir");
  s.Param("truncate_latency", &MemFsConfig::truncate_latency, "3us", "Service time of truncate()/ftruncate()");
  s.Param("sync_latency", &MemFsConfig::sync_latency, "50us", "Service time of sync()");
  s.Param("read_bandwidth", &MemFsConfig::read_bandwidth, "0B/s",
          "Read transfer rate added to read_latency; 0 = no transfer time");
  s.Param("write_bandwidth", &MemFsConfig::write_bandwidth, "0B/s",
          "Write transfer rate added to write_latency; 0 = no transfer time");
  s.Param("parallelism", &MemFsConfig::parallelism, "0",
          "Calls in service at once (others wait in FIFO order); 0 = unlimited");
  s.Param("capacity", &MemFsConfig::capacity, "0", "Space for file data (4 KiB blocks); 0 = unlimited");
  s.Param("max_file_size", &MemFsConfig::max_file_size, "4TiB", "Largest file size (EFBIG beyond)");
  s.Param("direct_io_alignment", &MemFsConfig::direct_io_alignment, "4KiB",
          "O_DIRECT I/O must have offset and length aligned to this (EINVAL otherwise)")
      .Min(1);
}

struct MemFs::Inode {
  uint64_t ino = 0;
  bool is_dir = false;
  uint32_t names = 1;       // directory entries naming it (directories: 1 while linked; root: always)
  Inode* parent = nullptr;  // directories: the containing directory (root: itself)
  uint32_t open_count = 0;
  uint32_t subdirs = 0;     // directories: child directories
  uint64_t size = 0;
  sim::SimTime mtime;
  // Regular files: blocks allocated by writes (bitmap) and the data of the
  // blocks written with real content (null = reads back as zeros).
  uint64_t blocks = 0;
  std::vector<uint64_t> alloc;
  std::vector<std::unique_ptr<uint8_t[]>> data;
  std::map<std::string, Inode*, std::less<>> children;

  bool Allocated(uint64_t b) const {
    return b / 64 < alloc.size() && (alloc[b / 64] >> (b % 64) & 1) != 0;
  }
  // Marks block b allocated; returns true if it was not.
  bool Allocate(uint64_t b) {
    if (b / 64 >= alloc.size()) alloc.resize(b / 64 + 1, 0);
    const uint64_t bit = uint64_t{1} << (b % 64);
    if (alloc[b / 64] & bit) return false;
    alloc[b / 64] |= bit;
    ++blocks;
    return true;
  }
  uint8_t* DataBlock(uint64_t b) { return b < data.size() ? data[b].get() : nullptr; }
  uint8_t* MutableDataBlock(uint64_t b) {
    if (b >= data.size()) data.resize(b + 1);
    if (!data[b]) {
      data[b].reset(new uint8_t[kBlockSize]);
      std::memset(data[b].get(), 0, kBlockSize);
    }
    return data[b].get();
  }
};

struct MemFs::Lookup {
  Errno err = Errno::kOk;
  Inode* parent = nullptr;   // directory holding the last component; null for "/"
  Inode* node = nullptr;     // the named inode; null if the name does not exist
  std::string_view name;     // last component; "" for "/"
  bool dir_required = false; // the path ends with '/'
  bool dot = false;          // "/" or a last component "." / ".."
  // A trailing slash on an existing non-directory.
  bool SlashOnFile() const { return node && dir_required && !node->is_dir; }
};

MemFs::MemFs(sim::EventQueue* q, const MemFsConfig& cfg) : q_(q), cfg_(cfg) {
  CHECK(q_ != nullptr);
  CHECK(cfg_.direct_io_alignment.value > 0);
  if (cfg_.parallelism > 0) slots_ = std::make_unique<sim::Semaphore>(q_, cfg_.parallelism);
  root_ = NewInode(true, nullptr);
  root_->parent = root_;
}

MemFs::~MemFs() = default;

void MemFs::RegisterStats(const sim::StatGroup& g) {
  ops_.Register(g);
  const sim::StatGroup calls = g.Group("calls");
  const std::pair<const sim::Counter*, const char*> kinds[] = {
      {&counters_.open, "open"},           {&counters_.close, "close"},         {&counters_.read, "read"},
      {&counters_.write, "write"},         {&counters_.pread, "pread"},         {&counters_.pwrite, "pwrite"},
      {&counters_.ftruncate, "ftruncate"}, {&counters_.truncate, "truncate"},   {&counters_.fsync, "fsync"},
      {&counters_.fdatasync, "fdatasync"}, {&counters_.fstat, "fstat"},         {&counters_.stat, "stat"},
      {&counters_.unlink, "unlink"},       {&counters_.mkdir, "mkdir"},         {&counters_.rmdir, "rmdir"},
      {&counters_.rename, "rename"},       {&counters_.link, "link"},       {&counters_.readdir, "readdir"},     {&counters_.sync, "sync"},
  };
  for (const auto& [c, name] : kinds) calls.Add(c, name, "calls", "File-system calls of this kind");
  g.Add(&counters_.errors, "errors", "calls", "Calls that returned an error");
  g.Add(&counters_.bytes_read, "bytes_read", "bytes", "Bytes returned by read/pread");
  g.Add(&counters_.bytes_written, "bytes_written", "bytes", "Bytes accepted by write/pwrite");
  g.AddFormula([this] { return static_cast<double>(used_bytes()); }, "used_bytes", "bytes",
               "Space held by file data blocks");
  g.AddFormula([this] { return static_cast<double>(inode_count()); }, "inodes", "inodes",
               "Live inodes (root included)");
}

sim::Task<void> MemFs::Serve(sim::SimTime t) {
  if (slots_) co_await slots_->Acquire();
  ++in_service_;
  if (cpu_ != nullptr) {
    co_await cpu_->Run(t);
  } else {
    co_await sim::Delay(q_, t);
  }
  --in_service_;
  if (slots_) slots_->Release();
}

sim::SimTime MemFs::ReadTime(uint64_t bytes) const {
  sim::SimTime t = cfg_.read_latency;
  if (bytes > 0 && cfg_.read_bandwidth.bytes_per_sec > 0) {
    t += sim::TransferTime(bytes, cfg_.read_bandwidth.bytes_per_sec);
  }
  return t;
}

sim::SimTime MemFs::WriteTime(uint64_t bytes, uint32_t flags) const {
  sim::SimTime t = cfg_.write_latency;
  if (bytes > 0 && cfg_.write_bandwidth.bytes_per_sec > 0) {
    t += sim::TransferTime(bytes, cfg_.write_bandwidth.bytes_per_sec);
  }
  if (flags & kSync) t += cfg_.fsync_latency;
  return t;
}

MemFs::Inode* MemFs::NewInode(bool is_dir, Inode* parent) {
  auto n = std::make_unique<Inode>();
  n->ino = next_ino_++;
  n->is_dir = is_dir;
  n->parent = parent;
  n->mtime = q_->now();
  Inode* raw = n.get();
  inodes_.emplace(raw->ino, std::move(n));
  return raw;
}

void MemFs::DropInodeIfUnused(Inode* node) {
  if (node->names > 0 || node->open_count > 0) return;
  used_blocks_ -= node->blocks;
  inodes_.erase(node->ino);
}

MemFs::OpenFile* MemFs::FileOf(Fd fd) { return fds_.Get(fd); }

FileStat MemFs::StatOf(const Inode& n) const {
  FileStat st;
  st.ino = n.ino;
  st.size = n.is_dir ? 0 : n.size;
  st.blocks = n.blocks;
  st.nlink = n.is_dir ? 2 + n.subdirs : n.names;
  st.is_dir = n.is_dir;
  st.mtime = n.mtime;
  return st;
}

MemFs::Lookup MemFs::Resolve(std::string_view path) const {
  Lookup r;
  const vfs::ParsedPath pp = vfs::ParsePath(path);
  if (pp.err != Errno::kOk) {
    r.err = pp.err;
    return r;
  }
  Inode* cur = root_;
  for (const std::string_view comp : pp.dirs) {
    if (vfs::CheckName(comp) != Errno::kOk) {
      r.err = Errno::kNameTooLong;
      return r;
    }
    if (comp == "..") {
      cur = cur->parent;
      continue;
    }
    auto it = cur->children.find(comp);
    if (it == cur->children.end()) {
      r.err = Errno::kNoEnt;
      return r;
    }
    if (!it->second->is_dir) {
      r.err = Errno::kNotDir;
      return r;
    }
    cur = it->second;
  }
  r.dir_required = pp.dir_required;
  if (vfs::CheckName(pp.last) != Errno::kOk) {
    r.err = Errno::kNameTooLong;
    return r;
  }
  if (pp.is_root) {
    r.node = root_;
    r.dot = true;
    return r;
  }
  r.parent = cur;
  r.name = pp.last;
  if (pp.last_is_dot()) {
    r.dot = true;
    r.node = pp.last == "." ? cur : cur->parent;
    return r;
  }
  auto it = cur->children.find(pp.last);
  r.node = it == cur->children.end() ? nullptr : it->second;
  return r;
}

// ---------------------------------------------------------------------------
// open / close

FsResult<Fd> MemFs::DoOpen(std::string_view path, uint32_t flags) {
  if ((flags & kWrOnly) && (flags & kRdWr)) return Fail<FsResult<Fd>>(Errno::kInval);
  if ((flags & kCreat) && (flags & kDirectory)) return Fail<FsResult<Fd>>(Errno::kInval);
  Lookup r = Resolve(path);
  if (r.err != Errno::kOk) return Fail<FsResult<Fd>>(r.err);
  // As on Linux, O_CREAT with a trailing slash is EISDIR whatever exists
  // (but "." / ".." / "/" are checked like existing directories).
  if ((flags & kCreat) && r.dir_required && !r.dot) return Fail<FsResult<Fd>>(Errno::kIsDir);
  Inode* node = r.node;
  if (node == nullptr) {
    if (!(flags & kCreat)) return Fail<FsResult<Fd>>(Errno::kNoEnt);
    node = NewInode(false, r.parent);
    r.parent->children.emplace(std::string(r.name), node);
    r.parent->mtime = q_->now();
  } else {
    if ((flags & kCreat) && (flags & kExcl)) return Fail<FsResult<Fd>>(Errno::kExist);
    if (node->is_dir) {
      if (Writable(flags) || (flags & (kCreat | kTrunc))) return Fail<FsResult<Fd>>(Errno::kIsDir);
    } else {
      if (r.dir_required || (flags & kDirectory)) return Fail<FsResult<Fd>>(Errno::kNotDir);
      if ((flags & kTrunc) && node->size > 0) {
        const Errno e = ResizeFile(node, 0);
        CHECK(e == Errno::kOk);
      }
    }
  }
  ++node->open_count;
  return FsResult<Fd>{fds_.Open(OpenFile{node, flags, 0}), Errno::kOk};
}

sim::Task<FsResult<Fd>> MemFs::Open(std::string_view path, uint32_t flags) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kOpen, nullptr);
  counters_.open.Inc();
  FsResult<Fd> r = DoOpen(path, flags);
  co_await Serve(cfg_.open_latency);
  co_return r;
}

sim::Task<FsStatus> MemFs::Close(Fd fd) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kClose, nullptr);
  counters_.close.Inc();
  FsStatus r{true, Errno::kOk};
  if (OpenFile* f = FileOf(fd)) {
    Inode* n = f->inode;
    fds_.Close(fd);
    --n->open_count;
    DropInodeIfUnused(n);
  } else {
    r = Fail<FsStatus>(Errno::kBadF);
  }
  co_await Serve(cfg_.close_latency);
  co_return r;
}

// ---------------------------------------------------------------------------
// data

Errno MemFs::CheckIo(const OpenFile* f, uint64_t offset, uint64_t length, bool write) const {
  if (f->inode->is_dir) return write ? Errno::kBadF : Errno::kIsDir;
  if (write ? !Writable(f->flags) : !Readable(f->flags)) return Errno::kBadF;
  if (f->flags & kDirect) {
    const uint64_t a = cfg_.direct_io_alignment.value;
    if (offset % a != 0 || length % a != 0) return Errno::kInval;
  }
  return Errno::kOk;
}

FsResult<uint64_t> MemFs::DoRead(OpenFile* f, uint64_t offset, uint64_t length, uint8_t* out) {
  const Errno e = CheckIo(f, offset, length, false);
  if (e != Errno::kOk) return Fail<FsResult<uint64_t>>(e);
  Inode* n = f->inode;
  if (offset >= n->size || length == 0) return FsResult<uint64_t>{0, Errno::kOk};
  const uint64_t len = std::min<uint64_t>(length, n->size - offset);
  uint64_t done = out == nullptr ? len : 0;  // discarded: nothing to copy
  while (done < len) {
    const uint64_t pos = offset + done;
    const uint64_t b = pos / kBlockSize;
    const uint64_t in_block = pos % kBlockSize;
    const uint64_t chunk = std::min(len - done, kBlockSize - in_block);
    if (const uint8_t* src = n->DataBlock(b)) {
      std::memcpy(out + done, src + in_block, chunk);
    } else {
      std::memset(out + done, 0, chunk);
    }
    done += chunk;
  }
  counters_.bytes_read.Inc(len);
  return FsResult<uint64_t>{len, Errno::kOk};
}

FsResult<uint64_t> MemFs::DoWrite(OpenFile* f, uint64_t offset, std::span<const uint8_t> data, uint64_t length) {
  if (!data.empty() && data.size() != length) return Fail<FsResult<uint64_t>>(Errno::kInval);
  Inode* n = f->inode;
  if (!n->is_dir && (f->flags & kAppend)) offset = n->size;
  const Errno e = CheckIo(f, offset, length, true);
  if (e != Errno::kOk) return Fail<FsResult<uint64_t>>(e);
  if (length == 0) return FsResult<uint64_t>{0, Errno::kOk};
  if (offset > cfg_.max_file_size.value || length > cfg_.max_file_size.value - offset) {
    return Fail<FsResult<uint64_t>>(Errno::kFBig);
  }
  const uint64_t end = offset + length;
  const uint64_t first = offset / kBlockSize;
  const uint64_t last = (end - 1) / kBlockSize;
  if (cfg_.capacity.value > 0) {
    uint64_t fresh = 0;
    for (uint64_t b = first; b <= last; ++b) fresh += n->Allocated(b) ? 0 : 1;
    if ((used_blocks_ + fresh) * kBlockSize > cfg_.capacity.value) return Fail<FsResult<uint64_t>>(Errno::kNoSpc);
  }
  for (uint64_t b = first; b <= last; ++b) {
    if (n->Allocate(b)) ++used_blocks_;
  }
  uint64_t done = 0;
  while (done < length) {
    const uint64_t pos = offset + done;
    const uint64_t b = pos / kBlockSize;
    const uint64_t in_block = pos % kBlockSize;
    const uint64_t chunk = std::min(length - done, kBlockSize - in_block);
    if (!data.empty()) {
      std::memcpy(n->MutableDataBlock(b) + in_block, data.data() + done, chunk);
    } else if (uint8_t* dst = n->DataBlock(b)) {
      if (chunk == kBlockSize) {
        n->data[b].reset();  // a whole zero block needs no storage
      } else {
        std::memset(dst + in_block, 0, chunk);
      }
    }
    done += chunk;
  }
  n->size = std::max(n->size, end);
  n->mtime = q_->now();
  counters_.bytes_written.Inc(length);
  return FsResult<uint64_t>{length, Errno::kOk};
}

sim::Task<FsResult<uint64_t>> MemFs::Read(Fd fd, std::span<uint8_t> out) {
  co_return co_await ReadAt(fd, std::nullopt, out.size(), out.data());
}

sim::Task<FsResult<uint64_t>> MemFs::Pread(Fd fd, uint64_t offset, std::span<uint8_t> out) {
  co_return co_await ReadAt(fd, offset, out.size(), out.data());
}

sim::Task<FsResult<uint64_t>> MemFs::ReadDiscard(Fd fd, uint64_t length) {
  co_return co_await ReadAt(fd, std::nullopt, length, nullptr);
}

sim::Task<FsResult<uint64_t>> MemFs::PreadDiscard(Fd fd, uint64_t offset, uint64_t length) {
  co_return co_await ReadAt(fd, offset, length, nullptr);
}

sim::Task<FsResult<uint64_t>> MemFs::ReadAt(Fd fd, std::optional<uint64_t> offset, uint64_t length, uint8_t* out) {
  const bool at_pos = !offset.has_value();
  OpLatencies::Scope op_scope(&ops_, q_, at_pos ? FsOp::kRead : FsOp::kPread, nullptr);
  (at_pos ? counters_.read : counters_.pread).Inc();
  FsResult<uint64_t> r;
  if (OpenFile* f = FileOf(fd)) {
    r = DoRead(f, at_pos ? f->pos : *offset, length, out);
    if (r.ok() && at_pos) f->pos += r.value;
  } else {
    r = Fail<FsResult<uint64_t>>(Errno::kBadF);
  }
  co_await Serve(ReadTime(r.value));
  co_return r;
}

sim::Task<FsResult<uint64_t>> MemFs::Write(Fd fd, std::span<const uint8_t> data, uint64_t length) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kWrite, nullptr);
  counters_.write.Inc();
  FsResult<uint64_t> r;
  uint32_t flags = 0;
  if (OpenFile* f = FileOf(fd)) {
    flags = f->flags;
    r = DoWrite(f, f->pos, data, length);
    if (r.ok() && r.value > 0) f->pos = (f->flags & kAppend) ? f->inode->size : f->pos + r.value;
  } else {
    r = Fail<FsResult<uint64_t>>(Errno::kBadF);
  }
  co_await Serve(WriteTime(r.value, flags));
  co_return r;
}

sim::Task<FsResult<uint64_t>> MemFs::Pwrite(Fd fd, uint64_t offset, std::span<const uint8_t> data,
                                            uint64_t length) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kPwrite, nullptr);
  counters_.pwrite.Inc();
  FsResult<uint64_t> r;
  uint32_t flags = 0;
  if (OpenFile* f = FileOf(fd)) {
    flags = f->flags;
    r = DoWrite(f, offset, data, length);
  } else {
    r = Fail<FsResult<uint64_t>>(Errno::kBadF);
  }
  co_await Serve(WriteTime(r.value, flags));
  co_return r;
}

Errno MemFs::ResizeFile(Inode* n, uint64_t size) {
  if (size > cfg_.max_file_size.value) return Errno::kFBig;
  if (size < n->size) {
    const uint64_t keep = (size + kBlockSize - 1) / kBlockSize;  // blocks that stay
    for (size_t w = keep / 64; w < n->alloc.size(); ++w) {
      for (uint64_t bit = 0; bit < 64; ++bit) {
        const uint64_t b = w * 64 + bit;
        if (b < keep || !(n->alloc[w] >> bit & 1)) continue;
        n->alloc[w] &= ~(uint64_t{1} << bit);
        --n->blocks;
        --used_blocks_;
      }
    }
    if (n->data.size() > keep) n->data.resize(keep);
    if (size % kBlockSize != 0) {
      if (uint8_t* tail = n->DataBlock(size / kBlockSize)) {
        std::memset(tail + size % kBlockSize, 0, kBlockSize - size % kBlockSize);
      }
    }
  }
  n->size = size;
  n->mtime = q_->now();
  return Errno::kOk;
}

sim::Task<FsStatus> MemFs::Ftruncate(Fd fd, uint64_t size) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kFtruncate, nullptr);
  counters_.ftruncate.Inc();
  FsStatus r{true, Errno::kOk};
  OpenFile* f = FileOf(fd);
  if (f == nullptr) {
    r = Fail<FsStatus>(Errno::kBadF);
  } else if (f->inode->is_dir || !Writable(f->flags)) {
    r = Fail<FsStatus>(Errno::kInval);
  } else if (const Errno e = ResizeFile(f->inode, size); e != Errno::kOk) {
    r = Fail<FsStatus>(e);
  }
  co_await Serve(cfg_.truncate_latency);
  co_return r;
}

sim::Task<FsStatus> MemFs::Truncate(std::string_view path, uint64_t size) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kTruncate, nullptr);
  counters_.truncate.Inc();
  FsStatus r{true, Errno::kOk};
  const Lookup l = Resolve(path);
  if (l.err != Errno::kOk) {
    r = Fail<FsStatus>(l.err);
  } else if (l.node == nullptr) {
    r = Fail<FsStatus>(Errno::kNoEnt);
  } else if (l.node->is_dir) {
    r = Fail<FsStatus>(Errno::kIsDir);
  } else if (l.SlashOnFile()) {
    r = Fail<FsStatus>(Errno::kNotDir);
  } else if (const Errno e = ResizeFile(l.node, size); e != Errno::kOk) {
    r = Fail<FsStatus>(e);
  }
  co_await Serve(cfg_.truncate_latency);
  co_return r;
}

sim::Task<FsStatus> MemFs::Fsync(Fd fd) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kFsync, nullptr);
  counters_.fsync.Inc();
  FsStatus r{true, Errno::kOk};
  if (FileOf(fd) == nullptr) r = Fail<FsStatus>(Errno::kBadF);
  co_await Serve(cfg_.fsync_latency);
  co_return r;
}

sim::Task<FsStatus> MemFs::Fdatasync(Fd fd) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kFdatasync, nullptr);
  counters_.fdatasync.Inc();
  FsStatus r{true, Errno::kOk};
  if (FileOf(fd) == nullptr) r = Fail<FsStatus>(Errno::kBadF);
  co_await Serve(cfg_.fdatasync_latency);
  co_return r;
}

sim::Task<FsStatus> MemFs::Sync() {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kSync, nullptr);
  counters_.sync.Inc();
  co_await Serve(cfg_.sync_latency);
  co_return FsStatus{true, Errno::kOk};
}

// ---------------------------------------------------------------------------
// metadata

sim::Task<FsResult<FileStat>> MemFs::Fstat(Fd fd) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kFstat, nullptr);
  counters_.fstat.Inc();
  FsResult<FileStat> r;
  if (OpenFile* f = FileOf(fd)) {
    r.value = StatOf(*f->inode);
  } else {
    r = Fail<FsResult<FileStat>>(Errno::kBadF);
  }
  co_await Serve(cfg_.stat_latency);
  co_return r;
}

sim::Task<FsResult<FileStat>> MemFs::Stat(std::string_view path) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kStat, nullptr);
  counters_.stat.Inc();
  FsResult<FileStat> r;
  const Lookup l = Resolve(path);
  if (l.err != Errno::kOk) {
    r = Fail<FsResult<FileStat>>(l.err);
  } else if (l.node == nullptr) {
    r = Fail<FsResult<FileStat>>(Errno::kNoEnt);
  } else if (l.SlashOnFile()) {
    r = Fail<FsResult<FileStat>>(Errno::kNotDir);
  } else {
    r.value = StatOf(*l.node);
  }
  co_await Serve(cfg_.stat_latency);
  co_return r;
}

sim::Task<FsStatus> MemFs::Unlink(std::string_view path) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kUnlink, nullptr);
  counters_.unlink.Inc();
  FsStatus r{true, Errno::kOk};
  const Lookup l = Resolve(path);
  if (l.err != Errno::kOk) {
    r = Fail<FsStatus>(l.err);
  } else if (l.node == nullptr) {
    r = Fail<FsStatus>(Errno::kNoEnt);
  } else if (l.node->is_dir) {
    r = Fail<FsStatus>(Errno::kIsDir);
  } else if (l.SlashOnFile()) {
    r = Fail<FsStatus>(Errno::kNotDir);
  } else {
    Inode* n = l.node;
    l.parent->children.erase(l.parent->children.find(l.name));
    l.parent->mtime = q_->now();
    --n->names;
    DropInodeIfUnused(n);
  }
  co_await Serve(cfg_.unlink_latency);
  co_return r;
}

sim::Task<FsStatus> MemFs::Mkdir(std::string_view path) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kMkdir, nullptr);
  counters_.mkdir.Inc();
  FsStatus r{true, Errno::kOk};
  const Lookup l = Resolve(path);
  if (l.err != Errno::kOk) {
    r = Fail<FsStatus>(l.err);
  } else if (l.node != nullptr) {
    r = Fail<FsStatus>(Errno::kExist);
  } else {
    Inode* d = NewInode(true, l.parent);
    l.parent->children.emplace(std::string(l.name), d);
    ++l.parent->subdirs;
    l.parent->mtime = q_->now();
  }
  co_await Serve(cfg_.mkdir_latency);
  co_return r;
}

sim::Task<FsStatus> MemFs::Rmdir(std::string_view path) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kRmdir, nullptr);
  counters_.rmdir.Inc();
  FsStatus r{true, Errno::kOk};
  const Lookup l = Resolve(path);
  if (l.err != Errno::kOk) {
    r = Fail<FsStatus>(l.err);
  } else if (l.node == nullptr) {
    r = Fail<FsStatus>(Errno::kNoEnt);
  } else if (!l.node->is_dir) {
    r = Fail<FsStatus>(Errno::kNotDir);
  } else if (l.dot) {
    r = Fail<FsStatus>(Errno::kInval);
  } else if (!l.node->children.empty()) {
    r = Fail<FsStatus>(Errno::kNotEmpty);
  } else {
    Inode* d = l.node;
    l.parent->children.erase(l.parent->children.find(l.name));
    --l.parent->subdirs;
    l.parent->mtime = q_->now();
    d->names = 0;
    DropInodeIfUnused(d);
  }
  co_await Serve(cfg_.rmdir_latency);
  co_return r;
}

bool MemFs::IsAncestor(const Inode* a, const Inode* b) {
  for (const Inode* x = b;; x = x->parent) {
    if (x == a) return true;
    if (x->parent == x) return false;
  }
}

FsStatus MemFs::DoRename(std::string_view from, std::string_view to) {
  // Both parent directories are looked up before the names themselves.
  const Lookup s = Resolve(from);
  if (s.err != Errno::kOk) return Fail<FsStatus>(s.err);
  const Lookup t = Resolve(to);
  if (t.err != Errno::kOk) return Fail<FsStatus>(t.err);
  if (s.node == nullptr) return Fail<FsStatus>(Errno::kNoEnt);
  if (s.dot || t.dot) return Fail<FsStatus>(Errno::kInval);
  Inode* src = s.node;
  Inode* dst = t.node;
  if (!src->is_dir && (s.dir_required || t.dir_required)) return Fail<FsStatus>(Errno::kNotDir);
  // The source may not be an ancestor of the target, nor the target one of
  // the source (checked in this order, before anything else, as Linux does).
  if (src->is_dir && IsAncestor(src, t.parent)) return Fail<FsStatus>(Errno::kInval);
  if (dst != nullptr && dst->is_dir && IsAncestor(dst, s.parent)) return Fail<FsStatus>(Errno::kNotEmpty);
  if (src == dst) return FsStatus{true, Errno::kOk};
  if (src->is_dir) {
    if (dst != nullptr && !dst->is_dir) return Fail<FsStatus>(Errno::kNotDir);
    if (dst != nullptr && !dst->children.empty()) return Fail<FsStatus>(Errno::kNotEmpty);
  } else if (dst != nullptr && dst->is_dir) {
    return Fail<FsStatus>(Errno::kIsDir);
  }
  const sim::SimTime now = q_->now();
  std::string new_name(t.name);
  if (dst != nullptr) {
    t.parent->children.erase(t.parent->children.find(new_name));
    if (dst->is_dir) --t.parent->subdirs;
    if (dst->is_dir) dst->names = 0; else --dst->names;
    DropInodeIfUnused(dst);
  }
  s.parent->children.erase(s.parent->children.find(s.name));
  t.parent->children.emplace(std::move(new_name), src);
  if (src->is_dir) {
    --s.parent->subdirs;
    ++t.parent->subdirs;
    src->parent = t.parent;
  }
  s.parent->mtime = now;
  t.parent->mtime = now;
  return FsStatus{true, Errno::kOk};
}

sim::Task<FsStatus> MemFs::Link(std::string_view existing, std::string_view new_path) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kLink, nullptr);
  counters_.link.Inc();
  FsStatus r{true, Errno::kOk};
  const Lookup s = Resolve(existing);
  const Lookup t = s.err == Errno::kOk ? Resolve(new_path) : Lookup{};
  if (s.err != Errno::kOk) {
    r = Fail<FsStatus>(s.err);
  } else if (s.node == nullptr) {
    r = Fail<FsStatus>(Errno::kNoEnt);
  } else if (s.SlashOnFile()) {
    r = Fail<FsStatus>(Errno::kNotDir);
  } else if (t.err != Errno::kOk) {
    r = Fail<FsStatus>(t.err);
  } else if (t.node != nullptr || t.dot) {
    r = Fail<FsStatus>(Errno::kExist);
  } else if (t.dir_required) {
    r = Fail<FsStatus>(Errno::kNoEnt);
  } else if (s.node->is_dir) {  // checked last, as Linux's vfs_link does
    r = Fail<FsStatus>(Errno::kPerm);
  } else {
    t.parent->children.emplace(std::string(t.name), s.node);
    ++s.node->names;
    t.parent->mtime = q_->now();
  }
  co_await Serve(cfg_.link_latency);
  co_return r;
}

sim::Task<FsStatus> MemFs::Rename(std::string_view from, std::string_view to) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kRename, nullptr);
  counters_.rename.Inc();
  FsStatus r = DoRename(from, to);
  co_await Serve(cfg_.rename_latency);
  co_return r;
}

sim::Task<FsResult<std::vector<std::string>>> MemFs::Readdir(std::string_view path) {
  OpLatencies::Scope op_scope(&ops_, q_, FsOp::kReaddir, nullptr);
  counters_.readdir.Inc();
  FsResult<std::vector<std::string>> r;
  const Lookup l = Resolve(path);
  if (l.err != Errno::kOk) {
    r = Fail<FsResult<std::vector<std::string>>>(l.err);
  } else if (l.node == nullptr) {
    r = Fail<FsResult<std::vector<std::string>>>(Errno::kNoEnt);
  } else if (!l.node->is_dir) {
    r = Fail<FsResult<std::vector<std::string>>>(Errno::kNotDir);
  } else {
    r.value.reserve(l.node->children.size());
    for (const auto& [name, child] : l.node->children) r.value.push_back(name);
  }
  co_await Serve(cfg_.readdir_latency);
  co_return r;
}

}  // namespace fs
