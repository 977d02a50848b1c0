#include "host/fsworkload/txbench.h"

#include <algorithm>

#include <fmt/format.h>

namespace host {

void TxbenchConfig::Describe(sim::Schema<TxbenchConfig>& s) {
  s.Choice("mode", &TxbenchConfig::mode, "set", {"set", "atomic", "fsync"},
           "How a transaction is made durable: one multi-file transaction (exF2FS), an atomic write per file "
           "(F2FS), or writes and an fsync per file (durable, not atomic)");
  s.Param("files", &TxbenchConfig::files, "1", "Files written (thread t writes files t, t + threads, ...)")
      .Range(1, 4096);
  s.Param("threads", &TxbenchConfig::threads, "1", "Writing threads").Range(1, 1024);
  s.Param("file_size", &TxbenchConfig::file_size, "4MiB",
          "Bytes written to each file before the run (0: new empty files, written by appends)");
  s.Param("transactions", &TxbenchConfig::transactions, "10000", "Transactions").Min(1);
  s.Param("writes", &TxbenchConfig::writes, "3",
          "Writes per file per transaction (random offsets within file_size, or appends)")
      .Min(1);
  s.Param("write_size", &TxbenchConfig::write_size, "4KiB", "Bytes per write").Range(1, 1ull << 30);
  s.Param("dir", &TxbenchConfig::dir, "/txbench", "Directory of the files");
}

sim::Status TxbenchConfig::Validate(std::string_view path) const {
  const sim::KeyErrors err(path);
  if (files < threads) return err("files", fmt::format("{} files for {} threads: each thread needs one", files, threads));
  if (file_size.value > 0 && write_size.value > file_size.value) {
    return err("write_size", fmt::format("{} bytes do not fit in file_size ({} bytes)", write_size.value,
                                         file_size.value));
  }
  if (dir.empty() || dir.front() != '/') return err("dir", fmt::format("'{}' is not an absolute path", dir));
  return sim::Status::Ok();
}

sim::Result<std::unique_ptr<TxbenchWorkload>> TxbenchWorkload::Create(const TxbenchConfig& cfg, FsWorkloadEnv env,
                                                                      std::string_view path) {
  FS_RETURN_IF_ERROR(cfg.Validate(path));
  return std::make_unique<TxbenchWorkload>(cfg, std::move(env));
}

TxbenchWorkload::TxbenchWorkload(const TxbenchConfig& cfg, FsWorkloadEnv env)
    : FsWorkload(env, cfg.threads), cfg_(cfg), barrier_(env.queue) {
  CHECK(cfg_.Validate().ok());
  op_txn_ = op_stats().Add("txn");
  const sim::StatGroup g = stats_group().Group("txbench");
  g.Add(&txns_, "txns", "txns", "Transactions made durable (mode atomic/fsync: per file)");
  g.Add(&txn_lat_, "txn.lat", "ns", "Transaction latency: start to durable");
  g.Add(&commit_lat_, "commit_lat", "ns", "The commit (TxCommit, AtomicWriteCommit or fsync) alone");
  g.AddFormula(
      [this] {
        const double s = measured_seconds();
        return s > 0 ? static_cast<double>(txns_.value()) / s : 0.0;
      },
      "txn_per_s", "txn/s", "Transactions per simulated second");
}

TxbenchWorkload::~TxbenchWorkload() { DestroyThreads(); }

std::string TxbenchWorkload::FileName(uint32_t i) const {
  return fmt::format("{}/f{}", cfg_.dir == "/" ? "" : cfg_.dir, i);
}

void TxbenchWorkload::Fail(std::string_view what, fs::Errno e) {
  if (e == fs::Errno::kNotSup) {
    Abort(sim::Status::Unsupported(
        fmt::format("txbench: {}: the file system has no transactions (EOPNOTSUPP); mode {} needs F2FS without the "
                    "journal",
                    what, cfg_.mode)));
  } else {
    Abort(sim::Status::IoError(fmt::format("txbench: {}: {}", what, fs::ErrnoName(e))));
  }
}

sim::Task<void> TxbenchWorkload::Setup() {
  fs::FileSystem* f = raw_fs();
  for (size_t i = 1; i <= cfg_.dir.size(); ++i) {
    if (i == cfg_.dir.size() || cfg_.dir[i] == '/') co_await f->Mkdir(cfg_.dir.substr(0, i));
  }
  for (uint32_t i = 0; i < cfg_.files; ++i) {
    fs::FsResult<fs::Fd> fd = co_await f->Open(FileName(i), fs::kCreat | fs::kRdWr | fs::kTrunc);
    if (!fd.ok()) co_return Fail("open " + FileName(i), fd.err);
    fds_.push_back(fd.value);
    for (uint64_t off = 0; off < cfg_.file_size.value; off += 1 << 20) {
      const uint64_t n = std::min<uint64_t>(1 << 20, cfg_.file_size.value - off);
      fs::FsResult<uint64_t> w = co_await f->Pwrite(fd.value, off, {}, n);
      if (!w.ok()) co_return Fail("preallocating " + FileName(i), w.err);
    }
    fs::FsStatus st = co_await f->Fsync(fd.value);
    if (!st.ok()) co_return Fail("fsync " + FileName(i), st.err);
  }
  if (cfg_.mode == "set") {
    for (uint32_t i = 0; i < cfg_.files; ++i) {
      fs::FsResult<uint64_t> k = co_await f->TxAdd(key_, fds_[i]);
      if (!k.ok()) co_return Fail("TxAdd " + FileName(i), k.err);
      key_ = k.value;
    }
  }
}

sim::Task<bool> TxbenchWorkload::Meet() {
  const uint64_t gen = generation_;
  if (++arrived_ == cfg_.threads) {
    arrived_ = 0;
    ++generation_;
    barrier_.NotifyAll();
    co_return !stopping();
  }
  while (generation_ == gen && !stopping()) co_await barrier_.Wait();
  co_return !stopping();
}

sim::Task<bool> TxbenchWorkload::WriteFile(uint32_t thread, uint32_t file, uint64_t txn) {
  const uint64_t ws = cfg_.write_size.value;
  const uint64_t slots = cfg_.file_size.value / ws;
  for (uint64_t w = 0; w < cfg_.writes; ++w) {
    const uint64_t off = slots > 0 ? rng(thread).Uniform(slots) * ws
                                   : cfg_.file_size.value + (txn * cfg_.writes + w) * ws;  // appends
    fs::FsResult<uint64_t> r = co_await fs()->Pwrite(fds_[file], off, {}, ws);
    if (!r.ok()) {
      Fail(fmt::format("pwrite {}", FileName(file)), r.err);
      co_return false;
    }
  }
  co_return true;
}

sim::Task<void> TxbenchWorkload::Worker(uint32_t t) {
  const bool set = cfg_.mode == "set";
  for (uint64_t txn = 0; txn < cfg_.transactions && !stopping(); ++txn) {
    if (set) {
      const sim::SimTime start = now();
      if (t == 0) {
        fs::FsStatus st = co_await fs()->TxStart(key_);
        if (!st.ok()) co_return Fail("TxStart", st.err);
      }
      if (!co_await Meet()) co_return;
      for (uint32_t f = t; f < cfg_.files; f += cfg_.threads)
        if (!co_await WriteFile(t, f, txn)) co_return;
      if (!co_await Meet()) co_return;
      if (t == 0) {
        const sim::SimTime c0 = now();
        fs::FsStatus st = co_await fs()->TxCommit(key_);
        if (!st.ok()) co_return Fail("TxCommit", st.err);
        commit_lat_.Record((now() - c0).ns());
        txn_lat_.Record((now() - start).ns());
        op_stats().Record(op_txn_, now() - start, cfg_.writes * cfg_.write_size.value * cfg_.files, true);
        txns_.Inc();
      }
      if (!co_await Meet()) co_return;
      continue;
    }
    for (uint32_t f = t; f < cfg_.files; f += cfg_.threads) {
      const sim::SimTime start = now();
      if (cfg_.mode == "atomic") {
        fs::FsStatus st = co_await fs()->AtomicWriteStart(fds_[f]);
        if (!st.ok()) co_return Fail("AtomicWriteStart " + FileName(f), st.err);
      }
      if (!co_await WriteFile(t, f, txn)) co_return;
      const sim::SimTime c0 = now();
      fs::FsStatus st = cfg_.mode == "atomic" ? co_await fs()->AtomicWriteCommit(fds_[f])
                                              : co_await fs()->Fsync(fds_[f]);
      if (!st.ok()) co_return Fail((cfg_.mode == "atomic" ? "AtomicWriteCommit " : "fsync ") + FileName(f), st.err);
      commit_lat_.Record((now() - c0).ns());
      txn_lat_.Record((now() - start).ns());
      op_stats().Record(op_txn_, now() - start, cfg_.writes * cfg_.write_size.value, true);
      txns_.Inc();
    }
  }
}

}  // namespace host
