#include "host/fsworkload/mobigen_replay.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <glog/logging.h>

namespace host {

namespace {

constexpr uint64_t kPrepareChunk = 1 << 20;

std::string Key(std::string_view path, std::string_view key) {
  return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}

// True if the trace shows the original call failing: a negative descriptor
// or byte count, or a nonzero result.
bool FailedInTrace(const MobigenRecord& r) {
  switch (r.call) {
    case MobigenCall::kOpen:
      return r.fd < 0;
    case MobigenCall::kRead:
    case MobigenCall::kWrite:
    case MobigenCall::kPread:
    case MobigenCall::kPwrite:
      return r.bytes < 0;
    default:
      return r.ret != 0;
  }
}

std::string DirName(std::string_view p) {
  const size_t slash = p.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return "/";
  return std::string(p.substr(0, slash));
}

}  // namespace

void MobigenConfig::Describe(sim::Schema<MobigenConfig>& s) {
  s.Param("trace", &MobigenConfig::trace, "", "Path of the MobiGen trace file (e.g. mobigen.out.twitter)");
  s.Param("dir", &MobigenConfig::dir, "/mobigen",
          "Replay directory (Mobibench's -p): temp_<tid>_<n>.dat files for unquoted opens");
  s.Choice("timing", &MobigenConfig::timing, "timed", {"timed", "afap"},
           "timed = each thread waits for its lines' timestamps; afap = as fast as possible");
  s.Param("speedup", &MobigenConfig::speedup, "1",
          "timed: how many times faster than recorded; a line at trace time t is due at t / speedup (2 = twice "
          "as fast, 0.5 = half as fast)")
      .Range(kMinMobigenSpeedup, kMaxMobigenSpeedup);
  s.Retired("time_scale",
            "replaced by 'speedup', its inverse, the same key as block-trace replay: the old time_scale: 0.5 "
            "(twice as fast) is speedup: 2; for no waits at all use timing: afap");
  s.Choice("fd_scope", &MobigenConfig::fd_scope, "process", {"process", "thread"},
           "Trace descriptors belong to the process (shared by threads) or to each thread");
  s.Choice("unmapped_fd", &MobigenConfig::unmapped_fd, "open", {"open", "skip"},
           "A line on a descriptor with no open: open a file for it first, or skip the line (the replayer)");
  s.Choice("open_flags", &MobigenConfig::open_flags, "mobibench", {"mobibench", "trace"},
           "mobibench = O_RDONLY or O_RDWR|O_CREAT|O_TRUNC as the replayer; trace = the recorded flags");
  s.Param("prepare", &MobigenConfig::prepare, "true",
          "Create beforehand the files and directories the trace shows existing (unmeasured)");
  s.Choice("on_error", &MobigenConfig::on_error, "fail", {"fail", "skip"},
           "A malformed trace line is an error, or is skipped and counted");
}

struct MobigenReplay::FdMap {
  std::vector<fs::Fd> fds;  // by trace descriptor; -1 = unmapped
  fs::Fd Get(int32_t fd) const {
    return fd >= 0 && static_cast<size_t>(fd) < fds.size() ? fds[fd] : -1;
  }
  void Set(int32_t fd, fs::Fd v) {
    if (fd < 0) return;
    if (static_cast<size_t>(fd) >= fds.size()) fds.resize(static_cast<size_t>(fd) + 1, -1);
    fds[fd] = v;
  }
};

sim::Result<std::unique_ptr<MobigenReplay>> MobigenReplay::Create(const MobigenConfig& cfg, FsWorkloadEnv env,
                                                                  std::string_view path) {
  FS_ASSIGN_OR_RETURN(std::shared_ptr<const MobigenTrace> trace, Load(cfg, path));
  return std::make_unique<MobigenReplay>(std::move(trace), cfg, std::move(env));
}

sim::Result<std::shared_ptr<const MobigenTrace>> MobigenReplay::Load(const MobigenConfig& cfg, std::string_view path) {
  if (cfg.trace.empty()) return sim::Status::InvalidInput(Key(path, "trace") + ": no trace file given");
  MobigenParseOptions opt;
  opt.skip_malformed = cfg.on_error == "skip";
  sim::Result<MobigenTrace> t = ReadMobigenFile(cfg.trace, opt);
  if (!t.ok()) {
    if (t.status().message().find(": cannot read") != std::string::npos) {
      return sim::Status::InvalidInput(fmt::format("{}: {}", Key(path, "trace"), t.status().message()));
    }
    return t.status();
  }
  if (t->records.size() == t->unknown()) {
    std::string unknown;
    for (const auto& [name, n] : t->unknown_counts) unknown += fmt::format("{}{} {}", unknown.empty() ? "" : ", ", name, n);
    return sim::Status::InvalidInput(fmt::format(
        "{}: {}: no call to replay ({} line{}: {} blank or malformed skipped, {} unknown call{}{}); the trace is "
        "empty or not a MobiGen trace",
        Key(path, "trace"), cfg.trace, t->lines, t->lines == 1 ? "" : "s", t->skipped, t->unknown(),
        t->unknown() == 1 ? "" : "s", unknown.empty() ? "" : " (" + unknown + ")"));
  }
  if (cfg.timing != "afap") {
    // The replay waits until each line's scaled time: the scaled span of the
    // trace must fit the simulated clock, and years of it are suspicious.
    const double span_us = static_cast<double>(t->last_us - t->first_us) / cfg.speedup;
    const sim::SimTime span = sim::SaturatingUs(span_us);
    const double years = span_us / 1e6 / (365.0 * 24 * 3600);
    if (span > sim::kMaxReplaySpan) {
      const bool scaled = cfg.speedup < 1 && sim::SaturatingUs(static_cast<double>(t->last_us - t->first_us)) <=
                                                    sim::kMaxReplaySpan;
      return sim::Status::InvalidInput(fmt::format(
          "{}: the trace's timestamps span {} us ({} .. {}); at speedup {} that is {:.3g} years of simulated "
          "time, beyond the {:.0f} years a timed replay may span (use timing: afap, or a larger speedup)",
          Key(path, scaled ? "speedup" : "trace"), t->last_us - t->first_us, t->first_us, t->last_us,
          cfg.speedup, years, sim::kMaxReplaySpan.sec() / (365.0 * 24 * 3600)));
    }
    if (span > sim::kLongSimulatedSpan) {
      LOG(WARNING) << fmt::format(
          "{}: the trace's timestamps span {} us; at speedup {} the timed replay lasts {:.3g} years of "
          "simulated time",
          Key(path, "trace"), t->last_us - t->first_us, cfg.speedup, years);
    }
  }
  return std::make_shared<const MobigenTrace>(std::move(t).value());
}

MobigenReplay::MobigenReplay(std::shared_ptr<const MobigenTrace> trace, const MobigenConfig& cfg, FsWorkloadEnv env)
    : FsWorkload(std::move(env), static_cast<uint32_t>(trace->tids.size())), trace_(std::move(trace)), cfg_(cfg) {
  timed_ = cfg_.timing != "afap";
  process_scope_ = cfg_.fd_scope != "thread";
  implicit_open_ = cfg_.unmapped_fd != "skip";
  trace_flags_ = cfg_.open_flags == "trace";
  dir_ = cfg_.dir;
  while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
  const size_t threads = trace_->tids.size();
  maps_.resize(process_scope_ ? 1 : threads);
  for (auto& m : maps_) m = std::make_unique<FdMap>();
  temp_opens_.assign(threads, 0);
  implicit_count_.assign(threads, 0);
  uint64_t max_read = 1;
  for (const MobigenRecord& r : trace_->records) {
    if (r.call == MobigenCall::kRead || r.call == MobigenCall::kPread) {
      max_read = std::max<uint64_t>(max_read, static_cast<uint64_t>(std::max<int64_t>(0, r.bytes)));
    }
  }
  buf_.resize(max_read);
  for (size_t c = 0; c + 1 < kNumMobigenCalls; ++c) {
    op_ids_[c] = op_stats().Add(MobigenCallName(static_cast<MobigenCall>(c)));
  }

  const sim::StatGroup g = stats_group().Group("mobigen");
  g.Add(&lines_, "lines", "lines", "Lines in the trace");
  g.Add(&executed_total_, "executed", "calls", "Trace lines executed as file-system calls");
  g.Add(&failed_, "failed", "calls", "Executed calls the file system refused (see op.<call>.errors)");
  g.Add(&failed_as_recorded_, "failed_as_recorded", "calls", "Failed calls that the trace shows failing too");
  g.Add(&unknown_, "unknown", "lines", "Lines with a call the replay does not know (not executed)");
  g.Add(&skipped_lines_, "skipped_lines", "lines", "Blank or malformed (skipped) lines");
  g.Add(&unmapped_skipped_, "unmapped_skipped", "lines", "Lines skipped for an unmapped descriptor");
  g.Add(&implicit_opens_, "implicit_opens", "calls", "Opens made for descriptors used without an open");
  g.Add(&implicit_closes_, "implicit_closes", "calls", "Closes of descriptors a later open reused");
  g.Add(&short_reads_, "short_reads", "calls", "Reads that returned fewer bytes than the trace's");
  g.Add(&read_requested_, "read_bytes_requested", "bytes", "Bytes the trace's reads asked for");
  g.Add(&late_ops_, "late_ops", "calls", "Timed replay: lines issued after their due time");
  g.Add(&lateness_, "lateness", "ns", "Timed replay: how late the late lines were issued");
  lines_.Inc(trace_->lines);
  unknown_.Inc(trace_->unknown());
  skipped_lines_.Inc(trace_->skipped);
  const sim::StatGroup ug = g.Group("unknown");
  for (const auto& [name, n] : trace_->unknown_counts) {
    auto c = std::make_unique<sim::Counter>();
    c->Inc(n);
    ug.Add(c.get(), name, "lines", "Lines with this unknown call");
    unknown_by_name_.push_back(std::move(c));
  }
}

MobigenReplay::~MobigenReplay() { DestroyThreads(); }

MobigenReplay::FdMap& MobigenReplay::MapOf(uint32_t thread) { return *maps_[process_scope_ ? 0 : thread]; }

void MobigenReplay::PlanPreparation(std::vector<std::string>* dirs,
                                    std::vector<std::pair<std::string, uint64_t>>* files) const {
  const MobigenTrace& t = *trace_;
  std::vector<uint32_t> order(t.records.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return t.records[a].t_us < t.records[b].t_us; });
  std::map<std::string, uint64_t> exist;  // path -> bytes the trace reads from it
  struct Open {
    uint32_t path;
    uint64_t pos;
  };
  std::map<int32_t, Open> fds;
  for (uint32_t i : order) {
    const MobigenRecord& r = t.records[i];
    switch (r.call) {
      case MobigenCall::kOpen:
        if (r.quoted && r.rdonly && r.fd >= 0) {
          exist.emplace(t.paths[r.name], 0);
          fds[r.fd] = Open{r.name, 0};
        } else {
          fds.erase(r.fd);
        }
        break;
      case MobigenCall::kRead:
      case MobigenCall::kPread:
        if (auto it = fds.find(r.fd); it != fds.end()) {
          const uint64_t n = static_cast<uint64_t>(std::max<int64_t>(0, r.bytes));
          uint64_t end;
          if (r.call == MobigenCall::kRead) {
            it->second.pos += n;
            end = it->second.pos;
          } else {
            end = r.offset + n;
          }
          uint64_t& need = exist[t.paths[it->second.path]];
          need = std::max(need, end);
        }
        break;
      case MobigenCall::kClose:
        fds.erase(r.fd);
        break;
      case MobigenCall::kStat:
      case MobigenCall::kLstat:
      case MobigenCall::kAccess:
      case MobigenCall::kUnlink:
        if (r.ret == 0) exist.emplace(t.paths[r.name], 0);
        break;
      default:
        break;
    }
  }
  std::set<std::string> parents;
  for (const auto& [p, n] : exist) {
    for (std::string d = DirName(p); d != "/" && !d.empty() && parents.insert(d).second; d = DirName(d)) {
    }
  }
  dirs->assign(parents.begin(), parents.end());
  for (const auto& [p, n] : exist) {
    if (!parents.count(p) && p != "/") files->emplace_back(p, n);
  }
}

