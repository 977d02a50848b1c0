// TestingFs: a small in-memory fs::FileSystem for the fs_sqlite tests.
//
// Real data, POSIX-like semantics (open file descriptors keep an unlinked
// file alive, O_EXCL, O_TRUNC, O_APPEND, directories that can be opened and
// fsync'ed), and a fixed simulated latency per call so simulated time
// advances: `base` for every call, plus `per_4k` for each started 4 KiB of
// data moved, plus `sync` for fsync/fdatasync. It also counts calls per
// kind (and syncs on directories) so tests can compare what the VFS asked
// for with what reached the file system. Test-only: no page cache, no
// device.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "fs/file_system.h"
#include "sim/event_queue.h"
#include "sim/task.h"
#include "sim/time.h"

namespace host::sqlite::testing {

struct TestingFsLatency {
  sim::SimTime base = sim::Us(5);     // every call
  sim::SimTime per_4k = sim::Us(20);  // each started 4 KiB read or written
  sim::SimTime sync = sim::Us(500);   // fsync / fdatasync (file or directory)
};

struct TestingFsCounts {
  uint64_t opens = 0, closes = 0, reads = 0, writes = 0, bytes_read = 0, bytes_written = 0;
  uint64_t fsyncs = 0, fdatasyncs = 0, dir_syncs = 0, truncates = 0, unlinks = 0, stats = 0, mkdirs = 0;
  uint64_t tx_commits = 0;
};

class TestingFs final : public fs::FileSystem {
 public:
  explicit TestingFs(sim::EventQueue* q, TestingFsLatency lat = {}) : q_(q), lat_(lat) {
    auto root = std::make_shared<Inode>();
    root->is_dir = true;
    root->ino = next_ino_++;
    names_["/"] = root;
  }

  const TestingFsCounts& counts() const { return counts_; }
  // Direct, untimed look at a file's content (tests only).
  bool Exists(const std::string& path) const { return names_.count(Norm(path)) > 0; }
  std::vector<uint8_t> Content(const std::string& path) const {
    auto it = names_.find(Norm(path));
    return it == names_.end() ? std::vector<uint8_t>{} : it->second->data;
  }
  uint64_t open_fds() const { return fds_.size(); }

  // When enabled, every mutating or syncing call is logged as
  // "open /p", "pwrite /p", "ftruncate /p 0", "fdatasync /p", "close /p",
  // "unlink /p" (reads and stats are not logged).
  void set_logging(bool on) { logging_ = on; }
  std::vector<std::string>& log() { return log_; }

  sim::Task<fs::FsResult<fs::Fd>> Open(std::string_view path_in, uint32_t flags) override {
    co_await sim::Delay(q_, lat_.base);
    ++counts_.opens;
    const std::string path = Norm(path_in);
    auto it = names_.find(path);
    std::shared_ptr<Inode> node;
    if (it == names_.end()) {
      if (!(flags & fs::kCreat) || (flags & fs::kDirectory)) co_return Err<fs::Fd>(fs::Errno::kNoEnt);
      auto parent = names_.find(Parent(path));
      if (parent == names_.end()) co_return Err<fs::Fd>(fs::Errno::kNoEnt);
      if (!parent->second->is_dir) co_return Err<fs::Fd>(fs::Errno::kNotDir);
      node = std::make_shared<Inode>();
      node->ino = next_ino_++;
      names_[path] = node;
    } else {
      node = it->second;
      if ((flags & fs::kCreat) && (flags & fs::kExcl)) co_return Err<fs::Fd>(fs::Errno::kExist);
      if ((flags & fs::kDirectory) && !node->is_dir) co_return Err<fs::Fd>(fs::Errno::kNotDir);
      if (node->is_dir && (flags & (fs::kWrOnly | fs::kRdWr))) co_return Err<fs::Fd>(fs::Errno::kIsDir);
      if ((flags & fs::kTrunc) && !node->is_dir) node->data.clear();
    }
    fs::Fd fd = next_fd_++;
    fds_[fd] = OpenFile{node, 0, flags, path};
    Log("open " + path);
    co_return fs::FsResult<fs::Fd>{fd, fs::Errno::kOk};
  }

  sim::Task<fs::FsStatus> Close(fs::Fd fd) override {
    co_await sim::Delay(q_, lat_.base);
    ++counts_.closes;
    auto it = fds_.find(fd);
    if (it == fds_.end()) co_return Fail(fs::Errno::kBadF);
    Log("close " + it->second.path);
    fds_.erase(it);
    co_return Ok();
  }

  sim::Task<fs::FsResult<uint64_t>> Read(fs::Fd fd, std::span<uint8_t> out) override {
    auto it = fds_.find(fd);
    if (it == fds_.end()) co_return Err<uint64_t>(fs::Errno::kBadF);
    uint64_t pos = it->second.pos;
    auto r = co_await Pread(fd, pos, out);
    if (r.ok()) fds_[fd].pos = pos + r.value;
    co_return r;
  }

