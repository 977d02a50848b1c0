#include "fs/durability_ledger.h"

#include <algorithm>
#include <cstring>
#include <deque>

#include <fmt/format.h>

namespace fs {

std::string DurabilityLedger::Normalize(std::string_view path) {
  std::string out;
  out.reserve(path.size() + 1);
  size_t i = 0;
  while (i < path.size()) {
    while (i < path.size() && path[i] == '/') ++i;
    if (i == path.size()) break;
    const size_t j = path.find('/', i);
    const std::string_view c = path.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i);
    if (c != ".") {
      out += '/';
      out += c;
    }
    i = j == std::string_view::npos ? path.size() : j;
  }
  return out.empty() ? "/" : out;
}

namespace {
std::string ParentOf(const std::string& p) {
  const size_t k = p.rfind('/');
  return k == 0 ? "/" : p.substr(0, k);
}
// Whether `p` lies under directory `dir` (at any depth).
bool Under(const std::string& p, const std::string& dir) {
  if (dir == "/") return p != "/";
  return p.size() > dir.size() && p.compare(0, dir.size(), dir) == 0 && p[dir.size()] == '/';
}
}  // namespace

DurabilityLedger::File* DurabilityLedger::FileOf(Fd fd) {
  OpenFile* d = Desc(fd);
  if (d == nullptr || d->file == 0) return nullptr;
  return &files_.at(d->file);
}

DurabilityLedger::OpenFile* DurabilityLedger::Desc(Fd fd) {
  auto it = fds_.find(fd);
  return it == fds_.end() ? nullptr : &it->second;
}

uint64_t DurabilityLedger::NewFile(const std::string& path, bool known) {
  const uint64_t id = next_file_++;
  File& f = files_[id];
  f.known = known;
  f.names.push_back(path);
  ns_[path] = Entry{false, id};
  return id;
}

void DurabilityLedger::ApplyWrite(File& f, uint64_t offset, std::span<const uint8_t> data, uint64_t n) {
  if (n == 0) return;
  ++f.writes;
  if (!data.empty() && !f.content && f.known) f.content = true;
  if (f.content) {
    for (uint64_t b = offset / kBlock; b * kBlock < offset + n; ++b) {
      Block& blk = f.blocks[b];
      auto bytes = std::make_shared<Bytes>();
      if (blk.cur) {
        *bytes = *blk.cur;
      } else {
        bytes->fill(0);
      }
      const uint64_t from = std::max(offset, b * kBlock), to = std::min(offset + n, (b + 1) * kBlock);
      if (data.empty()) {
        std::memset(bytes->data() + (from - b * kBlock), 0, to - from);
      } else {
        std::memcpy(bytes->data() + (from - b * kBlock), data.data() + (from - offset), to - from);
      }
      blk.cur = std::move(bytes);
      blk.cur_seq = f.writes;
      f.dirty.insert(b);
    }
  }
  f.size = std::max(f.size, offset + n);
}

void DurabilityLedger::ApplyTruncate(File& f, uint64_t size) {
  ++f.writes;
  if (size < f.size) {
    if (f.content) {
      for (auto& [b, blk] : f.blocks) {
        if ((b + 1) * kBlock <= size || !blk.cur) continue;
        if (b * kBlock >= size) {
          blk.cur = nullptr;
        } else {
          auto bytes = std::make_shared<Bytes>(*blk.cur);
          std::memset(bytes->data() + (size - b * kBlock), 0, kBlock - (size - b * kBlock));
          blk.cur = std::move(bytes);
        }
        blk.cur_seq = f.writes;
        f.dirty.insert(b);
      }
    }
    f.truncs.emplace_back(f.writes, size);
    f.min_size_since = std::min(f.min_size_since, size);
  }
  f.size = size;
}

DurabilityLedger::Snapshot DurabilityLedger::Take(uint64_t id, bool with_names) const {
  const File& f = files_.at(id);
  Snapshot s;
  s.file = id;
  s.size = f.size;
  s.writes = f.writes;
  s.names = f.names;
  s.with_names = with_names;
  s.blocks.reserve(f.dirty.size());
  for (uint64_t b : f.dirty) s.blocks.emplace_back(b, f.blocks.at(b));
  return s;
}