sim::Task<void> MobigenReplay::Setup() {
  fs::FileSystem* f = raw_fs();
  std::vector<std::string> dirs;
  std::vector<std::pair<std::string, uint64_t>> files;
  if (cfg_.prepare) PlanPreparation(&dirs, &files);
  dirs.push_back(dir_);
  std::sort(dirs.begin(), dirs.end());
  dirs.erase(std::unique(dirs.begin(), dirs.end()), dirs.end());
  for (const std::string& d : dirs) {
    // mkdir -p, parents first (sorted order puts a parent before its children).
    for (size_t i = 1; i <= d.size(); ++i) {
      if (i == d.size() || d[i] == '/') co_await f->Mkdir(d.substr(0, i));
    }
    if (d != dir_ || cfg_.prepare) prepared_.push_back(d + "/");
  }
  for (const auto& [p, size] : files) {
    fs::FsResult<fs::Fd> fd = co_await f->Open(p, fs::kRdWr | fs::kCreat);
    if (!fd.ok()) continue;  // e.g. a path below a prepared file
    for (uint64_t off = 0; off < size; off += kPrepareChunk) {
      co_await f->Pwrite(fd.value, off, {}, std::min(kPrepareChunk, size - off));
    }
    co_await f->Close(fd.value);
    prepared_.push_back(p);
  }
  std::sort(prepared_.begin(), prepared_.end());
}

