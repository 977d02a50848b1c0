#include "app/experiment.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>

#include <fmt/format.h>

#include "ftl/ftl_factory.h"
#include "fs/f2fs/f2fs.h"
#include "fs/f2fs/image.h"
#include "host/fsworkload/fs_workload.h"
#include "host/replay/trace_replayer.h"
#include "host/workload/fio_generator.h"
#include "sim/event_queue.h"
#include "flash/nand_array.h"
#include "ssd/ssd.h"

namespace app {

void RunSection::Describe(sim::Schema<RunSection>& s) {
  s.Param("max_time", &RunSection::max_time, "0s",
          "Stop the run at this simulated time; 0 = when the workload finishes");
  s.Param("stats_interval", &RunSection::stats_interval, "10ms", "Sampling period of the time series (series.csv)")
      .Min(1);
}

void FsSection::Describe(sim::Schema<FsSection>& s) {
  s.Choice("kind", &FsSection::kind, "none", {"none", "memfs", "f2fs"},
           "File system for file workloads: none (block workloads only), memfs (in-memory reference model with "
           "fixed latencies, no device I/O), f2fs (the F2FS model on the simulated SSD)");
  s.Param("volume", &FsSection::volume, "0",
          "f2fs: size of the formatted volume from the start of the device; 0 = the whole device");
  s.Section("memfs", &FsSection::memfs, "In-memory reference file system (fs.kind: memfs)");
  s.Section("f2fs", &FsSection::f2fs, "F2FS model (fs.kind: f2fs)");
}

void WorkloadSection::Describe(sim::Schema<WorkloadSection>& s) {
  s.Choice("kind", &WorkloadSection::kind, "fio",
           {"fio", "trace", "filebench", "fio_files", "postmark", "mobigen", "mobibench"},
           "What drives the stack: block workloads (fio, trace) or file workloads (the rest, need fs.kind)");
  s.Section("fio", &WorkloadSection::fio, "fio-like block workload (kind: fio)");
  s.Section("trace", &WorkloadSection::trace, "Block trace replay (kind: trace)");
  s.Section("filebench", &WorkloadSection::filebench, "filebench personality (kind: filebench)");
  s.Section("fio_files", &WorkloadSection::fio_files, "fio-like workload on files (kind: fio_files)");
  s.Section("postmark", &WorkloadSection::postmark, "PostMark (kind: postmark)");
  s.Section("mobigen", &WorkloadSection::mobigen, "MobiGen syscall trace replay (kind: mobigen)");
  s.Section("mobibench", &WorkloadSection::mobibench, "Mobibench SQLite on real SQLite (kind: mobibench)");
}

void ExperimentConfig::Describe(sim::Schema<ExperimentConfig>& s) {
  s.Param("name", &ExperimentConfig::name, "",
          "Experiment name (results folder name); default: the config file name");
  s.Param("seed", &ExperimentConfig::seed, "1", "Run seed; every component derives its own random stream from it");
  s.Section("run", &ExperimentConfig::run, "Run bounds and statistics sampling");
  s.Section("device", &ExperimentConfig::device, "The simulated SSD");
  s.Section("ftl", &ExperimentConfig::ftl, "Flash translation layer");
  s.Section("fs", &ExperimentConfig::fs, "File system (for file workloads)");
  s.Section("workload", &ExperimentConfig::workload, "What drives the device");
}

namespace {
// Prefixes a component's relative key path ("op: …") with its section.
sim::Status InSection(const sim::Status& st, std::string_view section) {
  if (st.ok()) return st;
  const std::string prefix = fmt::format("{}.", section);
  if (st.message().rfind(prefix, 0) == 0) return st;  // already a full key path
  return sim::Status::InvalidInput(prefix + st.message());
}
}  // namespace

sim::Status ValidateExperiment(const ExperimentConfig& cfg) {
  FS_RETURN_IF_ERROR(InSection(cfg.device.Validate(), "device"));
  FS_RETURN_IF_ERROR(InSection(cfg.ftl.Validate(cfg.device.geometry), "ftl"));
  const uint64_t capacity = cfg.ftl.LogicalPages(cfg.device.geometry) * cfg.device.geometry.page_size.value;
  const auto sector = static_cast<uint32_t>(cfg.device.ssd.sector_size.value);
  // Only the selected workload's section must be complete.
  if (cfg.workload.kind == "fio") FS_RETURN_IF_ERROR(cfg.workload.fio.Validate(capacity, sector, "workload.fio"));
  if (cfg.workload.kind == "trace") {
    FS_RETURN_IF_ERROR(cfg.workload.trace.Validate(capacity, sector, "workload.trace"));
  }
  if (cfg.workload.kind == "mobibench") FS_RETURN_IF_ERROR(cfg.workload.mobibench.Validate("workload.mobibench"));
  if (cfg.workload.kind == "fio_files") FS_RETURN_IF_ERROR(cfg.workload.fio_files.Validate("workload.fio_files"));
  if (cfg.workload.kind == "postmark") FS_RETURN_IF_ERROR(cfg.workload.postmark.Validate("workload.postmark"));
  if (cfg.workload.kind == "filebench") {
    // Parses the personality's script with the configured variables.
    FS_RETURN_IF_ERROR(host::FilebenchWorkload::BuildScript(cfg.workload.filebench, "workload.filebench").status());
  }
  if (cfg.fs.kind == "f2fs") {
    FS_RETURN_IF_ERROR(InSection(cfg.fs.f2fs.Validate(), "fs.f2fs"));
    if (cfg.fs.volume.value > capacity) {
      return sim::Status::InvalidInput(fmt::format("fs.volume: {} bytes exceed the device's {} bytes",
                                                   cfg.fs.volume.value, capacity));
    }
    if (cfg.fs.volume.value % 4096 != 0) {
      return sim::Status::InvalidInput("fs.volume: must be a multiple of the 4 KiB F2FS block");
    }
  }
  if (cfg.workload.is_block() && cfg.fs.kind != "none") {
    return sim::Status::InvalidInput(fmt::format(
        "fs.kind: block workload '{}' drives the device directly; set fs.kind: none", cfg.workload.kind));
  }
  if (!cfg.workload.is_block() && cfg.fs.kind == "none") {
    return sim::Status::InvalidInput(
        fmt::format("workload.kind: file workload '{}' needs a file system; set fs.kind", cfg.workload.kind));
  }
  return sim::Status::Ok();
}

// The driver selected by workload.kind, behind one small interface.
class Experiment::Workload {
 public:
  virtual ~Workload() = default;
  virtual void Start() = 0;
  // Host I/Os (or operations) completed so far, and planned in all (0 =
  // unknown), for the progress line and the wall-clock report.
  virtual uint64_t completed() const = 0;
  virtual uint64_t planned() const = 0;
  virtual sim::Status status() const { return sim::Status::Ok(); }
  // Extra lines for the summary (e.g. skipped trace lines).
  virtual std::string Report() const { return ""; }
};

namespace {

class FioWorkload final : public Experiment::Workload {
 public:
  explicit FioWorkload(std::unique_ptr<host::FioGenerator> g) : g_(std::move(g)) {}
  void Start() override { g_->Start(); }
  uint64_t completed() const override { return g_->completed(); }
  uint64_t planned() const override { return g_->plan().total_ios; }

