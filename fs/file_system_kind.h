// File-system kinds: the registry of file-system models (fs.kind).
//
// A file system registers a FileSystemKind from its own folder with
// sim::Registrar (sim/registry.h); the experiment assembly formats and
// mounts whatever fs.kind names, so a new file system needs no edit outside
// its folder. Its parameters are its own section, fs.<kind>.*.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fs/file_system.h"
#include "sim/config.h"
#include "sim/cpu.h"
#include "sim/event_queue.h"
#include "sim/registry.h"
#include "sim/stats.h"
#include "sim/status.h"
#include "sim/task.h"
#include "ssd/block_device.h"

namespace fs {

// What a file system is mounted on.
struct FsEnv {
  sim::EventQueue* events = nullptr;
  ssd::BlockDevice* device = nullptr;  // unused by a kind that does no device I/O
  uint64_t volume_bytes = 0;           // formatted size from the start of the device
  sim::StatGroup stats{nullptr, ""};   // e.g. registry.Root().Group("fs")
  // Optional: the device's write amplification, for end-to-end formulas.
  std::function<double()> device_write_amplification;
  // Optional: the host's CPUs every CPU cost of the file system runs on
  // (null: bursts run at once, as if each thread had its own core).
  sim::CpuScheduler* cpu = nullptr;
};

// A mounted file system and whatever it owns besides (an on-flash image).
// What is known of the device before it is built (`check`): its size and
// queues, and the flash layout the FTL will expose. A fixed-placement FTL's
// PlaceOf is not available yet, only that it fixes placement.
struct DeviceFacts {
  uint64_t capacity = 0;  // bytes
  uint32_t queues = 1;
  uint32_t channels = 1;
  uint32_t page_size = 4096;  // flash page, bytes
  uint32_t pages_per_block = 1;
  bool fixed_placement = false;  // the FTL fixes placement (ssd::DeviceLayout::fixed will be set)
  // With fixed placement: the first logical flash block with a fixed place
  // (below it, a page-mapped area takes in-place updates).
  uint64_t fixed_from_block = 0;
  // A zoned device (ftl.kind: zns): its zones, in flash pages.
  bool zoned = false;
  ssd::ZoneLayout zones;
};

class MountedFs {
 public:
  virtual ~MountedFs() = default;
  virtual FileSystem* fs() = 0;
  // Lines for the run summary, from the registered statistics ("" = none).
  virtual std::string Summary(const sim::StatsRegistry& stats) const = 0;

  // ---- Power cuts (run.power_cut). A kind whose volume survives a cut
  // (it keeps an image of what is on flash, fs/vfs/block_image.h; its
  // FileSystemKind says survives_power_cut) overrides all three.
  // Cuts the power: the file system stops (nothing is scheduled or woken
  // from now on, fs() stays valid and dead so its statistics can still be
  // read); the image keeps its durable content and, of each volatile write
  // in submission order, what keep(completed) says. The caller then clears
  // the event queue and destroys the workload's threads.
  // REQUIRES: the kind survives_power_cut; called once.
  virtual void PowerCut(const std::function<bool(bool completed)>& keep) { (void)keep; }
  // After PowerCut: mounts a new instance on the image (recovery included)
  // over `env` (another event queue and device: the cut device's state is
  // gone), running env.events until mounted. The instance is the caller's;
  // it must be destroyed before this object and env's queue.
  virtual sim::Result<std::unique_ptr<FileSystem>> Recover(const FsEnv& env) {
    (void)env;
    return sim::Status::InvalidInput("this file system cannot be cut");
  }
  // The kind's checker (fsck) on an instance Recover returned.
  virtual sim::Status Check(const FileSystem& recovered) const {
    (void)recovered;
    return sim::Status::Ok();
  }
};

struct FileSystemKind {
  const char* name;
  const char* description;
  // False for a file system that never touches the device (memfs): the
  // summary then leaves the device out.
  bool uses_device;
  sim::ImplSection config;  // fs.<name>.*
  // Cross-key checks of the kind's section for a volume of `volume_bytes`
  // (0 = the whole device) on `device`, and of what the kind needs of the
  // device. Errors name full keys.
  sim::Status (*validate)(const sim::ImplConfigs& sections, uint64_t volume_bytes, const DeviceFacts& device);
  // Formats env.volume_bytes of env.device (when the kind uses it) and
  // mounts, running env.events until mounted. REQUIRES: validate ok.
  sim::Result<std::unique_ptr<MountedFs>> (*mount)(const sim::ImplConfigs& sections, const FsEnv& env);
  // Memory the mounted file system's tables take for a volume of
  // `volume_bytes` (as validate) before any file is written; null: none
  // that grows with the volume. REQUIRES: validate ok.
  uint64_t (*memory_bytes)(const sim::ImplConfigs& sections, uint64_t volume_bytes, uint64_t capacity) = nullptr;
  // Whether the configured file system offers transactions (FileSystem::
  // Tx*, AtomicWrite* other than EOPNOTSUPP), and if not, why in a few
  // words (`why` may be null); null function: it offers none.
  bool (*transactions)(const sim::ImplConfigs& sections, std::string* why) = nullptr;
  // The device submission queue the configured file system submits on
  // (block flows beside it need others); null: it submits nothing.
  uint32_t (*io_queue)(const sim::ImplConfigs& sections) = nullptr;
  // Its volume survives a power cut: MountedFs's PowerCut, Recover and
  // Check are implemented (run.power_cut).
  bool survives_power_cut = false;
};

// Mounts a model whose Env names what it is mounted on as FsEnv does
// (events, device, image, stats, device_write_amplification, cpu: F2FS,
// ext4) on `image` over `env`, running env.events until it is mounted.
// `section`: the kind's config section, for the error of a mount that did
// not finish.
template <class Fs, class Config, class Image>
sim::Result<std::unique_ptr<Fs>> MountModel(const Config& cfg, const FsEnv& env, Image* image, const char* section) {
  typename Fs::Env e;
  e.events = env.events;
  e.device = env.device;
  e.image = image;
  e.stats = env.stats;
  e.device_write_amplification = env.device_write_amplification;
  e.cpu = env.cpu;
  sim::Result<std::unique_ptr<Fs>> mounted =
      sim::Status::InvalidInput(std::string(section) + ": mount did not finish");
  auto mount = [&]() -> sim::Task<> { mounted = co_await Fs::Mount(cfg, e); };
  sim::ThreadGroup mounting(env.events);
  mounting.Spawn(mount());
  env.events->Run();
  return mounted;
}

// Registered kinds, sorted; their config sections.
inline std::vector<std::string> FileSystemKindNames() { return sim::Registry<FileSystemKind>::Get().Names(); }
inline std::vector<sim::ImplSection> FileSystemKindSections() {
  std::vector<sim::ImplSection> out;
  for (const FileSystemKind* k : sim::Registry<FileSystemKind>::Get().entries()) out.push_back(k->config);
  return out;
}

}  // namespace fs
