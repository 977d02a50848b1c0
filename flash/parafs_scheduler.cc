// "parafs": per-channel read / write-erase time slices and the e = a·f + b·N_e
// choice between erases and programs (contract in parafs_scheduler.h).
#include "flash/parafs_scheduler.h"

#include <array>
#include <vector>

#include <glog/logging.h>

#include "flash/die_scheduler.h"
#include "flash/flash_config.h"
#include "sim/registry.h"

namespace flash {

void ParafsSchedulerConfig::Describe(sim::Schema<ParafsSchedulerConfig>& s) {
  // The slides give no slice lengths. 1 ms each: equal time shares, the
  // neutral choice when the paper is silent; at the default timings
  // (tR 75 us + 8 KiB at 333 MB/s ~ 100 us, tPROG 750 us) a read slice
  // serves ~10 reads per die and a write slice at least one program per die
  // (an operation that starts inside a slice runs to its end).
  s.Param("read_slice", &ParafsSchedulerConfig::read_slice, "1ms",
          "Length of a channel's read slice (reads queued at its dies go first)")
      .Range(1, 1e12);
  s.Param("write_slice", &ParafsSchedulerConfig::write_slice, "1ms",
          "Length of a channel's write/erase slice (programs and erases go first)")
      .Range(1, 1e12);
  // Seed 002: "e = a×f + b×N_e; in implementation 1 ≈ 2×f + 1×N_e".
  s.Param("a", &ParafsSchedulerConfig::a, "2",
          "Weight of the channel's free-space fraction f in e = a*f + b*N_e (ParaFS slides: 2)")
      .Range(0, 1e6);
  s.Param("b", &ParafsSchedulerConfig::b, "1",
          "Weight of the fraction of channels erasing now, N_e, in e = a*f + b*N_e (ParaFS slides: 1)")
      .Range(0, 1e6);
  s.Param("threshold", &ParafsSchedulerConfig::threshold, "1",
          "An erase goes ahead of queued programs while e < threshold (ParaFS slides: 1)")
      .Range(0, 1e6);
}

namespace {

class ParafsDieScheduler final : public DieScheduler {
 public:
  explicit ParafsDieScheduler(const DieSchedulerContext& ctx)
      : geometry_(*ctx.geometry),
        host_(ctx.host),
        cfg_(ctx.config->scheduler_configs.Get<ParafsSchedulerConfig>("parafs")),
        dies_(ctx.geometry->dies()),
        channels_(ctx.geometry->channels) {
    slice_len_[kRead] = cfg_.read_slice;
    slice_len_[kWrite] = cfg_.write_slice;
    // Every channel starts in a read slice at time zero.
    for (ChannelState& c : channels_) c.slice_end = slice_len_[kRead];
  }

  void Enqueue(uint32_t die, FlashCommand* cmd) override {
    Queues& q = dies_[die];
    switch (cmd->kind) {
      case FlashOpKind::kRead:
        q.reads.PushBack(cmd);
        break;
      case FlashOpKind::kProgram:
        q.programs.PushBack(cmd);
        break;
      case FlashOpKind::kErase:
        q.erases.PushBack(cmd);
        break;
    }
    ++channels_[geometry_.ChannelOfDie(die)].queued[ClassOf(cmd->kind)];
  }

  FlashCommand* Next(uint32_t die, PickSlot slot) override {
    Queues& q = dies_[die];
    const uint32_t ch = geometry_.ChannelOfDie(die);
    switch (slot) {
      case PickSlot::kIdle: {
        const Class first = AdvanceSlice(ch);
        FlashCommand* c = first == kRead ? q.reads.PopFront() : PopWriteOrErase(q, ch);
        if (c == nullptr) c = first == kRead ? PopWriteOrErase(q, ch) : q.reads.PopFront();
        if (c != nullptr) --channels_[ch].queued[ClassOf(c->kind)];
        return c;
      }
      case PickSlot::kCacheProgram: {
        if (q.programs.empty()) return nullptr;
        const Class first = AdvanceSlice(ch);
        if (first == kRead && !q.reads.empty()) return nullptr;
        if (!q.erases.empty() && EraseFirst(ch)) return nullptr;
        --channels_[ch].queued[kWrite];
        return q.programs.PopFront();
      }
      case PickSlot::kSuspended: {
        FlashCommand* c = q.reads.PopFront();
        if (c != nullptr) --channels_[ch].queued[kRead];
        return c;
      }
    }
    return nullptr;
  }

