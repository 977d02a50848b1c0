#include "flash/die_scheduler.h"

#include <fmt/format.h>
#include <glog/logging.h>

#include "sim/registry.h"

namespace flash {

void CommandList::PushBack(FlashCommand* c) {
  c->next = nullptr;
  if (tail_ == nullptr) {
    head_ = tail_ = c;
  } else {
    tail_->next = c;
    tail_ = c;
  }
  ++size_;
}

FlashCommand* CommandList::PopFront() {
  FlashCommand* c = head_;
  if (c == nullptr) return nullptr;
  head_ = c->next;
  if (head_ == nullptr) tail_ = nullptr;
  c->next = nullptr;
  --size_;
  return c;
}

FlashCommand* CommandList::TakePartner(const FlashCommand& lead, const PartnerRule& rule) {
  // Planes that already have an earlier queued program: a later program to
  // the same plane must not overtake it (pages of a block are programmed in
  // order).
  uint32_t blocked_planes = 0;
  FlashCommand* prev = nullptr;
  uint32_t seen = 0;
  for (FlashCommand* c = head_; c != nullptr && seen < rule.scan; prev = c, c = c->next, ++seen) {
    const uint32_t bit = 1u << c->addr.plane;
    const bool program = c->kind == FlashOpKind::kProgram;
    if (rule.Matches(lead, *c) && !(program && (blocked_planes & bit))) {
      if (prev == nullptr) {
        head_ = c->next;
      } else {
        prev->next = c->next;
      }
      if (tail_ == c) tail_ = prev;
      c->next = nullptr;
      --size_;
      return c;
    }
    if (program) {
      blocked_planes |= bit;
      // Only a program on a plane neither taken nor blocked could still
      // match a program lead.
      if (lead.kind == FlashOpKind::kProgram && rule.die_planes != 0 &&
          ((rule.taken_planes | blocked_planes) & rule.die_planes) == rule.die_planes) {
        break;
      }
    }
  }
  return nullptr;
}

const std::vector<std::string>& DieSchedulerNames() {
  static const std::vector<std::string>* names =
      new std::vector<std::string>(sim::Registry<DieSchedulerInfo>::Get().Names());
  return *names;
}

std::vector<sim::ImplSection> DieSchedulerSections() {
  std::vector<sim::ImplSection> out;
  for (const DieSchedulerInfo* info : sim::Registry<DieSchedulerInfo>::Get().entries()) {
    if (info->config.schema) out.push_back(info->config);
  }
  return out;
}

sim::Result<std::unique_ptr<DieScheduler>> MakeDieScheduler(const std::string& name,
                                                            const DieSchedulerContext& ctx) {
  FS_ASSIGN_OR_RETURN(const DieSchedulerInfo* info, sim::Registry<DieSchedulerInfo>::Get().Lookup(name, "die scheduler"));
  return info->make(ctx);
}

}  // namespace flash
