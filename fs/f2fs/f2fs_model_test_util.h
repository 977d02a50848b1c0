// A reference model of file contents and namespace, a random operation
// generator that drives the F2FS model and checks every result against the
// reference, and the crash oracle: what may legally be on flash after a
// power cut (last checkpoint's namespace, fsynced contents).
#pragma once

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "fs/f2fs/f2fs.h"
#include "fs/f2fs/f2fs_test_util.h"
#include "sim/rng.h"
#include "sim/task.h"

namespace fs::f2fs::testing {

struct RefFile {
  uint64_t id = 0;
  uint64_t ino = 0;
  std::vector<uint8_t> data;
  // Crash oracle: what a recovered file may show. Reset to the exact state at
  // each completed fsync (or sync); every later change adds its states.
  std::set<uint64_t> allowed_sizes{0};
  std::map<uint64_t, std::vector<std::vector<uint8_t>>> allowed_pages;  // page -> candidate contents
  bool fsync_in_flight = false;
  bool fsynced = false;            // an fsync started at least once
  uint64_t last_fsync_clock = 0;   // RefFs::clock when the last fsync returned (0: never)
  std::string path_at_fsync;       // where it was linked then ("" if unlinked)
  uint64_t parent_at_fsync = 0;    // the directory (RefEntry::dir) holding that name then
  bool moved_since_fsync = false;  // unlinked or renamed after that fsync
  // Pages written (or partly zeroed by a truncate) since the last completed
  // fsync or sync: nothing promised them durable, so a checkpoint may point
  // at their block while its write is lost at a power cut (the page then
  // shows what the block held before).
  std::set<uint64_t> written_since_fsync;
};

struct RefEntry {
  bool is_dir = false;
  uint64_t file = 0;  // RefFile id (files only)
  uint64_t dir = 0;   // directory id (directories only; the root is 0), kept across renames
};

class RefFs {
 public:
  std::map<std::string, RefEntry> ns{{"/", RefEntry{true, 0}}};
  std::map<uint64_t, RefFile> files;
  uint64_t next_id = 1;
  uint64_t next_dir_id = 1;
  uint64_t clock = 1;  // advances with every operation
  // Completed namespace changes, in order.
  struct NsChange {
    enum Op : uint8_t { kCreate, kMkdir, kUnlink, kRmdir, kRename, kLink };
    uint64_t clock = 0;
    Op op = kCreate;
    uint64_t file = 0;  // the created file's id (kCreate)
  };
  std::vector<NsChange> ns_log;

  std::string PathOf(uint64_t id) const {
    for (const auto& [p, e] : ns)
      if (!e.is_dir && e.file == id) return p;
    return "";
  }

