// Helpers shared by the fs_replay tests.
#pragma once

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tests/fakes/fake_block_device.h"
#include "host/replay/trace_replayer.h"
#include "sim/config.h"
#include "sim/event_queue.h"
#include "sim/stats.h"

namespace host::testing {

inline std::string SharedTracePath(const std::string& rel) {
  return std::string(FLASHSTACK_SHARED_DIR) + "/traces/" + rel;
}

// One MQSim/DiskSim trace line: time in ns, device, 512-byte sectors.
inline std::string MqLine(int64_t time_ns, uint32_t device, uint64_t sector, uint64_t sectors, bool read) {
  return fmt::format("{} {} {} {} {}\n", time_ns, device, sector, sectors, read ? 1 : 0);
}

// A config for an in-memory MQSim trace.
inline TraceReplayConfig MqConfig() {
  TraceReplayConfig c = sim::MakeDefault<TraceReplayConfig>();
  c.path = "mem";
  c.reader.format = "mqsim";
  return c;
}

// A fresh directory under the test temp dir, removed by the destructor.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string("fs_replay_") + info->test_suite_name() + "_" + info->name();
    for (char& c : name) {
      if (c == '/') c = '_';
    }
    path_ = std::filesystem::path(::testing::TempDir()) / name;
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }
  std::string Write(const std::string& name, const std::string& content) const {
    const std::string p = (path_ / name).string();
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }

 private:
  std::filesystem::path path_;
};

// An event queue, a stats registry and a fake device for one replay.
class ReplayBench {
 public:
  explicit ReplayBench(uint64_t capacity = uint64_t{1} << 30, uint32_t sector_size = 512, uint32_t io_unit = 4096,
                       sim::SimTime latency = sim::Us(10))
      : device(&queue, capacity, sector_size, io_unit, latency) {}

  TraceReplayer::Env MakeEnv(uint32_t device_queues = 1) {
    return TraceReplayer::Env{&queue, &device, stats.Root().Group("replay"), 1, device_queues};
  }
  sim::Result<std::unique_ptr<TraceReplayer>> FromMemory(const TraceReplayConfig& cfg, const std::string& data,
                                                         uint32_t device_queues = 1) {
    data_ = data;
    return TraceReplayer::CreateFromMemory(cfg, MakeEnv(device_queues), "mem", data_);
  }
  // Starts the replay and runs the queue dry.
  void Run(TraceReplayer* r) {
    r->Start();
    queue.Run();
  }

  sim::EventQueue queue;
  sim::StatsRegistry stats;
  fakes::FakeBlockDevice device;

 private:
  std::string data_;
};

}  // namespace host::testing
