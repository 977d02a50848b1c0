#include "host/fsworkload/aging_workload.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include <fmt/format.h>
#include <glog/logging.h>

#include "ssd/block_device.h"

namespace host {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string Key(std::string_view path, std::string_view key) {
  return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}

// Splits "a/b/c" into its parent components and its last name.
void Split(const std::string& p, std::vector<std::string_view>* parents, std::string_view* name) {
  parents->clear();
  size_t start = 0;
  for (;;) {
    const size_t slash = p.find('/', start);
    if (slash == std::string::npos) {
      *name = std::string_view(p).substr(start);
      return;
    }
    parents->push_back(std::string_view(p).substr(start, slash - start));
    start = slash + 1;
  }
}

}  // namespace

void AgingConfig::Describe(sim::Schema<AgingConfig>& s) {
  s.Param("trace", &AgingConfig::trace, "",
          "Path of the git-aging trace (tools/git_age_trace.py; format in traces/aging/README.md)");
  s.Param("pulls", &AgingConfig::pulls, "0", "Pulls replayed from the start of the trace; 0 = all of them");
  s.Param("grep_every", &AgingConfig::grep_every, "100",
          "Pulls between grep tests (aged mode); 100 is Conway et al.'s pulls_per_grep (FAST'17 aging scripts)")
      .Min(1);
  s.Choice("mode", &AgingConfig::mode, "aged", {"aged", "clean"},
           "aged: replay the pulls on the file system with grep tests along the way; clean: write the tree of "
           "pull clean_at onto the fresh file system in one go (Conway's cp -a baseline), then one grep test");
  s.Param("clean_at", &AgingConfig::clean_at, "-1",
          "Clean mode: the pull (0-based) whose tree is written; -1 = the last pull replayed")
      .Min(-1);
  s.Param("read_size", &AgingConfig::read_size, "32KiB",
          "Bytes per read call of the grep test; GNU grep 2.x reads files in 32 KiB buffers (INITIAL_BUFSIZE in "
          "grep.c; the seed 004 study ran Ubuntu 16.04's grep 2.25)")
      .Range(1, 1ull << 30);
}

sim::Status AgingConfig::Validate(std::string_view path) const {
  const sim::KeyErrors err(path);
  if (trace.empty()) return err("trace", "no trace file given");
  if (mode != "clean" && clean_at != -1) {
    return err("clean_at", fmt::format("{} is for mode: clean only (mode is {})", clean_at, mode));
  }
  return sim::Status::Ok();
}

sim::Status AgingConfig::ValidateAgainst(const AgingTrace& t, std::string_view path) const {
  FS_RETURN_IF_ERROR(Validate(path));
  const sim::KeyErrors err(path);
  if (pulls > t.pulls.size()) {
    return err("pulls", fmt::format("{} but the trace {} has {} pull{}", pulls, t.source, t.pulls.size(),
                                    t.pulls.size() == 1 ? "" : "s"));
  }
  const uint64_t replayed = pulls == 0 ? t.pulls.size() : pulls;
  if (clean_at >= 0 && static_cast<uint64_t>(clean_at) >= replayed) {
    return err("clean_at", fmt::format("pull {} is beyond the {} pull{} replayed (0 .. {})", clean_at, replayed,
                                       replayed == 1 ? "" : "s", replayed - 1));
  }
  return sim::Status::Ok();
}

void ReadStream::Add(uint64_t offset, uint64_t length) {
  ++requests_;
  if (!have_prev_ || offset != prev_end_) ++starts_;
  have_prev_ = true;
  prev_end_ = offset + length;
  bytes_ += length;
  for (uint64_t off = offset - offset % kUnit; off < offset + length; off += kUnit) {
    ++units_;
    ssd::FlashPlace place;
    if (device_ != nullptr && device_->Locate(off, &place)) {
      ++located_;
      // Channel, chip, die, plane and block name a flash block; packed for sorting.
      window_block_ids_.push_back(
          (((static_cast<uint64_t>(place.channel) * 4096 + place.chip) * 256 + place.die) * 64 + place.plane) *
              (uint64_t{1} << 24) +
          place.block);
      window_channel_ids_.push_back(place.channel);
    }
    if (++window_fill_ == kWindowUnits) CloseWindow();
  }
}

