#include "flash/flash_config.h"

#include <fmt/format.h>

#include "flash/die_scheduler.h"

namespace flash {

void FlashTimingConfig::Describe(sim::Schema<FlashTimingConfig>& s) {
  s.Choice("cell", &FlashTimingConfig::cell, "slc", {"slc", "mlc", "tlc"},
           "Bits per cell; selects how many page types (LSB/CSB/MSB) have their own tR/tPROG");
  s.Param("tR", &FlashTimingConfig::t_read, "75us", "Array read time of an LSB page (every page for slc)")
      .Range(0, kMaxOpNs);
  s.Param("tR_csb", &FlashTimingConfig::t_read_csb, "0ns", "Array read time of a CSB page (tlc); 0 = tR")
      .Range(0, kMaxOpNs);
  s.Param("tR_msb", &FlashTimingConfig::t_read_msb, "0ns", "Array read time of an MSB page (mlc, tlc); 0 = tR")
      .Range(0, kMaxOpNs);
  s.Param("tPROG", &FlashTimingConfig::t_prog, "750us", "Program time of an LSB page (every page for slc)")
      .Range(1, kMaxOpNs);
  s.Param("tPROG_csb", &FlashTimingConfig::t_prog_csb, "0ns", "Program time of a CSB page (tlc); 0 = tPROG")
      .Range(0, kMaxOpNs);
  s.Param("tPROG_msb", &FlashTimingConfig::t_prog_msb, "0ns",
          "Program time of an MSB page (mlc, tlc); 0 = tPROG")
      .Range(0, kMaxOpNs);
  s.Param("tBERS", &FlashTimingConfig::t_erase, "3.8ms", "Block erase time").Range(1, kMaxOpNs);
  s.Param("channel_rate", &FlashTimingConfig::channel_rate, "333MB/s",
          "Data rate of one channel bus (page transfer time = page_size / channel_rate)")
      .Min(kMinRateBytesPerSec);
  s.Param("cmd_overhead", &FlashTimingConfig::cmd_overhead, "0ns",
          "Channel time of the command and address cycles of one command")
      .Range(0, kMaxOpNs);
}

uint32_t FlashTimingConfig::BitsPerCell() const {
  if (cell == "tlc") return 3;
  if (cell == "mlc") return 2;
  return 1;
}

namespace {
sim::SimTime Or(sim::SimTime v, sim::SimTime fallback) { return v == sim::SimTime::Zero() ? fallback : v; }
}  // namespace

sim::SimTime FlashTimingConfig::ReadTime(uint32_t page_in_block) const {
  const uint32_t bits = BitsPerCell();
  if (bits == 1) return t_read;
  const uint32_t type = page_in_block % bits;
  if (type == 0) return t_read;
  if (type == bits - 1) return Or(t_read_msb, t_read);
  return Or(t_read_csb, t_read);
}

sim::SimTime FlashTimingConfig::ProgramTime(uint32_t page_in_block) const {
  const uint32_t bits = BitsPerCell();
  if (bits == 1) return t_prog;
  const uint32_t type = page_in_block % bits;
  if (type == 0) return t_prog;
  if (type == bits - 1) return Or(t_prog_msb, t_prog);
  return Or(t_prog_csb, t_prog);
}

void MultiPlaneConfig::Describe(sim::Schema<MultiPlaneConfig>& s) {
  s.Param("enabled", &MultiPlaneConfig::enabled, "false",
          "Run same-kind commands queued at one die on different planes (same page offset) as one operation");
  s.Param("same_block", &MultiPlaneConfig::same_block, "false",
          "Multi-plane partners must also have the same block offset in their planes");
  s.Param("scan", &MultiPlaneConfig::scan, "16", "Queued commands examined when looking for multi-plane partners")
      .Range(1, 4096);
}

void SuspendConfig::Describe(sim::Schema<SuspendConfig>& s) {
  s.Param("program", &SuspendConfig::program, "false",
          "A foreground read arriving during tPROG suspends the program (policy permitting)");
  s.Param("erase", &SuspendConfig::erase, "false",
          "A foreground read arriving during tBERS suspends the erase (policy permitting)");
  s.Param("program_latency", &SuspendConfig::program_latency, "20us",
          "Time from a program-suspend command until the die accepts a read")
      .Range(0, kMaxOpNs);
  s.Param("erase_latency", &SuspendConfig::erase_latency, "20us",
          "Time from an erase-suspend command until the die accepts a read")
      .Range(0, kMaxOpNs);
  s.Param("resume_latency", &SuspendConfig::resume_latency, "0ns",
          "Added to the remaining program/erase time when the operation resumes")
      .Range(0, kMaxOpNs);
  s.Param("max_per_op", &SuspendConfig::max_per_op, "0",
          "Suspensions allowed per program/erase operation; 0 = unlimited");
}

void FlashConfig::Describe(sim::Schema<FlashConfig>& s) {
  s.Section("timing", &FlashConfig::timing, "NAND array and channel timings");
  s.Section("multi_plane", &FlashConfig::multi_plane, "Multi-plane command merging");
  s.Section("suspend", &FlashConfig::suspend, "Program/erase suspension for reads");
  s.Param("cache_program", &FlashConfig::cache_program, "false",
          "Load the next program's data into the cache register during tPROG");
  s.Choice("channel_arbitration", &FlashConfig::channel_arbitration, "cmd_first", {"cmd_first", "fifo"},
           "Channel grant order: command-only phases before data transfers (FIFO within each), or one FIFO");
  s.Choice("scheduler", &FlashConfig::scheduler, "fifo", DieSchedulerNames(),
           "Per-die command scheduling policy");
  s.Implementations(&FlashConfig::scheduler_configs, DieSchedulerSections());
}

sim::Status FlashConfig::Validate(const Geometry& g) const {
  const uint32_t bits = timing.BitsPerCell();
  if (bits < 3 && (timing.t_read_csb != sim::SimTime::Zero() || timing.t_prog_csb != sim::SimTime::Zero())) {
    return sim::Status::InvalidInput(
        fmt::format("timing.tR_csb/tPROG_csb: CSB pages exist only for cell: tlc (cell is '{}')", timing.cell));
  }
  if (bits < 2 && (timing.t_read_msb != sim::SimTime::Zero() || timing.t_prog_msb != sim::SimTime::Zero())) {
    return sim::Status::InvalidInput(
        fmt::format("timing.tR_msb/tPROG_msb: MSB pages exist only for cell: mlc or tlc (cell is '{}')",
                    timing.cell));
  }
  if (g.planes_per_die > kMaxPlanesPerDie) {
    return sim::Status::InvalidInput(
        fmt::format("the array model supports at most {} planes per die (geometry has {})", kMaxPlanesPerDie,
                    g.planes_per_die));
  }
  if (timing.channel_rate.bytes_per_sec <= 0) {
    return sim::Status::InvalidInput("timing.channel_rate: must be positive");
  }
  if (timing.t_prog <= sim::SimTime::Zero() || timing.t_erase <= sim::SimTime::Zero()) {
    return sim::Status::InvalidInput("timing.tPROG/tBERS: must be positive");
  }
  if (channel_arbitration != "cmd_first" && channel_arbitration != "fifo") {
    return sim::Status::InvalidInput(
        fmt::format("channel_arbitration: unknown '{}'; choose one of: cmd_first, fifo", channel_arbitration));
  }
  bool known = false;
  for (const auto& n : DieSchedulerNames()) known |= (n == scheduler);
  if (!known) {
    std::string list;
    for (const auto& n : DieSchedulerNames()) list += (list.empty() ? "" : ", ") + n;
    return sim::Status::InvalidInput(fmt::format("scheduler: unknown '{}'; choose one of: {}", scheduler, list));
  }
  return sim::Status::Ok();
}

}  // namespace flash