  static std::string Parent(const std::string& p) {
    const size_t s = p.rfind('/');
    return s == 0 ? "/" : p.substr(0, s);
  }
  static std::string Join(const std::string& d, const std::string& n) { return d == "/" ? "/" + n : d + "/" + n; }
  std::vector<std::string> Children(const std::string& d) const {
    std::vector<std::string> out;
    for (const auto& [p, e] : ns)
      if (p != "/" && Parent(p) == d) out.push_back(p.substr(p.rfind('/') + 1));
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<std::string> Dirs() const {
    std::vector<std::string> out;
    for (const auto& [p, e] : ns)
      if (e.is_dir) out.push_back(p);
    return out;
  }
  std::vector<std::string> Files() const {
    std::vector<std::string> out;
    for (const auto& [p, e] : ns)
      if (!e.is_dir) out.push_back(p);
    return out;
  }

  static std::vector<uint8_t> PageOf(const std::vector<uint8_t>& d, uint64_t page) {
    std::vector<uint8_t> out(kBlockSize, 0);
    const uint64_t off = page * kBlockSize;
    if (off < d.size()) {
      const size_t n = std::min<size_t>(kBlockSize, d.size() - off);
      std::memcpy(out.data(), d.data() + off, n);
    }
    return out;
  }
  static void AddPage(RefFile& f, uint64_t page, std::vector<uint8_t> content) {
    auto& v = f.allowed_pages[page];
    if (v.empty()) v.push_back(std::vector<uint8_t>(kBlockSize, 0));
    if (std::find(v.begin(), v.end(), content) == v.end()) v.push_back(std::move(content));
  }
  static void MarkWritten(RefFile& f, uint64_t offset, uint64_t length) {
    if (length == 0) return;
    for (uint64_t p = offset / kBlockSize; p <= (offset + length - 1) / kBlockSize; ++p)
      f.written_since_fsync.insert(p);
  }
  // Records the states a change of `f` to `next` may leave on flash.
  static void AllowTransition(RefFile& f, const std::vector<uint8_t>& next) {
    f.allowed_sizes.insert(next.size());
    const uint64_t pages = (std::max(f.data.size(), next.size()) + kBlockSize - 1) / kBlockSize;
    for (uint64_t p = 0; p < pages; ++p) {
      std::vector<uint8_t> a = PageOf(f.data, p), b = PageOf(next, p);
      if (a != b) AddPage(f, p, std::move(b));
      else if (!f.allowed_pages.count(p)) AddPage(f, p, std::move(b));
    }
  }
  static void MarkDurable(RefFile& f) {
    f.allowed_sizes = {f.data.size()};
    f.allowed_pages.clear();
    f.written_since_fsync.clear();
    const uint64_t pages = (f.data.size() + kBlockSize - 1) / kBlockSize;
    for (uint64_t p = 0; p < pages; ++p) f.allowed_pages[p] = {PageOf(f.data, p)};
  }
};

// Checkpoint listener recording the namespace each checkpoint persists.
class CpRecorder : public F2fs::Listener {
 public:
  explicit CpRecorder(const RefFs* ref) : ref_(ref) {}
  void OnCheckpointBegin(uint64_t ver) override {
    snapshots[ver] = ref_->ns;
    clocks[ver] = ref_->clock;
  }
  std::map<uint64_t, std::map<std::string, RefEntry>> snapshots;
  std::map<uint64_t, uint64_t> clocks;

 private:
  const RefFs* ref_;
};

struct WorkloadOptions {
  int ops = 300;
  bool check_every_step = true;   // fsck after every operation
  bool verify_reads = true;
  int max_open = 4;
  uint64_t max_file = 400 * 1024;
  uint64_t max_write = 60000;     // largest write (20% of writes; the rest up to 9000 bytes)
  double fsync_ratio = 0.08;
  double sync_ratio = 0.01;
  double synthetic_ratio = 0.2;   // writes with an empty span (zeros)
  double link_ratio = 0;          // hard links (0: none, and the random stream is as without them)
  // Operation mix: kDefault (the stream above), kMetadata (mostly creates,
  // mkdirs, renames and unlinks, few fsyncs: createfiles/makedirs-like) or
  // kFsync (create, append, fsync, delete: varmail-like). The two others
  // ignore fsync_ratio, sync_ratio and link_ratio.
  enum class Mix { kDefault, kMetadata, kFsync };
  Mix mix = Mix::kDefault;
  sim::SimTime think;             // mean think time between operations (0 = none)
  sim::EventQueue* q = nullptr;   // required when think > 0
  std::string prefix;             // file-system directory holding the model's "/" (must exist)
  std::function<void()> on_op_done;  // called after each operation (optional)
};

// The address of block `index` of inode `ino` as the mounted volume maps it
// (its NAT, and the node blocks as the image holds them: call right after
// the mount, when no node is dirty); kNullAddr if none.
inline BlockAddr FileBlockAddress(const F2fs& fs, const Image& image, Nid ino, uint64_t index) {
  auto node = [&](Nid nid) -> const NodeBlock* {
    if (nid == kNullNid || !fs.nat().Valid(nid)) return nullptr;
    const BlockAddr a = fs.nat().Get(nid).addr;
    if (!IsValidBlkaddr(a)) return nullptr;
    const BlockPtr& p = image.Read(a);
    return p && p->type == BlockData::Type::kNode ? static_cast<const NodeBlock*>(p.get()) : nullptr;
  };
  const NodeBlock* b = node(ino);
  if (!b || !b->inode || index >= MaxFileBlocks()) return kNullAddr;
  const NodePath path = GetNodePath(index);
  if (path.level == 0) return b->Addr(path.offsets[0]);
  Nid nid = b->inode->i_nid[path.offsets[0]];
  for (int l = 1; l <= path.level; ++l) {
    const NodeBlock* n = node(nid);
    if (!n) return kNullAddr;
    if (l == path.level) return n->Addr(path.offsets[l]);
    nid = n->Child(path.offsets[l]);
  }
  return kNullAddr;
}

// Drives F2fs with random operations and checks each result against RefFs.
class RandomWorkload {
 public:
  RandomWorkload(F2fs* fs, uint64_t seed, WorkloadOptions opt) : fs_(fs), rng_(seed, "f2fs.test.workload"), opt_(opt) {}