sim::Task<void> MobigenReplay::Teardown() {
  for (auto& m : maps_) {
    for (fs::Fd& fd : m->fds) {
      if (fd >= 0) co_await raw_fs()->Close(fd);
      fd = -1;
    }
  }
}

sim::Task<fs::Fd> MobigenReplay::Lookup(uint32_t thread, int32_t fd) {
  FdMap& m = MapOf(thread);
  if (const fs::Fd f = m.Get(fd); f >= 0) co_return f;
  if (!implicit_open_) {
    unmapped_skipped_.Inc();
    co_return -1;
  }
  const std::string path =
      fmt::format("{}/implicit_{}_{}_{}.dat", dir_, trace_->tids[thread], fd, implicit_count_[thread]++);
  fs::FsResult<fs::Fd> r = co_await raw_fs()->Open(path, fs::kRdWr | fs::kCreat);
  if (!r.ok()) {
    unmapped_skipped_.Inc();
    co_return -1;
  }
  implicit_opens_.Inc();
  if (const fs::Fd f = m.Get(fd); f >= 0) {  // another thread mapped it meanwhile
    co_await raw_fs()->Close(r.value);
    co_return f;
  }
  m.Set(fd, r.value);
  co_return r.value;
}

sim::Task<void> MobigenReplay::Execute(uint32_t thread, const MobigenRecord& r) {
  const MobigenTrace& t = *trace_;
  fs::FileSystem* f = fs();
  bool ok = true;
  uint64_t bytes = 0;
  sim::SimTime t0 = now();
  const uint64_t len = static_cast<uint64_t>(std::max<int64_t>(0, r.bytes));
  switch (r.call) {
    case MobigenCall::kOpen: {
      const std::string path = r.quoted ? t.paths[r.name]
                                        : fmt::format("{}/temp_{}_{}.dat", dir_, t.tids[thread], temp_opens_[thread]++);
      const uint32_t flags = trace_flags_ ? r.flags : (r.rdonly ? fs::kRdOnly : fs::kRdWr | fs::kCreat | fs::kTrunc);
      fs::FsResult<fs::Fd> res = co_await f->Open(path, flags);
      ok = res.ok();
      if (ok) {
        FdMap& m = MapOf(thread);
        if (const fs::Fd old = m.Get(r.fd); old >= 0) {
          co_await raw_fs()->Close(old);
          implicit_closes_.Inc();
        }
        m.Set(r.fd, res.value);
      }
      break;
    }
    case MobigenCall::kStat:
    case MobigenCall::kLstat:
    case MobigenCall::kAccess:
      ok = (co_await f->Stat(t.paths[r.name])).ok();
      break;
    case MobigenCall::kUnlink:
      ok = (co_await f->Unlink(t.paths[r.name])).ok();
      break;
    case MobigenCall::kUnknown:
      co_return;
    default: {
      const fs::Fd fd = co_await Lookup(thread, r.fd);
      if (fd < 0) co_return;  // skipped (counted by Lookup)
      t0 = now();
      switch (r.call) {
        case MobigenCall::kClose:
          ok = (co_await f->Close(fd)).ok();
          MapOf(thread).Set(r.fd, -1);
          break;
        case MobigenCall::kRead:
        case MobigenCall::kPread: {
          const std::span<uint8_t> out(buf_.data(), len);
          fs::FsResult<uint64_t> res =
              r.call == MobigenCall::kRead ? co_await f->Read(fd, out) : co_await f->Pread(fd, r.offset, out);
          ok = res.ok();
          bytes = ok ? res.value : 0;
          read_requested_.Inc(len);
          if (bytes < len) short_reads_.Inc();
          break;
        }
        case MobigenCall::kWrite:
        case MobigenCall::kPwrite: {
          fs::FsResult<uint64_t> res =
              r.call == MobigenCall::kWrite ? co_await f->Write(fd, {}, len) : co_await f->Pwrite(fd, r.offset, {}, len);
          ok = res.ok();
          bytes = ok ? res.value : 0;
          break;
        }
        case MobigenCall::kFsync:
          ok = (co_await f->Fsync(fd)).ok();
          break;
        case MobigenCall::kFdatasync:
          ok = (co_await f->Fdatasync(fd)).ok();
          break;
        case MobigenCall::kFstat:
          ok = (co_await f->Fstat(fd)).ok();
          break;
        default:
          LOG(FATAL) << "unhandled call";
      }
    }
  }
  const auto c = static_cast<size_t>(r.call);
  ++executed_[c];
  executed_total_.Inc();
  if (!ok) {
    ++failed_by_call_[c];
    failed_.Inc();
    if (FailedInTrace(r)) failed_as_recorded_.Inc();
  }
  op_stats().Record(op_ids_[c], now() - t0, bytes, ok);
}