void ReadStream::CloseWindow() {
  std::sort(window_block_ids_.begin(), window_block_ids_.end());
  std::sort(window_channel_ids_.begin(), window_channel_ids_.end());
  window_blocks_ += static_cast<uint64_t>(std::unique(window_block_ids_.begin(), window_block_ids_.end()) -
                                          window_block_ids_.begin());
  window_channels_ += static_cast<uint64_t>(std::unique(window_channel_ids_.begin(), window_channel_ids_.end()) -
                                            window_channel_ids_.begin());
  window_block_ids_.clear();
  window_channel_ids_.clear();
  window_fill_ = 0;
  ++windows_;
}

void ReadStream::Finish() {
  if (window_fill_ > 0) CloseWindow();
  window_block_ids_.shrink_to_fit();
  window_channel_ids_.shrink_to_fit();
}

double ReadStream::Dls() const {
  if (blocks() == 0) return kNaN;
  return 1.0 - static_cast<double>(discontiguities()) / static_cast<double>(blocks());
}

double ReadStream::PerWindow(uint64_t v) const {
  if (windows_ == 0 || device_ == nullptr) return kNaN;
  return static_cast<double>(v) / static_cast<double>(windows_);
}

class AgingWorkload::Observer final : public ssd::RequestObserver {
 public:
  explicit Observer(AgingWorkload* w) : w_(w) {}
  void OnSubmit(const ssd::BlockRequest& req) override {
    if (req.op == ssd::BlockOp::kRead && w_->measuring_ != nullptr) w_->measuring_->reads.Add(req.offset, req.length);
  }

 private:
  AgingWorkload* w_;
};

sim::Result<std::shared_ptr<const AgingTrace>> AgingWorkload::Load(const AgingConfig& cfg, std::string_view path) {
  FS_RETURN_IF_ERROR(cfg.Validate(path));
  sim::Result<AgingTrace> t = ReadAgingTraceFile(cfg.trace);
  if (!t.ok()) {
    if (t.status().message().find(": cannot read") != std::string::npos) {
      return sim::Status::InvalidInput(fmt::format("{}: {}", Key(path, "trace"), t.status().message()));
    }
    return t.status();
  }
  FS_RETURN_IF_ERROR(cfg.ValidateAgainst(*t, path));
  return std::make_shared<const AgingTrace>(std::move(t).value());
}

sim::Result<std::unique_ptr<AgingWorkload>> AgingWorkload::Create(const AgingConfig& cfg, FsWorkloadEnv env,
                                                                  std::string_view path) {
  FS_ASSIGN_OR_RETURN(std::shared_ptr<const AgingTrace> trace, Load(cfg, path));
  return std::make_unique<AgingWorkload>(std::move(trace), cfg, std::move(env));
}