  sim::Task<fs::FsResult<uint64_t>> Write(fs::Fd fd, std::span<const uint8_t> data, uint64_t length) override {
    auto it = fds_.find(fd);
    if (it == fds_.end()) co_return Err<uint64_t>(fs::Errno::kBadF);
    uint64_t pos = (it->second.flags & fs::kAppend) ? it->second.node->data.size() : it->second.pos;
    auto r = co_await Pwrite(fd, pos, data, length);
    if (r.ok()) fds_[fd].pos = pos + r.value;
    co_return r;
  }

  sim::Task<fs::FsResult<uint64_t>> Pread(fs::Fd fd, uint64_t offset, std::span<uint8_t> out) override {
    co_await sim::Delay(q_, lat_.base + DataTime(out.size()));
    auto it = fds_.find(fd);
    if (it == fds_.end()) co_return Err<uint64_t>(fs::Errno::kBadF);
    if (it->second.node->is_dir) co_return Err<uint64_t>(fs::Errno::kIsDir);
    ++counts_.reads;
    const auto& d = it->second.node->data;
    uint64_t n = offset >= d.size() ? 0 : std::min<uint64_t>(out.size(), d.size() - offset);
    if (n) std::memcpy(out.data(), d.data() + offset, n);
    counts_.bytes_read += n;
    co_return fs::FsResult<uint64_t>{n, fs::Errno::kOk};
  }

  sim::Task<fs::FsResult<uint64_t>> Pwrite(fs::Fd fd, uint64_t offset, std::span<const uint8_t> data,
                                           uint64_t length) override {
    co_await sim::Delay(q_, lat_.base + DataTime(length));
    auto it = fds_.find(fd);
    if (it == fds_.end()) co_return Err<uint64_t>(fs::Errno::kBadF);
    if (it->second.node->is_dir) co_return Err<uint64_t>(fs::Errno::kIsDir);
    if (!(it->second.flags & (fs::kWrOnly | fs::kRdWr))) co_return Err<uint64_t>(fs::Errno::kBadF);
    if (!data.empty() && data.size() != length) co_return Err<uint64_t>(fs::Errno::kInval);
    ++counts_.writes;
    Log("pwrite " + it->second.path);
    auto& d = it->second.node->data;
    if (d.size() < offset + length) d.resize(offset + length, 0);
    if (data.empty()) {
      std::fill(d.begin() + offset, d.begin() + offset + length, 0);
    } else {
      std::memcpy(d.data() + offset, data.data(), length);
    }
    counts_.bytes_written += length;
    co_return fs::FsResult<uint64_t>{length, fs::Errno::kOk};
  }

  sim::Task<fs::FsStatus> Ftruncate(fs::Fd fd, uint64_t size) override {
    co_await sim::Delay(q_, lat_.base);
    auto it = fds_.find(fd);
    if (it == fds_.end()) co_return Fail(fs::Errno::kBadF);
    if (it->second.node->is_dir) co_return Fail(fs::Errno::kIsDir);
    ++counts_.truncates;
    Log("ftruncate " + it->second.path + " " + std::to_string(size));
    it->second.node->data.resize(size, 0);
    co_return Ok();
  }

  sim::Task<fs::FsStatus> Truncate(std::string_view path, uint64_t size) override {
    co_await sim::Delay(q_, lat_.base);
    auto it = names_.find(Norm(path));
    if (it == names_.end()) co_return Fail(fs::Errno::kNoEnt);
    if (it->second->is_dir) co_return Fail(fs::Errno::kIsDir);
    ++counts_.truncates;
    it->second->data.resize(size, 0);
    co_return Ok();
  }

  sim::Task<fs::FsStatus> Fsync(fs::Fd fd) override { return SyncCall(fd, /*data_only=*/false); }
  sim::Task<fs::FsStatus> Fdatasync(fs::Fd fd) override { return SyncCall(fd, /*data_only=*/true); }

  sim::Task<fs::FsResult<fs::FileStat>> Fstat(fs::Fd fd) override {
    co_await sim::Delay(q_, lat_.base);
    ++counts_.stats;
    auto it = fds_.find(fd);
    if (it == fds_.end()) co_return Err<fs::FileStat>(fs::Errno::kBadF);
    co_return fs::FsResult<fs::FileStat>{StatOf(*it->second.node), fs::Errno::kOk};
  }