 private:
  std::unique_ptr<host::FioGenerator> g_;
};

class TraceWorkload final : public Experiment::Workload {
 public:
  explicit TraceWorkload(std::unique_ptr<host::TraceReplayer> r) : r_(std::move(r)) {}
  void Start() override { r_->Start(); }
  uint64_t completed() const override { return r_->completed(); }
  uint64_t planned() const override { return 0; }
  sim::Status status() const override { return r_->status(); }
  std::string Report() const override { return r_->Report(); }

 private:
  std::unique_ptr<host::TraceReplayer> r_;
};

// Any FsWorkload (filebench, fio_files, postmark, mobigen).
class FileWorkload final : public Experiment::Workload {
 public:
  explicit FileWorkload(std::unique_ptr<host::FsWorkload> w) : w_(std::move(w)) {}
  void Start() override { w_->Start(); }
  uint64_t completed() const override { return w_->ops().total(); }
  uint64_t planned() const override { return 0; }
  sim::Status status() const override { return w_->run_status(); }

 private:
  std::unique_ptr<host::FsWorkload> w_;
};

class MobibenchWorkload final : public Experiment::Workload {
 public:
  explicit MobibenchWorkload(std::unique_ptr<host::sqlite::MobibenchSqlite> w) : w_(std::move(w)) {}
  void Start() override { w_->Start(); }
  uint64_t completed() const override { return w_->txns(); }
  uint64_t planned() const override { return 0; }
  sim::Status status() const override { return w_->status(); }
  std::string Report() const override {
    if (!w_->done()) return "";
    return fmt::format("sqlite     {} transactions: {:.1f} txn/s, {:.2f} fsyncs/txn, {:.0f} bytes written/txn\n",
                       w_->txns(), w_->TxnPerSec(), w_->FsyncsPerTxn(), w_->BytesWrittenPerTxn());
  }

