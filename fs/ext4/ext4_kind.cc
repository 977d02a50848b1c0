// fs.kind: ext4 — formats the volume (untimed mke2fs) and mounts the ext4
// model on the device on the simulated clock.
#include <fmt/format.h>

#include "fs/ext4/ext4.h"
#include "fs/ext4/ext4_config.h"
#include "fs/file_system_kind.h"
#include "sim/registry.h"
#include "sim/task.h"

namespace fs::ext4 {
namespace {

class MountedExt4 final : public MountedFs {
 public:
  MountedExt4(const Ext4Config& cfg, std::unique_ptr<Image> image, std::unique_ptr<Ext4> fs)
      : cfg_(cfg), image_(std::move(image)), fs_(std::move(fs)) {}
  ~MountedExt4() override { fs_.reset(); }
  FileSystem* fs() override { return fs_.get(); }

  void PowerCut(const std::function<bool(bool completed)>& keep) override {
    fs_->Kill();
    image_->PowerCut([&keep](BlockNo, bool completed) { return keep(completed); });
  }
  sim::Result<std::unique_ptr<FileSystem>> Recover(const FsEnv& env) override {
    FS_ASSIGN_OR_RETURN(std::unique_ptr<Ext4> fs, MountModel<Ext4>(cfg_, env, image_.get(), "fs.ext4"));
    return std::unique_ptr<FileSystem>(std::move(fs));
  }
  sim::Status Check(const FileSystem& recovered) const override {
    return static_cast<const Ext4&>(recovered).Check();
  }
  std::string Summary(const sim::StatsRegistry& st) const override {
    const bool wrote = st.Value("fs.app.bytes_written") > 0;
    const auto ratio = [&](const char* key) {
      return wrote ? fmt::format("{:.3f}", st.Value(key)) : std::string("n/a");
    };
    std::string out = fmt::format(
        "ext4       FS write amplification {}, end to end {}; {} commits ({} metadata blocks logged), {} journal "
        "checkpoints\n",
        ratio("fs.write_amplification"), ratio("fs.write_amplification_end_to_end"),
        static_cast<uint64_t>(st.Value("fs.journal.commits")),
        static_cast<uint64_t>(st.Value("fs.journal.logged_blocks")),
        static_cast<uint64_t>(st.Value("fs.journal.checkpoints")));
    if (const sim::Histogram* h = st.FindHistogram("fs.fsync.lat_total"); h != nullptr && h->count() > 0)
      out += fmt::format("  fsync n={} {}\n", h->count(), sim::LatencySummary(*h));
    if (const sim::Histogram* h = st.FindHistogram("fs.journal.commit_lat"); h != nullptr && h->count() > 0)
      out += fmt::format("  commit {}\n", sim::LatencySummary(*h));
    return out;
  }

 private:
  Ext4Config cfg_;
  std::unique_ptr<Image> image_;
  std::unique_ptr<Ext4> fs_;
};

sim::Status Validate(const sim::ImplConfigs& sections, uint64_t volume_bytes, const DeviceFacts& device) {
  const Ext4Config& cfg = sections.Get<Ext4Config>("ext4");
  if (sim::Status st = cfg.Validate(); !st.ok()) return sim::Status::InvalidInput("fs.ext4." + st.message());
  if (volume_bytes % kBlockSize != 0) return sim::Status::InvalidInput("fs.volume: must be a multiple of the 4 KiB ext4 block");
  if (cfg.io_queue >= device.queues)
    return sim::Status::InvalidInput(fmt::format(
        "fs.ext4.io_queue: queue {} does not exist: the device has {} submission queues (device.ssd.queues)",
        cfg.io_queue, device.queues));
  if (device.fixed_placement)
    return sim::Status::InvalidInput(
        "fs.kind: ext4 updates blocks in place, which a device of fixed placement (the static block-mapped FTL) "
        "refuses; use ftl.kind: page");
  const uint64_t volume = (volume_bytes > 0 ? volume_bytes : device.capacity) / kBlockSize;
  sim::Result<Layout> l = ComputeLayout(volume, cfg.mkfs.blocks_per_group, cfg.mkfs.inode_ratio.value,
                                        cfg.mkfs.inode_size, cfg.mkfs.flex_bg,
                                        static_cast<uint32_t>(cfg.mkfs.journal_size.value / kBlockSize));
  if (!l.ok())
    return sim::Status::InvalidInput(fmt::format("fs.volume: {} bytes ({}) cannot be formatted as ext4: {}",
                                                 volume * kBlockSize, volume_bytes > 0 ? "fs.volume" : "the whole device",
                                                 l.status().message()));
  return sim::Status::Ok();
}

sim::Result<std::unique_ptr<MountedFs>> Mount(const sim::ImplConfigs& sections, const FsEnv& fs_env) {
  const Ext4Config& cfg = sections.Get<Ext4Config>("ext4");
  const uint64_t volume = fs_env.volume_bytes / kBlockSize * kBlockSize;
  auto image = std::make_unique<Image>(volume / kBlockSize);
  FS_RETURN_IF_ERROR(Ext4::Format(cfg, volume, image.get()));
  sim::Result<std::unique_ptr<Ext4>> mounted = MountModel<Ext4>(cfg, fs_env, image.get(), "fs.ext4");
  if (!mounted.ok()) return mounted.status();
  return std::unique_ptr<MountedFs>(
      std::make_unique<MountedExt4>(cfg, std::move(image), std::move(mounted).value()));
}

// The image and the bitmaps: about 17 bytes per 4 KiB block of the volume.
uint64_t MemoryBytes(const sim::ImplConfigs& sections, uint64_t volume_bytes, uint64_t capacity) {
  (void)sections;
  const uint64_t blocks = (volume_bytes > 0 ? volume_bytes : capacity) / kBlockSize;
  return Image::BaseMemoryBytes(blocks) + blocks / 4;
}

uint32_t IoQueue(const sim::ImplConfigs& sections) { return sections.Get<Ext4Config>("ext4").io_queue; }

const sim::Registrar<FileSystemKind> kRegistered{
    {"ext4", "an ext4-like in-place file system with JBD2 journaling (ordered mode) on the simulated SSD", true,
     sim::ImplSection::Of<Ext4Config>("ext4", "ext4 model (fs.kind: ext4)"), &Validate, &Mount, &MemoryBytes,
     nullptr, &IoQueue, /*survives_power_cut=*/true}};

}  // namespace
}  // namespace fs::ext4