std::string MobigenReplay::Report() const {
  const MobigenTrace& t = *trace_;
  std::string out = fmt::format(
      "mobigen    {}: {} lines, {} calls executed, {} failed, {} unknown not executed, {} malformed/blank skipped, "
      "{} on unmapped descriptors skipped\n",
      t.source, t.lines, executed_total_.value(), failed_.value(), t.unknown(), t.skipped, unmapped_skipped_.value());
  if (failed_.value() > 0) {
    std::string by_call;
    for (size_t c = 0; c + 1 < kNumMobigenCalls; ++c) {
      if (failed_by_call_[c] == 0) continue;
      by_call += fmt::format("{}{} {}", by_call.empty() ? "" : ", ", MobigenCallName(static_cast<MobigenCall>(c)),
                             failed_by_call_[c]);
    }
    out += fmt::format("failed     {} ({} of {} failed in the trace too)\n", by_call, failed_as_recorded_.value(),
                       failed_.value());
  }
  if (t.unknown() > 0) {
    std::string names;
    for (const auto& [name, n] : t.unknown_counts) names += fmt::format("{}{} {}", names.empty() ? "" : ", ", name, n);
    out += fmt::format("unknown    {} (not replayed)\n", names);
  }
  if (!t.errors.empty()) {
    out += fmt::format("malformed  first {} of {} lines:\n", t.errors.size(), t.malformed);
    for (const std::string& e : t.errors) out += fmt::format("  {}\n", e);
  }
  if (short_reads_.value() > 0) {
    out += fmt::format("short      {} reads returned fewer bytes than the trace's ({} bytes asked for in all)\n",
                       short_reads_.value(), read_requested_.value());
  }
  if (implicit_opens_.value() > 0 || implicit_closes_.value() > 0) {
    out += fmt::format("implicit   {} opens of descriptors used without an open, {} closes of reused ones\n",
                       implicit_opens_.value(), implicit_closes_.value());
  }
  if (timed_) {
    out += fmt::format("timing     speedup {}; {} lines issued after their due time{}\n", cfg_.speedup,
                       late_ops_.value(),
                       late_ops_.value() > 0
                           ? fmt::format(" (at most {} late)", sim::Ns(static_cast<int64_t>(lateness_.max())).ToString())
                           : "");
  }
  return out;
}

sim::Task<void> MobigenReplay::Worker(uint32_t thread) {
  const MobigenTrace& t = *trace_;
  for (uint32_t idx : t.thread_records[thread]) {
    if (stopping()) break;
    const MobigenRecord& r = t.records[idx];
    if (r.call == MobigenCall::kUnknown) continue;
    if (timed_) {
      // Create bounds the scaled span; the clamp keeps traces given to the
      // constructor directly from overflowing the clock.
      const sim::SimTime offset =
          std::min(sim::SaturatingUs(static_cast<double>(r.t_us - t.first_us) / cfg_.speedup), sim::kMaxReplaySpan);
      const sim::SimTime due = sim::SaturatingAdd(start_time(), offset);
      if (now() < due) {
        co_await SleepUntil(due);
      } else if (now() > due) {
        late_ops_.Inc();
        lateness_.Record((now() - due).ns());
      }
    }
    co_await Execute(thread, r);
  }
}

}  // namespace host