  RefFs& ref() { return ref_; }
  int ops_done() const { return ops_done_; }
  int enospc() const { return enospc_; }
  std::string failure;  // first mismatch

  // Creates `path` with `bytes` of zeros (synthetic writes), fsynced, then
  // a sync: ballast that leaves the random operations little free space.
  sim::Task<void> Prefill(std::string path, uint64_t bytes) {
    FsResult<Fd> fd = co_await fs_->Open(P(path), kCreat | kRdWr);
    if (!fd.ok()) {
      Fail("prefill open");
      co_return;
    }
    const uint64_t id = ref_.next_id++;
    RefFile& f = ref_.files[id];
    f.id = id;
    f.ino = (co_await fs_->Fstat(fd.value)).value.ino;
    ref_.ns[path] = RefEntry{false, id};
    for (uint64_t off = 0; off < bytes; off += 1 << 20) {
      const uint64_t n = std::min<uint64_t>(1 << 20, bytes - off);
      FsResult<uint64_t> r = co_await fs_->Pwrite(fd.value, off, {}, n);
      if (!r.ok() || r.value != n) {
        Fail("prefill write");
        co_return;
      }
    }
    ref_.files[id].data.assign(bytes, 0);
    co_await fs_->Fsync(fd.value);
    co_await fs_->Close(fd.value);
    co_await fs_->Sync();
    RefFs::MarkDurable(ref_.files[id]);
  }

  sim::Task<void> Run() {
    for (int i = 0; i < opt_.ops && failure.empty(); ++i) {
      if (opt_.think > sim::SimTime::Zero())
        co_await sim::Delay(opt_.q, sim::Ns(static_cast<int64_t>(rng_.Exponential(static_cast<double>(opt_.think.ns())))));
      ++ref_.clock;
      co_await Step();
      ++ops_done_;
      if (opt_.on_op_done) opt_.on_op_done();
      if (opt_.check_every_step && failure.empty()) {
        sim::Status st = fs_->Check();
        if (!st.ok()) Fail(fmt::format("after op {} ({}): {}", i, last_op_, st.message()));
      }
    }
  }

 private:
  struct OpenFd {
    Fd fd;
    uint64_t file;
  };
  void Fail(std::string m) {
    if (failure.empty()) failure = std::move(m);
  }
  // The file-system path of a model path.
  std::string P(const std::string& p) const { return opt_.prefix.empty() ? p : (p == "/" ? opt_.prefix : opt_.prefix + p); }
  std::string NewName() { return fmt::format("n{}", rng_.Uniform(40)); }
  template <class T>
  const T& Pick(const std::vector<T>& v) {
    return v[rng_.Uniform(v.size())];
  }
  std::vector<uint8_t> Bytes(size_t n) {
    std::vector<uint8_t> v(n);
    for (auto& b : v) b = static_cast<uint8_t>(rng_.Next());
    return v;
  }

  sim::Task<void> Step() {
    if (opt_.mix != WorkloadOptions::Mix::kDefault) co_return co_await StepMix();
    if (opt_.link_ratio > 0 && rng_.UniformDouble() < opt_.link_ratio) co_return co_await DoLink();
    const uint64_t r = rng_.Uniform(1000);
    if (r < 60) co_await DoMkdir();
    else if (r < 200) co_await DoCreate();
    else if (r < 460) co_await DoWrite();
    else if (r < 560) co_await DoRead();
    else if (r < 610) co_await DoTruncate();
    else if (r < 610 + static_cast<uint64_t>(opt_.fsync_ratio * 1000)) co_await DoFsync();
    else if (r < 720) co_await DoClose();
    else if (r < 790) co_await DoUnlink();
    else if (r < 850) co_await DoRename();
    else if (r < 880) co_await DoRmdir();
    else if (r < 930) co_await DoReaddir();
    else if (r < 930 + static_cast<uint64_t>(opt_.sync_ratio * 1000)) co_await DoSync();
    else co_await DoStat();
  }

