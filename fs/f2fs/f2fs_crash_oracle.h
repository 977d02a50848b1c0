// Crash oracles shared by the F2FS power-cut tests and the crash-loss
// experiment: the namespace walk, the check of a recovered volume against
// the reference model (what checkpoints, roll-forward and journal replay
// promise), and listeners that snapshot the model at each checkpoint and
// journal epoch switch.
#pragma once

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "fs/f2fs/f2fs_model_test_util.h"

namespace fs::f2fs::testing {

// The crash tests' timing: writeback, checkpoints and cleaning every few
// milliseconds, so random cuts land inside each of them.
inline F2fsConfig CrashTimingConfig() {
  F2fsConfig c = TestConfig();
  c.page_cache.memory = sim::MiB(8);
  c.page_cache.writeback_interval = sim::Ms(2);
  c.page_cache.dirty_expire = sim::Ms(4);
  c.checkpoint.interval = sim::Ms(6);
  c.checkpoint.idle_interval = sim::Us(200);
  c.checkpoint.dirty_nodes_threshold = 64;
  c.gc.min_sleep = sim::Ms(3);
  c.gc.max_sleep = sim::Ms(6);
  c.gc.no_gc_sleep = sim::Ms(10);
  c.gc.idle_interval = sim::Us(200);
  return c;
}

struct Seen {
  uint64_t ino = 0;
  bool is_dir = false;
};

// Walks the namespace under `prefix` (model paths: "/" = prefix).
inline sim::Task<std::string> Walk(F2fs* fs, std::string prefix, std::map<std::string, Seen>* out) {
  auto fsp = [&](const std::string& p) { return prefix.empty() ? p : (p == "/" ? prefix : prefix + p); };
  std::deque<std::string> todo{"/"};
  FsResult<FileStat> root = co_await fs->Stat(fsp("/"));
  if (!root.ok()) co_return "workload root missing";
  (*out)["/"] = Seen{root.value.ino, true};
  while (!todo.empty()) {
    const std::string d = todo.front();
    todo.pop_front();
    FsResult<std::vector<std::string>> l = co_await fs->Readdir(fsp(d));
    if (!l.ok()) co_return "readdir " + d;
    for (const std::string& n : l.value) {
      const std::string p = RefFs::Join(d, n);
      FsResult<FileStat> st = co_await fs->Stat(fsp(p));
      if (!st.ok()) co_return "stat " + p;
      (*out)[p] = Seen{st.value.ino, st.value.is_dir};
      if (st.value.is_dir) todo.push_back(p);
    }
  }
  co_return "";
}

// (inode, page) pairs of the files of `refs` written since their last fsync
// whose block, as the mounted volume maps it, had its write lost by the cut
// (`lost`: addresses of the dropped writes). Call right after the mount.
using StalePages = std::set<std::pair<uint64_t, uint64_t>>;
inline StalePages StalePagesOf(Stack& s, const std::vector<const RefFs*>& refs, const std::set<uint32_t>& lost) {
  StalePages out;
  for (const RefFs* ref : refs)
    for (const auto& [id, f] : ref->files)
      for (uint64_t page : f.written_since_fsync)
        if (lost.count(testing::FileBlockAddress(s.fs(), s.image(), Nid{static_cast<uint32_t>(f.ino)}, page).v))
          out.insert({f.ino, page});
  return out;
}

// `stale_shown`, if set, counts the pages that held content they never had,
// accepted as stale.
inline sim::Task<std::string> CheckRecovered(F2fs* fs, const RefFs* ref, const std::map<std::string, RefEntry>* cp_ns,
                                      uint64_t cp_clock, const StalePages* stale, std::string prefix = "",
                                      uint64_t* stale_shown = nullptr) {
  auto fsp = [&](const std::string& p) { return prefix.empty() ? p : (p == "/" ? prefix : prefix + p); };
  std::map<std::string, Seen> got;
  std::string err = co_await Walk(fs, prefix, &got);
  if (!err.empty()) co_return err;
  // Inode numbers are unique within a checkpoint epoch; the newest file
  // holding an ino is the one on flash.
  std::map<uint64_t, uint64_t> id_of_ino;
  for (const auto& [id, f] : ref->files) id_of_ino[f.ino] = id;
  auto fsynced = [&](uint64_t ino) {
    auto it = id_of_ino.find(ino);
    return it != id_of_ino.end() && ref->files.at(it->second).fsynced;
  };
  for (const auto& [p, e] : *cp_ns) {
    auto g = got.find(p);
    if (g == got.end()) co_return "checkpointed entry lost: " + p;
    if (g->second.is_dir != e.is_dir) co_return "type changed: " + p;
    if (!e.is_dir && g->second.ino != ref->files.at(e.file).ino && !fsynced(g->second.ino))
      co_return "checkpointed file " + p + " replaced by an unsynced one";
  }
  for (const auto& [p, g] : got) {
    if (cp_ns->count(p)) continue;
    if (g.is_dir) co_return "directory not in the checkpoint: " + p;
    if (!fsynced(g.ino)) co_return "unsynced file appeared: " + p;
  }
  // A file fsynced after the checkpoint, and neither renamed nor unlinked
  // since, is there (roll-forward re-links it into its parent directory,
  // wherever the checkpoint has that directory) unless a directory holds
  // its name there in the checkpoint.
  std::set<uint64_t> inos;
  for (const auto& [p, g] : got) inos.insert(g.ino);
  std::map<uint64_t, std::string> cp_dir_path;  // directory id -> its path in the checkpoint
  for (const auto& [p, e] : *cp_ns)
    if (e.is_dir) cp_dir_path[e.dir] = p;
  for (const auto& [id, f] : ref->files) {
    if (f.last_fsync_clock <= cp_clock || f.fsync_in_flight || f.moved_since_fsync || f.path_at_fsync.empty())
      continue;
    auto parent = cp_dir_path.find(f.parent_at_fsync);
    const std::string held_at =
        parent == cp_dir_path.end()
            ? f.path_at_fsync
            : RefFs::Join(parent->second, f.path_at_fsync.substr(f.path_at_fsync.rfind('/') + 1));
    auto held = cp_ns->find(held_at);
    if (held != cp_ns->end() && held->second.is_dir) continue;
    if (!inos.count(f.ino)) co_return fmt::format("fsynced file {} ({}) lost", f.path_at_fsync, id);
  }
  for (const auto& [p, g] : got) {
    if (g.is_dir) continue;
    auto idit = id_of_ino.find(g.ino);
    if (idit == id_of_ino.end()) co_return "unknown inode at " + p;
    const RefFile& f = ref->files.at(idit->second);
    if (f.fsync_in_flight) continue;
    FsResult<Fd> fd = co_await fs->Open(fsp(p), kRdOnly);
    if (!fd.ok()) co_return "open " + p;
    FsResult<FileStat> st = co_await fs->Fstat(fd.value);
    const uint64_t size = st.value.size;
    std::vector<uint8_t> data(size);
    FsResult<uint64_t> r = co_await fs->Pread(fd.value, 0, data);
    co_await fs->Close(fd.value);
    if (r.value != size) co_return "short read of " + p;
    if (!f.allowed_sizes.count(size)) co_return fmt::format("{} (file {}): size {} never held since its fsync", p, f.id, size);
    for (uint64_t page = 0; page * kBlockSize < size; ++page) {
      const size_t n = std::min<uint64_t>(kBlockSize, size - page * kBlockSize);
      auto it = f.allowed_pages.find(page);
      bool ok = false;
      if (it == f.allowed_pages.end()) {
        ok = std::all_of(data.begin() + page * kBlockSize, data.begin() + page * kBlockSize + n,
                         [](uint8_t b) { return b == 0; });
      } else {
        for (const auto& cand : it->second)
          if (std::equal(cand.begin(), cand.begin() + n, data.begin() + page * kBlockSize)) ok = true;
      }
      if (!ok && f.written_since_fsync.count(page) && stale->count({g.ino, page})) {
        ok = true;
        if (stale_shown) ++*stale_shown;
      }
      if (!ok) {
        std::string d = fmt::format("wsf {} stale {} ", f.written_since_fsync.count(page), stale->count({g.ino, page}));
        d += fmt::format("size {} fsynced {} last_fsync {} cp_clock {} moved {} data.size {} cands:", size,
                                    f.fsynced, f.last_fsync_clock, cp_clock, f.moved_since_fsync, f.data.size());
        for (const auto& cand : it->second) {
          size_t first_nz = cand.size();
          for (size_t k = 0; k < cand.size(); ++k)
            if (cand[k]) { first_nz = k; break; }
          size_t diff = 0, first_diff = n, last_diff = 0;
          for (size_t k = 0; k < n && k < cand.size(); ++k)
            if (cand[k] != data[page * kBlockSize + k]) { ++diff; first_diff = std::min(first_diff, k); last_diff = k; }
          d += fmt::format(" [size {} first_nz {} diff {} from {} to {}]", cand.size(), first_nz, diff, first_diff, last_diff);
        }
        d += fmt::format(" got [{:02x}{:02x}{:02x}{:02x}] n={}", data[page * kBlockSize], data[page * kBlockSize + 1],
                         data[page * kBlockSize + 2], data[page * kBlockSize + 3], n);
        size_t nz = 0;
        for (size_t k = 0; k < n; ++k) nz += data[page * kBlockSize + k] != 0;
        d += fmt::format(" nonzero {} ino {} ids:", nz, g.ino);
        for (const auto& [id2, f2] : ref->files)
          if (f2.ino == g.ino) d += fmt::format(" {}(size {})", id2, f2.data.size());
        // Which model file had this content?
        for (const auto& [id2, f2] : ref->files) {
          for (const auto& [pg, cands] : f2.allowed_pages)
            for (const auto& cand : cands)
              if (std::equal(cand.begin(), cand.begin() + n, data.begin() + page * kBlockSize) && nz)
                d += fmt::format(" match file {} page {}", id2, pg);
        }
        co_return fmt::format("{} (file {}): page {} holds content it never had since its fsync: {}", p, f.id, page, d);
      }
    }
  }
  co_return "";
}


// Passes checkpoint events on and notes commits made while `busy` says
// the device still has writes in flight.
class CommitWatch : public F2fs::Listener {
 public:
  CommitWatch(F2fs::Listener* inner, std::function<bool()> busy) : inner_(inner), busy_(std::move(busy)) {}
  void OnCheckpointBegin(uint64_t v) override { inner_->OnCheckpointBegin(v); }
  void OnCheckpointCommitted(uint64_t v) override {
    inner_->OnCheckpointCommitted(v);
    if (busy_()) committed_busy = true;
  }
  bool committed_busy = false;

 private:
  F2fs::Listener* inner_;
  std::function<bool()> busy_;
};

// Durability mode journal: the model's namespace when each epoch closed
// and after the operation in flight then (its record may be in either
// epoch), by commit key.
class JournalWatch : public F2fs::Listener {
 public:
  JournalWatch(F2fs::Listener* inner, const RefFs* ref) : inner_(inner), ref_(ref) {}
  void OnCheckpointBegin(uint64_t v) override { inner_->OnCheckpointBegin(v); }
  void OnCheckpointCommitted(uint64_t v) override { inner_->OnCheckpointCommitted(v); }
  void OnJournalSwitch(uint64_t key) override {
    before[key] = {ref_->ns, ref_->clock};
    pending_.push_back(key);
  }
  void OpDone() {
    for (uint64_t k : pending_) after[k] = {ref_->ns, ref_->clock};
    pending_.clear();
  }
  struct State {
    std::map<std::string, RefEntry> ns;
    uint64_t clock = 0;
  };
  std::map<uint64_t, State> before, after;

 private:
  F2fs::Listener* inner_;
  const RefFs* ref_;
  std::vector<uint64_t> pending_;
};

}  // namespace fs::f2fs::testing