void DurabilityLedger::Acknowledge(const Snapshot& s) {
  File& f = files_.at(s.file);
  if (!f.known) return;
  f.acked = true;
  f.acked_size = s.size;
  for (const auto& [b, was] : s.blocks) {
    Block& blk = f.blocks.at(b);
    blk.acked = was.cur;
    blk.acked_seq = was.cur_seq;
    if (blk.cur_seq == was.cur_seq) f.dirty.erase(b);
  }
  std::erase_if(f.truncs, [&](const auto& t) { return t.first <= s.writes; });
  f.min_size_since = UINT64_MAX;
  for (const auto& t : f.truncs) f.min_size_since = std::min(f.min_size_since, t.second);
  if (s.with_names) {
    f.name_acked = true;
    f.ack_names = s.names;
    for (const std::string& n : f.names)
      if (std::find(f.ack_names.begin(), f.ack_names.end(), n) == f.ack_names.end()) f.ack_names.push_back(n);
    f.gone_since_ack = f.names.empty();
  } else if (f.name_acked && f.names.empty()) {
    f.gone_since_ack = true;
  }
}

void DurabilityLedger::AddName(uint64_t id, const std::string& path) {
  File& f = files_.at(id);
  f.names.push_back(path);
  if (f.name_acked) f.ack_names.push_back(path);
  ns_[path] = Entry{false, id};
}

void DurabilityLedger::RemoveName(const std::string& path) {
  auto it = ns_.find(path);
  if (it == ns_.end()) return;
  if (!it->second.is_dir) {
    File& f = files_.at(it->second.file);
    std::erase(f.names, path);
    if (f.names.empty() && f.acked) f.gone_since_ack = true;
  }
  ns_.erase(it);
  TouchName(path);
}

std::vector<std::pair<std::string, bool>> DurabilityLedger::NamesUnder(const std::string& dir, bool all) const {
  std::vector<std::pair<std::string, bool>> out;
  auto direct = [&](const std::string& p) { return all ? Under(p, dir) : p != "/" && ParentOf(p) == dir; };
  for (const auto& [p, e] : ns_)
    if (direct(p)) out.emplace_back(p, true);
  // Removed: acknowledged before, or touched since (created and removed).
  for (const auto& [p, present] : ns_ack_)
    if (direct(p) && !ns_.count(p)) out.emplace_back(p, false);
  for (const std::string& p : ns_ack_touched_)
    if (direct(p) && !ns_.count(p) && !ns_ack_.count(p)) out.emplace_back(p, false);
  return out;
}

void DurabilityLedger::AckNames(const std::vector<std::pair<std::string, bool>>& names) {
  for (const auto& [p, present] : names) {
    ns_ack_[p] = present;
    ns_ack_touched_.erase(p);
  }
}

DurabilityLedger::Acknowledged DurabilityLedger::acknowledged() const {
  Acknowledged a;
  for (const auto& [id, f] : files_) {
    if (!f.acked || !f.known || f.gone_since_ack) continue;
    ++a.files;
    a.bytes += std::min(f.acked_size, f.min_size_since);
  }
  for (const auto& [p, present] : ns_ack_)
    if (!ns_ack_touched_.count(p)) ++a.names;
  a.fsyncs = fsyncs_;
  a.syncs = syncs_;
  a.commits = commits_;
  return a;
}

// ---- The calls: the wrapped call, then the ledger's update on success.

sim::Task<FsResult<Fd>> DurabilityLedger::Open(std::string_view path, uint32_t flags) {
  const std::string p = Normalize(path);
  FsResult<Fd> r = co_await inner_->Open(path, flags);
  Op();
  if (!r.ok()) co_return r;
  uint64_t id = 0;
  auto it = ns_.find(p);
  if (it == ns_.end()) {
    if (flags & kDirectory) {
      ns_[p] = Entry{true, 0};
    } else {
      // Created now, or there before the ledger (content unknown).
      id = NewFile(p, (flags & kCreat) != 0);
      TouchName(p);
    }
  } else if (!it->second.is_dir) {
    id = it->second.file;
    if (flags & kTrunc) ApplyTruncate(files_.at(id), 0);
  }
  fds_[r.value] = OpenFile{id, p, 0, flags};
  co_return r;
}

sim::Task<FsStatus> DurabilityLedger::Close(Fd fd) {
  FsStatus r = co_await inner_->Close(fd);
  Op();
  if (r.ok()) fds_.erase(fd);
  co_return r;
}