  // Per mille of each operation, in the order mkdir, create, write, read,
  // truncate, fsync, close, unlink, rename, rmdir, readdir, stat.
  sim::Task<void> StepMix() {
    static constexpr int kMetadata[] = {100, 300, 120, 20, 10, 10, 60, 160, 160, 40, 10, 10};
    static constexpr int kFsync[] = {10, 150, 300, 50, 10, 250, 100, 100, 20, 0, 5, 5};
    const int* w = opt_.mix == WorkloadOptions::Mix::kMetadata ? kMetadata : kFsync;
    int r = static_cast<int>(rng_.Uniform(1000));
    int k = 0;
    while (k < 11 && r >= w[k]) r -= w[k++];
    switch (k) {
      case 0: co_return co_await DoMkdir();
      case 1: co_return co_await DoCreate();
      case 2: co_return co_await DoWrite();
      case 3: co_return co_await DoRead();
      case 4: co_return co_await DoTruncate();
      case 5: co_return co_await DoFsync();
      case 6: co_return co_await DoClose();
      case 7: co_return co_await DoUnlink();
      case 8: co_return co_await DoRename();
      case 9: co_return co_await DoRmdir();
      case 10: co_return co_await DoReaddir();
      default: co_return co_await DoStat();
    }
  }

  sim::Task<void> DoMkdir() {
    last_op_ = "mkdir";
    const std::string p = RefFs::Join(Pick(ref_.Dirs()), NewName());
    FsStatus r = co_await fs_->Mkdir(P(p));
    const bool exists = ref_.ns.count(p) > 0;
    if (r.err == Errno::kNoSpc && !exists) {
      ++enospc_;
      co_return;
    }
    if (exists) {
      if (r.err != Errno::kExist) Fail("mkdir " + p + " over an existing name: " + std::string(ErrnoName(r.err)));
      co_return;
    }
    if (!r.ok()) {
      Fail("mkdir " + p + ": " + std::string(ErrnoName(r.err)));
      co_return;
    }
    ref_.ns[p] = RefEntry{true, 0, ref_.next_dir_id++};
    ref_.ns_log.push_back({ref_.clock, RefFs::NsChange::kMkdir});
  }

  sim::Task<void> DoCreate() {
    last_op_ = "create";
    if (static_cast<int>(open_.size()) >= opt_.max_open) co_return co_await DoClose();
    const std::string p = RefFs::Join(Pick(ref_.Dirs()), NewName());
    auto it = ref_.ns.find(p);
    if (it != ref_.ns.end() && it->second.is_dir) {
      FsResult<Fd> r = co_await fs_->Open(P(p), kCreat | kRdWr);
      if (r.err != Errno::kIsDir) Fail("open of a directory for write: " + std::string(ErrnoName(r.err)));
      co_return;
    }
    const bool trunc = rng_.Bernoulli(0.3);
    uint64_t id;
    if (it == ref_.ns.end()) {
      id = ref_.next_id++;
      RefFile& f = ref_.files[id];
      f.id = id;
    } else {
      id = it->second.file;
      if (trunc) RefFs::AllowTransition(ref_.files[id], {});
    }
    FsResult<Fd> r = co_await fs_->Open(P(p), kCreat | kRdWr | (trunc ? static_cast<uint32_t>(kTrunc) : 0u));
    if (r.err == Errno::kNoSpc && it == ref_.ns.end()) {
      ++enospc_;
      co_return;
    }
    if (!r.ok()) {
      Fail("open " + p + ": " + std::string(ErrnoName(r.err)));
      co_return;
    }
    if (it == ref_.ns.end()) ref_.ns_log.push_back({ref_.clock, RefFs::NsChange::kCreate, id});
    ref_.ns[p] = RefEntry{false, id};
    RefFile& f = ref_.files[id];
    if (trunc) f.data.clear();
    FsResult<FileStat> st = co_await fs_->Fstat(r.value);
    f.ino = st.value.ino;
    if (st.value.size != f.data.size()) Fail("size after open of " + p);
    open_.push_back(OpenFd{r.value, id});
  }

