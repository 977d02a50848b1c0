#include "host/fsworkload/postmark.h"

#include <algorithm>

#include <fmt/format.h>

namespace host {

namespace {

std::string Key(std::string_view path, std::string_view key) {
  return path.empty() ? std::string(key) : fmt::format("{}.{}", path, key);
}

}  // namespace

void PostmarkConfig::Describe(sim::Schema<PostmarkConfig>& s) {
  s.Param("number", &PostmarkConfig::number, "500", "Files created before the transactions (\"set number\")")
      .Range(1, 1e8);
  s.Param("transactions", &PostmarkConfig::transactions, "500", "Transactions (\"set transactions\")");
  s.Param("size_low", &PostmarkConfig::size_low, "500", "Smallest file size (\"set size\")").Min(1);
  s.Param("size_high", &PostmarkConfig::size_high, "10000", "Largest file size (\"set size\")").Min(1);
  s.Param("read_block", &PostmarkConfig::read_block, "512", "Read block size (\"set read\")").Min(1);
  s.Param("write_block", &PostmarkConfig::write_block, "512", "Write block size (\"set write\")").Min(1);
  s.Param("bias_read", &PostmarkConfig::bias_read, "5",
          "Chance in tenths of a read (else an append) per transaction; -1 = neither")
      .Range(-1, 10);
  s.Param("bias_create", &PostmarkConfig::bias_create, "5",
          "Chance in tenths of a create (else a delete) per transaction; -1 = neither")
      .Range(-1, 10);
  s.Param("buffered", &PostmarkConfig::buffered, "true", "C stdio buffered I/O (\"set buffering\")");
  s.Param("buffer_size", &PostmarkConfig::buffer_size, "4KiB", "stdio buffer size of buffered I/O").Min(1);
  s.Param("subdirectories", &PostmarkConfig::subdirectories, "0",
          "Spread files over this many subdirectories (\"set subdirectories\"; used when above 1)");
  s.Param("location", &PostmarkConfig::location, "/postmark", "Working directory (\"set location\")");
  s.Param("instances", &PostmarkConfig::instances, "1",
          "Independent PostMark runs side by side (each its own simulated thread and directory)")
      .Range(1, 4096);
  s.Param("fsync", &PostmarkConfig::fsync, "false",
          "fsync every file written (create or append) before closing it; postmark.c never does, the ParaFS "
          "evaluation's PostMark does");
}

sim::Status PostmarkConfig::Validate(std::string_view path) const {
  if (size_high.value < size_low.value) {
    return sim::Status::InvalidInput(fmt::format("{}: {} is below size_low ({})", Key(path, "size_high"),
                                                 size_high.value, size_low.value));
  }
  if (location.empty() || location.front() != '/') {
    return sim::Status::InvalidInput(fmt::format("{}: must be an absolute path: '{}'", Key(path, "location"), location));
  }
  return sim::Status::Ok();
}

struct PostmarkWorkload::Instance {
  uint32_t index = 0;
  std::string base;
  std::vector<Slot> table;  // 2 x number slots
  size_t allocated = 0;     // postmark's file_allocated rotor
  uint64_t created = 0;
  uint64_t deleted = 0;
  std::string path;
};

sim::Result<std::unique_ptr<PostmarkWorkload>> PostmarkWorkload::Create(const PostmarkConfig& cfg,
                                                                        FsWorkloadEnv env, std::string_view path) {
  FS_RETURN_IF_ERROR(cfg.Validate(path));
  return std::make_unique<PostmarkWorkload>(cfg, std::move(env));
}

PostmarkWorkload::PostmarkWorkload(const PostmarkConfig& cfg, FsWorkloadEnv env)
    : FsWorkload(std::move(env), cfg.instances), cfg_(cfg) {
  CHECK(cfg_.Validate().ok());
  for (uint32_t i = 0; i < cfg_.instances; ++i) {
    auto in = std::make_unique<Instance>();
    in->index = i;
    in->base = Base(i);
    in->table.resize(2 * static_cast<size_t>(cfg_.number));
    instances_.push_back(std::move(in));
  }
  buf_.resize(std::max({cfg_.read_block.value, cfg_.buffer_size.value, uint64_t{1}}));
  op_create_ = op_stats().Add("create");
  op_read_ = op_stats().Add("read");
  op_append_ = op_stats().Add("append");
  op_delete_ = op_stats().Add("delete");
  const sim::StatGroup g = stats_group().Group("postmark");
  g.Add(&totals_.transactions, "transactions", "transactions", "Transactions completed");
  g.Add(&totals_.files_created, "files_created", "files", "Files created (initial pool included)");
  g.Add(&totals_.files_deleted, "files_deleted", "files", "Files deleted (final clean-up included)");
  g.Add(&totals_.files_read, "files_read", "files", "Whole-file reads");
  g.Add(&totals_.files_appended, "files_appended", "files", "Appends");
  g.AddFormula(
      [this] {
        const double s = measured_seconds();
        return s > 0 ? static_cast<double>(totals_.transactions.value()) / s : 0.0;
      },
      "transactions_per_sec", "transactions/s", "Transactions per second of the whole run");
}

PostmarkWorkload::~PostmarkWorkload() { DestroyThreads(); }

std::string PostmarkWorkload::Base(uint32_t instance) const {
  std::string b = cfg_.location;
  while (b.size() > 1 && b.back() == '/') b.pop_back();
  if (cfg_.instances > 1) b += (b == "/" ? "p" : "/p") + std::to_string(instance);
  return b;
}

sim::Task<void> PostmarkWorkload::Setup() {
  fs::FileSystem* f = raw_fs();
  for (auto& in : instances_) {
    for (size_t i = 1; i <= in->base.size(); ++i) {
      if (i == in->base.size() || in->base[i] == '/') co_await f->Mkdir(in->base.substr(0, i));
    }
    if (cfg_.subdirectories > 1) {
      for (uint32_t s = 0; s < cfg_.subdirectories; ++s) co_await f->Mkdir(in->base + "/s" + std::to_string(s));
    }
  }
}

sim::Task<void> PostmarkWorkload::Teardown() {
  if (cfg_.subdirectories <= 1) co_return;
  for (auto& in : instances_) {
    for (uint32_t s = 0; s < cfg_.subdirectories; ++s) co_await raw_fs()->Rmdir(in->base + "/s" + std::to_string(s));
  }
}

sim::Task<bool> PostmarkWorkload::WriteBlocks(fs::Fd fd, uint64_t size) {
  if (cfg_.buffered) {
    // stdio flushes whole buffers, then the rest at fclose.
    const uint64_t b = cfg_.buffer_size.value;
    for (uint64_t done = 0; done < size; done += b) {
      fs::FsResult<uint64_t> r = co_await fs()->Write(fd, {}, std::min(b, size - done));
      if (!r.ok()) co_return false;
    }
    co_return true;
  }
  const uint64_t b = cfg_.write_block.value;
  uint64_t left = size;
  for (; left >= b; left -= b) {
    if (!(co_await fs()->Write(fd, {}, b)).ok()) co_return false;
  }
  co_return (co_await fs()->Write(fd, {}, left)).ok();  // the remainder, 0 bytes included
}

sim::Task<void> PostmarkWorkload::CreateFile(Instance& in) {
  // find_free_file: the next slot if free, else the first free one.
  const size_t n = in.table.size();
  size_t slot = n;
  if (in.allocated < n && in.table[in.allocated].size == 0) {
    slot = in.allocated++;
  } else {
    for (size_t i = 0; i < n; ++i) {
      if (in.table[i].size == 0) {
        in.allocated = i + 1;
        slot = i;
        break;
      }
    }
  }
  if (slot == n) co_return;
  sim::Rng& r = rng(in.index);
  Slot& s = in.table[slot];
  s.name.clear();
  if (cfg_.subdirectories > 1) s.name = "s" + std::to_string(Rnd(r, cfg_.subdirectories)) + "/";
  s.name += std::to_string(++in.created);
  s.size = cfg_.size_low.value + Rnd(r, static_cast<int64_t>(cfg_.size_high.value - cfg_.size_low.value));
  const sim::SimTime t0 = now();
  in.path = in.base + "/" + s.name;
  fs::FsResult<fs::Fd> fd = co_await fs()->Open(in.path, fs::kWrOnly | fs::kCreat | fs::kTrunc);
  bool ok = fd.ok();
  if (ok) {
    ok = co_await WriteBlocks(fd.value, s.size);
    if (ok && cfg_.fsync) ok = (co_await fs()->Fsync(fd.value)).ok();
    co_await fs()->Close(fd.value);
  }
  op_stats().Record(op_create_, now() - t0, ok ? s.size : 0, ok);
  totals_.files_created.Inc();
  if (!ok) Abort(sim::Status::IoError(fmt::format("postmark: cannot create {}", in.path)));
}

sim::Task<void> PostmarkWorkload::DeleteFile(Instance& in, size_t slot) {
  Slot& s = in.table[slot];
  if (s.size == 0) co_return;
  const sim::SimTime t0 = now();
  in.path = in.base + "/" + s.name;
  fs::FsStatus r = co_await fs()->Unlink(in.path);
  op_stats().Record(op_delete_, now() - t0, 0, r.ok());
  if (r.ok()) {
    s.size = 0;
    ++in.deleted;
    totals_.files_deleted.Inc();
  }
}

sim::Task<void> PostmarkWorkload::ReadFile(Instance& in, size_t slot) {
  Slot& s = in.table[slot];
  const sim::SimTime t0 = now();
  in.path = in.base + "/" + s.name;
  fs::FsResult<fs::Fd> fd = co_await fs()->Open(in.path, fs::kRdOnly);
  if (!fd.ok()) {
    op_stats().Record(op_read_, now() - t0, 0, false);
    co_return;
  }
  uint64_t got = 0;
  if (cfg_.buffered) {
    // stdio refills its buffer until the requested bytes are in.
    const uint64_t b = cfg_.buffer_size.value;
    while (got < s.size) {
      fs::FsResult<uint64_t> r = co_await fs()->Read(fd.value, std::span<uint8_t>(buf_.data(), b));
      if (!r.ok() || r.value == 0) break;
      got += r.value;
    }
  } else {
    const uint64_t b = cfg_.read_block.value;
    uint64_t left = s.size;
    for (; left >= b; left -= b) {
      fs::FsResult<uint64_t> r = co_await fs()->Read(fd.value, std::span<uint8_t>(buf_.data(), b));
      if (r.ok()) got += r.value;
    }
    fs::FsResult<uint64_t> r = co_await fs()->Read(fd.value, std::span<uint8_t>(buf_.data(), left));
    if (r.ok()) got += r.value;
  }
  co_await fs()->Close(fd.value);
  op_stats().Record(op_read_, now() - t0, got, true);
  totals_.files_read.Inc();
}

sim::Task<void> PostmarkWorkload::AppendFile(Instance& in, size_t slot) {
  Slot& s = in.table[slot];
  if (s.size >= cfg_.size_high.value) co_return;
  const sim::SimTime t0 = now();
  in.path = in.base + "/" + s.name;
  fs::FsResult<fs::Fd> fd = co_await fs()->Open(in.path, fs::kWrOnly | fs::kCreat | fs::kAppend);
  if (!fd.ok()) {
    op_stats().Record(op_append_, now() - t0, 0, false);
    co_return;
  }
  const uint64_t block = Rnd(rng(in.index), static_cast<int64_t>(cfg_.size_high.value - s.size)) + 1;
  bool ok = co_await WriteBlocks(fd.value, block);
  if (ok && cfg_.fsync) ok = (co_await fs()->Fsync(fd.value)).ok();
  co_await fs()->Close(fd.value);
  s.size += block;
  op_stats().Record(op_append_, now() - t0, block, ok);
  totals_.files_appended.Inc();
}

size_t PostmarkWorkload::FindUsed(Instance& in) {
  sim::Rng& r = rng(in.index);
  for (;;) {
    const size_t i = Rnd(r, static_cast<int64_t>(in.table.size()));
    if (in.table[i].size != 0) return i;
  }
}

sim::Task<void> PostmarkWorkload::Worker(uint32_t index) {
  Instance& in = *instances_[index];
  sim::Rng& r = rng(index);
  for (uint32_t i = 0; i < cfg_.number && !stopping(); ++i) co_await CreateFile(in);
  for (uint64_t t = 0; t < cfg_.transactions && !stopping(); ++t) {
    if (in.created == in.deleted) {
      out_of_files_ = true;
      break;
    }
    if (cfg_.bias_read != -1) {
      if (static_cast<int64_t>(Rnd(r, 10)) < cfg_.bias_read) {
        co_await ReadFile(in, FindUsed(in));
      } else {
        co_await AppendFile(in, FindUsed(in));
      }
    }
    if (cfg_.bias_create != -1) {
      if (static_cast<int64_t>(Rnd(r, 10)) < cfg_.bias_create) {
        co_await CreateFile(in);
      } else {
        co_await DeleteFile(in, FindUsed(in));
      }
    }
    totals_.transactions.Inc();
  }
  for (size_t i = 0; i < in.table.size(); ++i) co_await DeleteFile(in, i);
}

}  // namespace host