sim::Task<FsResult<uint64_t>> DurabilityLedger::Read(Fd fd, std::span<uint8_t> out) {
  FsResult<uint64_t> r = co_await inner_->Read(fd, out);
  Op();
  if (r.ok())
    if (OpenFile* d = Desc(fd)) d->offset += r.value;
  co_return r;
}

sim::Task<FsResult<uint64_t>> DurabilityLedger::ReadDiscard(Fd fd, uint64_t length) {
  FsResult<uint64_t> r = co_await inner_->ReadDiscard(fd, length);
  Op();
  if (r.ok())
    if (OpenFile* d = Desc(fd)) d->offset += r.value;
  co_return r;
}

sim::Task<FsResult<uint64_t>> DurabilityLedger::Pread(Fd fd, uint64_t offset, std::span<uint8_t> out) {
  FsResult<uint64_t> r = co_await inner_->Pread(fd, offset, out);
  Op();
  co_return r;
}

sim::Task<FsResult<uint64_t>> DurabilityLedger::PreadDiscard(Fd fd, uint64_t offset, uint64_t length) {
  FsResult<uint64_t> r = co_await inner_->PreadDiscard(fd, offset, length);
  Op();
  co_return r;
}

void DurabilityLedger::Written(Fd fd, std::optional<uint64_t> offset, std::span<const uint8_t> data, uint64_t n) {
  OpenFile* d = Desc(fd);
  File* f = FileOf(fd);
  if (d == nullptr || f == nullptr) return;
  // An O_APPEND write lands at the end the file had (its size before it),
  // a pwrite's too (Linux), whatever the offset.
  const uint64_t at = (d->flags & kAppend) ? f->size : offset.value_or(d->offset);
  ApplyWrite(*f, at, data.empty() ? data : data.first(n), n);
  if (!offset) d->offset = at + n;
  if ((d->flags & kSync) && !f->held) {
    Acknowledge(Take(d->file, true));
    ++fsyncs_;
  }
}

sim::Task<FsResult<uint64_t>> DurabilityLedger::Write(Fd fd, std::span<const uint8_t> data, uint64_t length) {
  FsResult<uint64_t> r = co_await inner_->Write(fd, data, length);
  if (r.ok()) Written(fd, std::nullopt, data, r.value);
  Op();
  co_return r;
}

sim::Task<FsResult<uint64_t>> DurabilityLedger::Pwrite(Fd fd, uint64_t offset, std::span<const uint8_t> data,
                                                       uint64_t length) {
  FsResult<uint64_t> r = co_await inner_->Pwrite(fd, offset, data, length);
  if (r.ok()) Written(fd, offset, data, r.value);
  Op();
  co_return r;
}

sim::Task<FsStatus> DurabilityLedger::Ftruncate(Fd fd, uint64_t size) {
  FsStatus r = co_await inner_->Ftruncate(fd, size);
  Op();
  if (r.ok())
    if (File* f = FileOf(fd)) ApplyTruncate(*f, size);
  co_return r;
}

sim::Task<FsStatus> DurabilityLedger::Truncate(std::string_view path, uint64_t size) {
  const std::string p = Normalize(path);
  FsStatus r = co_await inner_->Truncate(path, size);
  Op();
  if (r.ok()) {
    auto it = ns_.find(p);
    if (it != ns_.end() && !it->second.is_dir) ApplyTruncate(files_.at(it->second.file), size);
  }
  co_return r;
}

sim::Task<FsStatus> DurabilityLedger::Fsync(Fd fd) {
  OpenFile* d = Desc(fd);
  if (d != nullptr && d->file == 0) {
    // A directory: its names as they are now.
    const std::vector<std::pair<std::string, bool>> names = NamesUnder(d->path, false);
    FsStatus r = co_await inner_->Fsync(fd);
    Op();
    if (r.ok()) {
      AckNames(names);
      ++fsyncs_;
    }
    co_return r;
  }
  std::optional<Snapshot> s;
  if (d != nullptr && !files_.at(d->file).held) s = Take(d->file, true);
  FsStatus r = co_await inner_->Fsync(fd);
  Op();
  if (r.ok() && s) {
    Acknowledge(*s);
    ++fsyncs_;
  }
  co_return r;
}

