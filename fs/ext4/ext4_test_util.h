// Test harness of the ext4 model: event queue + fake device + image + file
// system, with clean remounts and power cuts.
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "fs/ext4/ext4.h"
#include "sim/rng.h"
#include "sim/stats.h"
#include "tests/fakes/fixed_latency_device.h"
#include "tests/fakes/run_task.h"

namespace fs::ext4::testing {

using fakes::RunTask;

inline Ext4Config TestConfig() {
  Ext4Config c = sim::MakeDefault<Ext4Config>();
  c.page_cache.memory = sim::MiB(64);
  return c;
}

class Stack {
 public:
  explicit Stack(uint64_t bytes = 256ull << 20, Ext4Config cfg = TestConfig()) : cfg_(std::move(cfg)) {
    dcfg_.capacity = bytes;
    image_ = std::make_unique<Image>(bytes / kBlockSize);
    NewDevice();
  }
  ~Stack() { Teardown(); }

  sim::EventQueue& q() { return *q_; }
  Image& image() { return *image_; }
  Ext4& fs() { return *fs_; }
  Ext4* fs_ptr() { return fs_.get(); }
  Ext4Config& cfg() { return cfg_; }
  sim::StatsRegistry& stats() { return *stats_; }
  fakes::FixedLatencyDevice& device() { return *dev_; }
  // Before the first mount: the device keeps a log of its write requests.
  void LogWrites() {
    dcfg_.log_writes = true;
    NewDevice();
  }

  void Format() {
    sim::Status st = Ext4::Format(cfg_, dcfg_.capacity, image_.get());
    CHECK(st.ok()) << st.message();
  }
  sim::Status Mount() {
    Ext4::Env env;
    env.events = q_.get();
    env.device = dev_.get();
    env.image = image_.get();
    env.stats = stats_->Root().Group("fs");
    auto r = RunTask(*q_, Ext4::Mount(cfg_, env));
    if (!r.ok()) return r.status();
    fs_ = std::move(r).value();
    return sim::Status::Ok();
  }
  void FormatAndMount() {
    Format();
    sim::Status st = Mount();
    CHECK(st.ok()) << st.message();
  }
  void Remount() {
    RunTask(*q_, fs_->Unmount());
    Teardown();
    NewDevice();
    sim::Status st = Mount();
    CHECK(st.ok()) << st.message();
  }
  void PowerCut(const std::function<bool(BlockNo, bool)>& keep) {
    if (fs_) fs_->Kill();
    q_->Clear();
    fs_.reset();
    image_->PowerCut(keep);
    Teardown();
    NewDevice();
  }
  // Keeps each volatile write at random (completed ones with a probability
  // drawn in [0, 1), those in flight with one in [0, 0.5)).
  void RandomPowerCut(sim::Rng& rng) {
    const double keep_done = rng.UniformDouble(), keep_inflight = rng.UniformDouble() * 0.5;
    PowerCut([&](BlockNo, bool completed) { return rng.Bernoulli(completed ? keep_done : keep_inflight); });
  }
  void Teardown() {
    if (fs_) fs_->Kill();
    if (q_) q_->Clear();
    fs_.reset();
    dev_.reset();
  }
  template <class T>
  T Run(sim::Task<T> t) {
    return RunTask(*q_, std::move(t));
  }
  void Run(sim::Task<void> t) { RunTask(*q_, std::move(t)); }
  void ExpectCheck() {
    sim::Status st = fs_->Check();
    ASSERT_TRUE(st.ok()) << st.message();
  }

 private:
  void NewDevice() {
    q_ = std::make_unique<sim::EventQueue>();
    stats_ = std::make_unique<sim::StatsRegistry>();
    dev_ = std::make_unique<fakes::FixedLatencyDevice>(q_.get(), dcfg_);
  }
  Ext4Config cfg_;
  fakes::FixedLatencyDeviceConfig dcfg_;
  std::unique_ptr<Image> image_;
  std::unique_ptr<sim::EventQueue> q_;
  std::unique_ptr<sim::StatsRegistry> stats_;
  std::unique_ptr<fakes::FixedLatencyDevice> dev_;
  std::unique_ptr<Ext4> fs_;
};

inline std::vector<uint8_t> Pattern(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    v[i] = static_cast<uint8_t>(x >> 24);
  }
  return v;
}

}  // namespace fs::ext4::testing