  sim::Task<fs::FsResult<fs::FileStat>> Stat(std::string_view path) override {
    co_await sim::Delay(q_, lat_.base);
    ++counts_.stats;
    auto it = names_.find(Norm(path));
    if (it == names_.end()) co_return Err<fs::FileStat>(fs::Errno::kNoEnt);
    co_return fs::FsResult<fs::FileStat>{StatOf(*it->second), fs::Errno::kOk};
  }

  sim::Task<fs::FsStatus> Unlink(std::string_view path_in) override {
    co_await sim::Delay(q_, lat_.base);
    const std::string path = Norm(path_in);
    auto it = names_.find(path);
    if (it == names_.end()) co_return Fail(fs::Errno::kNoEnt);
    if (it->second->is_dir) co_return Fail(fs::Errno::kIsDir);
    ++counts_.unlinks;
    Log("unlink " + path);
    names_.erase(it);  // open descriptors keep the inode
    co_return Ok();
  }

  sim::Task<fs::FsStatus> Mkdir(std::string_view path_in) override {
    co_await sim::Delay(q_, lat_.base);
    const std::string path = Norm(path_in);
    if (names_.count(path)) co_return Fail(fs::Errno::kExist);
    auto parent = names_.find(Parent(path));
    if (parent == names_.end()) co_return Fail(fs::Errno::kNoEnt);
    if (!parent->second->is_dir) co_return Fail(fs::Errno::kNotDir);
    ++counts_.mkdirs;
    auto node = std::make_shared<Inode>();
    node->is_dir = true;
    node->ino = next_ino_++;
    names_[path] = node;
    co_return Ok();
  }

  sim::Task<fs::FsStatus> Rmdir(std::string_view path_in) override {
    co_await sim::Delay(q_, lat_.base);
    const std::string path = Norm(path_in);
    auto it = names_.find(path);
    if (it == names_.end()) co_return Fail(fs::Errno::kNoEnt);
    if (!it->second->is_dir) co_return Fail(fs::Errno::kNotDir);
    if (!Children(path).empty()) co_return Fail(fs::Errno::kNotEmpty);
    names_.erase(it);
    co_return Ok();
  }

  sim::Task<fs::FsStatus> Rename(std::string_view from_in, std::string_view to_in) override {
    co_await sim::Delay(q_, lat_.base);
    const std::string from = Norm(from_in), to = Norm(to_in);
    auto it = names_.find(from);
    if (it == names_.end()) co_return Fail(fs::Errno::kNoEnt);
    if (it->second->is_dir) co_return Fail(fs::Errno::kInval);  // files only in this double
    auto node = it->second;
    names_.erase(it);
    names_[to] = node;
    co_return Ok();
  }

  sim::Task<fs::FsStatus> Link(std::string_view existing_in, std::string_view new_in) override {
    co_await sim::Delay(q_, lat_.base);
    const std::string existing = Norm(existing_in), name = Norm(new_in);
    auto it = names_.find(existing);
    if (it == names_.end()) co_return Fail(fs::Errno::kNoEnt);
    if (it->second->is_dir) co_return Fail(fs::Errno::kPerm);
    if (names_.count(name)) co_return Fail(fs::Errno::kExist);
    names_[name] = it->second;
    co_return Ok();
  }

  sim::Task<fs::FsResult<std::vector<std::string>>> Readdir(std::string_view path) override {
    co_await sim::Delay(q_, lat_.base);
    auto it = names_.find(Norm(path));
    if (it == names_.end()) co_return Err<std::vector<std::string>>(fs::Errno::kNoEnt);
    if (!it->second->is_dir) co_return Err<std::vector<std::string>>(fs::Errno::kNotDir);
    co_return fs::FsResult<std::vector<std::string>>{Children(Norm(path)), fs::Errno::kOk};
  }

  sim::Task<fs::FsStatus> Sync() override {
    co_await sim::Delay(q_, lat_.sync);
    co_return Ok();
  }