AgingWorkload::AgingWorkload(std::shared_ptr<const AgingTrace> trace, const AgingConfig& cfg, FsWorkloadEnv env)
    : FsWorkload(env, 1), trace_(std::move(trace)), cfg_(cfg), device_(env.device) {
  CHECK(cfg_.ValidateAgainst(*trace_).ok());
  const uint64_t replayed = cfg_.pulls == 0 ? trace_->pulls.size() : cfg_.pulls;
  last_pull_ = cfg_.mode == "clean" && cfg_.clean_at >= 0 ? static_cast<uint64_t>(cfg_.clean_at) : replayed - 1;
  if (cfg_.mode == "clean") {
    points_.resize(1);
  } else {
    size_t n = 0;
    for (uint64_t p = 0; p <= last_pull_; ++p) {
      if (p % cfg_.grep_every == 0 || p == last_pull_) ++n;
    }
    points_.resize(n);
  }
  buf_.resize(cfg_.read_size.value);
  observer_ = std::make_unique<Observer>(this);
  op_pull_ = op_stats().Add("pull");
  op_grep_ = op_stats().Add("grep");

  const sim::StatGroup g = stats_group().Group("aging");
  g.Add(&pulls_, "pulls", "pulls",
        "Pulls replayed (clean mode: applied to the in-memory tree only, before the tree is written)");
  g.Add(&bytes_written_, "bytes_written", "bytes", "Bytes written by the replay (clean mode: by the tree copy)");
  for (size_t i = 0; i < kNumAgingOps; ++i) {
    const std::string_view name = AgingOpName(static_cast<AgingOp>(i));
    g.Group("op").Add(&op_counts_[i], name, "ops",
                      fmt::format("Trace operations '{}' issued to the file system (clean mode: by the copy)", name));
  }
  g.AddFormula(
      [this] {
        return static_cast<double>(std::count_if(points_.begin(), points_.end(), [](const GrepPoint& p) { return p.done; }));
      },
      "grep_points", "tests", "Grep tests run (their figures are grep.<k>.*, k = 0, 1, ...)");
  for (size_t k = 0; k < points_.size(); ++k) {
    const sim::StatGroup pg = g.Group("grep").Group(std::to_string(k));
    const GrepPoint* p = &points_[k];
    auto value = [p](auto fn) {
      return [p, fn] { return p->done ? fn(*p) : kNaN; };
    };
    pg.AddFormula(value([](const GrepPoint& q) { return static_cast<double>(q.pulls); }), "pulls", "pulls",
                  "Pulls replayed before this grep test (the tree of pull pulls - 1)");
    pg.AddFormula(value([](const GrepPoint& q) { return static_cast<double>(q.files); }), "files", "files",
                  "Regular files the walk read");
    pg.AddFormula(value([](const GrepPoint& q) { return static_cast<double>(q.bytes); }), "bytes", "bytes",
                  "Bytes the walk read (every regular file whole)");
    pg.AddFormula(value([](const GrepPoint& q) { return q.seconds; }), "time", "s",
                  "Simulated time of the walk (after Sync and DropCaches)");
    pg.AddFormula(value([](const GrepPoint& q) { return q.bytes > 0 ? q.seconds / (q.bytes / kGiB) : kNaN; }),
                  "s_per_GiB", "s/GiB", "Grep cost: walk time per GiB read (Conway et al.'s y axis)");
    pg.AddFormula(value([](const GrepPoint& q) { return q.reads.Dls(); }), "dls", "ratio",
                  "Dynamic layout score of the walk's device reads: 1 - discontiguities / 4 KiB blocks");
    pg.AddFormula(value([](const GrepPoint& q) { return static_cast<double>(q.reads.requests()); }), "read_requests",
                  "requests", "Device read requests submitted during the walk");
    pg.AddFormula(value([](const GrepPoint& q) { return q.reads.FlashBlocksPerMiB(); }), "flash_blocks_per_MiB", "blocks/MiB",
                  "Distinct flash blocks holding each 1 MiB of the walk's device reads (mean over 1 MiB windows "
                  "of the read stream; a last, partial window counts as one)");
    pg.AddFormula(value([](const GrepPoint& q) { return q.reads.ChannelsPerMiB(); }), "channels_per_MiB", "channels/MiB",
                  "Distinct flash channels holding each 1 MiB of the walk's device reads (mean over 1 MiB windows "
                  "of the read stream; a last, partial window counts as one)");
    pg.AddFormula(value([](const GrepPoint& q) { return q.measured_device ? static_cast<double>(q.reads.unlocated()) : kNaN; }), "unlocated_units",
                  "units", "4 KiB units of device reads the device could not place (unmapped or buffered)");
    pg.AddFormula(value([](const GrepPoint& q) { return static_cast<double>(q.tree_files); }), "tree_files",
                  "files", "Files of the replayed tree (the in-memory model)");
    pg.AddFormula(value([](const GrepPoint& q) { return static_cast<double>(q.tree_bytes); }), "tree_bytes",
                  "bytes", "Bytes of the replayed tree's files (the in-memory model)");
  }
}

AgingWorkload::~AgingWorkload() {
  if (device_ != nullptr && measuring_ != nullptr) device_->SetObserver(nullptr);
  DestroyThreads();
}

// ---- The in-memory tree.