  FlashCommand* TakePartner(uint32_t die, const FlashCommand& lead, const PartnerRule& rule) override {
    Queues& q = dies_[die];
    CommandList* l = &q.reads;
    if (lead.kind == FlashOpKind::kProgram) l = &q.programs;
    if (lead.kind == FlashOpKind::kErase) l = &q.erases;
    FlashCommand* c = l->TakePartner(lead, rule);
    if (c != nullptr) --channels_[geometry_.ChannelOfDie(die)].queued[ClassOf(c->kind)];
    return c;
  }

  bool ShouldSuspend(uint32_t die, FlashOpKind running) override {
    if (dies_[die].reads.empty()) return false;
    return AdvanceSlice(geometry_.ChannelOfDie(die)) == kRead;
  }

  uint32_t Queued(uint32_t die) const override {
    const Queues& q = dies_[die];
    return q.reads.size() + q.programs.size() + q.erases.size();
  }

 private:
  enum Class { kRead = 0, kWrite = 1 };  // kWrite: programs and erases
  struct Queues {
    CommandList reads, programs, erases;
  };
  struct ChannelState {
    Class slice = kRead;
    sim::SimTime slice_end;                // the first pick at or after it ends the slice
    std::array<uint32_t, 2> queued{0, 0};  // commands queued at the channel's dies, per class
  };

  static Class ClassOf(FlashOpKind k) { return k == FlashOpKind::kRead ? kRead : kWrite; }

  // Ends the channel's slice if it expired or its class has nothing queued,
  // and returns the class that goes first now.
  Class AdvanceSlice(uint32_t ch) {
    ChannelState& s = channels_[ch];
    const sim::SimTime now = host_->Now();
    const Class other = s.slice == kRead ? kWrite : kRead;
    const bool expired = now >= s.slice_end;
    if ((expired || s.queued[s.slice] == 0) && s.queued[other] > 0) {
      s.slice = other;
      s.slice_end = now + slice_len_[other];
    } else if (expired) {
      // Nothing of the other class to alternate with: a fresh slice of this one.
      s.slice_end = now + slice_len_[s.slice];
    }
    return s.slice;
  }

  // e = a·f + b·N_e (see parafs_scheduler.h): true puts an erase first.
  bool EraseFirst(uint32_t ch) const {
    const double f = 1.0 - host_->ChannelBlocksInUse(ch);
    const double n_e = static_cast<double>(host_->ChannelsErasing()) / geometry_.channels;
    return cfg_.a * f + cfg_.b * n_e < cfg_.threshold;
  }

  FlashCommand* PopWriteOrErase(Queues& q, uint32_t ch) const {
    if (q.erases.empty()) return q.programs.PopFront();
    if (q.programs.empty() || EraseFirst(ch)) return q.erases.PopFront();
    return q.programs.PopFront();
  }

  const Geometry& geometry_;
  DieSchedulerHost* host_;
  const ParafsSchedulerConfig cfg_;
  std::array<sim::SimTime, 2> slice_len_;
  std::vector<Queues> dies_;
  std::vector<ChannelState> channels_;
};

}  // namespace

static std::unique_ptr<DieScheduler> MakeParafsDieScheduler(const DieSchedulerContext& ctx) {
  return std::make_unique<ParafsDieScheduler>(ctx);
}

const sim::Registrar<DieSchedulerInfo> kRegistered{
    {"parafs", "ParaFS: per-channel read and write/erase time slices; erase before writes while a*f + b*N_e < threshold",
     &MakeParafsDieScheduler,
     sim::ImplSection::Of<ParafsSchedulerConfig>("parafs", "ParaFS scheduler: time slices and erase-vs-write weights")}};

}  // namespace flash
