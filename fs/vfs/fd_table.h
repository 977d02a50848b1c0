// FdTable: the descriptor table every file system model shares. A
// descriptor is the lowest free number from kFirstFd on (POSIX: open(2)
// returns the lowest-numbered descriptor not open; 0-2 are the process's
// standard streams, which the models do not serve). `T` is the model's
// per-open-file state (inode, position, flags).
//
// Contract: Open() returns the lowest free descriptor and stores `state`
// under it; Get() returns the state of an open descriptor and nullptr for
// any other number (negative, below kFirstFd, closed, never opened);
// Close() frees an open descriptor and returns false for any other.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "fs/file_system.h"
#include "sim/index_set.h"

namespace fs::vfs {

inline constexpr Fd kFirstFd = 3;

template <typename T>
class FdTable {
 public:
  Fd Open(T state) {
    size_t slot;
    if (const int64_t f = free_.NextAtOrAfter(0); f != sim::IndexSet::kNone) {
      slot = static_cast<size_t>(f);
      free_.Erase(slot);
    } else {
      slot = slots_.size();
      slots_.emplace_back();
    }
    slots_[slot] = Slot{true, std::move(state)};
    ++open_;
    return static_cast<Fd>(slot) + kFirstFd;
  }

  T* Get(Fd fd) {
    if (fd < kFirstFd) return nullptr;
    const size_t slot = static_cast<size_t>(fd - kFirstFd);
    if (slot >= slots_.size() || !slots_[slot].open) return nullptr;
    return &slots_[slot].state;
  }
  const T* Get(Fd fd) const { return const_cast<FdTable*>(this)->Get(fd); }

  bool Close(Fd fd) {
    if (Get(fd) == nullptr) return false;
    const size_t slot = static_cast<size_t>(fd - kFirstFd);
    slots_[slot] = Slot{};
    if (slot >= free_.capacity()) free_.Grow(std::max<uint64_t>(slots_.size(), 2 * free_.capacity()));
    free_.Insert(slot);
    --open_;
    return true;
  }

  size_t open_count() const { return open_; }

  // Calls fn(fd, state) for every open descriptor, lowest first.
  template <typename Fn>
  void ForEach(Fn&& fn) {
    for (size_t i = 0; i < slots_.size(); ++i) {
      if (slots_[i].open) fn(static_cast<Fd>(i) + kFirstFd, slots_[i].state);
    }
  }

 private:
  struct Slot {
    bool open = false;
    T state{};
  };
  std::vector<Slot> slots_;
  sim::IndexSet free_;  // closed slots below slots_.size() (a bitmap: the lowest in a word or two)
  size_t open_ = 0;
};

}  // namespace fs::vfs