  // Transaction calls (off: EOPNOTSUPP, as the base class). On, they are
  // checked and logged ("txadd /p <key>", "txstart <key>", "txcommit
  // <key>", "txend <key>"); writes stay visible at once and an abort keeps
  // them (this double has no durability to protect).
  void set_transactions(bool on) { transactions_ = on; }
  sim::Task<fs::FsResult<uint64_t>> TxAdd(uint64_t key, fs::Fd fd) override {
    if (!transactions_) co_return Err<uint64_t>(fs::Errno::kNotSup);
    co_await sim::Delay(q_, lat_.base);
    auto it = fds_.find(fd);
    if (it == fds_.end()) co_return Err<uint64_t>(fs::Errno::kBadF);
    if (key != 0 && !tx_.count(key)) co_return Err<uint64_t>(fs::Errno::kNoEnt);
    for (const auto& [k, set] : tx_)
      if (set.members.count(it->second.node.get())) co_return Err<uint64_t>(fs::Errno::kBusy);
    if (key == 0) key = next_tx_key_++;
    tx_[key].members.insert(it->second.node.get());
    Log(fmt::format("txadd {} {}", it->second.path, key));
    co_return fs::FsResult<uint64_t>{key, fs::Errno::kOk};
  }
  sim::Task<fs::FsStatus> TxStart(uint64_t key) override {
    if (!transactions_) co_return Fail(fs::Errno::kNotSup);
    auto it = tx_.find(key);
    if (it == tx_.end()) co_return Fail(fs::Errno::kNoEnt);
    if (it->second.running || it->second.members.empty()) co_return Fail(fs::Errno::kInval);
    it->second.running = true;
    Log(fmt::format("txstart {}", key));
    co_return Ok();
  }
  sim::Task<fs::FsStatus> TxCommit(uint64_t key) override {
    if (!transactions_) co_return Fail(fs::Errno::kNotSup);
    auto it = tx_.find(key);
    if (it == tx_.end()) co_return Fail(fs::Errno::kNoEnt);
    if (!it->second.running) co_return Fail(fs::Errno::kInval);
    co_await sim::Delay(q_, lat_.sync);
    it->second.running = false;
    ++counts_.tx_commits;
    Log(fmt::format("txcommit {}", key));
    co_return Ok();
  }
  sim::Task<fs::FsStatus> TxEnd(uint64_t key) override {
    if (!transactions_) co_return Fail(fs::Errno::kNotSup);
    auto it = tx_.find(key);
    if (it == tx_.end()) co_return Fail(fs::Errno::kNoEnt);
    tx_.erase(it);
    Log(fmt::format("txend {}", key));
    co_return Ok();
  }

 private:
  struct Inode {
    uint64_t ino = 0;
    bool is_dir = false;
    std::vector<uint8_t> data;
  };
  struct OpenFile {
    std::shared_ptr<Inode> node;
    uint64_t pos = 0;
    uint32_t flags = 0;
    std::string path;  // as opened
  };

  void Log(std::string line) {
    if (logging_) log_.push_back(std::move(line));
  }

  template <class T>
  static fs::FsResult<T> Err(fs::Errno e) {
    fs::FsResult<T> r;
    r.err = e;
    return r;
  }
  static fs::FsStatus Ok() { return fs::FsStatus{true, fs::Errno::kOk}; }
  static fs::FsStatus Fail(fs::Errno e) { return Err<bool>(e); }

  sim::Task<fs::FsStatus> SyncCall(fs::Fd fd, bool data_only) {
    co_await sim::Delay(q_, lat_.sync);
    auto it = fds_.find(fd);
    if (it == fds_.end()) co_return Fail(fs::Errno::kBadF);
    ++(data_only ? counts_.fdatasyncs : counts_.fsyncs);
    Log((data_only ? "fdatasync " : "fsync ") + it->second.path);
    if (it->second.node->is_dir) ++counts_.dir_syncs;
    co_return Ok();
  }

  sim::SimTime DataTime(uint64_t bytes) const {
    return sim::SimTime::FromNs(lat_.per_4k.ns() * static_cast<int64_t>((bytes + 4095) / 4096));
  }
  static fs::FileStat StatOf(const Inode& n) {
    fs::FileStat s;
    s.ino = n.ino;
    s.size = n.is_dir ? 0 : n.data.size();
    s.blocks = (s.size + 4095) / 4096;
    s.nlink = 1;
    s.is_dir = n.is_dir;
    return s;
  }
  static std::string Norm(std::string_view p) {
    std::string s(p);
    if (s.empty() || s[0] != '/') s.insert(s.begin(), '/');
    while (s.size() > 1 && s.back() == '/') s.pop_back();
    return s;
  }
  static std::string Parent(const std::string& p) {
    size_t k = p.rfind('/');
    return k == 0 ? "/" : p.substr(0, k);
  }
  std::vector<std::string> Children(const std::string& dir) const {
    std::vector<std::string> out;
    for (const auto& [name, node] : names_) {
      if (name != dir && Parent(name) == dir) out.push_back(name.substr(dir == "/" ? 1 : dir.size() + 1));
    }
    return out;
  }

  struct TxSet {
    std::set<const Inode*> members;
    bool running = false;
  };

  sim::EventQueue* q_;
  TestingFsLatency lat_;
  bool transactions_ = false;
  std::map<uint64_t, TxSet> tx_;
  uint64_t next_tx_key_ = 1;
  std::map<std::string, std::shared_ptr<Inode>> names_;
  std::map<fs::Fd, OpenFile> fds_;
  fs::Fd next_fd_ = 3;
  uint64_t next_ino_ = 1;
  TestingFsCounts counts_;
  bool logging_ = false;
  std::vector<std::string> log_;
};

}  // namespace host::sqlite::testing
