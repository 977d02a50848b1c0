// "fifo": each die executes its commands in submission order. Multi-plane
// partners may be pulled forward from later in the queue; nothing else is
// reordered, and nothing is suspended.
#include <vector>

#include "flash/die_scheduler.h"
#include "sim/registry.h"

namespace flash {
namespace {

class FifoDieScheduler final : public DieScheduler {
 public:
  explicit FifoDieScheduler(const DieSchedulerContext& ctx) : queues_(ctx.geometry->dies()) {}

  void Enqueue(uint32_t die, FlashCommand* cmd) override { queues_[die].PushBack(cmd); }

  FlashCommand* Next(uint32_t die, PickSlot slot) override {
    CommandList& q = queues_[die];
    if (q.empty()) return nullptr;
    switch (slot) {
      case PickSlot::kIdle:
        return q.PopFront();
      case PickSlot::kCacheProgram:
        // Only the head may go next, and only a program can use the cache register.
        return q.front()->kind == FlashOpKind::kProgram ? q.PopFront() : nullptr;
      case PickSlot::kSuspended:
        return nullptr;
    }
    return nullptr;
  }

  FlashCommand* TakePartner(uint32_t die, const FlashCommand& lead, const PartnerRule& rule) override {
    return queues_[die].TakePartner(lead, rule);
  }

  bool ShouldSuspend(uint32_t die, FlashOpKind running) override { return false; }

  uint32_t Queued(uint32_t die) const override { return queues_[die].size(); }

 private:
  std::vector<CommandList> queues_;
};

}  // namespace

static std::unique_ptr<DieScheduler> MakeFifoDieScheduler(const DieSchedulerContext& ctx) {
  return std::make_unique<FifoDieScheduler>(ctx);
}

const sim::Registrar<DieSchedulerInfo> kRegistered{{"fifo", "commands in arrival order per die", &MakeFifoDieScheduler}};

}  // namespace flash