std::string AgingWorkload::Model(const AgingRecord& r) {
  const std::string& path = trace_->paths[r.path];
  std::vector<std::string_view> parents;
  std::string_view name;
  Split(path, &parents, &name);
  Dir* d = &root_;
  for (std::string_view c : parents) {
    auto it = d->dirs.find(std::string(c));
    if (it == d->dirs.end()) {
      return fmt::format("{} '{}': its directory '{}' does not exist", AgingOpName(r.op), path, c);
    }
    d = it->second.get();
  }
  const std::string n(name);
  const bool is_dir = d->dirs.count(n) != 0;
  const auto file = d->files.find(n);
  switch (r.op) {
    case AgingOp::kMkdir:
      if (is_dir || file != d->files.end()) return fmt::format("mkdir '{}': it exists", path);
      d->dirs.emplace(n, std::make_unique<Dir>());
      return "";
    case AgingOp::kRmdir: {
      if (!is_dir) return fmt::format("rmdir '{}': no such directory", path);
      const Dir& sub = *d->dirs.at(n);
      if (!sub.dirs.empty() || !sub.files.empty()) return fmt::format("rmdir '{}': directory not empty", path);
      d->dirs.erase(n);
      return "";
    }
    case AgingOp::kWrite:
    case AgingOp::kAppend:
      if (is_dir) return fmt::format("{} '{}': it is a directory", AgingOpName(r.op), path);
      if (r.op == AgingOp::kWrite) {
        d->files[n] = r.bytes;
      } else {
        d->files[n] += r.bytes;
      }
      return "";
    case AgingOp::kUnlink:
      if (file == d->files.end()) return fmt::format("unlink '{}': no such file", path);
      d->files.erase(file);
      return "";
    case AgingOp::kRename: {
      if (file == d->files.end()) return fmt::format("rename '{}': no such file", path);
      const std::string& to = trace_->paths[r.path2];
      std::vector<std::string_view> tparents;
      std::string_view tname;
      Split(to, &tparents, &tname);
      Dir* td = &root_;
      for (std::string_view c : tparents) {
        auto it = td->dirs.find(std::string(c));
        if (it == td->dirs.end()) return fmt::format("rename to '{}': its directory '{}' does not exist", to, c);
        td = it->second.get();
      }
      if (td->dirs.count(std::string(tname))) return fmt::format("rename to '{}': it is a directory", to);
      const uint64_t size = file->second;
      d->files.erase(file);
      td->files[std::string(tname)] = size;
      return "";
    }
  }
  return "unknown operation";
}

void AgingWorkload::ModelTotals(const Dir& d, uint64_t* files, uint64_t* bytes) const {
  for (const auto& [name, size] : d.files) {
    ++*files;
    *bytes += size;
  }
  for (const auto& [name, sub] : d.dirs) ModelTotals(*sub, files, bytes);
}

// ---- Replay on the file system.

bool AgingWorkload::Fail(const AgingRecord& r, std::string_view what, fs::Errno e) {
  Abort(sim::Status::IoError(fmt::format("{}:{}: {} '{}' failed on the file system: {} ({})", trace_->source, r.line,
                                         AgingOpName(r.op), trace_->paths[r.path], fs::ErrnoName(e), what)));
  return false;
}

sim::Task<bool> AgingWorkload::WriteFile(const std::string& path, uint64_t bytes, bool append, std::string_view where) {
  fs::FsResult<fs::Fd> fd =
      co_await fs()->Open(path, fs::kWrOnly | fs::kCreat | (append ? fs::kAppend : fs::kTrunc));
  if (!fd.ok()) {
    Abort(sim::Status::IoError(fmt::format("{}: open '{}' failed: {}", where, path, fs::ErrnoName(fd.err))));
    co_return false;
  }
  bool ok = true;
  // As write_in_full: a short write is retried for the rest, whose error
  // (ENOSPC on a full file system) then names the cause.
  for (uint64_t done = 0; done < bytes;) {
    const uint64_t n = std::min(kWriteChunk, bytes - done);
    fs::FsResult<uint64_t> w =
        append ? co_await fs()->Write(fd.value, {}, n) : co_await fs()->Pwrite(fd.value, done, {}, n);
    if (!w.ok() || w.value == 0) {
      Abort(sim::Status::IoError(fmt::format("{}: writing {} bytes at {} of '{}' failed: {}", where, n, done, path,
                                             w.ok() ? "nothing written" : fs::ErrnoName(w.err))));
      ok = false;
      break;
    }
    done += w.value;
    bytes_written_.Inc(w.value);
  }
  fs::FsStatus c = co_await fs()->Close(fd.value);
  if (ok && !c.ok()) {
    Abort(sim::Status::IoError(fmt::format("{}: close of '{}' failed: {}", where, path, fs::ErrnoName(c.err))));
    ok = false;
  }
  co_return ok;
}

