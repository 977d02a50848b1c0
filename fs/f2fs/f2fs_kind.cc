// fs.kind: f2fs — formats the volume (untimed mkfs) and mounts the F2FS
// model on the device on the simulated clock; the run's time starts when
// the mount has read the checkpoint, NAT, SIT and SSA.
#include <fmt/format.h>

#include "fs/f2fs/channel_placement.h"
#include "fs/f2fs/f2fs.h"
#include "fs/f2fs/f2fs_config.h"
#include "fs/f2fs/image.h"
#include "fs/f2fs/journal.h"
#include "fs/f2fs/nat_table.h"
#include "fs/f2fs/segment_manager.h"
#include "fs/file_system_kind.h"
#include "sim/registry.h"
#include "sim/task.h"

namespace fs::f2fs {
namespace {

// The file system with the image of what is on flash, which it outlives.
class MountedF2fs final : public MountedFs {
 public:
  MountedF2fs(const F2fsConfig& cfg, std::unique_ptr<Image> image, std::unique_ptr<F2fs> fs)
      : cfg_(cfg), image_(std::move(image)), fs_(std::move(fs)) {}
  ~MountedF2fs() override { fs_.reset(); }
  FileSystem* fs() override { return fs_.get(); }

  void PowerCut(const std::function<bool(bool completed)>& keep) override {
    fs_->PowerCut();
    image_->PowerCut([&keep](BlockAddr, bool completed) { return keep(completed); });
  }
  sim::Result<std::unique_ptr<FileSystem>> Recover(const FsEnv& env) override {
    FS_ASSIGN_OR_RETURN(std::unique_ptr<F2fs> fs, MountModel<F2fs>(cfg_, env, image_.get(), "fs.f2fs"));
    return std::unique_ptr<FileSystem>(std::move(fs));
  }
  sim::Status Check(const FileSystem& recovered) const override {
    return static_cast<const F2fs&>(recovered).Check();
  }

  std::string Summary(const sim::StatsRegistry& st) const override {
    // Nothing written by the application: no ratio to show.
    const bool wrote = st.Value("fs.app.bytes_written") > 0;
    const auto ratio = [&](const char* key) {
      return wrote ? fmt::format("{:.3f}", st.Value(key)) : std::string("n/a");
    };
    std::string out = fmt::format(
        "f2fs       FS write amplification {}, end to end {}; {} checkpoints; GC {} victims ({} blocks moved)\n",
        ratio("fs.write_amplification"), ratio("fs.write_amplification_end_to_end"),
        static_cast<uint64_t>(st.Value("fs.cp.count")),
        static_cast<uint64_t>(st.Value("fs.gc.victims_bg") + st.Value("fs.gc.victims_fg")),
        static_cast<uint64_t>(st.Value("fs.gc.moved_bg") + st.Value("fs.gc.moved_fg")));
    const char* parts[] = {"total", "data", "node", "flush"};
    for (const char* part : parts) {
      const sim::Histogram* h = st.FindHistogram(fmt::format("fs.fsync.lat_{}", part));
      if (h == nullptr || h->count() == 0) continue;
      out += fmt::format("  fsync {:<5} n={} {}\n", part, h->count(), sim::LatencySummary(*h));
    }
    if (const sim::Histogram* h = st.FindHistogram("fs.fsync.nodes_visited"); h != nullptr && h->count() > 0) {
      out += fmt::format("  fsync node pages visited: mean {:.1f}, max {}\n", h->mean(), h->max());
    }
    if (st.Has("fs.journal.commits")) {
      out += fmt::format("  journal {} records, {} commits ({} by fsync), {} blocks; {} checkpoints for space\n",
                         static_cast<uint64_t>(st.Value("fs.journal.records")),
                         static_cast<uint64_t>(st.Value("fs.journal.commits")),
                         static_cast<uint64_t>(st.Value("fs.journal.fsync_commits")),
                         static_cast<uint64_t>(st.Value("fs.journal.blocks")),
                         static_cast<uint64_t>(st.Value("fs.journal.space_checkpoints")));
      if (st.Value("fs.journal.applies") > 0) {
        out += fmt::format("  apply {} times: {} node pages written while operations ran, {} held back (uncommitted)\n",
                           static_cast<uint64_t>(st.Value("fs.journal.applies")),
                           static_cast<uint64_t>(st.Value("fs.journal.apply_blocks")),
                           static_cast<uint64_t>(st.Value("fs.journal.apply_held")));
      }
    }
    if (const sim::Histogram* h = st.FindHistogram("fs.cp.duration"); h != nullptr && h->count() > 0) {
      out += fmt::format("  checkpoint duration {}; operations stalled {:.3f} s in all\n", sim::LatencySummary(*h),
                         st.Value("fs.cp.stall_total") / 1e9);
    }
    return out;
  }

