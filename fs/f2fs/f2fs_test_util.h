// Test helpers for the F2FS model: a small stack (event queue, fixed-latency
// device, flash image, file system) and a way to run a coroutine to its end.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fs/f2fs/channel_placement.h"
#include "fs/f2fs/f2fs.h"
#include "tests/fakes/run_task.h"
#include "fs/f2fs/f2fs_config.h"
#include "tests/fakes/fixed_latency_device.h"
#include "fs/f2fs/image.h"
#include "fs/f2fs/journal.h"
#include "sim/config.h"
#include "sim/event_queue.h"
#include "sim/rng.h"
#include "sim/stats.h"
#include "sim/task.h"

namespace fs::f2fs::testing {

inline F2fsConfig TestConfig() {
  F2fsConfig c = sim::MakeDefault<F2fsConfig>();
  c.page_cache.memory = sim::MiB(64);
  return c;
}

// ChannelRoundRobinPlacement that reports the fake device's write pointers
// (FixedPlacement::WrittenPages) once a Stack has attached its flash-block
// state.
class RoundRobinPlacement final : public ssd::FixedPlacement {
 public:
  RoundRobinPlacement(uint32_t channels, uint64_t fixed_from) : base_(channels, fixed_from) {}
  uint64_t logical_blocks() const override { return base_.logical_blocks(); }
  uint64_t fixed_from() const override { return base_.fixed_from(); }
  ssd::FlashPlace PlaceOf(uint64_t b) const override { return base_.PlaceOf(b); }
  int64_t WrittenPages(uint64_t b) const override {
    if (!blocks_) return -1;
    auto it = blocks_->write_pointer.find(b);
    return it == blocks_->write_pointer.end() ? 0 : static_cast<int64_t>(it->second / page_size_);
  }
  void Attach(const fakes::SequentialBlocks* blocks, uint32_t page_size) const {
    blocks_ = blocks;
    page_size_ = page_size;
  }

 private:
  ChannelRoundRobinPlacement base_;
  mutable const fakes::SequentialBlocks* blocks_ = nullptr;
  mutable uint32_t page_size_ = 1;
};

using fakes::RunTask;

// Event queue + device + image + file system.
class Stack {
 public:
  // `device_layout`: what the device reports as its flash layout (e.g. a
  // fixed placement for ParaFS); its `fixed` must outlive the Stack.
  explicit Stack(uint64_t bytes = 256ull << 20, F2fsConfig cfg = TestConfig(),
                 const ssd::DeviceLayout& device_layout = {})
      : cfg_(std::move(cfg)) {
    dcfg_.capacity = bytes;
    dcfg_.layout = device_layout;
    dcfg_.log_writes = true;
    if (device_layout.fixed) dcfg_.sequential = &sequential_;
    if (const auto* p = dynamic_cast<const RoundRobinPlacement*>(device_layout.fixed))
      p->Attach(&sequential_, device_layout.page_size);
    image_ = std::make_unique<Image>(bytes / kBlockSize);
    NewDevice();
  }
  ~Stack() { Teardown(); }

  sim::EventQueue& q() { return *q_; }
  Image& image() { return *image_; }
  F2fs& fs() { return *fs_; }
  F2fs* fs_ptr() { return fs_.get(); }
  F2fsConfig& cfg() { return cfg_; }
  sim::StatsRegistry& stats() { return *stats_; }
  fakes::FixedLatencyDevice& device() { return *dev_; }
  // On a device of fixed placement: the flash blocks' write discipline,
  // checked from the start of the main area once formatted.
  const fakes::SequentialBlocks& sequential() const { return sequential_; }

