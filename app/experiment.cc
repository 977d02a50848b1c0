#include "app/experiment.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>

#include <fmt/format.h>

#include "flash/nand_array.h"
#include "fs/durability_ledger.h"
#include "fs/file_system_kind.h"
#include "fs/fs_stats.h"
#include "ftl/ftl_factory.h"
#include "app/flows.h"
#include "host/flows/flows_driver.h"
#include "host/workload_kind.h"
#include "sim/event_queue.h"
#include "sim/registry.h"
#include "sim/rng.h"
#include "ssd/fixed_latency_device.h"
#include "ssd/ssd.h"

namespace app {

void RunSection::Describe(sim::Schema<RunSection>& s) {
  s.Param("max_time", &RunSection::max_time, "0s",
          "Stop the run at this simulated time; 0 = when the workload finishes");
  s.Param("max_memory", &RunSection::max_memory, "0",
          "Refuse before running a configuration whose estimated memory (the FTL's mapping tables and block "
          "state, the file system's per-block tables) exceeds this; 0 = the machine's physical memory");
  s.Param("stats_interval", &RunSection::stats_interval, "10ms", "Sampling period of the time series (series.csv)")
      .Min(1);
  s.Choice("rate_window", &RunSection::rate_window, "measured", {"measured", "run"},
           "Window of the device's and the host's rates and utilizations (ssd.iops, ssd.write_bandwidth, "
           "flash.die_utilization, host.cpu.utilization, ...) and of series.csv: measured = the workload's measured "
           "phase (after its setup and ramp, until its last operation; run.measured_start/end), as the workload's "
           "own figures; run = the whole simulated run, the drain after the workload included");
  s.Section("power_cut", &RunSection::power_cut,
            "A power cut during a file-system run: recovery, the checker, and what was lost against what was "
            "acknowledged durable");
}

void PowerCutSection::Describe(sim::Schema<PowerCutSection>& s) {
  s.Choice("when", &PowerCutSection::when, "none", {"none", "time", "ops", "random"},
           "Cut the power during the run, mount the file system again (its recovery) and report what was lost "
           "against what it acknowledged as durable (fsync, O_SYNC writes, transaction commits, sync, directory "
           "fsync): none; time = at power_cut.time; ops = after power_cut.ops file-system calls completed; "
           "random = at a time drawn uniformly from [power_cut.min_time, power_cut.max_time] with the run's seed. "
           "Needs a file system that keeps what is on flash (fs.kind f2fs or ext4). The system runs on until a "
           "cut at a time, idle or not (commits, checkpoints and writeback go on after the workload ended); "
           "run.max_time ending the run first, or a workload ending before its N-th call, cuts at the run's end");
  s.Param("time", &PowerCutSection::time, "0s", "when: time — the cut's simulated time from the run's start");
  s.Param("ops", &PowerCutSection::ops, "0",
          "when: ops — cut right after this many file-system calls (of every workload, setup included) completed");
  s.Param("min_time", &PowerCutSection::min_time, "0s", "when: random — start of the window the cut time is drawn from");
  s.Param("max_time", &PowerCutSection::max_time, "0s", "when: random — end of the window the cut time is drawn from");
  s.Param("cuts", &PowerCutSection::cuts, "1",
          "How many runs to cut: each a fresh run of the same config and seed (with when: random, each at its own "
          "time; the device's choices of what it keeps differ every cut); the figures add up over the cuts")
      .Range(1, 100000);
  s.Choice("device_keeps", &PowerCutSection::device_keeps, "random", {"random", "none", "completed"},
           "What the device's volatile cache keeps of the writes not yet durable (not FUA, not covered by a "
           "completed flush): random = each completed write with a probability drawn in [0, 1) per cut, each "
           "write in flight with one in [0, 0.5) (as the crash tests); none = nothing; completed = every "
           "completed write, none in flight");
}

void FsSection::Describe(sim::Schema<FsSection>& s) {
  std::vector<std::string> kinds = {"none"};
  for (const std::string& k : fs::FileSystemKindNames()) kinds.push_back(k);
  s.Choice("kind", &FsSection::kind, "none", kinds,
           "File system for file workloads: none (block workloads only) or a file-system model, configured in "
           "its own section fs.<kind>");
  s.Param("volume", &FsSection::volume, "0",
          "Size of the formatted volume from the start of the device; 0 = the whole device");
  s.Implementations(&FsSection::kinds, fs::FileSystemKindSections());
}

void WorkloadSection::Describe(sim::Schema<WorkloadSection>& s) {
  s.Choice("kind", &WorkloadSection::kind, "fio", host::WorkloadKindNames(),
           "What drives the stack, configured in its own section workload.<kind>: block workloads drive the "
           "device, file workloads need fs.kind");
  s.Implementations(&WorkloadSection::kinds, host::WorkloadKindSections());
  s.Named("flows", &WorkloadSection::flows,
          "Several block workloads sharing the device, one section per flow under any name (then kind is not "
          "used)",
          "One flow: a block workload with its own start, submission queues and priority class");
  s.Param("alone_runs", &WorkloadSection::alone_runs, "false",
          "With flows: also run each flow alone (same device and seed) to report its slowdown and the fairness");
}

void HostSection::Describe(sim::Schema<HostSection>& s) {
  s.Section("cpu", &HostSection::cpu, "CPU cores the workload's and the file system's threads compete for");
}

void ExperimentConfig::Describe(sim::Schema<ExperimentConfig>& s) {
  s.Param("name", &ExperimentConfig::name, "",
          "Experiment name (results folder name); default: the config file name");
  s.Param("seed", &ExperimentConfig::seed, "1", "Run seed; every component derives its own random stream from it");
  s.Section("run", &ExperimentConfig::run, "Run bounds and statistics sampling");
  s.Section("host", &ExperimentConfig::host, "The host the simulated threads run on");
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

MemoryEstimate EstimateMemory(const ExperimentConfig& cfg) {
  MemoryEstimate m;
  m.ftl = cfg.ftl.MemoryBytes(cfg.device.geometry);
  if (cfg.fs.kind != "none") {
    const fs::FileSystemKind* k = sim::Registry<fs::FileSystemKind>::Get().Find(cfg.fs.kind);
    CHECK(k != nullptr) << "unknown fs.kind '" << cfg.fs.kind << "' (Validate first)";
    if (k->memory_bytes != nullptr) {
      const uint64_t capacity = cfg.ftl.LogicalPages(cfg.device.geometry) * cfg.device.geometry.page_size.value;
      m.fs = k->memory_bytes(cfg.fs.kinds, cfg.fs.volume.value, capacity);
    }
  }
  if (HasFlows(cfg)) {
    m.workload = FlowsMemory(cfg);
    return m;
  }
  const host::WorkloadKind* w = sim::Registry<host::WorkloadKind>::Get().Find(cfg.workload.kind);
  CHECK(w != nullptr) << "unknown workload.kind '" << cfg.workload.kind << "' (Validate first)";
  if (w->memory_bytes != nullptr) m.workload = w->memory_bytes(cfg.workload.kinds);
  return m;
}

std::vector<std::string> CheckWarnings(const ExperimentConfig& cfg) {
  if (HasFlows(cfg)) return FlowWarnings(cfg);
  const host::WorkloadKind* w = sim::Registry<host::WorkloadKind>::Get().Find(cfg.workload.kind);
  CHECK(w != nullptr) << "unknown workload.kind '" << cfg.workload.kind << "' (Validate first)";
  std::vector<std::string> out =
      w->warnings != nullptr ? w->warnings(cfg.workload.kinds) : std::vector<std::string>{};
  if (std::string z = ZonedFioWarning(cfg, cfg.workload.kind, cfg.workload.kinds); !z.empty()) out.push_back(z);
  return out;
}

namespace {
sim::Status CheckMemory(const ExperimentConfig& cfg) {
  const MemoryEstimate need = EstimateMemory(cfg);
  const uint64_t physical =
      static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t limit = cfg.run.max_memory.value > 0 ? cfg.run.max_memory.value : physical;
  if (need.total() <= limit) return sim::Status::Ok();
  constexpr double kGiB = 1073741824.0;
  return sim::Status::InvalidInput(fmt::format(
      "run.max_memory: this run's tables need about {:.1f} GiB (the FTL's for {} flash pages {:.1f} GiB{}{}), "
      "more than the {:.1f} GiB allowed ({}); use a smaller device.geometry{}{} or ftl.mapping: block, or raise "
      "run.max_memory",
      need.total() / kGiB, cfg.device.geometry.pages(), need.ftl / kGiB,
      need.fs > 0 ? fmt::format(", the file system's {:.1f} GiB", need.fs / kGiB) : "",
      need.workload > 0 ? fmt::format(", the workload's {:.1f} GiB", need.workload / kGiB) : "", limit / kGiB,
      cfg.run.max_memory.value > 0 ? "run.max_memory" : "this machine's memory",
      need.fs > 0 ? " or fs.volume" : "", need.workload > 0 ? ", fewer workload files" : ""));
}
}  // namespace

sim::Status ValidateExperiment(const ExperimentConfig& cfg) {
  FS_RETURN_IF_ERROR(InSection(cfg.device.Validate(), "device"));
  FS_RETURN_IF_ERROR(InSection(cfg.ftl.Validate(cfg.device.geometry), "ftl"));
  FS_RETURN_IF_ERROR(ssd::ValidateDeviceForFtl(cfg.device, cfg.ftl));
  const uint64_t capacity = cfg.ftl.LogicalPages(cfg.device.geometry) * cfg.device.geometry.page_size.value;
  const auto sector = static_cast<uint32_t>(cfg.device.ssd.sector_size.value);
  const host::WorkloadKind* workload = nullptr;
  if (HasFlows(cfg)) {
    FS_RETURN_IF_ERROR(ValidateFlows(cfg, capacity, sector));
  } else {
    if (cfg.workload.alone_runs) {
      return sim::Status::InvalidInput("workload.alone_runs: needs workload.flows (a run of one workload is alone)");
    }
    // Only the selected workload's and file system's sections must be complete.
    FS_ASSIGN_OR_RETURN(workload, sim::Registry<host::WorkloadKind>::Get().Lookup(cfg.workload.kind, "workload kind"));
    FS_RETURN_IF_ERROR(workload->validate(cfg.workload.kinds, capacity, sector));
    FS_RETURN_IF_ERROR(CheckZonedWorkload(cfg, *workload, cfg.workload.kinds));
  }
  const fs::FileSystemKind* fs_kind = nullptr;
  if (cfg.fs.kind != "none") {
    FS_ASSIGN_OR_RETURN(fs_kind, sim::Registry<fs::FileSystemKind>::Get().Lookup(cfg.fs.kind, "file system"));
    fs::DeviceFacts facts;
    facts.capacity = capacity;
    facts.queues = cfg.device.ssd.queues;
    facts.channels = cfg.device.geometry.channels;
    facts.page_size = static_cast<uint32_t>(cfg.device.geometry.page_size.value);
    facts.pages_per_block = cfg.device.geometry.pages_per_block;
    facts.zoned = cfg.ftl.Zones(cfg.device.geometry, &facts.zones);
    // A zoned device fixes placement too, but shows the file system zones
    // (write pointers) rather than flash blocks.
    facts.fixed_placement = cfg.ftl.FixesPlacement() && !facts.zoned;
    if (facts.fixed_placement) facts.fixed_from_block = cfg.ftl.FixedFrom(cfg.device.geometry);
    FS_RETURN_IF_ERROR(fs_kind->validate(cfg.fs.kinds, cfg.fs.volume.value, facts));
    if (fs_kind->uses_device && cfg.fs.volume.value > capacity) {
      return sim::Status::InvalidInput(fmt::format("fs.volume: {} bytes exceed the device's {} bytes",
                                                   cfg.fs.volume.value, capacity));
    }
  }
  if (const PowerCutSection& pc = cfg.run.power_cut; pc.enabled()) {
    if (fs_kind == nullptr || !fs_kind->survives_power_cut) {
      return sim::Status::InvalidInput(fmt::format(
          "run.power_cut.when: a power cut needs a file system that keeps what is on flash (fs.kind: f2fs or "
          "ext4); this run has fs.kind: {}",
          cfg.fs.kind));
    }
    if (pc.when == "time" && pc.time <= sim::SimTime::Zero()) {
      return sim::Status::InvalidInput("run.power_cut.time: must be above 0 with when: time");
    }
    if (pc.when == "ops" && pc.ops == 0) {
      return sim::Status::InvalidInput("run.power_cut.ops: must be above 0 with when: ops");
    }
    if (pc.when == "random" && pc.max_time <= pc.min_time) {
      return sim::Status::InvalidInput(fmt::format(
          "run.power_cut.max_time: {} must exceed run.power_cut.min_time ({}) with when: random",
          pc.max_time.ToString(), pc.min_time.ToString()));
    }
  }
  FS_RETURN_IF_ERROR(CheckMemory(cfg));
  // Each file workload among the flows (ValidateFlows checked their kinds
  // against fs.kind) that uses transactions needs a file system with them.
  std::vector<std::string> tx_keys;  // the keys that ask for transactions
  if (workload == nullptr) {
    FS_ASSIGN_OR_RETURN(const std::vector<NamedFlow> flows, FlowsOf(cfg));
    for (const NamedFlow& f : flows) {
      const host::WorkloadKind* k = sim::Registry<host::WorkloadKind>::Get().Find(f.cfg.kind);
      if (const char* key = k->transactions_key ? k->transactions_key(f.cfg.kinds) : nullptr) {
        // "workload.txbench.mode" -> "workload.flows.<name>.txbench.mode"
        tx_keys.push_back(f.key + "." + std::string(key).substr(std::string("workload.").size()));
      }
    }
  } else {
    if (!workload->needs_fs && fs_kind != nullptr) {
      return sim::Status::InvalidInput(fmt::format(
          "fs.kind: block workload '{}' drives the device directly; set fs.kind: none", cfg.workload.kind));
    }
    if (workload->needs_fs && fs_kind == nullptr) {
      return sim::Status::InvalidInput(
          fmt::format("workload.kind: file workload '{}' needs a file system; set fs.kind", cfg.workload.kind));
    }
    if (const char* key = workload->transactions_key ? workload->transactions_key(cfg.workload.kinds) : nullptr) {
      tx_keys.emplace_back(key);
    }
  }
  for (const std::string& key : tx_keys) {
    std::string why;
    if (fs_kind->transactions == nullptr || !fs_kind->transactions(cfg.fs.kinds, &why)) {
      return sim::Status::InvalidInput(fmt::format("{}: needs file-system transactions, which fs.kind {} does not offer{}",
                                                   key, cfg.fs.kind, why.empty() ? "" : " (" + why + ")"));
    }
  }
  return sim::Status::Ok();
}

std::vector<std::string> Experiment::FileKeys() {
  std::vector<std::string> keys;
  for (const host::WorkloadKind* k : sim::Registry<host::WorkloadKind>::Get().entries()) {
    for (const std::string& key : k->file_keys) keys.push_back(fmt::format("workload.{}.{}", k->name, key));
  }
  return keys;
}

bool Experiment::IsFileKey(std::string_view key) {
  constexpr std::string_view kFlows = "workload.flows.";
  for (const std::string& k : FileKeys()) {
    if (key == k) return true;
    // "workload.<kind>.<key>" of a flow: "workload.flows.<name>.<kind>.<key>".
    const std::string_view tail = std::string_view(k).substr(std::string_view("workload").size());
    if (key.rfind(kFlows, 0) == 0 && key.size() > kFlows.size() + tail.size() &&
        key.substr(key.size() - tail.size()) == tail &&
        sim::SchemaNode::ValidEntryName(key.substr(kFlows.size(), key.size() - tail.size() - kFlows.size()))) {
      return true;
    }
  }
  return false;
}

// The assembled simulation, bottom-up. Member order is construction order;
// destruction runs top-down so no component outlives what it points to.
struct Experiment::Stack {
  sim::EventQueue queue;
  std::unique_ptr<flash::NandArray> nand;
  std::unique_ptr<ftl::Ftl> ftl;
  std::unique_ptr<ssd::Ssd> ssd;
  std::unique_ptr<sim::CpuScheduler> cpu;  // null for block workloads
  std::unique_ptr<fs::MountedFs> fs;       // null for block workloads
  std::unique_ptr<fs::DurabilityLedger> ledger;  // with run.power_cut: between the workloads and fs
  uint64_t volume_bytes = 0;
  const fs::FileSystemKind* fs_kind = nullptr;
  std::unique_ptr<host::WorkloadDriver> workload;
  host::FlowsDriver* flows = nullptr;  // the workload, in a multi-flow run
};

Experiment::Experiment(const ExperimentConfig& cfg) : cfg_(cfg), stack_(std::make_unique<Stack>()) {}

Experiment::~Experiment() {
  // A run bounded by max_time leaves work pending: drop it, then destroy
  // the workload's threads still suspended while the file system they call
  // into is alive (their waits withdraw; releasing a lock may schedule a
  // waiter, dropped again before the file system goes), then the rest of
  // the stack top-down (the file system destroys its own threads).
  Stack& s = *stack_;
  s.queue.Clear();
  s.workload.reset();
  s.queue.Clear();
}

sim::Result<std::unique_ptr<Experiment>> Experiment::Create(const ExperimentConfig& cfg) {
  std::unique_ptr<Experiment> e(new Experiment(cfg));
  Stack& s = *e->stack_;
  sim::StatGroup root = e->stats_.Root();
  e->stats_.SetWholeRunRates(cfg.run.rate_window == "run");
  {
    const sim::StatsRegistry* st = &e->stats_;
    const sim::EventQueue* q = &s.queue;
    sim::StatGroup run = root.Group("run");
    run.AddFormula([st] { return st->measured_start().sec(); }, "measured_start", "s",
                   "Start of the workload's measured phase (after its setup and ramp): the rates' window starts "
                   "here (run.rate_window: measured)");
    run.AddFormula([st, q] { return (st->measured_ended() ? st->measured_end() : q->now()).sec(); },
                   "measured_end", "s",
                   "End of the workload's measured phase (its last operation), or the run's end if it did not end");
    run.AddFormula([q] { return q->now().sec(); }, "end", "s",
                   "End of the simulated run (after the drain of background work, or at run.max_time)");
  }
  const auto& dev = cfg.device;
  s.nand = std::make_unique<flash::NandArray>(&s.queue, dev.geometry, dev.flash, root.Group("flash"));
  // MakeFtl also preconditions the FTL (untimed) when ftl.precondition is on.
  FS_ASSIGN_OR_RETURN(s.ftl, ftl::MakeFtl(cfg.ftl, s.nand.get(), &s.queue, root.Group("ftl")));
  s.ssd = std::make_unique<ssd::Ssd>(&s.queue, dev.ssd, dev.geometry, s.ftl.get(), root.Group("ssd"));
  host::WorkloadEnv env;
  env.events = &s.queue;
  env.device = s.ssd.get();
  env.stats = root.Group("workload");
  env.seed = cfg.seed;
  env.device_queues = dev.ssd.queues;
  if (cfg.fs.kind != "none") {
    s.cpu = std::make_unique<sim::CpuScheduler>(&s.queue, cfg.host.cpu, root.Group("host").Group("cpu"));
    env.cpu = s.cpu.get();
    s.fs_kind = sim::Registry<fs::FileSystemKind>::Get().Find(cfg.fs.kind);
    CHECK(s.fs_kind != nullptr) << "fs.kind not validated";
    fs::FsEnv fs_env;
    fs_env.events = &s.queue;
    fs_env.device = s.ssd.get();
    fs_env.volume_bytes = cfg.fs.volume.value > 0 ? cfg.fs.volume.value : s.ssd->capacity();
    fs_env.stats = root.Group("fs");
    const sim::StatsRegistry* stats = &e->stats_;
    fs_env.device_write_amplification = [stats] { return stats->Value("ftl.write_amplification"); };
    fs_env.cpu = s.cpu.get();
    FS_ASSIGN_OR_RETURN(s.fs, s.fs_kind->mount(cfg.fs.kinds, fs_env));
    fs::RegisterWritesByOrigin(fs_env.stats, s.fs->fs());  // fs.written_by.<origin>, the same for every kind
    env.fs = s.fs->fs();
    s.volume_bytes = fs_env.volume_bytes;
    if (cfg.run.power_cut.enabled()) {
      s.ledger = std::make_unique<fs::DurabilityLedger>(s.fs->fs());
      env.fs = s.ledger.get();
      e->RegisterPowerCutStats(root.Group("power_cut"));
    }
  }
  if (HasFlows(cfg)) {
    FS_ASSIGN_OR_RETURN(std::unique_ptr<host::FlowsDriver> flows, BuildFlows(cfg, env, s.ssd.get(), &e->stats_));
    s.flows = flows.get();
    s.workload = std::move(flows);
    return e;
  }
  const host::WorkloadKind* kind = sim::Registry<host::WorkloadKind>::Get().Find(cfg.workload.kind);
  CHECK(kind != nullptr) << "workload.kind not validated";
  FS_ASSIGN_OR_RETURN(s.workload, kind->make(cfg.workload.kinds, env));
  return e;
}

namespace {
// Shows "sim 12.3ms | 45.6k ios | 1.2M ios/s | ETA 3s" on stderr: on a
// terminal, one line rewritten once per wall second after the first three;
// in a log, a full line (with the run's label and wall time) every
// `every_seconds`. It watches the run through the queue's poll hook (every
// EventQueue::kInterruptPoll events), not with an event of its own: it adds
// no events and does not step through idle simulated time.
class ProgressLine {
 public:
  using Mode = Experiment::Progress::Mode;
  ProgressLine(sim::EventQueue* q, const host::WorkloadDriver* w, sim::SimTime max_time,
               const Experiment::Progress& p)
      : q_(q), w_(w), max_time_(max_time), p_(p), start_(std::chrono::steady_clock::now()), last_(start_) {}
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  void Start() { q_->SetPollHook([this] { Poll(); }); }
  ~ProgressLine() {
    q_->SetPollHook(nullptr);
    if (shown_) std::fprintf(stderr, "\n");
  }

 private:
  void Poll() {
    const auto now = std::chrono::steady_clock::now();
    const bool terminal = p_.mode == Mode::kTerminal;
    const std::chrono::duration<double> every(terminal ? 1.0 : p_.every_seconds);
    const bool due = terminal ? now - start_ >= std::chrono::seconds(3) && now - last_ >= every
                              : now - last_ >= every;
    if (!due) return;
    last_ = now;
    const double wall = std::chrono::duration<double>(now - start_).count();
    const uint64_t done = w_->completed();
    const uint64_t total = w_->planned();
    double frac = 0;
    if (total > 0) frac = static_cast<double>(done) / static_cast<double>(total);
    if (max_time_ > sim::SimTime::Zero()) frac = std::max(frac, q_->now().sec() / max_time_.sec());
    std::string eta = frac > 0.001 ? fmt::format("ETA {:.0f}s", wall * (1 - frac) / frac) : "ETA ?";
    const std::string body =
        fmt::format("sim {} | {} ios | {:.0f} ios/s | {}", q_->now().ToString(), done, done / wall, eta);
    if (terminal) {
      std::fprintf(stderr, "\r[flashstack] %s   ", body.c_str());
      shown_ = true;
    } else {
      std::fprintf(stderr, "[flashstack] %s%swall %.0fs | %s\n", p_.label.c_str(), p_.label.empty() ? "" : ": ", wall,
                   body.c_str());
      std::fflush(stderr);
    }
  }

  sim::EventQueue* q_;
  const host::WorkloadDriver* w_;
  sim::SimTime max_time_;
  Experiment::Progress p_;
  std::chrono::steady_clock::time_point start_, last_;
  bool shown_ = false;
};
}  // namespace

// Where the CPU went: the cores' use, the run queue, the switches, CPU time
// by owner and the lock classes that made threads wait.
static std::string CpuSummary(const sim::StatsRegistry& st) {
  const double cores = st.Value("host.cpu.cores");
  const double busy = st.Value("host.cpu.busy_time");
  std::string out;
  if (cores > 0) {
    const sim::Histogram* wait = st.FindHistogram("host.cpu.run_queue_wait");
    out = fmt::format("cpu        {} cores, utilization {:.1f}%, run-queue wait p50 {} p99 {}, {} context switches "
                      "({}), {} preemptions\n",
                      static_cast<uint64_t>(cores), 100 * st.Value("host.cpu.utilization"),
                      sim::Ns(wait ? wait->Percentile(0.5) : 0).ToString(),
                      sim::Ns(wait ? wait->Percentile(0.99) : 0).ToString(),
                      static_cast<uint64_t>(st.Value("host.cpu.context_switches")),
                      sim::Ns(static_cast<int64_t>(st.Value("host.cpu.context_switch_time"))).ToString(),
                      static_cast<uint64_t>(st.Value("host.cpu.preemptions")));
  } else {
    out = "cpu        unlimited cores (host.cpu.cores: 0)\n";
  }
  std::string owners;
  for (const std::string& n : st.Names("host.cpu.owner.")) {
    if (n.size() < 5 || n.compare(n.size() - 5, 5, ".time") != 0) continue;
    const double t = st.Value(n);
    if (t <= 0) continue;
    const std::string owner = n.substr(15, n.size() - 15 - 5);
    owners += fmt::format("{}{} {} ({:.1f}%)", owners.empty() ? "" : ", ", owner,
                          sim::Ns(static_cast<int64_t>(t)).ToString(), busy > 0 ? 100 * t / busy : 0.0);
  }
  if (!owners.empty()) out += "  CPU time: " + owners + "\n";
  std::string locks;
  for (const std::string& n : st.Names("fs.locks.")) {
    if (n.size() < 10 || n.compare(n.size() - 10, 10, ".contended") != 0) continue;
    const std::string base = n.substr(0, n.size() - 10);
    const double acq = st.Value(base + ".acquisitions");
    const double contended = st.Value(n);
    if (contended <= 0) continue;
    const sim::Histogram* w = st.FindHistogram(base + ".wait");
    locks += fmt::format("{}{} {:.1f}% of {} contended, wait p99 {} max {}", locks.empty() ? "" : "; ",
                         base.substr(9), 100 * contended / acq, static_cast<uint64_t>(acq),
                         sim::Ns(w ? w->Percentile(0.99) : 0).ToString(), sim::Ns(w ? w->max() : 0).ToString());
  }
  if (!locks.empty()) out += "  locks: " + locks + "\n";
  return out;
}

RunReport Experiment::Run(const Progress& progress, const std::atomic<int>* interrupt) {
  Stack& s = *stack_;
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t ev0 = s.queue.events_processed();
  stats_.StartSampling(&s.queue, cfg_.run.stats_interval);
  std::unique_ptr<ProgressLine> line;
  if (progress.mode != Progress::Mode::kOff) {
    line = std::make_unique<ProgressLine>(&s.queue, s.workload.get(), cfg_.run.max_time, progress);
    line->Start();
  }
  s.workload->Start();
  sim::SimTime until =
      cfg_.run.max_time > sim::SimTime::Zero() ? s.queue.now() + cfg_.run.max_time : sim::SimTime::Max();
  const PowerCutSection& pc = cfg_.run.power_cut;
  // A cut at a time: the system runs until then, idle or not (its periodic
  // work — commits, checkpoints, writeback — goes on after the workload
  // ended), so a live event stands at the cut.
  class StopAt final : public sim::Event {
   public:
    explicit StopAt(sim::EventQueue* q) : sim::Event(sim::Priority::kProgress), q_(q) {}
    ~StopAt() override {
      if (scheduled()) q_->Deschedule(this);
    }
    void Process() override { q_->Stop(); }

   private:
    sim::EventQueue* q_;
  };
  StopAt stop_at(&s.queue);
  if (pc.enabled()) {
    sim::SimTime cut = sim::SimTime::Max();
    if (pc.when == "time") cut = s.queue.now() + pc.time;
    if (pc.when == "random") {
      sim::Rng rng(cfg_.seed, fmt::format("run.power_cut.time.{}", cut_index_));
      const auto span = static_cast<uint64_t>((pc.max_time - pc.min_time).ns());
      cut = s.queue.now() + pc.min_time + sim::Ns(static_cast<int64_t>(rng.Uniform(span + 1)));
    }
    if (pc.when == "ops") {
      sim::EventQueue* q = &s.queue;
      s.ledger->set_on_op([q, n = pc.ops](uint64_t ops) {
        if (ops == n) q->Stop();
      });
    }
    if (cut <= until) {
      s.queue.Schedule(&stop_at, cut);
      until = cut;
    }
  }
  s.queue.SetInterrupt(interrupt);
  s.queue.Run(until);
  s.queue.SetInterrupt(nullptr);
  stats_.StopSampling();
  line.reset();
  const bool finished = s.workload->finished();
  const bool cut = pc.enabled() && !s.queue.interrupted();
  if (cut) {
    CutAndRecover();
    // The other cuts: each a fresh run of the same config.
    for (uint32_t i = 1; cut_index_ == 0 && i < pc.cuts; ++i) {
      if (progress.mode != Progress::Mode::kOff) {
        std::fprintf(stderr, "[flashstack] %s%spower cut %u of %u\n", progress.label.c_str(),
                     progress.label.empty() ? "" : ": ", i + 1, pc.cuts);
      }
      sim::Result<std::unique_ptr<Experiment>> other = Create(cfg_);
      CHECK(other.ok()) << other.status().message();
      (*other)->cut_index_ = i;
      (*other)->Run(Progress{}, interrupt);
      if (interrupt != nullptr && interrupt->load(std::memory_order_relaxed) != 0) break;
      pc_.Add((*other)->pc_);
    }
  }
  if (s.flows != nullptr && cfg_.workload.alone_runs && !s.queue.interrupted()) {
    std::vector<double> alone = AloneLatencies(cfg_, interrupt);
    if (!alone.empty()) s.flows->SetAloneLatency(&stats_, std::move(alone));
  }
  RunReport r;
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.events = s.queue.events_processed() - ev0;
  r.sim_time = s.queue.now();
  r.host_ios = s.workload->completed();
  if (s.queue.interrupted()) r.interrupted_by = interrupt->load(std::memory_order_relaxed);
  r.stalled = r.interrupted_by == 0 && !cut && s.queue.empty() && !finished;
  return r;
}

void Experiment::PowerCutFigures::Add(const PowerCutFigures& o) {
  cuts += o.cuts;
  cut_time += o.cut_time;
  ops_before_cut += o.ops_before_cut;
  mount_failures += o.mount_failures;
  check_failures += o.check_failures;
  cuts_violating += o.cuts_violating;
  ack_files += o.ack_files, ack_bytes += o.ack_bytes, ack_names += o.ack_names;
  ack_fsyncs += o.ack_fsyncs, ack_syncs += o.ack_syncs, ack_commits += o.ack_commits;
  files_missing += o.files_missing, files_short += o.files_short, blocks_wrong += o.blocks_wrong;
  names_wrong += o.names_wrong, bytes_lost_acknowledged += o.bytes_lost_acknowledged;
  files_at_cut += o.files_at_cut, bytes_at_cut += o.bytes_at_cut, bytes_lost += o.bytes_lost;
  names_at_cut += o.names_at_cut, names_lost += o.names_lost, names_back += o.names_back;
  files_unverifiable += o.files_unverifiable, blocks_compared += o.blocks_compared;
  recovery_time += o.recovery_time;
  recovery_time_max = std::max(recovery_time_max, o.recovery_time_max);
  recovery_reads += o.recovery_reads, recovery_writes += o.recovery_writes;
  if (first_failure.empty()) first_failure = o.first_failure;
}

namespace {
// Runs `task` on `q` until it finishes; false if the events ran out first.
template <class T>
bool RunOn(sim::EventQueue& q, sim::Task<T> task, T* out) {
  bool done = false;
  auto body = [&]() -> sim::Task<void> {
    *out = co_await std::move(task);
    done = true;
  };
  sim::Task<void> t = body();
  auto h = t.Release();
  sim::Resume(h);
  while (!done && q.Step()) {
  }
  h.destroy();
  return done;
}
}  // namespace

void Experiment::CutAndRecover() {
  Stack& s = *stack_;
  PowerCutFigures& f = pc_;
  const PowerCutSection& pc = cfg_.run.power_cut;
  auto failed = [&f, this](const std::string& what) {
    if (f.first_failure.empty()) f.first_failure = fmt::format("cut {}: {}", cut_index_, what);
  };
  ++f.cuts;
  f.cut_time += s.queue.now().sec();
  f.ops_before_cut += s.ledger->ops();
  // What the device keeps of its volatile writes.
  sim::Rng dev_rng(cfg_.seed, fmt::format("run.power_cut.device.{}", cut_index_));
  double keep_done = 0, keep_inflight = 0;
  if (pc.device_keeps == "random") {
    keep_done = dev_rng.UniformDouble();
    keep_inflight = dev_rng.UniformDouble() * 0.5;
  } else if (pc.device_keeps == "completed") {
    keep_done = 1;
  }
  s.fs->PowerCut([&](bool completed) {
    const double p = completed ? keep_done : keep_inflight;
    return p >= 1 || (p > 0 && dev_rng.Bernoulli(p));
  });
  // Nothing runs on the cut stack again; its objects stay for the figures.
  s.queue.Clear();
  // The mount after the cut, on a device with nothing in flight: a
  // fixed-latency one with the SSD's size and flash layout (the content is
  // the file system's image).
  sim::EventQueue q;
  sim::StatsRegistry st;
  ssd::FixedLatencyDeviceConfig dc;
  dc.capacity = s.ssd->capacity();
  dc.sector_size = s.ssd->sector_size();
  dc.layout = s.ssd->layout();
  ssd::FixedLatencyDevice dev(&q, dc);
  fs::FsEnv env;
  env.events = &q;
  env.device = &dev;
  env.volume_bytes = s.volume_bytes;
  env.stats = st.Root().Group("fs");
  sim::Result<std::unique_ptr<fs::FileSystem>> rec = s.fs->Recover(env);
  const double t = q.now().sec();
  f.recovery_reads += dev.requests(ssd::BlockOp::kRead);
  f.recovery_writes += dev.requests(ssd::BlockOp::kWrite);
  if (!rec.ok()) {
    ++f.mount_failures;
    failed("mount: " + rec.status().message());
    q.Clear();
    return;
  }
  f.recovery_time += t;
  f.recovery_time_max = std::max(f.recovery_time_max, t);
  if (const sim::Status ck = s.fs->Check(**rec); !ck.ok()) {
    ++f.check_failures;
    failed("checker: " + ck.message());
  }
  fs::DurabilityLedger::Report r;
  if (!RunOn(q, s.ledger->Verify(rec->get()), &r)) r.walk_error = "the recovered file system stopped (no events)";
  q.Clear();
  rec->reset();
  if (!r.walk_error.empty()) {
    ++f.check_failures;
    failed("reading the recovered volume: " + r.walk_error);
    return;
  }
  const fs::DurabilityLedger::Acknowledged& a = r.acknowledged;
  f.ack_files += a.files, f.ack_bytes += a.bytes, f.ack_names += a.names;
  f.ack_fsyncs += a.fsyncs, f.ack_syncs += a.syncs, f.ack_commits += a.commits;
  f.files_missing += r.files_missing, f.files_short += r.files_short, f.blocks_wrong += r.blocks_wrong;
  f.names_wrong += r.names_wrong, f.bytes_lost_acknowledged += r.bytes_lost_acknowledged;
  f.files_at_cut += r.files_at_cut, f.bytes_at_cut += r.bytes_at_cut, f.bytes_lost += r.bytes_lost;
  f.names_at_cut += r.names_at_cut, f.names_lost += r.names_lost, f.names_back += r.names_back;
  f.files_unverifiable += r.files_unverifiable, f.blocks_compared += r.blocks_compared;
  if (r.violations() > 0) {
    ++f.cuts_violating;
    failed(r.first_violation);
  }
}

void Experiment::RegisterPowerCutStats(const sim::StatGroup& g) {
  const PowerCutFigures* f = &pc_;
  struct Key {
    const char* name;
    const char* unit;
    const char* desc;
    std::function<double()> fn;
  };
  const auto u = [](const uint64_t* v) { return [v] { return static_cast<double>(*v); }; };
  const Key keys[] = {
      {"cuts", "cuts", "Power cuts made (run.power_cut.cuts)", u(&f->cuts)},
      {"cut_time_mean", "s", "Mean simulated time of the cuts", [f] { return f->cuts ? f->cut_time / f->cuts : 0.0; }},
      {"ops_before_cut", "calls", "File-system calls completed before the cuts, summed", u(&f->ops_before_cut)},
      {"mount_failures", "cuts", "Cuts after which the volume did not mount", u(&f->mount_failures)},
      {"checker_failures", "cuts",
       "Cuts after which the file system's checker (fsck) failed or the recovered volume could not be read",
       u(&f->check_failures)},
      {"cuts_violating", "cuts", "Cuts that lost state acknowledged durable (must be 0)", u(&f->cuts_violating)},
      {"violations", "items",
       "Acknowledged files missing or short, acknowledged blocks with other content, acknowledged names wrong "
       "(must be 0)",
       [f] { return static_cast<double>(f->violations()); }},
      {"acknowledged.files", "files", "Files whose state was acknowledged durable at the cut (fsync, O_SYNC, "
       "commit, sync), summed over the cuts", u(&f->ack_files)},
      {"acknowledged.bytes", "bytes", "Their acknowledged bytes", u(&f->ack_bytes)},
      {"acknowledged.names", "names", "Names acknowledged present or removed (sync, directory fsync)", u(&f->ack_names)},
      {"acknowledged.fsyncs", "calls", "fsync, fdatasync and O_SYNC writes that returned", u(&f->ack_fsyncs)},
      {"acknowledged.syncs", "calls", "sync() calls that returned", u(&f->ack_syncs)},
      {"acknowledged.commits", "commits", "Transaction and atomic-write commits that returned", u(&f->ack_commits)},
      {"lost_acknowledged.files_missing", "files", "Acknowledged files found under none of their names",
       u(&f->files_missing)},
      {"lost_acknowledged.files_short", "files", "Acknowledged files shorter than acknowledged", u(&f->files_short)},
      {"lost_acknowledged.blocks_wrong", "blocks", "Acknowledged blocks recovered with other content",
       u(&f->blocks_wrong)},
      {"lost_acknowledged.names_wrong", "names", "Acknowledged names missing, or acknowledged removals back",
       u(&f->names_wrong)},
      {"lost_acknowledged.bytes", "bytes", "Acknowledged bytes not recovered", u(&f->bytes_lost_acknowledged)},
      {"at_cut.files", "files", "Files linked at the cuts", u(&f->files_at_cut)},
      {"at_cut.bytes", "bytes", "Their sizes at the cuts", u(&f->bytes_at_cut)},
      {"at_cut.names", "names", "Names (files and directories) at the cuts", u(&f->names_at_cut)},
      {"lost.bytes", "bytes", "Bytes of the files linked at the cuts not recovered (by size; allowed when not "
       "acknowledged)", u(&f->bytes_lost)},
      {"lost.names", "names", "Names at the cuts missing after recovery", u(&f->names_lost)},
      {"lost.names_back", "names", "Names after recovery absent at the cuts (removals undone)", u(&f->names_back)},
      {"files_unverifiable", "files", "Files at the cuts whose content the ledger lost track of (aborted "
       "transactions)", u(&f->files_unverifiable)},
      {"blocks_compared", "blocks", "Acknowledged blocks whose recovered content was compared", u(&f->blocks_compared)},
      {"recovery.time_mean", "s", "Mean simulated time of the mount after a cut, on a fixed-latency device (read "
       "50 us, write 20 us, 2 GB/s): a measure of the recovery's I/O, not of the SSD",
       [f] { return f->cuts > f->mount_failures ? f->recovery_time / (f->cuts - f->mount_failures) : 0.0; }},
      {"recovery.time_max", "s", "Longest mount after a cut, on that device", [f] { return f->recovery_time_max; }},
      {"recovery.reads", "requests", "Read requests of the mounts after the cuts", u(&f->recovery_reads)},
      {"recovery.writes", "requests", "Write requests of the mounts after the cuts", u(&f->recovery_writes)},
  };
  for (const Key& k : keys) {
    const std::string_view name(k.name);
    const size_t dot = name.find('.');
    if (dot == std::string_view::npos) {
      g.AddFormula(k.fn, name, k.unit, k.desc);
    } else {
      g.Group(name.substr(0, dot)).AddFormula(k.fn, name.substr(dot + 1), k.unit, k.desc);
    }
  }
}

std::string Experiment::PowerCutSummary() const {
  const PowerCutFigures& f = pc_;
  if (f.cuts == 0) return "";
  constexpr double kMiB = 1048576.0;
  const uint64_t mounted = f.cuts - f.mount_failures;
  std::string out = fmt::format(
      "power cut  {} cut{} at {} on average, after {} FS calls on average ({}): mounted {} of {}, checker "
      "passed {} of {}\n",
      f.cuts, f.cuts == 1 ? "" : "s", sim::Sec(f.cut_time / f.cuts).ToString(), f.ops_before_cut / f.cuts,
      cfg_.run.power_cut.device_keeps == "random" ? "the device keeping a random share of its volatile writes"
      : cfg_.run.power_cut.device_keeps == "none" ? "the device keeping none of its volatile writes"
                                                   : "the device keeping its completed writes",
      mounted, f.cuts, mounted - std::min(mounted, f.check_failures), mounted);
  out += fmt::format(
      "  acknowledged durable: {} files ({:.2f} MiB), {} names, by {} fsyncs, {} syncs, {} commits; lost of it: "
      "{} ({} files missing, {} short, {} blocks wrong, {} names wrong; {:.2f} MiB){}\n",
      f.ack_files, f.ack_bytes / kMiB, f.ack_names, f.ack_fsyncs, f.ack_syncs, f.ack_commits,
      f.violations() == 0 ? "nothing" : "SOME", f.files_missing, f.files_short, f.blocks_wrong, f.names_wrong,
      f.bytes_lost_acknowledged / kMiB, f.blocks_compared > 0 ? fmt::format(", {} blocks compared", f.blocks_compared) : "");
  out += fmt::format(
      "  lost without acknowledgement (allowed): {:.2f} of {:.2f} MiB linked at the cut ({:.1f}%), {} of {} names "
      "missing, {} back{}\n",
      f.bytes_lost / kMiB, f.bytes_at_cut / kMiB, f.bytes_at_cut ? 100.0 * f.bytes_lost / f.bytes_at_cut : 0.0,
      f.names_lost, f.names_at_cut, f.names_back,
      f.files_unverifiable ? fmt::format("; {} files not verifiable (aborted transactions)", f.files_unverifiable)
                           : "");
  if (mounted > 0) {
    out += fmt::format("  recovery mount: {} on average (max {}), {} reads, {} writes, on a fixed-latency device\n",
                       sim::Sec(f.recovery_time / mounted).ToString(), sim::Sec(f.recovery_time_max).ToString(),
                       f.recovery_reads, f.recovery_writes);
  }
  if (!f.first_failure.empty()) out += "  first failure: " + f.first_failure + "\n";
  return out;
}

sim::Status Experiment::status() const { return stack_->workload->status(); }

uint64_t Experiment::FailedRequests() const {
  const double v = stats_.Value("ssd.errors");
  return v == v && v > 0 ? static_cast<uint64_t>(v) : 0;
}

std::string Experiment::RateWindow() const {
  const sim::StatsRegistry& st = stats_;
  const double end = st.Value("run.end");
  if (cfg_.run.rate_window == "run") return fmt::format(", over the whole run (0..{})", sim::Sec(end).ToString());
  const double a = st.Value("run.measured_start"), b = st.Value("run.measured_end");
  if (a == 0 && b == end) return "";
  return fmt::format(", over the measured phase {}..{} (the run ended at {})", sim::Sec(a).ToString(),
                     sim::Sec(b).ToString(), sim::Sec(end).ToString());
}

std::string Experiment::Summary() const {
  const sim::StatsRegistry& st = stats_;
  std::string out;
  // Refused I/O makes every figure below describe a different workload
  // than the one configured: said first, and the run fails (exit code 3).
  if (const uint64_t failed = FailedRequests(); failed > 0) {
    double done = 0;
    for (const char* op : {"read", "write", "trim", "flush"}) {
      const double v = st.Value(fmt::format("ssd.ops.{}", op));
      if (v == v) done += v;
    }
    out += fmt::format("FAILED I/O: the device refused {} of {} requests ({} pages: out-of-order, overwrite or "
                       "partial-page writes); the figures below count only the {} that completed (exit code 3)\n",
                       failed, failed + static_cast<uint64_t>(done), static_cast<uint64_t>(st.Value("ssd.error_pages")),
                       static_cast<uint64_t>(done));
  }
  // A power cut that lost what the file system acknowledged as durable,
  // or left a volume that does not mount or check: said first.
  if (pc_.violations() > 0 || pc_.mount_failures > 0 || pc_.check_failures > 0) {
    out += fmt::format("DURABILITY BROKEN: {} of {} power cuts lost acknowledged state, {} did not mount, {} failed "
                       "the checker; first: {}\n",
                       pc_.cuts_violating, pc_.cuts, pc_.mount_failures, pc_.check_failures, pc_.first_failure);
  }
  out += stack_->workload->Summary(st);
  if (stack_->cpu != nullptr) out += CpuSummary(st);
  out += PowerCutSummary();
  if (stack_->fs != nullptr) {
    out += stack_->fs->Summary(st);
    if (!stack_->fs_kind->uses_device) return out;
  }
  if (const double errors = st.Value("ssd.errors"); errors > 0) {
    out += fmt::format("ssd        {} requests failed: {} pages refused by the device (out-of-order, overwrite or "
                       "partial-page writes; see ssd.errors, ftl.write_errors.*)\n",
                       static_cast<uint64_t>(errors), static_cast<uint64_t>(st.Value("ssd.error_pages")));
  }
  const double host = st.Value("ftl.host_writes");
  const std::string wa = host > 0 ? fmt::format("{:.3f}", st.Value("ftl.write_amplification")) : "n/a";
  out += fmt::format("ftl        write amplification {} (host {} pages, GC copies {}), GC victims {} bg / {} fg, "
                     "erases {}, stalled writes {}\n",
                     wa, static_cast<uint64_t>(host),
                     static_cast<uint64_t>(st.Value("ftl.gc_copies")), static_cast<uint64_t>(st.Value("ftl.gc_runs_bg")),
                     static_cast<uint64_t>(st.Value("ftl.gc_runs_fg")), static_cast<uint64_t>(st.Value("ftl.erases")),
                     static_cast<uint64_t>(st.Value("ftl.write_stalls")));
  const flash::Geometry& g = cfg_.device.geometry;
  const uint64_t logical = cfg_.ftl.LogicalPages(g);
  out += fmt::format("  capacity {} of {} pages: over-provisioning {:.2f}% of logical (spare/logical) = {:.2f}% of "
                     "physical (spare/physical)\n",
                     logical, g.pages(), 100 * ftl::OpOfLogical(logical, g.pages()),
                     100 * ftl::OpOfPhysical(logical, g.pages()));
  if (cfg_.ftl.map_cache.enabled() && st.Has("ftl.map_cache.hits")) {
    out += fmt::format("  mapping cache: {} entries, hit ratio {:.4f} ({} hits, {} misses); translation pages {} "
                       "read, {} written, {} moved by GC\n",
                       cfg_.ftl.map_cache.Capacity(), st.Value("ftl.map_cache.hit_ratio"),
                       static_cast<uint64_t>(st.Value("ftl.map_cache.hits")),
                       static_cast<uint64_t>(st.Value("ftl.map_cache.misses")),
                       static_cast<uint64_t>(st.Value("ftl.map_cache.translation_reads")),
                       static_cast<uint64_t>(st.Value("ftl.map_cache.translation_writes")),
                       static_cast<uint64_t>(st.Value("ftl.map_cache.translation_gc_copies")));
  }
  if (cfg_.ftl.wear_leveling.enabled() && st.Has("ftl.wear_leveling.runs")) {
    out += fmt::format("  wear leveling: {} units moved ({} pages, in the GC copies), erase counts {:.0f}..{:.0f} "
                       "(spread {:.0f})\n",
                       static_cast<uint64_t>(st.Value("ftl.wear_leveling.runs")),
                       static_cast<uint64_t>(st.Value("ftl.wear_leveling.copies")), st.Value("ftl.erase_count_min"),
                       st.Value("ftl.erase_count_max"), st.Value("ftl.wear_leveling.erase_count_spread"));
  }
  if (cfg_.ftl.precondition.enabled) {
    out += fmt::format("  precondition: {} page writes, WA {:.3f}, not in the run's figures; the run starts with no GC "
                       "in flight and every plane at its background GC threshold (steady state)\n",
                       static_cast<uint64_t>(st.Value("ftl.precondition.host_writes")),
                       st.Value("ftl.precondition.write_amplification"));
  }
  // A run shorter than one GC cycle meets GC in whole victims: its WA steps
  // with each victim. The victims' own figure does not.
  if (const double cycle = st.Value("ftl.gc_cycle_pages"), victim_wa = st.Value("ftl.victim_write_amplification");
      cycle == cycle && victim_wa > 0 && host < 10 * cycle) {
    out += fmt::format("  short run: {} host pages, under 10 GC cycles of {} pages (an erase unit in every plane): "
                       "its WA counts GC in whole victims; the {} victims imply WA {:.3f} "
                       "(ftl.victim_write_amplification)\n",
                       static_cast<uint64_t>(host), static_cast<uint64_t>(cycle),
                       static_cast<uint64_t>(st.Value("ftl.gc_runs_bg") + st.Value("ftl.gc_runs_fg")), victim_wa);
  }
  out += fmt::format("flash      die utilization {:.1f}% (max {:.1f}%), channel utilization {:.1f}%{}\n",
                     100 * st.Value("flash.die_utilization"), 100 * st.Value("flash.die_utilization_max"),
                     100 * st.Value("flash.channel_utilization"), RateWindow());
  return out;
}

}  // namespace app
