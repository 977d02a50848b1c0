// DirectFtl: a trivial FTL for tests and benchmarks of the host interface.
// Logical page L always lives at the same physical page (no GC, no
// remapping): pages are striped over planes/channels/dies, then fill pages
// in order. Reads of never-written (or trimmed) pages complete without
// flash access, from an event at the same time.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "ftl/ftl.h"
#include "sim/event_queue.h"
#include "flash/flash_array.h"

namespace fakes {

class DirectFtl final : public ftl::Ftl, private flash::FlashClient {
 public:
  // Stripe order: plane fastest (plane_first) or channel fastest, then die.
  DirectFtl(sim::EventQueue* events, flash::FlashArray* array, bool plane_first = false)
      : events_(events), array_(array), geo_(array->geometry()), plane_first_(plane_first),
        mapped_(geo_.pages(), 0) {}
  ~DirectFtl() override {
    if (immediate_event_.scheduled()) events_->Deschedule(&immediate_event_);
  }

  uint64_t logical_pages() const override { return geo_.pages(); }

  void Submit(ftl::FtlOp* op) override {
    op->submit_time = events_->now();
    if (op->kind == ftl::FtlOp::Kind::kRead && !mapped_[op->lpn.v]) {
      ++unmapped_reads;
      op->next = nullptr;
      if (imm_tail_ == nullptr) {
        imm_head_ = imm_tail_ = op;
      } else {
        imm_tail_->next = op;
        imm_tail_ = op;
      }
      if (!immediate_event_.scheduled()) events_->Schedule(&immediate_event_, events_->now());
      return;
    }
    if (op->kind == ftl::FtlOp::Kind::kWrite) {
      mapped_[op->lpn.v] = 1;
      ++writes;
      write_temperatures.push_back(op->temperature);
    } else {
      ++reads;
    }
    flash::FlashCommand* c = AllocCmd();
    c->kind = op->kind == ftl::FtlOp::Kind::kRead ? flash::FlashOpKind::kRead : flash::FlashOpKind::kProgram;
    c->source = flash::CmdSource::kHost;
    c->ppn = Map(op->lpn.v);
    c->client = this;
    c->tag = reinterpret_cast<uintptr_t>(op);
    array_->Submit(c);
  }

  void Trim(ftl::Lpn first, uint64_t count) override {
    trims.emplace_back(first.v, count);
    for (uint64_t l = first.v; l < first.v + count; ++l) mapped_[l] = 0;
  }

  void Precondition(const ftl::PreconditionSpec& spec) override {
    const uint64_t n = static_cast<uint64_t>(spec.fill_fraction * static_cast<double>(geo_.pages()));
    for (uint64_t l = 0; l < n; ++l) mapped_[l] = 1;
  }

  flash::Ppn Map(uint64_t lpn) const {
    const uint64_t planes = geo_.planes();
    const uint64_t s = lpn % planes;
    const uint64_t k = lpn / planes;  // page index within its plane
    const uint32_t dies_per_channel = geo_.chips_per_channel * geo_.dies_per_chip;
    flash::FlashAddr a;
    uint64_t die_in_channel;
    if (plane_first_) {
      a.plane = static_cast<uint32_t>(s % geo_.planes_per_die);
      const uint64_t r = s / geo_.planes_per_die;
      a.channel = static_cast<uint32_t>(r % geo_.channels);
      die_in_channel = r / geo_.channels;
    } else {
      a.channel = static_cast<uint32_t>(s % geo_.channels);
      const uint64_t r = s / geo_.channels;
      die_in_channel = r % dies_per_channel;
      a.plane = static_cast<uint32_t>(r / dies_per_channel);
    }
    a.chip = static_cast<uint32_t>(die_in_channel / geo_.dies_per_chip);
    a.die = static_cast<uint32_t>(die_in_channel % geo_.dies_per_chip);
    a.block = static_cast<uint32_t>(k / geo_.pages_per_block);
    a.page = static_cast<uint32_t>(k % geo_.pages_per_block);
    return geo_.ToPpn(a);
  }

  uint64_t reads = 0, writes = 0, unmapped_reads = 0;
  std::vector<ftl::Temperature> write_temperatures;  // the hint of each write, in order
  std::vector<std::pair<uint64_t, uint64_t>> trims;

 private:
  void OnFlashComplete(flash::FlashCommand* c) override {
    ftl::FtlOp* op = reinterpret_cast<ftl::FtlOp*>(c->tag);
    c->next = free_;
    free_ = c;
    op->finish_time = events_->now();
    op->client->OnFtlDone(op);
  }
  void OnImmediate() {
    while (imm_head_ != nullptr) {
      ftl::FtlOp* op = imm_head_;
      imm_head_ = op->next;
      if (imm_head_ == nullptr) imm_tail_ = nullptr;
      op->next = nullptr;
      op->finish_time = events_->now();
      op->client->OnFtlDone(op);
    }
  }
  flash::FlashCommand* AllocCmd() {
    if (free_ == nullptr) {
      chunks_.push_back(std::make_unique<flash::FlashCommand[]>(256));
      for (int i = 0; i < 256; ++i) {
        chunks_.back()[i].next = free_;
        free_ = &chunks_.back()[i];
      }
    }
    flash::FlashCommand* c = free_;
    free_ = c->next;
    c->next = nullptr;
    return c;
  }

  sim::EventQueue* events_;
  flash::FlashArray* array_;
  const flash::Geometry geo_;
  bool plane_first_;
  std::vector<uint8_t> mapped_;
  std::vector<std::unique_ptr<flash::FlashCommand[]>> chunks_;
  flash::FlashCommand* free_ = nullptr;
  ftl::FtlOp* imm_head_ = nullptr;
  ftl::FtlOp* imm_tail_ = nullptr;
  sim::MemberEvent<DirectFtl, &DirectFtl::OnImmediate> immediate_event_{this};
};

}  // namespace fakes
