#include "host/fsworkload/file_fio.h"

#include <algorithm>

#include <fmt/format.h>

namespace host {

namespace {

constexpr uint64_t kLayoutChunk = 1 << 20;

struct Pattern {
  std::string_view name;
  bool sequential;
  bool mixed;
  bool read;
};
constexpr Pattern kPatterns[] = {
    {"read", true, false, true},    {"write", true, false, false},   {"randread", false, false, true},
    {"randwrite", false, false, false}, {"rw", true, true, false},   {"readwrite", true, true, false},
    {"randrw", false, true, false},
};

const Pattern& PatternOf(std::string_view rw) {
  for (const Pattern& p : kPatterns) {
    if (p.name == rw) return p;
  }
  LOG(FATAL) << "unknown rw pattern " << rw;
  return kPatterns[0];
}

std::string Key(std::string_view path, std::string_view key) {
  return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}

}  // namespace

void FileFioConfig::Describe(sim::Schema<FileFioConfig>& s) {
  std::vector<std::string> rws;
  for (const Pattern& p : kPatterns) rws.emplace_back(p.name);
  s.Choice("rw", &FileFioConfig::rw, "randwrite", rws,
           "Pattern: read/write (sequential), randread/randwrite, rw (=readwrite) or randrw (mixed)");
  s.Param("rwmixread", &FileFioConfig::rwmixread, "50%", "Mixed patterns: fraction of reads");
  s.Param("bs", &FileFioConfig::bs, "4KiB", "Bytes per read/write").Min(1);
  s.Param("numjobs", &FileFioConfig::numjobs, "1", "Jobs (simulated threads)").Range(1, 4096);
  s.Param("size", &FileFioConfig::size, "1GiB", "Size of each file (of the shared file with shared_file)").Min(1);
  s.Param("shared_file", &FileFioConfig::shared_file, "false",
          "All jobs use one file (else one file per job)");
  s.Param("directory", &FileFioConfig::directory, "/fio", "Directory of the files (created if missing)");
  s.Param("fsync", &FileFioConfig::fsync, "0", "fsync() after every this many writes of a job; 0 = never");
  s.Param("fdatasync", &FileFioConfig::fdatasync, "0",
          "fdatasync() after every this many writes of a job; 0 = never");
  s.Param("end_fsync", &FileFioConfig::end_fsync, "false", "Each job fsyncs its file once at the end");
  s.Param("direct", &FileFioConfig::direct, "false", "Open with O_DIRECT");
  s.Param("sync", &FileFioConfig::sync, "false", "Open with O_SYNC");
  s.Param("layout", &FileFioConfig::layout, "true",
          "Write every file to its full size before the measured phase (fio's layout)");
  s.Param("total_ios", &FileFioConfig::total_ios, "0", "Stop after this many reads+writes over all jobs; 0 = no bound");
  s.Param("number_ios", &FileFioConfig::number_ios, "0",
          "Stop each job after this many reads+writes of its own (fio's number_ios); 0 = no bound");
  s.Param("io_size", &FileFioConfig::io_size, "0", "Stop after this many bytes over all jobs; 0 = no bound");
  s.Param("runtime", &FileFioConfig::runtime, "0s", "Length of the measured phase; 0 = no bound");
  s.Param("think_time", &FileFioConfig::think_time, "0s", "Pause of a job after each I/O");
  s.Param("rate_iops", &FileFioConfig::rate_iops, "0", "Per-job I/O rate (open-loop arrivals); 0 = as fast as possible")
      .Min(0);
}

sim::Status FileFioConfig::Validate(std::string_view path) const {
  if (bs.value == 0) return sim::Status::InvalidInput(Key(path, "bs") + ": must be positive");
  if (size.value < bs.value) {
    return sim::Status::InvalidInput(fmt::format("{}: {} bytes is smaller than bs ({} bytes)", Key(path, "size"),
                                                 size.value, bs.value));
  }
  if (shared_file && size.value / numjobs < bs.value && PatternOf(rw).sequential) {
    return sim::Status::InvalidInput(
        fmt::format("{}: a shared file needs at least bs per job for sequential jobs", Key(path, "size")));
  }
  if (total_ios == 0 && number_ios == 0 && io_size.value == 0 && runtime <= sim::SimTime::Zero()) {
    return sim::Status::InvalidInput(fmt::format(
        "{}: set total_ios, number_ios, io_size or runtime (the workload would never end)", Key(path, "runtime")));
  }
  if (directory.empty() || directory.front() != '/') {
    return sim::Status::InvalidInput(fmt::format("{}: must be an absolute path: '{}'", Key(path, "directory"), directory));
  }
  if (direct && (bs.value % 512 != 0)) {
    return sim::Status::InvalidInput(fmt::format("{}: O_DIRECT needs bs aligned to 512 bytes", Key(path, "bs")));
  }
  return sim::Status::Ok();
}

sim::Result<std::unique_ptr<FileFioWorkload>> FileFioWorkload::Create(const FileFioConfig& cfg, FsWorkloadEnv env,
                                                                      std::string_view path) {
  FS_RETURN_IF_ERROR(cfg.Validate(path));
  return std::make_unique<FileFioWorkload>(cfg, std::move(env));
}

FileFioWorkload::FileFioWorkload(const FileFioConfig& cfg, FsWorkloadEnv env)
    : FsWorkload(std::move(env), cfg.numjobs), cfg_(cfg) {
  CHECK(cfg_.Validate().ok()) << cfg_.Validate().message();
  const Pattern& p = PatternOf(cfg_.rw);
  sequential_ = p.sequential;
  mixed_ = p.mixed;
  reads_ = p.read;
  std::string dir = cfg_.directory;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  if (dir != "/") dir += '/';
  if (cfg_.shared_file) {
    paths_.push_back(dir + "shared");
  } else {
    for (uint32_t j = 0; j < cfg_.numjobs; ++j) paths_.push_back(dir + "job" + std::to_string(j));
  }
  fds_.assign(paths_.size(), -1);
  buf_.resize(cfg_.bs.value);
  op_read_ = op_stats().Add("read");
  op_write_ = op_stats().Add("write");
  if (cfg_.fsync > 0 || cfg_.end_fsync) op_fsync_ = op_stats().Add("fsync");
  if (cfg_.fdatasync > 0) op_fdatasync_ = op_stats().Add("fdatasync");
  if (cfg_.runtime > sim::SimTime::Zero()) SetRunTime(cfg_.runtime);
}

FileFioWorkload::~FileFioWorkload() { DestroyThreads(); }

sim::Task<void> FileFioWorkload::Setup() {
  fs::FileSystem* f = raw_fs();
  // mkdir -p of the directory.
  for (size_t i = 1; i <= cfg_.directory.size(); ++i) {
    if (i == cfg_.directory.size() || cfg_.directory[i] == '/') co_await f->Mkdir(cfg_.directory.substr(0, i));
  }
  uint32_t flags = fs::kRdWr | fs::kCreat;
  if (cfg_.direct) flags |= fs::kDirect;
  if (cfg_.sync) flags |= fs::kSync;
  for (size_t i = 0; i < paths_.size(); ++i) {
    fs::FsResult<fs::Fd> fd = co_await f->Open(paths_[i], flags);
    if (!fd.ok()) {
      Abort(sim::Status::IoError(fmt::format("fio setup: open {} failed: {}", paths_[i], fs::ErrnoName(fd.err))));
      co_return;
    }
    fds_[i] = fd.value;
    if (!cfg_.layout) continue;
    fs::FsResult<fs::FileStat> st = co_await f->Fstat(fd.value);
    for (uint64_t off = st.ok() ? st.value.size : 0; off < cfg_.size.value; off += kLayoutChunk) {
      const uint64_t len = std::min(kLayoutChunk, cfg_.size.value - off);
      fs::FsResult<uint64_t> w = co_await f->Pwrite(fd.value, off, {}, len);
      if (!w.ok()) {
        Abort(sim::Status::IoError(fmt::format("fio setup: layout of {} failed: {}", paths_[i], fs::ErrnoName(w.err))));
        co_return;
      }
    }
  }
}

sim::Task<void> FileFioWorkload::Teardown() {
  for (fs::Fd& fd : fds_) {
    if (fd >= 0) co_await raw_fs()->Close(fd);
    fd = -1;
  }
}

// Reserves one I/O of `bytes` against total_ios / io_size.
bool FileFioWorkload::Budget(uint64_t bytes) {
  if (cfg_.total_ios > 0 && ios_ >= cfg_.total_ios) return false;
  if (cfg_.io_size.value > 0 && bytes_ >= cfg_.io_size.value) return false;
  ++ios_;
  bytes_ += bytes;
  return true;
}

sim::Task<void> FileFioWorkload::Worker(uint32_t job) {
  const fs::Fd fd = fds_[cfg_.shared_file ? 0 : job];
  const uint64_t bs = cfg_.bs.value;
  const uint64_t blocks = cfg_.size.value / bs;
  uint64_t pos = cfg_.shared_file ? (cfg_.size.value / cfg_.numjobs) / bs * bs * job : 0;
  uint64_t writes = 0;
  uint64_t issued = 0;
  sim::Rng& r = rng(job);
  while (!stopping()) {
    if (cfg_.number_ios > 0 && issued >= cfg_.number_ios) break;
    if (cfg_.rate_iops > 0) {
      co_await SleepUntil(start_time() + sim::Sec(static_cast<double>(issued) / cfg_.rate_iops));
      if (stopping()) break;
    }
    const bool read = mixed_ ? r.Bernoulli(cfg_.rwmixread.value) : reads_;
    uint64_t off;
    if (sequential_) {
      if (pos + bs > blocks * bs) pos = 0;
      off = pos;
      pos += bs;
    } else {
      off = r.Uniform(blocks) * bs;
    }
    if (!Budget(bs)) break;
    ++issued;
    const sim::SimTime t0 = now();
    fs::FsResult<uint64_t> res = read ? co_await fs()->Pread(fd, off, std::span<uint8_t>(buf_.data(), bs))
                                      : co_await fs()->Pwrite(fd, off, {}, bs);
    op_stats().Record(read ? op_read_ : op_write_, now() - t0, res.ok() ? res.value : 0, res.ok());
    if (!res.ok()) {
      Abort(sim::Status::IoError(fmt::format("fio job {}: {} at {} failed: {}", job, read ? "pread" : "pwrite", off,
                                             fs::ErrnoName(res.err))));
      break;
    }
    if (!read) {
      ++writes;
      if (cfg_.fsync > 0 && writes % cfg_.fsync == 0) {
        const sim::SimTime t1 = now();
        fs::FsStatus s = co_await fs()->Fsync(fd);
        op_stats().Record(op_fsync_, now() - t1, 0, s.ok());
      }
      if (cfg_.fdatasync > 0 && writes % cfg_.fdatasync == 0) {
        const sim::SimTime t1 = now();
        fs::FsStatus s = co_await fs()->Fdatasync(fd);
        op_stats().Record(op_fdatasync_, now() - t1, 0, s.ok());
      }
    }
    if (cfg_.think_time > sim::SimTime::Zero()) co_await SleepUntil(now() + cfg_.think_time);
  }
  if (cfg_.end_fsync) {
    const sim::SimTime t1 = now();
    fs::FsStatus s = co_await fs()->Fsync(fd);
    op_stats().Record(op_fsync_, now() - t1, 0, s.ok());
  }
}

}  // namespace host