  void Format() {
    sim::Status st = TryFormat();
    CHECK(st.ok()) << st.message();
  }
  sim::Status TryFormat() {
    sim::Status st = F2fs::Format(cfg_, dcfg_.capacity, image_.get(), &dcfg_.layout);
    if (st.ok()) {
      const BlockPtr& p = image_->Read(BlockAddr{0});
      CHECK(p && p->type == BlockData::Type::kSuper);
      const auto* sb = static_cast<const SuperBlock*>(p.get());
      const Layout l = ComputeLayout(LayoutParamsOf(*sb)).value();
      sequential_.from = uint64_t{l.main_blkaddr} * kBlockSize;
      // What mkfs wrote into the main area (the root directory) was
      // programmed in order from its blocks' starts.
      const uint64_t block_bytes = uint64_t{dcfg_.layout.page_size} * dcfg_.layout.pages_per_block;
      for (uint32_t b = l.main_blkaddr; b < l.main_blkaddr + l.main_blocks() && block_bytes > 0; ++b) {
        if (!image_->Read(BlockAddr{b})) continue;
        const uint64_t byte = uint64_t{b} * kBlockSize;
        uint64_t& wp = sequential_.write_pointer[byte / block_bytes];
        wp = std::max(wp, byte % block_bytes + kBlockSize);
      }
    }
    return st;
  }
  sim::Status Mount() {
    F2fs::Env env;
    env.events = q_.get();
    env.device = dev_.get();
    env.image = image_.get();
    env.stats = stats_->Root().Group("fs");
    auto r = RunTask(*q_, F2fs::Mount(cfg_, env));
    if (!r.ok()) return r.status();
    fs_ = std::move(r).value();
    return sim::Status::Ok();
  }
  void FormatAndMount() {
    Format();
    sim::Status st = Mount();
    CHECK(st.ok()) << st.message();
  }
  // Clean unmount, then a new instance on the same image.
  void Remount() {
    RunTask(*q_, fs_->Unmount());
    Teardown();
    NewDevice();
    sim::Status st = Mount();
    CHECK(st.ok()) << st.message();
  }
  // Power cut: volatile writes survive per `keep`; Mount() may follow.
  void PowerCut(const std::function<bool(BlockAddr, bool)>& keep) {
    if (fs_) fs_->PowerCut();
    q_->Clear();
    fs_.reset();
    image_->PowerCut(keep);
    Teardown();
    NewDevice();
  }
  // A power cut that keeps each volatile write at random: completed ones
  // with a probability drawn from `rng` in [0, 1), those in flight with one
  // in [0, 0.5). Returns the addresses of the writes lost.
  std::set<uint32_t> RandomPowerCut(sim::Rng& rng) {
    const double keep_done = rng.UniformDouble(), keep_inflight = rng.UniformDouble() * 0.5;
    std::set<uint32_t> lost;
    PowerCut([&](BlockAddr a, bool completed) {
      const bool keep = rng.Bernoulli(completed ? keep_done : keep_inflight);
      if (!keep) lost.insert(a.v);
      return keep;
    });
    return lost;
  }
  void Teardown() {
    if (fs_) fs_->PowerCut();
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
  F2fsConfig cfg_;
  fakes::FixedLatencyDeviceConfig dcfg_;
  fakes::SequentialBlocks sequential_;
  std::unique_ptr<Image> image_;
  std::unique_ptr<sim::EventQueue> q_;
  std::unique_ptr<sim::StatsRegistry> stats_;
  std::unique_ptr<fakes::FixedLatencyDevice> dev_;
  std::unique_ptr<F2fs> fs_;
};


// A ballast over `percent` % of the user blocks, half of it then deleted in
// interleaved runs of 16 blocks: the segments are half valid, so background
// and foreground cleaning have work while a test runs. O_DIRECT: each run
// takes its blocks when written, so the two files' runs alternate in every
// segment.
inline void FillHalfValidBallast(Stack& s, uint64_t percent) {
  FsResult<Fd> a = s.Run(s.fs().Open("/ballast_a", kCreat | kRdWr | kDirect));
  FsResult<Fd> b = s.Run(s.fs().Open("/ballast_b", kCreat | kRdWr | kDirect));
  CHECK(a.ok() && b.ok());
  const uint64_t run = 16 * kBlockSize;
  const uint64_t half = s.fs().layout().user_block_count * kBlockSize * percent / 200;
  for (uint64_t off = 0; off < half; off += run) {
    CHECK(s.Run(s.fs().Pwrite(a.value, off, {}, run)).ok());
    CHECK(s.Run(s.fs().Pwrite(b.value, off, {}, run)).ok());
  }
  CHECK(s.Run(s.fs().Sync()).ok());
  s.Run(s.fs().Close(a.value));
  s.Run(s.fs().Close(b.value));
  CHECK(s.Run(s.fs().Unlink("/ballast_b")).ok());
  CHECK(s.Run(s.fs().Sync()).ok());
}

// The 2 MiB flash blocks before the main area of an F2FS volume of `bytes`
// formatted with `cfg` (its metadata area, updated in place).
inline uint64_t MetaFlashBlocks(uint64_t bytes, const F2fsConfig& cfg) {
  LayoutParams p{bytes, cfg.mkfs.segs_per_sec, cfg.mkfs.secs_per_zone, cfg.mkfs.overprovision};
  if (cfg.durability == "journal") {
    p.journal_blocks = static_cast<uint32_t>(JournalAreaBlocks(cfg));
    p.journal_at_head = true;  // as Format puts it on a device of fixed placement
  }
  const Layout l = ComputeLayout(p).value();
  return uint64_t{l.main_blkaddr} * kBlockSize / (2u << 20);
}

// The layout of a device of `channels` channels, 2 MiB flash blocks of
// `page_size` pages, placed by `placement`.
inline ssd::DeviceLayout FixedLayout(uint32_t channels, uint32_t page_size, const ssd::FixedPlacement* placement) {
  ssd::DeviceLayout d;
  d.channels = channels;
  d.page_size = page_size;
  d.pages_per_block = (2u << 20) / page_size;
  d.fixed = placement;
  return d;
}

inline std::vector<uint8_t> Pattern(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    v[i] = static_cast<uint8_t>(x >> 24);
  }
  return v;
}

}  // namespace fs::f2fs::testing