 private:
  std::unique_ptr<host::sqlite::MobibenchSqlite> w_;
};

}  // namespace

// The assembled simulation, bottom-up. Member order is construction order;
// destruction runs top-down so no component outlives what it points to.
struct Experiment::Stack {
  sim::EventQueue queue;
  std::unique_ptr<flash::NandArray> nand;
  std::unique_ptr<ftl::Ftl> ftl;
  std::unique_ptr<ssd::Ssd> ssd;
  std::unique_ptr<fs::f2fs::Image> image;  // what is on flash, for fs.kind f2fs
  std::unique_ptr<fs::FileSystem> fs;      // null for block workloads
  std::unique_ptr<Workload> workload;
};

Experiment::Experiment(const ExperimentConfig& cfg) : cfg_(cfg), stack_(std::make_unique<Stack>()) {}

Experiment::~Experiment() {
  // A run bounded by max_time leaves work pending; drop it before the
  // components owning those events go away.
  stack_->queue.Clear();
}

sim::Result<std::unique_ptr<Experiment>> Experiment::Create(const ExperimentConfig& cfg) {
  std::unique_ptr<Experiment> e(new Experiment(cfg));
  Stack& s = *e->stack_;
  sim::StatGroup root = e->stats_.Root();
  const auto& dev = cfg.device;
  s.nand = std::make_unique<flash::NandArray>(&s.queue, dev.geometry, dev.flash, root.Group("flash"));
  // MakeFtl also preconditions the FTL (untimed) when ftl.precondition is on.
  FS_ASSIGN_OR_RETURN(s.ftl, ftl::MakeFtl(cfg.ftl, s.nand.get(), &s.queue, root.Group("ftl")));
  s.ssd = std::make_unique<ssd::Ssd>(&s.queue, dev.ssd, dev.geometry, s.ftl.get(), root.Group("ssd"));
  if (cfg.workload.kind == "fio") {
    host::FioGenerator::Env env{&s.queue, s.ssd.get(), root.Group("workload"), cfg.seed, dev.ssd.queues};
    FS_ASSIGN_OR_RETURN(auto g, host::FioGenerator::Create(cfg.workload.fio, env, "workload.fio"));
    s.workload = std::make_unique<FioWorkload>(std::move(g));
  } else if (cfg.workload.kind == "trace") {
    // workload.trace.path was made absolute when the config was loaded.
    host::TraceReplayer::Env env{&s.queue, s.ssd.get(), root.Group("workload"), cfg.seed, dev.ssd.queues};
    FS_ASSIGN_OR_RETURN(auto r, host::TraceReplayer::Create(cfg.workload.trace, env, "", "workload.trace"));
    s.workload = std::make_unique<TraceWorkload>(std::move(r));
  } else {
    FS_RETURN_IF_ERROR(e->CreateFileStack());
  }
  return e;
}

namespace {
// Prints "sim 12.3ms | 45.6k ios | 1.2M ios/s | ETA 3s" on stderr once per
// wall second after the first three; a daemon event so it never keeps the
// run alive.
class ProgressLine final : public sim::Event {
 public:
  ProgressLine(sim::EventQueue* q, const Experiment::Workload* w, sim::SimTime max_time)
      : sim::Event(sim::Priority::kProgress), q_(q), w_(w), max_time_(max_time),
        start_(std::chrono::steady_clock::now()), last_(start_) {
    set_daemon(true);
  }
  void Start() { q_->ScheduleIn(this, kStep); }
  void Process() override {
    const auto now = std::chrono::steady_clock::now();
    // Silent for short runs; then one update per wall second.
    if (now - start_ >= std::chrono::seconds(3) && now - last_ >= std::chrono::seconds(1)) {
      last_ = now;
      const double wall = std::chrono::duration<double>(now - start_).count();
      const uint64_t done = w_->completed();
      const uint64_t total = w_->planned();
      double frac = 0;
      if (total > 0) frac = static_cast<double>(done) / static_cast<double>(total);
      if (max_time_ > sim::SimTime::Zero()) frac = std::max(frac, q_->now().sec() / max_time_.sec());
      std::string eta = frac > 0.001 ? fmt::format("ETA {:.0f}s", wall * (1 - frac) / frac) : "ETA ?";
      std::fprintf(stderr, "\r[flashstack] sim %s | %llu ios | %.0f ios/s | %s   ", q_->now().ToString().c_str(),
                   static_cast<unsigned long long>(done), done / wall, eta.c_str());
      shown_ = true;
    }
    if (q_->pending() > 0) q_->ScheduleIn(this, kStep);
  }
  ~ProgressLine() override {
    if (scheduled()) q_->Deschedule(this);
    if (shown_) std::fprintf(stderr, "\n");
  }