  sim::Task<void> DoWrite() {
    last_op_ = "write";
    if (open_.empty()) co_return co_await DoCreate();
    const OpenFd of = Pick(open_);
    RefFile& f = ref_.files[of.file];
    const uint64_t off = rng_.Uniform(std::min<uint64_t>(opt_.max_file, f.data.size() + 20000));
    uint64_t len = 1 + rng_.Uniform(rng_.Bernoulli(0.2) ? opt_.max_write : 9000);
    if (off + len > opt_.max_file) len = std::max<uint64_t>(1, opt_.max_file - off);
    const bool synthetic = rng_.Bernoulli(opt_.synthetic_ratio);
    const std::vector<uint8_t> data = synthetic ? std::vector<uint8_t>() : Bytes(len);
    std::vector<uint8_t> next = f.data;
    if (next.size() < off + len) next.resize(off + len, 0);
    if (synthetic) std::memset(next.data() + off, 0, len);
    else std::memcpy(next.data() + off, data.data(), len);
    RefFs::AllowTransition(f, next);
    const std::set<uint64_t> written_before = f.written_since_fsync;
    RefFs::MarkWritten(f, off, len);
    FsResult<uint64_t> r = co_await fs_->Pwrite(of.fd, off, data, len);
    RefFile& g = ref_.files[of.file];
    if (r.err == Errno::kNoSpc || (r.ok() && r.value < len && r.value > 0)) {
      // Out of space: the first r.value bytes were written.
      ++enospc_;
      g.written_since_fsync = written_before;
      RefFs::MarkWritten(g, off, r.value);
      if (r.value > 0) {
        std::vector<uint8_t> part = g.data;
        if (part.size() < off + r.value) part.resize(off + r.value, 0);
        std::memcpy(part.data() + off, next.data() + off, r.value);
        RefFs::AllowTransition(g, part);
        g.data = std::move(part);
      }
      co_return;
    }
    if (!r.ok() || r.value != len) {
      Fail(fmt::format("pwrite {} at {}: {} ({})", len, off, r.value, ErrnoName(r.err)));
      co_return;
    }
    g.data = std::move(next);
  }

  sim::Task<void> DoRead() {
    last_op_ = "read";
    if (open_.empty()) co_return;
    const OpenFd of = Pick(open_);
    const RefFile& f = ref_.files[of.file];
    const uint64_t off = rng_.Uniform(f.data.size() + 5000);
    const uint64_t len = 1 + rng_.Uniform(40000);
    std::vector<uint8_t> out(len);
    FsResult<uint64_t> r = co_await fs_->Pread(of.fd, off, out);
    if (!r.ok()) {
      Fail("pread: " + std::string(ErrnoName(r.err)));
      co_return;
    }
    const uint64_t want = off >= f.data.size() ? 0 : std::min<uint64_t>(len, f.data.size() - off);
    if (r.value != want) {
      Fail(fmt::format("pread {} at {} of file {}: got {} bytes, want {}", len, off, f.id, r.value, want));
      co_return;
    }
    if (opt_.verify_reads && want > 0 && std::memcmp(out.data(), f.data.data() + off, want) != 0)
      Fail(fmt::format("pread {} at {} of file {}: content differs", len, off, f.id));
  }

  sim::Task<void> DoTruncate() {
    last_op_ = "truncate";
    if (open_.empty()) co_return;
    const OpenFd of = Pick(open_);
    RefFile& f = ref_.files[of.file];
    const uint64_t size = rng_.Uniform(f.data.size() + 10000);
    std::vector<uint8_t> next = f.data;
    next.resize(size, 0);
    RefFs::AllowTransition(f, next);
    // The page holding the new end (if inside the old data) gets zeros after it.
    if (size < f.data.size() && size % kBlockSize != 0) RefFs::MarkWritten(f, size, 1);
    FsStatus r = co_await fs_->Ftruncate(of.fd, size);
    if (!r.ok()) {
      Fail("ftruncate: " + std::string(ErrnoName(r.err)));
      co_return;
    }
    f.data = std::move(next);
  }