sim::Task<bool> AgingWorkload::Replay(const AgingRecord& r) {
  const std::string path = "/" + trace_->paths[r.path];
  op_counts_[static_cast<size_t>(r.op)].Inc();
  fs::FsStatus st{true, fs::Errno::kOk};
  switch (r.op) {
    case AgingOp::kMkdir: st = co_await fs()->Mkdir(path); break;
    case AgingOp::kRmdir: st = co_await fs()->Rmdir(path); break;
    case AgingOp::kUnlink: st = co_await fs()->Unlink(path); break;
    case AgingOp::kRename: st = co_await fs()->Rename(path, "/" + trace_->paths[r.path2]); break;
    case AgingOp::kWrite:
    case AgingOp::kAppend:
      co_return co_await WriteFile(path, r.bytes, r.op == AgingOp::kAppend,
                                   fmt::format("{}:{}: {}", trace_->source, r.line, AgingOpName(r.op)));
  }
  if (!st.ok()) co_return Fail(r, "the trace allows it on the replayed tree", st.err);
  co_return true;
}

sim::Task<bool> AgingWorkload::CopyTree(const Dir& d, const std::string& path) {
  // cp -a: this directory's entries in name order; a subdirectory is made and
  // filled before the next entry.
  auto di = d.dirs.begin();
  auto fi = d.files.begin();
  while (di != d.dirs.end() || fi != d.files.end()) {
    if (stopping()) co_return false;
    const bool dir_next = fi == d.files.end() || (di != d.dirs.end() && di->first < fi->first);
    if (dir_next) {
      const std::string p = path + "/" + di->first;
      op_counts_[static_cast<size_t>(AgingOp::kMkdir)].Inc();
      fs::FsStatus st = co_await fs()->Mkdir(p);
      if (!st.ok()) {
        Abort(sim::Status::IoError(fmt::format("aging: clean copy: mkdir '{}' failed: {}", p, fs::ErrnoName(st.err))));
        co_return false;
      }
      if (!co_await CopyTree(*di->second, p)) co_return false;
      ++di;
    } else {
      const std::string p = path + "/" + fi->first;
      op_counts_[static_cast<size_t>(AgingOp::kWrite)].Inc();
      if (!co_await WriteFile(p, fi->second, false, "aging: clean copy")) co_return false;
      ++fi;
    }
  }
  co_return true;
}

// ---- The grep test.

sim::Task<bool> AgingWorkload::Walk(const std::string& dir, GrepPoint* point) {
  fs::FsResult<std::vector<std::string>> names = co_await fs()->Readdir(dir);
  if (!names.ok()) {
    Abort(sim::Status::IoError(fmt::format("aging: grep: readdir '{}' failed: {}", dir, fs::ErrnoName(names.err))));
    co_return false;
  }
  for (const std::string& name : names.value) {
    const std::string path = dir == "/" ? "/" + name : dir + "/" + name;
    fs::FsResult<fs::FileStat> st = co_await fs()->Stat(path);
    if (!st.ok()) {
      Abort(sim::Status::IoError(fmt::format("aging: grep: stat '{}' failed: {}", path, fs::ErrnoName(st.err))));
      co_return false;
    }
    if (st.value.is_dir) {
      if (!co_await Walk(path, point)) co_return false;
      continue;
    }
    fs::FsResult<fs::Fd> fd = co_await fs()->Open(path, fs::kRdOnly);
    if (!fd.ok()) {
      Abort(sim::Status::IoError(fmt::format("aging: grep: open '{}' failed: {}", path, fs::ErrnoName(fd.err))));
      co_return false;
    }
    for (;;) {
      fs::FsResult<uint64_t> r = co_await fs()->Read(fd.value, std::span<uint8_t>(buf_.data(), buf_.size()));
      if (!r.ok()) {
        Abort(sim::Status::IoError(fmt::format("aging: grep: read of '{}' failed: {}", path, fs::ErrnoName(r.err))));
        co_await fs()->Close(fd.value);
        co_return false;
      }
      if (r.value == 0) break;
      point->bytes += r.value;
    }
    ++point->files;
    co_await fs()->Close(fd.value);
  }
  co_return true;
}