 private:
  static constexpr sim::SimTime kStep = sim::Us(100);
  sim::EventQueue* q_;
  const Experiment::Workload* w_;
  sim::SimTime max_time_;
  std::chrono::steady_clock::time_point start_, last_;
  bool shown_ = false;
};
}  // namespace

RunReport Experiment::Run(bool progress) {
  Stack& s = *stack_;
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t ev0 = s.queue.events_processed();
  stats_.StartSampling(&s.queue, cfg_.run.stats_interval);
  std::unique_ptr<ProgressLine> line;
  if (progress) {
    line = std::make_unique<ProgressLine>(&s.queue, s.workload.get(), cfg_.run.max_time);
    line->Start();
  }
  s.workload->Start();
  const sim::SimTime until =
      cfg_.run.max_time > sim::SimTime::Zero() ? s.queue.now() + cfg_.run.max_time : sim::SimTime::Max();
  s.queue.Run(until);
  stats_.StopSampling();
  line.reset();
  RunReport r;
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.events = s.queue.events_processed() - ev0;
  r.sim_time = s.queue.now();
  r.host_ios = s.workload->completed();
  return r;
}

sim::Status Experiment::CreateFileStack() {
  Stack& s = *stack_;
  const ExperimentConfig& cfg = cfg_;
  sim::StatGroup root = stats_.Root();
  if (cfg.fs.kind == "memfs") {
    s.fs = std::make_unique<fs::MemFs>(&s.queue, cfg.fs.memfs);
  } else if (cfg.fs.kind == "f2fs") {
    FS_RETURN_IF_ERROR(MountF2fs());
  } else {
    return sim::Status::InvalidInput(fmt::format("fs.kind: unsupported '{}'", cfg.fs.kind));
  }
  const auto& w = cfg.workload;
  if (w.kind == "mobibench") {
    host::sqlite::MobibenchSqlite::Env env{&s.queue, s.fs.get(), root.Group("workload"), cfg.seed};
    FS_ASSIGN_OR_RETURN(auto m, host::sqlite::MobibenchSqlite::Create(w.mobibench, env, "workload.mobibench"));
    s.workload = std::make_unique<MobibenchWorkload>(std::move(m));
    return sim::Status::Ok();
  }
  host::FsWorkloadEnv env{&s.queue, s.fs.get(), root.Group("workload"), cfg.seed};
  std::unique_ptr<host::FsWorkload> fw;
  if (w.kind == "filebench") {
    FS_ASSIGN_OR_RETURN(fw, host::FilebenchWorkload::Create(w.filebench, env, "workload.filebench"));
  } else if (w.kind == "fio_files") {
    FS_ASSIGN_OR_RETURN(fw, host::FileFioWorkload::Create(w.fio_files, env, "workload.fio_files"));
  } else if (w.kind == "postmark") {
    FS_ASSIGN_OR_RETURN(fw, host::PostmarkWorkload::Create(w.postmark, env, "workload.postmark"));
  } else if (w.kind == "mobigen") {
    FS_ASSIGN_OR_RETURN(fw, host::MobigenReplay::Create(w.mobigen, env, "workload.mobigen"));
  } else {
    return sim::Status::InvalidInput(fmt::format("workload.kind: unsupported '{}'", w.kind));
  }
  s.workload = std::make_unique<FileWorkload>(std::move(fw));
  return sim::Status::Ok();
}

// mkfs (untimed), then mount on the simulated clock: the run's time starts
// when the mount has read the checkpoint, NAT, SIT and SSA.
sim::Status Experiment::MountF2fs() {
  Stack& s = *stack_;
  const uint64_t volume = cfg_.fs.volume.value > 0 ? cfg_.fs.volume.value : s.ssd->capacity() / 4096 * 4096;
  s.image = std::make_unique<fs::f2fs::Image>(volume / 4096);
  FS_RETURN_IF_ERROR(InSection(fs::f2fs::F2fs::Format(cfg_.fs.f2fs, volume, s.image.get()), "fs.f2fs"));
  fs::f2fs::F2fs::Env env;
  env.events = &s.queue;
  env.device = s.ssd.get();
  env.image = s.image.get();
  env.stats = stats_.Root().Group("fs");
  const sim::StatsRegistry* stats = &stats_;
  env.device_write_amplification = [stats] { return stats->Value("ftl.write_amplification"); };
  sim::Result<std::unique_ptr<fs::f2fs::F2fs>> mounted = sim::Status::InvalidInput("fs.f2fs: mount did not finish");
  auto mount = [&]() -> sim::Task<> { mounted = co_await fs::f2fs::F2fs::Mount(cfg_.fs.f2fs, env); };
  sim::Spawn(&s.queue, mount());
  s.queue.Run();
  if (!mounted.ok()) return mounted.status();
  s.fs = std::move(mounted).value();
  return sim::Status::Ok();
}

sim::Status Experiment::status() const { return stack_->workload->status(); }

namespace {
std::string Human(double v, const char* unit) {
  const char* prefixes[] = {"", "k", "M", "G", "T"};
  int i = 0;
  while (std::abs(v) >= 1000 && i < 4) {
    v /= 1000;
    ++i;
  }
  const std::string suffix = fmt::format("{}{}", prefixes[i], unit);
  return suffix.empty() ? fmt::format("{:.4g}", v) : fmt::format("{:.4g} {}", v, suffix);
}

std::string Latency(const sim::Histogram& h) {
  auto t = [](int64_t ns) { return sim::Ns(ns).ToString(); };
  return fmt::format("mean {} p50 {} p99 {} p99.9 {} max {}", t(static_cast<int64_t>(h.mean())),
                     t(h.Percentile(0.5)), t(h.Percentile(0.99)), t(h.Percentile(0.999)), t(h.max()));
}
}  // namespace

std::string Experiment::Summary() const {
  const sim::StatsRegistry& st = stats_;
  std::string out;
  if (cfg_.workload.is_block()) {
    out += fmt::format("workload   {} I/Os in {} simulated: {} IOPS, {}\n",
                       static_cast<uint64_t>(st.Value("workload.ios_total")),
                       sim::Sec(st.Value("workload.measured_time")).ToString(), Human(st.Value("workload.iops"), ""),
                       Human(st.Value("workload.bw"), "B/s"));
    const char* ops[] = {"read", "write", "trim", "flush"};
    for (const char* op : ops) {
      const sim::Histogram* h = st.FindHistogram(fmt::format("workload.{}.lat", op));
      if (h == nullptr || h->count() == 0) continue;
      out += fmt::format("  {:<9} n={} {}\n", op, h->count(), Latency(*h));
    }
  } else if (cfg_.workload.kind != "mobibench") {
    out += fmt::format("workload   {} ops in {} simulated: {} ops/s, read {}, written {}, {} fsyncs\n",
                       static_cast<uint64_t>(st.Value("workload.ops")),
                       sim::Sec(st.Value("workload.measured_time")).ToString(),
                       Human(st.Value("workload.ops_per_sec"), ""), Human(st.Value("workload.bytes_read"), "B"),
                       Human(st.Value("workload.bytes_written"), "B"), static_cast<uint64_t>(st.Value("workload.fsyncs")));
    for (int c = 0; c < host::MeteredFs::kNumCalls; ++c) {
      const std::string_view name = host::MeteredFs::CallName(static_cast<host::MeteredFs::Call>(c));
      const sim::Histogram* h = st.FindHistogram(fmt::format("workload.fs.{}.lat", name));
      if (h == nullptr || h->count() == 0) continue;
      out += fmt::format("  {:<9} n={} {}\n", name, h->count(), Latency(*h));
    }
  }
  out += stack_->workload->Report();
  if (cfg_.fs.kind == "memfs") return out;  // the device is not used
  if (cfg_.fs.kind == "f2fs") {
    out += fmt::format("f2fs       FS write amplification {:.3f}, end to end {:.3f}; {} checkpoints; GC {} victims "
                       "({} blocks moved)\n",
                       st.Value("fs.write_amplification"), st.Value("fs.write_amplification_end_to_end"),
                       static_cast<uint64_t>(st.Value("fs.cp.count")),
                       static_cast<uint64_t>(st.Value("fs.gc.victims_bg") + st.Value("fs.gc.victims_fg")),
                       static_cast<uint64_t>(st.Value("fs.gc.moved_bg") + st.Value("fs.gc.moved_fg")));
    const char* parts[] = {"total", "data", "node", "flush"};
    for (const char* part : parts) {
      const sim::Histogram* h = st.FindHistogram(fmt::format("fs.fsync.lat_{}", part));
      if (h == nullptr || h->count() == 0) continue;
      out += fmt::format("  fsync {:<5} n={} {}\n", part, h->count(), Latency(*h));
    }
    if (const sim::Histogram* h = st.FindHistogram("fs.fsync.nodes_visited"); h != nullptr && h->count() > 0) {
      out += fmt::format("  fsync node pages visited: mean {:.1f}, max {}\n", h->mean(), h->max());
    }
  }
  const double host = st.Value("ftl.host_writes");
  const std::string wa = host > 0 ? fmt::format("{:.3f}", st.Value("ftl.write_amplification")) : "n/a";
  out += fmt::format("ftl        write amplification {} (host {} pages, GC copies {}), GC victims {} bg / {} fg, "
                     "erases {}, stalled writes {}\n",
                     wa, static_cast<uint64_t>(host),
                     static_cast<uint64_t>(st.Value("ftl.gc_copies")), static_cast<uint64_t>(st.Value("ftl.gc_runs_bg")),
                     static_cast<uint64_t>(st.Value("ftl.gc_runs_fg")), static_cast<uint64_t>(st.Value("ftl.erases")),
                     static_cast<uint64_t>(st.Value("ftl.write_stalls")));
  if (cfg_.ftl.precondition.enabled) {
    out += fmt::format("  precondition: {} page writes, WA {:.3f}\n",
                       static_cast<uint64_t>(st.Value("ftl.precondition.host_writes")),
                       st.Value("ftl.precondition.write_amplification"));
  }
  out += fmt::format("flash      die utilization {:.1f}% (max {:.1f}%), channel utilization {:.1f}%\n",
                     100 * st.Value("flash.die_utilization"), 100 * st.Value("flash.die_utilization_max"),
                     100 * st.Value("flash.channel_utilization"));
  return out;
}

}  // namespace app