sim::Task<FsStatus> DurabilityLedger::Fdatasync(Fd fd) {
  OpenFile* d = Desc(fd);
  std::optional<Snapshot> s;
  if (d != nullptr && d->file != 0 && !files_.at(d->file).held) s = Take(d->file, false);
  FsStatus r = co_await inner_->Fdatasync(fd);
  Op();
  if (r.ok() && s) {
    Acknowledge(*s);
    ++fsyncs_;
  }
  co_return r;
}

sim::Task<FsResult<FileStat>> DurabilityLedger::Fstat(Fd fd) {
  FsResult<FileStat> r = co_await inner_->Fstat(fd);
  Op();
  co_return r;
}

sim::Task<FsResult<FileStat>> DurabilityLedger::Stat(std::string_view path) {
  FsResult<FileStat> r = co_await inner_->Stat(path);
  Op();
  co_return r;
}

sim::Task<FsStatus> DurabilityLedger::Unlink(std::string_view path) {
  const std::string p = Normalize(path);
  FsStatus r = co_await inner_->Unlink(path);
  Op();
  if (r.ok()) RemoveName(p);
  co_return r;
}

sim::Task<FsStatus> DurabilityLedger::Mkdir(std::string_view path) {
  const std::string p = Normalize(path);
  FsStatus r = co_await inner_->Mkdir(path);
  Op();
  if (r.ok()) {
    ns_[p] = Entry{true, 0};
    TouchName(p);
  }
  co_return r;
}

sim::Task<FsStatus> DurabilityLedger::Rmdir(std::string_view path) {
  const std::string p = Normalize(path);
  FsStatus r = co_await inner_->Rmdir(path);
  Op();
  if (r.ok()) RemoveName(p);
  co_return r;
}

sim::Task<FsStatus> DurabilityLedger::Rename(std::string_view from, std::string_view to) {
  const std::string a = Normalize(from), b = Normalize(to);
  FsStatus r = co_await inner_->Rename(from, to);
  Op();
  if (!r.ok() || a == b) co_return r;
  auto it = ns_.find(a);
  if (it == ns_.end()) co_return r;
  const Entry moved = it->second;
  // Two names of one file: rename does nothing (POSIX).
  if (auto to = ns_.find(b); to != ns_.end() && !moved.is_dir && !to->second.is_dir && to->second.file == moved.file)
    co_return r;
  // What `to` named is replaced (a file, or an empty directory).
  RemoveName(b);
  if (moved.is_dir) {
    // The subtree moves: every name under `from` goes under `to`.
    // Each file gets its new name before it loses the old one: a move is
    // not a removal.
    std::vector<std::pair<std::string, Entry>> sub;
    for (auto s = ns_.upper_bound(a); s != ns_.end() && Under(s->first, a); ++s) sub.emplace_back(s->first, s->second);
    ns_[b] = moved;
    TouchName(b);
    for (const auto& [p, e] : sub) {
      const std::string q = b + p.substr(a.size());
      if (e.is_dir) {
        ns_[q] = e;
      } else {
        AddName(e.file, q);
      }
      TouchName(q);
    }
    for (const auto& [p, e] : sub) RemoveName(p);
    RemoveName(a);
    for (auto& [fd, d] : fds_)
      if (d.path == a || Under(d.path, a)) d.path = b + d.path.substr(a.size());
  } else {
    AddName(moved.file, b);
    TouchName(b);
    RemoveName(a);
  }
  co_return r;
}

sim::Task<FsStatus> DurabilityLedger::Link(std::string_view existing, std::string_view new_path) {
  const std::string a = Normalize(existing), b = Normalize(new_path);
  FsStatus r = co_await inner_->Link(existing, new_path);
  Op();
  if (r.ok()) {
    auto it = ns_.find(a);
    if (it != ns_.end() && !it->second.is_dir) {
      AddName(it->second.file, b);
      TouchName(b);
    }
  }
  co_return r;
}

sim::Task<FsResult<std::vector<std::string>>> DurabilityLedger::Readdir(std::string_view path) {
  FsResult<std::vector<std::string>> r = co_await inner_->Readdir(path);
  Op();
  co_return r;
}

sim::Task<FsStatus> DurabilityLedger::Sync() {
  std::vector<Snapshot> snaps;
  for (const auto& [id, f] : files_)
    if (!f.held && f.known) snaps.push_back(Take(id, true));
  const std::vector<std::pair<std::string, bool>> names = NamesUnder("/", true);
  FsStatus r = co_await inner_->Sync();
  Op();
  if (r.ok()) {
    for (const Snapshot& s : snaps) Acknowledge(s);
    AckNames(names);
    ++syncs_;
  }
  co_return r;
}

