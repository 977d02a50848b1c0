// "read_priority": per die, four FIFO classes served in strict priority:
//   0. foreground reads (source host or meta: on a host request's path)
//   1. other reads (GC)
//   2. programs (all sources, in submission order, which keeps the page
//      order within each block)
//   3. erases
// A queued foreground read makes the die suspend a running program/erase
// when the configuration enables suspension for that kind; during the
// suspension only foreground reads run. While reads are queued, no program
// is loaded into the cache register (it would run before them).
#include <array>
#include <vector>

#include "flash/die_scheduler.h"
#include "sim/registry.h"

namespace flash {
namespace {

class ReadPriorityDieScheduler final : public DieScheduler {
 public:
  explicit ReadPriorityDieScheduler(const DieSchedulerContext& ctx) : queues_(ctx.geometry->dies()) {}

  void Enqueue(uint32_t die, FlashCommand* cmd) override {
    queues_[die][ClassOf(*cmd)].PushBack(cmd);
  }

  FlashCommand* Next(uint32_t die, PickSlot slot) override {
    Classes& q = queues_[die];
    switch (slot) {
      case PickSlot::kIdle:
        for (CommandList& l : q) {
          if (!l.empty()) return l.PopFront();
        }
        return nullptr;
      case PickSlot::kCacheProgram:
        if (!q[kForegroundRead].empty() || !q[kOtherRead].empty()) return nullptr;
        return q[kProgram].PopFront();
      case PickSlot::kSuspended:
        return q[kForegroundRead].PopFront();
    }
    return nullptr;
  }

  FlashCommand* TakePartner(uint32_t die, const FlashCommand& lead, const PartnerRule& rule) override {
    Classes& q = queues_[die];
    if (lead.kind == FlashOpKind::kRead) {
      // Prefer partners of the lead's class; a foreground read may also
      // carry a GC read along (it costs no extra tR).
      const int first = ClassOf(lead);
      if (FlashCommand* c = q[first].TakePartner(lead, rule)) return c;
      if (first == kForegroundRead) return q[kOtherRead].TakePartner(lead, rule);
      return nullptr;
    }
    return q[ClassOf(lead)].TakePartner(lead, rule);
  }

  bool ShouldSuspend(uint32_t die, FlashOpKind running) override {
    return !queues_[die][kForegroundRead].empty();
  }

  uint32_t Queued(uint32_t die) const override {
    uint32_t n = 0;
    for (const CommandList& l : queues_[die]) n += l.size();
    return n;
  }

 private:
  enum Class { kForegroundRead = 0, kOtherRead = 1, kProgram = 2, kErase = 3, kClasses = 4 };
  using Classes = std::array<CommandList, kClasses>;

  static int ClassOf(const FlashCommand& c) {
    switch (c.kind) {
      case FlashOpKind::kRead:
        return c.source == CmdSource::kGc ? kOtherRead : kForegroundRead;
      case FlashOpKind::kProgram:
        return kProgram;
      case FlashOpKind::kErase:
        return kErase;
    }
    return kErase;
  }

  std::vector<Classes> queues_;
};

}  // namespace

static std::unique_ptr<DieScheduler> MakeReadPriorityDieScheduler(const DieSchedulerContext& ctx) {
  return std::make_unique<ReadPriorityDieScheduler>(ctx);
}

const sim::Registrar<DieSchedulerInfo> kRegistered{{"read_priority", "reads first; program/erase suspend for waiting reads", &MakeReadPriorityDieScheduler}};

}  // namespace flash
