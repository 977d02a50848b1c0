// FakeFlashArray: a FlashArray test double for FTL tests.
//
// Each die runs its commands one at a time in FIFO order, taking a fixed
// time per kind (no channel model, no planes in parallel). It enforces NAND
// rules and counts violations instead of crashing, so tests can assert on
// them:
//   - a program must target the next unprogrammed page of its block
//     (in-order programming, no overwrite without erase);
//   - a read must target a programmed page;
//   - an erase makes every page of the block programmable again.
// Rules are checked when a command starts executing on its die.
// Completions are delivered from per-die events at Priority::kCompletion.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/event_queue.h"
#include "flash/flash_array.h"

namespace fakes {

struct FakeFlashTiming {
  sim::SimTime read = sim::Us(50);
  sim::SimTime program = sim::Us(500);
  sim::SimTime erase = sim::Ms(3);
};

class FakeFlashArray final : public flash::FlashArray {
 public:
  using Timing = FakeFlashTiming;

  FakeFlashArray(const flash::Geometry& g, sim::EventQueue* queue, Timing t = Timing{})
      : geometry_(g), queue_(queue), timing_(t), dies_(g.dies()), next_page_(g.blocks(), 0) {
    for (uint32_t d = 0; d < dies_.size(); ++d) {
      dies_[d].array = this;
      dies_[d].id = d;
    }
  }
  ~FakeFlashArray() override {
    for (Die& d : dies_) {
      if (d.scheduled()) queue_->Deschedule(&d);
    }
  }

  const flash::Geometry& geometry() const override { return geometry_; }

  void Submit(flash::FlashCommand* cmd) override {
    CHECK(cmd->ppn.valid() && cmd->ppn.v < geometry_.pages()) << "ppn out of range";
    cmd->submit_time = queue_->now();
    cmd->next = nullptr;
    Die& d = dies_[geometry_.DieOfPpn(cmd->ppn)];
    if (d.tail == nullptr) {
      d.head = cmd;
    } else {
      d.tail->next = cmd;
    }
    d.tail = cmd;
    ++d.load;
    if (d.running == nullptr) Start(d);
  }

  uint32_t DieLoad(uint32_t die_id) const override { return dies_[die_id].load; }

  uint64_t violations() const { return violations_; }
  const std::string& first_violation() const { return first_violation_; }
  // Commands executed, by kind and source.
  uint64_t executed(flash::FlashOpKind k, flash::CmdSource s) const {
    return executed_[static_cast<int>(k)][static_cast<int>(s)];
  }
  // Pages of `block` programmed since its last erase.
  uint32_t programmed(uint64_t block) const { return next_page_[block]; }
  // Declares the first `pages` pages of `block` programmed and the rest
  // erased, e.g. to mirror state an FTL reached functionally (Precondition).
  void SetProgrammed(uint64_t block, uint32_t pages) {
    CHECK_LE(pages, geometry_.pages_per_block);
    next_page_[block] = pages;
  }

 private:
  struct Die final : sim::Event {
    Die() : sim::Event(sim::Priority::kCompletion) {}
    void Process() override { array->Finish(*this); }
    FakeFlashArray* array = nullptr;
    uint32_t id = 0;
    uint32_t load = 0;
    flash::FlashCommand* head = nullptr;
    flash::FlashCommand* tail = nullptr;
    flash::FlashCommand* running = nullptr;
  };

  void Violation(const std::string& what) {
    if (violations_++ == 0) first_violation_ = what;
  }

  void Start(Die& d) {
    flash::FlashCommand* c = d.head;
    d.head = c->next;
    if (d.head == nullptr) d.tail = nullptr;
    c->next = nullptr;
    d.running = c;
    c->start_time = queue_->now();
    const uint64_t block = geometry_.BlockOfPpn(c->ppn);
    const uint32_t page = geometry_.PageInBlock(c->ppn);
    sim::SimTime t;
    switch (c->kind) {
      case flash::FlashOpKind::kRead:
        if (page >= next_page_[block]) Violation("read of unprogrammed page " + std::to_string(c->ppn.v));
        t = timing_.read;
        break;
      case flash::FlashOpKind::kProgram:
        if (page != next_page_[block]) {
          Violation("program of page " + std::to_string(page) + " of block " + std::to_string(block) +
                    " but the next programmable page is " + std::to_string(next_page_[block]));
        }
        next_page_[block] = page + 1;
        t = timing_.program;
        break;
      case flash::FlashOpKind::kErase:
        next_page_[block] = 0;
        t = timing_.erase;
        break;
    }
    ++executed_[static_cast<int>(c->kind)][static_cast<int>(c->source)];
    queue_->ScheduleIn(&d, t);
  }

  void Finish(Die& d) {
    flash::FlashCommand* c = d.running;
    d.running = nullptr;
    --d.load;
    c->finish_time = queue_->now();
    if (d.head != nullptr) Start(d);
    c->client->OnFlashComplete(c);
  }

  flash::Geometry geometry_;
  sim::EventQueue* queue_;
  Timing timing_;
  std::vector<Die> dies_;
  std::vector<uint32_t> next_page_;  // per block
  uint64_t executed_[3][3] = {};
  uint64_t violations_ = 0;
  std::string first_violation_;
};

}  // namespace fakes