sim::Task<FsResult<uint64_t>> DurabilityLedger::TxAdd(uint64_t key, Fd fd) {
  FsResult<uint64_t> r = co_await inner_->TxAdd(key, fd);
  Op();
  if (r.ok()) {
    OpenFile* d = Desc(fd);
    if (d != nullptr && d->file != 0) tx_members_[r.value].push_back(d->file);
  }
  co_return r;
}

sim::Task<FsStatus> DurabilityLedger::TxStart(uint64_t key) {
  FsStatus r = co_await inner_->TxStart(key);
  Op();
  if (r.ok()) {
    for (uint64_t id : tx_members_[key]) {
      files_.at(id).held = true;
      files_.at(id).held_key = key;
    }
  }
  co_return r;
}

sim::Task<FsStatus> DurabilityLedger::TxCommit(uint64_t key) {
  std::vector<Snapshot> snaps;
  for (uint64_t id : tx_members_[key]) snaps.push_back(Take(id, true));
  FsStatus r = co_await inner_->TxCommit(key);
  Op();
  if (r.ok()) {
    for (const Snapshot& s : snaps) {
      files_.at(s.file).held = false;
      Acknowledge(s);
    }
    ++commits_;
  }
  co_return r;
}

sim::Task<FsStatus> DurabilityLedger::TxEnd(uint64_t key) {
  FsStatus r = co_await inner_->TxEnd(key);
  Op();
  if (r.ok()) {
    // A running transaction is aborted: its writes are dropped, which the
    // ledger cannot undo.
    for (uint64_t id : tx_members_[key]) {
      File& f = files_.at(id);
      if (f.held && f.held_key == key) {
        f.known = false;
        f.held = false;
      }
    }
    tx_members_.erase(key);
  }
  co_return r;
}

sim::Task<FsStatus> DurabilityLedger::AtomicWriteStart(Fd fd) {
  FsStatus r = co_await inner_->AtomicWriteStart(fd);
  Op();
  if (r.ok())
    if (File* f = FileOf(fd)) {
      f->held = true;
      f->held_key = 0;
    }
  co_return r;
}

sim::Task<FsStatus> DurabilityLedger::AtomicWriteCommit(Fd fd) {
  OpenFile* d = Desc(fd);
  std::optional<Snapshot> s;
  if (d != nullptr && d->file != 0) s = Take(d->file, true);
  FsStatus r = co_await inner_->AtomicWriteCommit(fd);
  Op();
  if (r.ok() && s) {
    files_.at(s->file).held = false;
    Acknowledge(*s);
    ++commits_;
  }
  co_return r;
}

sim::Task<FsStatus> DurabilityLedger::AtomicWriteAbort(Fd fd) {
  FsStatus r = co_await inner_->AtomicWriteAbort(fd);
  Op();
  if (r.ok())
    if (File* f = FileOf(fd)) {
      f->known = false;
      f->held = false;
    }
  co_return r;
}

// ---- Verify.

