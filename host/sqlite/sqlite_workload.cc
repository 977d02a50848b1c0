#include "host/sqlite/sqlite_workload.h"

#include <sqlite3.h>

#include <fmt/format.h>

#include "sim/rng.h"

namespace host::sqlite {

namespace {

sim::Task<void> AcquireOne(sim::Semaphore* s) { co_await s->Acquire(); }

}  // namespace

std::string AsciiUpper(std::string_view in) {
  std::string s(in);
  for (char& c : s) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return s;
}

sim::Status ValidateSqliteKeys(std::string_view path, uint64_t page_size, const std::string& dir,
                               const std::string& journal_mode, const SqliteVfsConfig& vfs) {
  const sim::KeyErrors err(path);
  if (vfs.fs_transactions && journal_mode != "memory" && journal_mode != "off") {
    return err("vfs.fs_transactions",
               fmt::format("needs journal_mode memory or off (the file-system transaction replaces SQLite's "
                           "journal), not {}",
                           journal_mode));
  }
  if (page_size < 512 || page_size > 65536 || (page_size & (page_size - 1)) != 0) {
    return err("page_size", fmt::format("{} bytes is not a power of two in 512..65536", page_size));
  }
  if (dir.empty() || dir[0] != '/') return err("dir", fmt::format("'{}' is not an absolute path", dir));
  if (!vfs.temp_dir.empty() && vfs.temp_dir[0] != '/') {
    return err("vfs.temp_dir", fmt::format("'{}' is not an absolute path", vfs.temp_dir));
  }
  return sim::Status::Ok();
}

sim::Result<std::unique_ptr<SqliteDb>> OpenWorkloadDb(SqliteVfs* vfs, const std::string& dir,
                                                      const std::string& path, sim::SimTime busy_timeout) {
  auto mk = vfs->runtime()->AwaitTask(vfs->file_system()->Mkdir(dir));
  if (!mk.ok() && mk.err != fs::Errno::kExist) {
    return sim::Status::IoError(fmt::format("mkdir {}: {}", dir, fs::ErrnoName(mk.err)));
  }
  FS_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, SqliteDb::Open(vfs, path));
  sqlite3_busy_timeout(db->handle(), static_cast<int>(busy_timeout.ns() / 1000000));
  return db;
}

sim::Status ApplySettings(SqliteDb& db, std::string_view schema, const SqliteSettings& s) {
  FS_RETURN_IF_ERROR(db.Exec(fmt::format("PRAGMA {}.page_size = {};", schema, s.page_size)));
  FS_RETURN_IF_ERROR(db.Exec(fmt::format("PRAGMA {}.journal_mode = {};", schema, AsciiUpper(s.journal_mode))));
  return db.Exec(fmt::format("PRAGMA {}.synchronous = {};", schema, AsciiUpper(s.synchronous)));
}

// --- SqliteThreads ------------------------------------------------------------

SqliteThreads::SqliteThreads(sim::EventQueue* q, fs::FileSystem* fs, const SqliteVfsConfig& vfs,
                             size_t stack_bytes, uint64_t seed, const sim::StatGroup& vfs_stats)
    : q_(q), seed_(seed) {
  CHECK(q != nullptr && fs != nullptr);
  runtime_ = std::make_unique<FiberRuntime>(q, stack_bytes);
  vfs_ = std::make_unique<SqliteVfs>(runtime_.get(), fs, vfs, seed, vfs_stats);
}

SqliteThreads::~SqliteThreads() {
  Shutdown();
  vfs_.reset();
  runtime_.reset();
}

void SqliteThreads::Shutdown() {
  // The coroutine joining the fibers goes first; then the fibers run to
  // their ends with every wait failing, so SQLite closes its files through
  // its own error paths.
  roots_.DestroyAll();
  runtime_->Shutdown();
}

