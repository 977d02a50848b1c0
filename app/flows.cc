#include "app/flows.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

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
      job.cfg.jobfile.clear();
      f.cfg.kinds.Mutable<host::FioConfig>("fio") = std::move(job.cfg);
      out.push_back(std::move(f));
    }
  }
  // Flows without a queue take, in flow order, the lowest run of queues that
  // no flow with an explicit queue and no earlier flow uses.
  std::vector<std::pair<uint64_t, uint64_t>> taken;  // [first, end)
  for (NamedFlow& f : out) {
    if (f.cfg.queue >= 0) {
      f.first_queue = static_cast<uint32_t>(f.cfg.queue);
      taken.emplace_back(f.first_queue, uint64_t{f.first_queue} + f.cfg.queues);
    }
  }
  for (NamedFlow& f : out) {
    if (f.cfg.queue >= 0) continue;
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
  for (const NamedFlow& f : flows) {
    FS_ASSIGN_OR_RETURN(const host::WorkloadKind* kind,
                        sim::Registry<host::WorkloadKind>::Get().Lookup(f.cfg.kind, "workload kind"));
    if (kind->needs_fs) {
      return sim::Status::InvalidInput(fmt::format(
          "{}.kind: '{}' is a file workload; flows are block workloads (fio, trace) that drive the device "
          "directly",
          f.key, f.cfg.kind));
    }
    if (cfg.fs.kind != "none") {
      return sim::Status::InvalidInput(fmt::format(
          "fs.kind: flows are block workloads that drive the whole device; set fs.kind: none"));
    }
    const uint64_t end = uint64_t{f.first_queue} + f.cfg.queues;
    if (end > queues) {
      return sim::Status::InvalidInput(fmt::format(
          "{}.queues: the flow needs submission queues {}..{}, but the device has {} (device.ssd.queues)", f.key,
          f.first_queue, end - 1, queues));
    }
    for (uint64_t q = f.first_queue; q < end; ++q) {
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
  return sim::Status::Ok();
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
    ssd::QueueSetup setup;
    setup.priority = PriorityOf(f.cfg.priority);
    setup.depth = f.cfg.queue_depth;
    setup.flow = f.name;
    for (uint32_t q = f.first_queue; q < f.first_queue + f.cfg.queues; ++q) device->SetupQueue(q, setup);
    const host::WorkloadKind* kind = sim::Registry<host::WorkloadKind>::Get().Find(f.cfg.kind);
    CHECK(kind != nullptr) << "flow kind not validated";
    host::WorkloadEnv env = base;
    env.stats = stats->Root().Group("flows").Group(f.name);
    env.device_queues = f.cfg.queues;
    env.first_queue = f.first_queue;
    sim::Result<std::unique_ptr<host::WorkloadDriver>> d = kind->make(f.cfg.kinds, env);
    if (!d.ok()) return InFlow(d.status(), f);
    built.push_back(host::FlowsDriver::Flow{f.name, f.cfg.start, std::move(*d)});
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
    one.workload.alone_runs = false;
    one.workload.flows.clear();
    one.workload.kinds.Mutable<host::FioConfig>("fio").jobfile.clear();
    host::FlowConfig fc = f.cfg;
    fc.queue = static_cast<int32_t>(f.first_queue);
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