sim::Task<DurabilityLedger::Report> DurabilityLedger::Verify(FileSystem* fs) const {
  Report rep;
  rep.acknowledged = acknowledged();
  struct Seen {
    bool is_dir = false;
    uint64_t size = 0;
  };
  std::map<std::string, Seen> got;
  {
    std::deque<std::string> todo{"/"};
    while (!todo.empty() && rep.walk_error.empty()) {
      const std::string d = todo.front();
      todo.pop_front();
      FsResult<std::vector<std::string>> l = co_await fs->Readdir(d);
      if (!l.ok()) {
        rep.walk_error = fmt::format("readdir {}: {}", d, ErrnoName(l.err));
        break;
      }
      for (const std::string& n : l.value) {
        const std::string p = d == "/" ? "/" + n : d + "/" + n;
        FsResult<FileStat> st = co_await fs->Stat(p);
        if (!st.ok()) {
          rep.walk_error = fmt::format("stat {}: {}", p, ErrnoName(st.err));
          break;
        }
        got[p] = Seen{st.value.is_dir, st.value.size};
        if (st.value.is_dir) todo.push_back(p);
      }
    }
  }
  if (!rep.walk_error.empty()) co_return rep;
  auto violation = [&rep](const std::string& what) {
    if (rep.first_violation.empty()) rep.first_violation = what;
  };
  // Acknowledged files.
  static const Bytes kZeros{};
  std::vector<uint8_t> buf(kBlock);
  for (const auto& [id, f] : files_) {
    if (!f.acked || f.gone_since_ack) continue;
    if (!f.known) continue;
    const uint64_t need = std::min(f.acked_size, f.min_size_since);
    bool present = false, long_enough = false, ok = false;
    uint64_t wrong_best = UINT64_MAX;
    // Where it may be: the names acknowledged and given since; a file
    // acknowledged by fdatasync only, under its names at the cut.
    const std::vector<std::string>& where = f.name_acked ? f.ack_names : f.names;
    for (const std::string& n : where) {
      auto it = got.find(n);
      if (it == got.end() || it->second.is_dir) continue;
      present = true;
      if (it->second.size < need) continue;
      long_enough = true;
      uint64_t wrong = 0;
      if (f.content) {
        FsResult<Fd> fd = co_await fs->Open(n, kRdOnly);
        if (!fd.ok()) continue;
        for (const auto& [b, blk] : f.blocks) {
          if (blk.acked_seq == 0 || blk.cur_seq != blk.acked_seq || b * kBlock >= need) continue;
          const uint64_t len = std::min(kBlock, need - b * kBlock);
          FsResult<uint64_t> r = co_await fs->Pread(fd.value, b * kBlock, std::span<uint8_t>(buf.data(), len));
          ++rep.blocks_compared;
          const uint8_t* want = blk.acked ? blk.acked->data() : kZeros.data();
          if (!r.ok() || r.value != len || std::memcmp(buf.data(), want, len) != 0) ++wrong;
        }
        co_await fs->Close(fd.value);
      }
      if (wrong == 0) {
        ok = true;
        break;
      }
      wrong_best = std::min(wrong_best, wrong);
    }
    if (ok) continue;
    const std::string name = where.empty() ? std::string("(unnamed)") : where.front();
    if (!present) {
      if (!f.name_acked) continue;  // fdatasync only: its name was never acknowledged
      ++rep.files_missing;
      rep.bytes_lost_acknowledged += need;
      violation(fmt::format("{}: acknowledged durable ({} bytes) but missing after recovery", name, need));
    } else if (!long_enough) {
      ++rep.files_short;
      uint64_t best = 0;
      for (const std::string& n : where)
        if (auto it = got.find(n); it != got.end() && !it->second.is_dir) best = std::max(best, it->second.size);
      rep.bytes_lost_acknowledged += need - best;
      violation(fmt::format("{}: acknowledged durable with {} bytes, recovered with {}", name, need, best));
    } else {
      rep.blocks_wrong += wrong_best;
      rep.bytes_lost_acknowledged += wrong_best * kBlock;
      violation(fmt::format("{}: {} acknowledged blocks recovered with other content", name, wrong_best));
    }
  }
  // Acknowledged names.
  for (const auto& [p, present] : ns_ack_) {
    if (ns_ack_touched_.count(p)) continue;
    if (got.count(p) != (present ? 1u : 0u)) {
      ++rep.names_wrong;
      violation(fmt::format("{}: acknowledged {} but {} after recovery", p, present ? "present" : "removed",
                            present ? "missing" : "back"));
    }
  }
  // Losses the contract allows.
  std::unordered_set<uint64_t> counted;
  for (const auto& [p, e] : ns_) {
    if (p == "/") continue;
    ++rep.names_at_cut;
    if (!got.count(p)) ++rep.names_lost;
    if (e.is_dir || !counted.insert(e.file).second) continue;
    const File& f = files_.at(e.file);
    if (!f.known) {
      ++rep.files_unverifiable;
      continue;
    }
    ++rep.files_at_cut;
    rep.bytes_at_cut += f.size;
    uint64_t best = 0;
    for (const std::string& n : f.names)
      if (auto it = got.find(n); it != got.end() && !it->second.is_dir) best = std::max(best, it->second.size);
    rep.bytes_lost += f.size - std::min(f.size, best);
  }
  for (const auto& [p, s] : got)
    if (!ns_.count(p)) ++rep.names_back;
  co_return rep;
}

}  // namespace fs