sim::Task<bool> AgingWorkload::Grep(GrepPoint* point) {
  fs::FsStatus s = co_await fs()->Sync();
  if (!s.ok()) {
    Abort(sim::Status::IoError(fmt::format("aging: grep test: sync failed: {}", fs::ErrnoName(s.err))));
    co_return false;
  }
  const fs::FsStatus d = fs()->DropCaches();
  if (!d.ok()) {
    Abort(d.err == fs::Errno::kNotSup
              ? sim::Status::Unsupported("aging: the grep test needs a cold cache, but the file system cannot drop "
                                         "its caches (FileSystem::DropCaches: EOPNOTSUPP)")
              : sim::Status::IoError(fmt::format("aging: grep test: dropping caches failed: {}", fs::ErrnoName(d.err))));
    co_return false;
  }
  point->pulls = pulls_.value();
  ModelTotals(root_, &point->tree_files, &point->tree_bytes);
  point->reads = ReadStream(device_);
  point->measured_device = device_ != nullptr;
  measuring_ = point;
  if (device_ != nullptr) device_->SetObserver(observer_.get());
  const sim::SimTime t0 = now();
  const bool ok = co_await Walk("/", point);
  point->seconds = (now() - t0).sec();
  if (device_ != nullptr) device_->SetObserver(nullptr);
  point->reads.Finish();
  measuring_ = nullptr;
  op_stats().Record(op_grep_, now() - t0, point->bytes, ok);
  point->done = ok;
  co_return ok;
}

sim::Task<void> AgingWorkload::Worker(uint32_t) {
  const bool clean = cfg_.mode == "clean";
  size_t next_point = 0;
  for (uint64_t p = 0; p <= last_pull_; ++p) {
    if (stopping()) co_return;
    const AgingPull& pull = trace_->pulls[p];
    const sim::SimTime t0 = now();
    const uint64_t written0 = bytes_written_.value();
    for (uint64_t i = pull.first; i < pull.end; ++i) {
      const AgingRecord& r = trace_->records[i];
      const std::string impossible = Model(r);
      if (!impossible.empty()) {
        Abort(sim::Status::InvalidInput(fmt::format("{}:{}: {}", trace_->source, r.line, impossible)));
        co_return;
      }
      if (!clean && !co_await Replay(r)) co_return;
    }
    pulls_.Inc();
    if (!clean) op_stats().Record(op_pull_, now() - t0, bytes_written_.value() - written0, true);
    if (!clean && (p % cfg_.grep_every == 0 || p == last_pull_)) {
      if (!co_await Grep(&points_[next_point++])) co_return;
    }
  }
  if (clean) {
    const sim::SimTime t0 = now();
    if (!co_await CopyTree(root_, "")) co_return;
    op_stats().Record(op_pull_, now() - t0, bytes_written_.value(), true);
    co_await Grep(&points_[0]);
  }
}

std::string AgingWorkload::Report() const {
  size_t done = 0;
  const GrepPoint* last = nullptr;
  for (const GrepPoint& p : points_) {
    if (p.done) {
      ++done;
      last = &p;
    }
  }
  std::string out = fmt::format("aging      {} pulls ({}), {} bytes written, {} grep test{}\n", pulls_.value(),
                                cfg_.mode, bytes_written_.value(), done, done == 1 ? "" : "s");
  if (last != nullptr) {
    out += fmt::format("  last grep after {} pulls: {} files, {} bytes in {:.4f} s = {:.3f} s/GiB", last->pulls,
                       last->files, last->bytes, last->seconds,
                       last->bytes > 0 ? last->seconds / (static_cast<double>(last->bytes) / kGiB) : 0.0);
    if (last->reads.blocks() > 0) {
      out += fmt::format(", DLS {:.4f}", last->reads.Dls());
      if (last->measured_device) {
        out += fmt::format(", {:.2f} flash blocks/MiB, {:.2f} channels/MiB", last->reads.FlashBlocksPerMiB(),
                           last->reads.ChannelsPerMiB());
      }
    }
    out += "\n";
  }
  return out;
}

}  // namespace host