  sim::Task<void> DoFsync() {
    last_op_ = "fsync";
    if (open_.empty()) co_return;
    const OpenFd of = Pick(open_);
    RefFile& f = ref_.files[of.file];
    f.fsync_in_flight = true;
    f.fsynced = true;
    FsStatus r = rng_.Bernoulli(0.3) ? co_await fs_->Fdatasync(of.fd) : co_await fs_->Fsync(of.fd);
    RefFile& g = ref_.files[of.file];
    g.fsync_in_flight = false;
    if (!r.ok()) {
      Fail("fsync: " + std::string(ErrnoName(r.err)));
      co_return;
    }
    RefFs::MarkDurable(g);
    g.last_fsync_clock = ref_.clock;
    g.path_at_fsync = ref_.PathOf(g.id);
    if (!g.path_at_fsync.empty()) g.parent_at_fsync = ref_.ns.at(RefFs::Parent(g.path_at_fsync)).dir;
    g.moved_since_fsync = false;
  }

  sim::Task<void> DoSync() {
    last_op_ = "sync";
    FsStatus r = co_await fs_->Sync();
    if (!r.ok()) Fail("sync failed");
    for (auto& [id, f] : ref_.files) RefFs::MarkDurable(f);
  }

  sim::Task<void> DoClose() {
    last_op_ = "close";
    if (open_.empty()) co_return;
    const size_t i = rng_.Uniform(open_.size());
    const Fd fd = open_[i].fd;
    open_.erase(open_.begin() + static_cast<long>(i));
    FsStatus r = co_await fs_->Close(fd);
    if (!r.ok()) Fail("close failed");
  }

  sim::Task<void> DoUnlink() {
    last_op_ = "unlink";
    std::vector<std::string> files = ref_.Files();
    files.erase(std::remove(files.begin(), files.end(), "/ballast"), files.end());
    if (files.empty()) co_return;
    const std::string p = Pick(files);
    FsStatus r = co_await fs_->Unlink(P(p));
    if (!r.ok()) {
      Fail("unlink " + p + ": " + std::string(ErrnoName(r.err)));
      co_return;
    }
    ref_.files[ref_.ns[p].file].moved_since_fsync = true;
    ref_.ns.erase(p);
    ref_.ns_log.push_back({ref_.clock, RefFs::NsChange::kUnlink});
  }

  // link(2): a second name for a file (another file, or a directory, may
  // already hold the new name).
  sim::Task<void> DoLink() {
    last_op_ = "link";
    std::vector<std::string> files = ref_.Files();
    files.erase(std::remove(files.begin(), files.end(), "/ballast"), files.end());
    if (files.empty()) co_return;
    const std::string from = Pick(files);
    const std::string to = RefFs::Join(Pick(ref_.Dirs()), NewName());
    const bool exists = ref_.ns.count(to) > 0;
    FsStatus r = co_await fs_->Link(P(from), P(to));
    if (r.err == Errno::kNoSpc && !exists) {
      ++enospc_;
      co_return;
    }
    if (exists) {
      if (r.err != Errno::kExist) Fail("link " + from + " -> existing " + to + ": " + std::string(ErrnoName(r.err)));
      co_return;
    }
    if (!r.ok()) {
      Fail("link " + from + " -> " + to + ": " + std::string(ErrnoName(r.err)));
      co_return;
    }
    const uint64_t id = ref_.ns[from].file;
    ref_.ns[to] = RefEntry{false, id};
    ref_.ns_log.push_back({ref_.clock, RefFs::NsChange::kLink});
    ref_.files[id].moved_since_fsync = true;
  }

  sim::Task<void> DoRmdir() {
    last_op_ = "rmdir";
    std::vector<std::string> dirs = ref_.Dirs();
    dirs.erase(std::remove(dirs.begin(), dirs.end(), "/"), dirs.end());
    if (dirs.empty()) co_return;
    const std::string p = Pick(dirs);
    const bool empty = ref_.Children(p).empty();
    FsStatus r = co_await fs_->Rmdir(P(p));
    if (!empty) {
      if (r.err != Errno::kNotEmpty) Fail("rmdir of a non-empty dir: " + std::string(ErrnoName(r.err)));
      co_return;
    }
    if (!r.ok()) {
      Fail("rmdir " + p + ": " + std::string(ErrnoName(r.err)));
      co_return;
    }
    ref_.ns.erase(p);
    ref_.ns_log.push_back({ref_.clock, RefFs::NsChange::kRmdir});
  }