void SqliteThreads::Start(uint32_t n, std::string_view name, std::function<void(uint32_t)> body,
                          std::function<void()> on_exit) {
  CHECK(!started_) << name << " started twice";
  started_ = true;
  sim::Rng prng(seed_, "sqlite.prng");
  const int prng_seed = static_cast<int>(prng.Next() & 0x7fffffff) | 1;
  sqlite3_test_control(SQLITE_TESTCTRL_PRNG_SEED, prng_seed, static_cast<sqlite3*>(nullptr));
  std::vector<Fiber*> fibers;
  for (uint32_t i = 0; i < n; ++i) {
    fibers.push_back(runtime_->Spawn(fmt::format("{}{}", name, i), [body, i] { body(i); }));
  }
  // Completion is reported from the event loop, after every fiber returned.
  auto wait_all = [](SqliteThreads* self, std::vector<Fiber*> fs, std::function<void()> done) -> sim::Task<void> {
    for (Fiber* f : fs) co_await f->Join();
    self->done_ = true;
    if (done) done();
  };
  roots_.Spawn(wait_all(this, std::move(fibers), std::move(on_exit)));
}

void SqliteThreads::Fail(const sim::Status& st) {
  if (st.ok()) return;
  errors_.Inc();
  if (!status_.ok()) return;
  // SQLite reports a refused file-system transaction as an I/O error; the
  // VFS knows which call was refused and why.
  const std::string& why = vfs_->tx_error();
  if (why.empty()) {
    status_ = st;
  } else if (why.find("EOPNOTSUPP") != std::string::npos) {
    status_ = sim::Status::Unsupported(fmt::format(
        "{} ({}: the file system has no transactions; vfs.fs_transactions needs F2FS without the journal)",
        st.message(), why));
  } else {
    status_ = sim::Status::IoError(fmt::format("{} ({})", st.message(), why));
  }
}

// --- FiberBarrier, MeasuredWindow ---------------------------------------------

void FiberBarrier::Arrive(const std::function<void()>& on_last) {
  if (++arrived_ == parties_) {
    if (on_last) on_last();
    sem_.Release(parties_ - 1);
  } else {
    rt_->AwaitTask(AcquireOne(&sem_));
  }
}

double MeasuredWindow::PerSecond(uint64_t n) const {
  const double s = time().sec();
  return s > 0 ? static_cast<double>(n) / s : 0.0;
}

double MeasuredWindow::SyncsPer(uint64_t n) const {
  return n ? static_cast<double>(counts_.TotalSyncs()) / static_cast<double>(n) : 0.0;
}

double MeasuredWindow::BytesWrittenPer(uint64_t n) const {
  return n ? static_cast<double>(counts_.TotalBytesWritten()) / static_cast<double>(n) : 0.0;
}

void MeasuredWindow::Register(const sim::StatGroup& g, std::string_view window, std::string_view unit,
                              std::string_view unit_name, std::function<uint64_t()> count) const {
  g.AddFormula([this] { return time().sec(); }, "measured_time", "s", window);
  g.AddFormula([this] { return static_cast<double>(counts_.TotalSyncs()); }, "fsyncs", "calls",
               "fsync/fdatasync calls in the measured window (all files and directories)");
  g.AddFormula([this, count] { return SyncsPer(count()); }, fmt::format("fsyncs_per_{}", unit),
               fmt::format("calls/{}", unit), fmt::format("Sync calls per {}", unit_name));
  for (int i = 0; i < kFileKinds; ++i) {
    const FileKind k = static_cast<FileKind>(i);
    g.AddFormula([this, k] { return static_cast<double>(counts_.of(k).syncs); },
                 fmt::format("syncs.{}", FileKindName(k)), "calls",
                 fmt::format("Sync calls on {} files in the measured window", FileKindName(k)));
  }
  g.AddFormula([this] { return static_cast<double>(counts_.TotalBytesWritten()); }, "bytes_written", "bytes",
               "Bytes SQLite wrote in the measured window");
  g.AddFormula([this, count] { return BytesWrittenPer(count()); }, fmt::format("bytes_written_per_{}", unit),
               fmt::format("bytes/{}", unit), fmt::format("Bytes SQLite wrote per {}", unit_name));
  g.AddFormula([this] { return static_cast<double>(counts_.TotalBytesRead()); }, "bytes_read", "bytes",
               "Bytes SQLite read in the measured window");
}

}  // namespace host::sqlite