 private:
  F2fsConfig cfg_;
  std::unique_ptr<Image> image_;
  std::unique_ptr<F2fs> fs_;
};

sim::Status Validate(const sim::ImplConfigs& sections, uint64_t volume_bytes, const DeviceFacts& device) {
  const uint64_t capacity = device.capacity;
  const uint32_t device_queues = device.queues;
  const sim::Status st = sections.Get<F2fsConfig>("f2fs").Validate();
  if (!st.ok()) {
    const std::string& m = st.message();
    return m.rfind("fs.f2fs.", 0) == 0 ? st : sim::Status::InvalidInput("fs.f2fs." + m);
  }
  if (volume_bytes % kBlockSize != 0) {
    return sim::Status::InvalidInput("fs.volume: must be a multiple of the 4 KiB F2FS block");
  }
  const F2fsConfig& cfg = sections.Get<F2fsConfig>("f2fs");
  if (cfg.io_queue >= device_queues) {
    return sim::Status::InvalidInput(fmt::format(
        "fs.f2fs.io_queue: queue {} does not exist: the device has {} submission queues (device.ssd.queues)",
        cfg.io_queue, device_queues));
  }
  // mkfs's layout, so a volume too small to format is found by `check`.
  const uint64_t volume = (volume_bytes > 0 ? volume_bytes : capacity) / kBlockSize * kBlockSize;
  LayoutParams lp{volume, cfg.mkfs.segs_per_sec, cfg.mkfs.secs_per_zone, cfg.mkfs.overprovision};
  // ParaFS's regions (one per flash channel) each reserve sections for
  // their logs (see Format).
  if (device.fixed_placement && cfg.allocation == "parafs_2d") lp.regions = std::max<uint32_t>(1, device.channels);
  if (cfg.durability == "journal") {
    const uint64_t jb = JournalAreaBlocks(cfg);
    if (jb < 2 || jb > UINT32_MAX)
      return sim::Status::InvalidInput(fmt::format(
          "fs.f2fs.journal.size: {} blocks of 4 KiB; the journal needs at least 2 and at most 2^32 - 1", jb));
    lp.journal_blocks = static_cast<uint32_t>(jb);
    // The journal area is a ring rewritten in place; on the static
    // block-mapped FTL only the page-mapped head of the device may be, so
    // mkfs puts it there (before the checkpoint area).
    lp.journal_at_head = device.fixed_placement || device.zoned;
  }
  if (device.zoned) {
    const sim::Status zst = F2fs::ZonedLayoutParams(cfg, device.zones, device.page_size, &lp);
    if (!zst.ok()) return zst;
    if (cfg.allocation != "default")
      return sim::Status::InvalidInput(fmt::format(
          "fs.f2fs.allocation: '{}' on a zoned device; F2FS's zoned mode allocates with the kernel's default "
          "policy (a section per zone)",
          cfg.allocation));
  }
  sim::Result<Layout> layout = ComputeLayout(lp);
  if (!layout.ok()) {
    return sim::Status::InvalidInput(fmt::format("fs.volume: {} bytes ({}) cannot be formatted: {}", volume,
                                                 volume_bytes > 0 ? "fs.volume" : "the whole device",
                                                 layout.status().message()));
  }
  // A device of fixed placement programs each flash page once per erase,
  // in order: only an allocation that writes whole pages, flash block by
  // flash block, out of place (parafs_2d, lfs mode) runs on it.
  if (device.fixed_placement && cfg.allocation != "parafs_2d") {
    return sim::Status::InvalidInput(fmt::format(
        "fs.f2fs.allocation: '{}' on a device of fixed placement (the static block-mapped FTL): F2FS must place "
        "data by flash page and flash block and never update in place there; use allocation: parafs_2d with "
        "mode: lfs",
        cfg.allocation));
  }
  if (device.fixed_placement || cfg.allocation == "parafs_2d") {
    // What check assumes of the FTL's placement (channel_placement.h).
    ChannelRoundRobinPlacement placement(std::max<uint32_t>(1, device.channels), device.fixed_from_block);
    ssd::DeviceLayout d;
    d.channels = device.channels;
    d.page_size = device.page_size;
    d.pages_per_block = device.pages_per_block;
    d.fixed = device.fixed_placement ? &placement : nullptr;
    sim::Result<std::vector<SegNo>> segs = F2fs::RegionLogSegments(cfg, *layout, d);
    if (!segs.ok()) {
      const std::string& m = segs.status().message();
      return m.rfind("fs.", 0) == 0 || m.rfind("ftl.", 0) == 0 ? segs.status()
                                                                : sim::Status::InvalidInput("fs.f2fs." + m);
    }
  }
  return sim::Status::Ok();
}

sim::Result<std::unique_ptr<MountedFs>> Mount(const sim::ImplConfigs& sections, const FsEnv& fs_env) {
  const F2fsConfig& cfg = sections.Get<F2fsConfig>("f2fs");
  const uint64_t volume = fs_env.volume_bytes / kBlockSize * kBlockSize;
  auto image = std::make_unique<Image>(volume / kBlockSize);
  if (sim::Status st = F2fs::Format(cfg, volume, image.get(), &fs_env.device->layout()); !st.ok()) {
    const std::string& m = st.message();
    return m.rfind("fs.", 0) == 0 || m.rfind("ftl.", 0) == 0 ? st : sim::Status::InvalidInput("fs.f2fs." + m);
  }
  sim::Result<std::unique_ptr<F2fs>> mounted = MountModel<F2fs>(cfg, fs_env, image.get(), "fs.f2fs");
  if (!mounted.ok()) return mounted.status();
  return std::unique_ptr<MountedFs>(
      std::make_unique<MountedF2fs>(cfg, std::move(image), std::move(mounted).value()));
}

// The image, SIT, SSA and NAT: about 32 bytes per 4 KiB block of the volume.
uint64_t MemoryBytes(const sim::ImplConfigs& sections, uint64_t volume_bytes, uint64_t capacity) {
  const F2fsConfig& cfg = sections.Get<F2fsConfig>("f2fs");
  const uint64_t volume = (volume_bytes > 0 ? volume_bytes : capacity) / kBlockSize * kBlockSize;
  LayoutParams lp{volume, cfg.mkfs.segs_per_sec, cfg.mkfs.secs_per_zone, cfg.mkfs.overprovision};
  lp.journal_blocks = static_cast<uint32_t>(std::min<uint64_t>(JournalAreaBlocks(cfg), volume / kBlockSize / 2));
  sim::Result<Layout> layout = ComputeLayout(lp);
  if (!layout.ok()) return 0;
  return Image::BaseMemoryBytes(volume / kBlockSize) + SegmentManager::BaseMemoryBytes(*layout) +
         NatTable::BaseMemoryBytes(layout->max_nid, layout->nat_blocks);
}

}  // namespace

// F2FS-J's journal has no commit record for a group of files (F2fs::
// TxUsable refuses them there).
bool Transactions(const sim::ImplConfigs& sections, std::string* why) {
  if (sections.Get<F2fsConfig>("f2fs").durability != "journal") return true;
  if (why) *why = "fs.f2fs.durability: journal (F2FS-J) has none";
  return false;
}

uint32_t IoQueue(const sim::ImplConfigs& sections) { return sections.Get<F2fsConfig>("f2fs").io_queue; }

const sim::Registrar<FileSystemKind> kRegistered{
    {"f2fs", "the F2FS model on the simulated SSD", true,
     sim::ImplSection::Of<F2fsConfig>("f2fs", "F2FS model (fs.kind: f2fs)"), &Validate, &Mount, &MemoryBytes,
     &Transactions, &IoQueue, /*survives_power_cut=*/true}};

}  // namespace fs::f2fs
