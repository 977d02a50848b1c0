#include "app/flows.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>

#include <fmt/format.h>

#include "fs/file_system_kind.h"
#include "host/workload/fio_config.h"
#include "host/workload/fio_jobfile.h"

#include "sim/registry.h"
#include "ssd/block_device.h"

namespace app {

namespace {

ssd::QueuePriority PriorityOf(const std::string& p) {
  if (p == "urgent") return ssd::QueuePriority::kUrgent;
  if (p == "high") return ssd::QueuePriority::kHigh;
  if (p == "low") return ssd::QueuePriority::kLow;
  return ssd::QueuePriority::kMedium;
}

// "workload.fio.bs: ..." of a flow's workload -> "workload.flows.<name>.fio.bs:
// ..." or "<jobfile>:<line>: job [<name>]: bs: ...".
sim::Status InFlow(const sim::Status& st, const NamedFlow& f) {
  if (st.ok()) return st;
  const std::string msg = st.message();
  const std::string own = "workload." + f.cfg.kind + ".";
  if (msg.rfind(own, 0) == 0) {
    if (f.from_jobfile) return sim::Status::InvalidInput(f.key + ": " + msg.substr(own.size()));
    return sim::Status::InvalidInput(f.key + "." + msg.substr(std::string("workload.").size()));
  }
  return sim::Status::InvalidInput(f.key + ": " + msg);
}

// A flow name from a job's section name: other characters become '_'.
std::string FlowName(const std::string& section) {
  std::string out;
  for (char c : section) out += std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' ? c : '_';
  if (out.empty() || !std::isalpha(static_cast<unsigned char>(out[0]))) out = "job_" + out;
  return out.substr(0, 64);
}

// A flow of a file workload: it issues no device requests of its own (the
// file system does, on its queues), so it takes no submission queue.
bool IsFileFlow(const host::FlowConfig& fc) {
  const host::WorkloadKind* k = sim::Registry<host::WorkloadKind>::Get().Find(fc.kind);
  return k != nullptr && k->needs_fs;
}

// Whether directory a is b or holds it, component-wise ("/a" holds "/a/b",
// not "/ab"); "/" holds everything.
bool Holds(std::string a, const std::string& b) {
  while (a.size() > 1 && a.back() == '/') a.pop_back();
  if (a == "/" || a.empty()) return true;
  return b == a || (b.size() > a.size() && b.compare(0, a.size(), a) == 0 && b[a.size()] == '/');
}

// The queue the file system submits on, if the run has one that does.
std::optional<uint32_t> FsQueue(const ExperimentConfig& cfg) {
  if (cfg.fs.kind == "none") return std::nullopt;
  const fs::FileSystemKind* k = sim::Registry<fs::FileSystemKind>::Get().Find(cfg.fs.kind);
  if (k == nullptr || !k->uses_device || k->io_queue == nullptr) return std::nullopt;
  return k->io_queue(cfg.fs.kinds);
}

// Each flow's `after` names other flows, without a cycle.
sim::Status CheckAfter(const std::vector<NamedFlow>& flows) {
  auto index = [&](const std::string& n) -> int {
    for (size_t i = 0; i < flows.size(); ++i)
      if (flows[i].name == n) return static_cast<int>(i);
    return -1;
  };
  for (const NamedFlow& f : flows) {
    for (const std::string& a : f.cfg.after) {
      if (index(a) < 0) return sim::Status::InvalidInput(fmt::format("{}.after: no flow named '{}'", f.key, a));
      if (a == f.name) return sim::Status::InvalidInput(fmt::format("{}.after: a flow cannot wait for itself", f.key));
    }
  }
  // Depth-first search for a cycle: 0 unseen, 1 on the path, 2 done.
  std::vector<int> state(flows.size(), 0);
  std::function<int(size_t)> visit = [&](size_t i) -> int {
    state[i] = 1;
    for (const std::string& a : flows[i].cfg.after) {
      const auto j = static_cast<size_t>(index(a));
      if (state[j] == 1) return static_cast<int>(j);
      if (state[j] == 0) {
        if (const int c = visit(j); c >= 0) return c;
      }
    }
    state[i] = 2;
    return -1;
  };
  for (size_t i = 0; i < flows.size(); ++i) {
    if (state[i] != 0) continue;
    if (const int c = visit(i); c >= 0) {
      return sim::Status::InvalidInput(fmt::format(
          "{}.after: flows wait for each other in a cycle through '{}': none of them would start", flows[i].key,
          flows[static_cast<size_t>(c)].name));
    }
  }
  return sim::Status::Ok();
}

bool UsesJobFile(const ExperimentConfig& cfg) {
  return cfg.workload.flows.empty() && cfg.workload.kind == "fio" &&
         !cfg.workload.kinds.Get<host::FioConfig>("fio").jobfile.empty();
}

}  // namespace

bool HasFlows(const ExperimentConfig& cfg) { return !cfg.workload.flows.empty() || UsesJobFile(cfg); }

sim::Result<std::vector<NamedFlow>> FlowsOf(const ExperimentConfig& cfg) {
  std::vector<NamedFlow> out;
  for (const auto& [name, fc] : cfg.workload.flows) {
    out.push_back(NamedFlow{name, "workload.flows." + name, false, fc, 0});
  }
  if (UsesJobFile(cfg)) {
    const host::FioConfig& base = cfg.workload.kinds.Get<host::FioConfig>("fio");
    FS_ASSIGN_OR_RETURN(std::vector<host::FioJob> jobs, host::ReadFioJobFile(base.jobfile, base));
    for (host::FioJob& job : jobs) {
      NamedFlow f;
      f.name = FlowName(job.name);
      for (int n = 2; std::any_of(out.begin(), out.end(), [&](const NamedFlow& o) { return o.name == f.name; }); ++n) {
        f.name = FlowName(job.name).substr(0, 60) + "-" + std::to_string(n);
      }
      f.key = fmt::format("{}:{}: job [{}]", base.jobfile, job.line, job.name);
      f.from_jobfile = true;
      f.cfg = sim::MakeDefault<host::FlowConfig>();
      f.cfg.kind = "fio";
      f.cfg.start = job.startdelay;
      // stonewall / wait_for_previous: every earlier job; wait_for=<job>: that one.
      for (const std::string& w : job.after) {
        for (const NamedFlow& o : out) {
          if (o.from_jobfile && o.jobfile_section == w) f.cfg.after.push_back(o.name);
        }
      }
      f.jobfile_section = job.name;
      job.cfg.jobfile.clear();
      f.cfg.kinds.Mutable<host::FioConfig>("fio") = std::move(job.cfg);
      out.push_back(std::move(f));
    }
  }
  // Flows without a queue take, in flow order, the lowest run of queues that
  // no flow with an explicit queue and no earlier flow uses.
  std::vector<std::pair<uint64_t, uint64_t>> taken;  // [first, end)
  if (const std::optional<uint32_t> q = FsQueue(cfg)) taken.emplace_back(*q, uint64_t{*q} + 1);
  for (NamedFlow& f : out) {
    if (IsFileFlow(f.cfg)) continue;
    if (f.cfg.queue >= 0) {
      f.first_queue = static_cast<uint32_t>(f.cfg.queue);
      taken.emplace_back(f.first_queue, uint64_t{f.first_queue} + f.cfg.queues);
    }
  }
  for (NamedFlow& f : out) {
    if (f.cfg.queue >= 0 || IsFileFlow(f.cfg)) continue;
    uint64_t first = 0;
    for (bool moved = true; moved;) {
      moved = false;
      for (const auto& [lo, hi] : taken) {
        if (first < hi && lo < first + f.cfg.queues) {
          first = hi;
          moved = true;
        }
      }
    }
    f.first_queue = static_cast<uint32_t>(std::min<uint64_t>(first, UINT32_MAX - 65536));
    taken.emplace_back(first, first + f.cfg.queues);
  }
  return out;
}

sim::Status ValidateFlows(const ExperimentConfig& cfg, uint64_t capacity, uint32_t sector_size) {
  FS_ASSIGN_OR_RETURN(const std::vector<NamedFlow> flows, FlowsOf(cfg));
  const uint32_t queues = cfg.device.ssd.queues;
  std::vector<const NamedFlow*> owner(queues, nullptr);
  const bool has_fs = cfg.fs.kind != "none";
  const std::optional<uint32_t> fs_queue = FsQueue(cfg);
  // The file flows' directories so far: (flow, directory).
  std::vector<std::pair<const NamedFlow*, std::string>> dirs;
  for (const NamedFlow& f : flows) {
    FS_ASSIGN_OR_RETURN(const host::WorkloadKind* kind,
                        sim::Registry<host::WorkloadKind>::Get().Lookup(f.cfg.kind, "workload kind"));
    if (kind->needs_fs) {
      // Several file workloads on the one file system, each in directories
      // of its own; the file system issues the device requests.
      if (!has_fs) {
        return sim::Status::InvalidInput(fmt::format(
            "{}.kind: '{}' is a file workload: it needs a file system (set fs.kind)", f.key, f.cfg.kind));
      }
      if (f.cfg.queue >= 0 || f.cfg.queues != 1 || f.cfg.queue_depth != 0 || f.cfg.priority != "medium") {
        return sim::Status::InvalidInput(fmt::format(
            "{}: a file workload issues no device requests of its own (the file system does, on its queues): "
            "queue, queues, queue_depth and priority do not apply to it",
            f.key));
      }
      if (kind->directories == nullptr) {
        return sim::Status::InvalidInput(fmt::format(
            "{}.kind: '{}' may use any path of the file system, so it runs only alone, not as a flow", f.key,
            f.cfg.kind));
      }
      FS_RETURN_IF_ERROR(InFlow(kind->validate(f.cfg.kinds, capacity, sector_size), f));
      for (const std::string& d : kind->directories(f.cfg.kinds)) {
        for (const auto& [other, od] : dirs) {
          if (Holds(d, od) || Holds(od, d)) {
            return sim::Status::InvalidInput(fmt::format(
                "{}.{}.{}: its files under '{}' meet flow {}'s under '{}': flows on one file system need "
                "directories of their own",
                f.key, f.cfg.kind, kind->directory_key, d, other->name, od));
          }
        }
        dirs.emplace_back(&f, d);
      }
      continue;
    }
    if (has_fs) {
      // A raw block flow beside the file system: on a partition of its own,
      // past the formatted volume.
      if (f.cfg.kind != "fio") {
        return sim::Status::InvalidInput(fmt::format(
            "{}.kind: beside a file system (fs.kind: {}) a block flow must be fio with its range past the volume; "
            "a trace's addresses are not confined to a partition",
            f.key, cfg.fs.kind));
      }
      if (cfg.fs.volume.value == 0 || cfg.fs.volume.value >= capacity) {
        return sim::Status::InvalidInput(fmt::format(
            "fs.volume: the file system takes the whole device; set it smaller to leave a partition for block flow "
            "{}",
            f.name));
      }
      const sim::Result<host::FioPlan> plan =
          host::ResolveFio(f.cfg.kinds.Get<host::FioConfig>("fio"), capacity, sector_size);
      if (!plan.ok()) return InFlow(plan.status(), f);
      if (plan->range_start < cfg.fs.volume.value) {
        return sim::Status::InvalidInput(fmt::format(
            "{}.fio.offset: the flow's range starts at byte {}, inside the file system's volume (fs.volume: {} "
            "bytes); set offset to at least the volume",
            f.key, plan->range_start, cfg.fs.volume.value));
      }
    }
    const uint64_t end = uint64_t{f.first_queue} + f.cfg.queues;
    if (end > queues) {
      return sim::Status::InvalidInput(fmt::format(
          "{}.queues: the flow needs submission queues {}..{}, but the device has {} (device.ssd.queues)", f.key,
          f.first_queue, end - 1, queues));
    }
    for (uint64_t q = f.first_queue; q < end; ++q) {
      if (fs_queue && q == *fs_queue) {
        return sim::Status::InvalidInput(fmt::format(
            "{}.queue: submission queue {} is the file system's (fs.{}.io_queue); a block flow needs queues of "
            "its own",
            f.key, q, cfg.fs.kind));
      }
      if (owner[q] != nullptr) {
        return sim::Status::InvalidInput(fmt::format(
            "{}.queue: submission queue {} is also {}'s; each flow needs queues of its own (its figures are "
            "counted per queue)",
            f.key, q, owner[q]->name));
      }
      owner[q] = &f;
    }
    if (f.cfg.queue_depth > cfg.device.ssd.queue_depth) {
      return sim::Status::InvalidInput(fmt::format("{}.queue_depth: {} exceeds device.ssd.queue_depth {}", f.key,
                                                   f.cfg.queue_depth, cfg.device.ssd.queue_depth));
    }
    FS_RETURN_IF_ERROR(InFlow(kind->validate(f.cfg.kinds, capacity, sector_size), f));
    FS_RETURN_IF_ERROR(InFlow(CheckZonedWorkload(cfg, *kind, f.cfg.kinds), f));
  }
  // Flows writing in fio's zonemode zbd each keep their own view of their
  // zones' write pointers: their ranges must not share a zone.
  std::vector<std::pair<const NamedFlow*, host::FioPlan>> zbd;
  for (const NamedFlow& f : flows) {
    if (f.cfg.kind != "fio") continue;
    auto plan = host::ResolveFio(f.cfg.kinds.Get<host::FioConfig>("fio"), capacity, sector_size);
    if (!plan.ok() || !plan->zbd || plan->p_write == 0) continue;
    for (const auto& [other, op] : zbd) {
      if (plan->range_start < op.range_end && op.range_start < plan->range_end) {
        return InFlow(sim::Status::InvalidInput(fmt::format(
                          "workload.fio.offset: its range shares zones with flow {}'s; flows writing in zonemode "
                          "zbd need disjoint ranges (offset, size)",
                          other->name)),
                      f);
      }
    }
    zbd.emplace_back(&f, *plan);
  }
  return CheckAfter(flows);
}

sim::Status CheckZonedWorkload(const ExperimentConfig& cfg, const host::WorkloadKind& kind,
                               const sim::ImplConfigs& sections) {
  if (kind.needs_fs) return sim::Status::Ok();
  ssd::ZoneLayout zones;
  const bool zoned = cfg.ftl.Zones(cfg.device.geometry, &zones);
  if (!zoned && kind.validate_zoned == nullptr) return sim::Status::Ok();
  if (kind.validate_zoned == nullptr) {
    return sim::Status::InvalidInput(fmt::format(
        "workload.{}: this block workload cannot drive a zoned device (ftl.kind: {}); use fio with zonemode: zbd "
        "or trace replay",
        kind.name, cfg.ftl.kind));
  }
  return kind.validate_zoned(sections, zoned ? &zones : nullptr, static_cast<uint32_t>(cfg.device.geometry.page_size.value),
                             static_cast<uint32_t>(cfg.device.ssd.sector_size.value));
}

std::string ZonedFioWarning(const ExperimentConfig& cfg, const std::string& kind, const sim::ImplConfigs& sections) {
  ssd::ZoneLayout zones;
  if (kind != "fio" || !cfg.ftl.Zones(cfg.device.geometry, &zones)) return "";
  const host::FioConfig& f = sections.Get<host::FioConfig>("fio");
  if (f.zonemode != "none" || f.rw == "read" || f.rw == "randread") return "";
  return "workload.fio.zonemode: none on a zoned device (ftl.kind: " + cfg.ftl.kind +
         "): writes go where drawn, and those not at a zone's write pointer fail (ssd.errors); set zonemode: zbd "
         "for fio's zoned semantics";
}

uint64_t FlowsMemory(const ExperimentConfig& cfg) {
  auto flows = FlowsOf(cfg);
  if (!flows.ok()) return 0;
  uint64_t n = 0;
  for (const NamedFlow& f : *flows) {
    const host::WorkloadKind* k = sim::Registry<host::WorkloadKind>::Get().Find(f.cfg.kind);
    if (k != nullptr && k->memory_bytes != nullptr) n += k->memory_bytes(f.cfg.kinds);
  }
  return n;
}

std::vector<std::string> FlowWarnings(const ExperimentConfig& cfg) {
  std::vector<std::string> out;
  auto flows = FlowsOf(cfg);
  if (!flows.ok()) return out;
  bool prioritized = false;
  for (const NamedFlow& f : *flows) {
    prioritized |= f.cfg.priority != "medium";
    const host::WorkloadKind* k = sim::Registry<host::WorkloadKind>::Get().Find(f.cfg.kind);
    if (k != nullptr && k->warnings != nullptr) {
      for (const std::string& w : k->warnings(f.cfg.kinds)) out.push_back(f.key + ": " + w);
    }
    if (std::string z = ZonedFioWarning(cfg, f.cfg.kind, f.cfg.kinds); !z.empty()) out.push_back(f.key + ": " + z);
  }
  const auto& arb = cfg.device.ssd.arbitration;
  if (prioritized && (arb.policy != "wrr" || arb.max_outstanding == 0)) {
    out.push_back(
        "flows set priority classes, which only weighted round robin arbitration uses: set "
        "device.ssd.arbitration.policy: wrr and a max_outstanding bound");
  }
  return out;
}

sim::Result<std::unique_ptr<host::FlowsDriver>> BuildFlows(const ExperimentConfig& cfg, const host::WorkloadEnv& base,
                                                           ssd::BlockDevice* device, sim::StatsRegistry* stats) {
  FS_ASSIGN_OR_RETURN(const std::vector<NamedFlow> flows, FlowsOf(cfg));
  std::vector<host::FlowsDriver::Flow> built;
  for (const NamedFlow& f : flows) {
    const host::WorkloadKind* kind = sim::Registry<host::WorkloadKind>::Get().Find(f.cfg.kind);
    CHECK(kind != nullptr) << "flow kind not validated";
    if (!kind->needs_fs) {
      ssd::QueueSetup setup;
      setup.priority = PriorityOf(f.cfg.priority);
      setup.depth = f.cfg.queue_depth;
      setup.flow = f.name;
      for (uint32_t q = f.first_queue; q < f.first_queue + f.cfg.queues; ++q) device->SetupQueue(q, setup);
    }
    host::WorkloadEnv env = base;
    env.stats = stats->Root().Group("flows").Group(f.name);
    env.device_queues = f.cfg.queues;
    env.first_queue = f.first_queue;
    sim::Result<std::unique_ptr<host::WorkloadDriver>> d = kind->make(f.cfg.kinds, env);
    if (!d.ok()) return InFlow(d.status(), f);
    std::vector<size_t> after;
    for (const std::string& a : f.cfg.after) {
      for (size_t j = 0; j < flows.size(); ++j)
        if (flows[j].name == a) after.push_back(j);
    }
    built.push_back(host::FlowsDriver::Flow{f.name, f.cfg.start, std::move(*d), std::move(after)});
  }
  return std::make_unique<host::FlowsDriver>(base.events, stats->Root(), std::move(built));
}

std::vector<double> AloneLatencies(const ExperimentConfig& cfg, const std::atomic<int>* interrupt) {
  std::vector<double> out;
  auto all = FlowsOf(cfg);
  CHECK(all.ok()) << all.status().message();
  for (const NamedFlow& f : *all) {
    // The flow alone, on the queues it has in the shared run (a job file's
    // job becomes a YAML flow).
    const std::string name = f.name;
    ExperimentConfig one = cfg;
    one.run.power_cut.when = "none";  // a flow alone measures its latency, not a cut
    one.workload.alone_runs = false;
    one.workload.flows.clear();
    one.workload.kinds.Mutable<host::FioConfig>("fio").jobfile.clear();
    host::FlowConfig fc = f.cfg;
    if (!IsFileFlow(fc)) fc.queue = static_cast<int32_t>(f.first_queue);
    fc.after.clear();  // alone: nothing to wait for
    one.workload.flows.emplace(name, fc);
    auto e = Experiment::Create(one);
    CHECK(e.ok()) << "alone run of flow " << name << ": " << e.status().message();
    Experiment::Progress quiet;
    const RunReport r = (*e)->Run(quiet, interrupt);
    if (r.interrupted_by != 0) return {};
    out.push_back(host::FlowsDriver::MeanLatency((*e)->stats(), name));
  }
  return out;
}

}  // namespace app
