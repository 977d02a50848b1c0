// fs.kind: memfs — the in-memory reference file system with fixed per-call
// latencies; it never touches the device.
#include "fs/file_system_kind.h"
#include "fs/memfs/mem_fs.h"
#include "sim/registry.h"

namespace fs {
namespace {

class MountedMemFs final : public MountedFs {
 public:
  MountedMemFs(sim::EventQueue* q, const MemFsConfig& cfg, sim::CpuScheduler* cpu, const sim::StatGroup& stats)
      : fs_(q, cfg) {
    fs_.set_cpu(cpu);
    if (!stats.prefix().empty()) fs_.RegisterStats(stats);
  }
  FileSystem* fs() override { return &fs_; }
  std::string Summary(const sim::StatsRegistry&) const override { return ""; }

 private:
  MemFs fs_;
};

sim::Status Validate(const sim::ImplConfigs&, uint64_t, const fs::DeviceFacts&) { return sim::Status::Ok(); }

sim::Result<std::unique_ptr<MountedFs>> Mount(const sim::ImplConfigs& sections, const FsEnv& env) {
  return std::unique_ptr<MountedFs>(
      std::make_unique<MountedMemFs>(env.events, sections.Get<MemFsConfig>("memfs"), env.cpu, env.stats));
}

}  // namespace

const sim::Registrar<FileSystemKind> kRegistered{
    {"memfs", "in-memory reference model with fixed latencies, no device I/O", false,
     sim::ImplSection::Of<MemFsConfig>("memfs", "In-memory reference file system (fs.kind: memfs)"), &Validate,
     &Mount}};

}  // namespace fs