  sim::Task<void> DoRename() {
    last_op_ = "rename";
    std::vector<std::string> all;
    for (const auto& [p, e] : ref_.ns)
      if (p != "/" && p != "/ballast") all.push_back(p);
    if (all.empty()) co_return;
    const std::string from = Pick(all);
    const RefEntry src = ref_.ns[from];
    const std::string to = RefFs::Join(Pick(ref_.Dirs()), NewName());
    if (to == "/ballast") co_return;
    // Expected outcome.
    Errno want = Errno::kOk;
    auto dst = ref_.ns.find(to);
    if (to == from) {
      want = Errno::kOk;
    } else if (src.is_dir && (to.rfind(from + "/", 0) == 0)) {
      want = Errno::kInval;
    } else if (dst != ref_.ns.end()) {
      if (src.is_dir && !dst->second.is_dir) want = Errno::kNotDir;
      else if (!src.is_dir && dst->second.is_dir) want = Errno::kIsDir;
      else if (dst->second.is_dir && !ref_.Children(to).empty()) want = Errno::kNotEmpty;
    }
    FsStatus r = co_await fs_->Rename(P(from), P(to));
    if (r.err != want) {
      Fail(fmt::format("rename {} -> {}: got {}, want {}", from, to, ErrnoName(r.err), ErrnoName(want)));
      co_return;
    }
    // Two names of one file: rename(2) does nothing.
    const bool same_file = dst != ref_.ns.end() && !src.is_dir && !dst->second.is_dir && dst->second.file == src.file;
    if (want != Errno::kOk || to == from || same_file) co_return;
    if (!src.is_dir) ref_.files[src.file].moved_since_fsync = true;
    if (dst != ref_.ns.end() && !dst->second.is_dir) ref_.files[dst->second.file].moved_since_fsync = true;
    // Move the entry and (for a directory) everything below it.
    std::map<std::string, RefEntry> moved;
    for (auto it = ref_.ns.begin(); it != ref_.ns.end();) {
      if (it->first == from || it->first.rfind(from + "/", 0) == 0) {
        moved[to + it->first.substr(from.size())] = it->second;
        it = ref_.ns.erase(it);
      } else {
        ++it;
      }
    }
    ref_.ns.erase(to);
    for (auto& [p, e] : moved) ref_.ns[p] = e;
    ref_.ns_log.push_back({ref_.clock, RefFs::NsChange::kRename});
  }

  sim::Task<void> DoReaddir() {
    last_op_ = "readdir";
    const std::string d = Pick(ref_.Dirs());
    FsResult<std::vector<std::string>> r = co_await fs_->Readdir(P(d));
    if (!r.ok()) {
      Fail("readdir " + d + ": " + std::string(ErrnoName(r.err)));
      co_return;
    }
    std::vector<std::string> got = r.value;
    std::sort(got.begin(), got.end());
    if (got != ref_.Children(d)) Fail("readdir " + d + " differs from the model");
  }

  sim::Task<void> DoStat() {
    last_op_ = "stat";
    std::vector<std::string> all;
    for (const auto& [p, e] : ref_.ns) all.push_back(p);
    const std::string p = Pick(all);
    FsResult<FileStat> r = co_await fs_->Stat(P(p));
    if (!r.ok()) {
      Fail("stat " + p + ": " + std::string(ErrnoName(r.err)));
      co_return;
    }
    const RefEntry& e = ref_.ns[p];
    if (r.value.is_dir != e.is_dir) Fail("stat " + p + ": type differs");
    if (!e.is_dir && r.value.size != ref_.files[e.file].data.size()) Fail("stat " + p + ": size differs");
    FsResult<FileStat> missing = co_await fs_->Stat(P(p) + "_missing");
    if (missing.err != Errno::kNoEnt && missing.err != Errno::kNotDir) Fail("stat of a missing name");
  }

  F2fs* fs_;
  RefFs ref_;
  sim::Rng rng_;
  WorkloadOptions opt_;
  std::vector<OpenFd> open_;
  int ops_done_ = 0;
  int enospc_ = 0;
  std::string last_op_;
};

}  // namespace fs::f2fs::testing
