// FakeBlockDevice: a BlockDevice for tests. Every request completes a fixed
// latency after its submission (so completions come in submission order);
// each submission is logged with the number of requests in flight, and
// requests that break the BlockDevice contract (misaligned, beyond the
// capacity, zero-length data) are counted. With the log off, it allocates
// nothing once its ring of pending requests has grown to the peak in flight.
#pragma once

#include <cstdint>
#include <vector>

#include "ssd/block_device.h"
#include "sim/event_queue.h"

namespace fakes {

class FakeBlockDevice final : public ssd::BlockDevice {
 public:
  struct Submission {
    ssd::BlockOp op;
    uint64_t offset;
    uint64_t length;
    bool fua;
    uint32_t queue;
    sim::SimTime time;
    uint32_t in_flight;  // after this submission
  };

  FakeBlockDevice(sim::EventQueue* q, uint64_t capacity, uint32_t sector_size, uint32_t io_unit,
                  sim::SimTime latency)
      : q_(q), capacity_(capacity), sector_size_(sector_size), io_unit_(io_unit), latency_(latency) {}
  ~FakeBlockDevice() override {
    if (done_event_.scheduled()) q_->Deschedule(&done_event_);
  }

  uint64_t capacity() const override { return capacity_; }
  uint32_t sector_size() const override { return sector_size_; }
  uint32_t io_unit() const override { return io_unit_; }
  uint32_t queues() const override { return 1u << 16; }  // any queue index
  const ssd::DeviceLayout& layout() const override {
    static const ssd::DeviceLayout kFlat;  // no flash structure
    return kFlat;
  }

  void Submit(ssd::BlockRequest* req) override {
    const bool data = req->op != ssd::BlockOp::kFlush;
    if (data && (req->length == 0 || req->offset % sector_size_ != 0 || req->length % sector_size_ != 0 ||
                 req->offset > capacity_ || req->length > capacity_ - req->offset)) {
      ++violations_;
    }
    if (!data && (req->offset != 0 || req->length != 0)) ++violations_;
    req->submit_time = q_->now();
    Push(Pending{req, q_->now() + latency_});
    if (size_ > max_in_flight_) max_in_flight_ = static_cast<uint32_t>(size_);
    if (keep_log_) {
      log_.push_back(Submission{req->op, req->offset, req->length, req->fua, req->queue, q_->now(),
                                static_cast<uint32_t>(size_)});
    }
    ++submitted_;
    if (!done_event_.scheduled()) q_->Schedule(&done_event_, Front().done);
  }

  void set_keep_log(bool keep) { keep_log_ = keep; }
  void set_latency(sim::SimTime latency) { latency_ = latency; }
  const std::vector<Submission>& log() const { return log_; }
  uint64_t violations() const { return violations_; }
  uint64_t submitted() const { return submitted_; }
  uint64_t completed() const { return completed_; }
  uint32_t max_in_flight() const { return max_in_flight_; }
  uint32_t in_flight() const { return static_cast<uint32_t>(size_); }

 private:
  struct Pending {
    ssd::BlockRequest* req;
    sim::SimTime done;
  };

  void OnDone() {
    const sim::SimTime now = q_->now();
    while (size_ > 0 && Front().done <= now) {
      ssd::BlockRequest* req = Front().req;
      head_ = (head_ + 1) % ring_.size();
      --size_;
      req->complete_time = now;
      ++completed_;
      req->client->OnBlockComplete(req);
    }
    if (size_ > 0) q_->Reschedule(&done_event_, Front().done);
  }

  const Pending& Front() const { return ring_[head_]; }
  void Push(const Pending& p) {
    if (size_ == ring_.size()) {  // grow, keeping FIFO order
      std::vector<Pending> bigger(ring_.empty() ? 16 : 2 * ring_.size());
      for (size_t i = 0; i < size_; ++i) bigger[i] = ring_[(head_ + i) % ring_.size()];
      ring_.swap(bigger);
      head_ = 0;
    }
    ring_[(head_ + size_) % ring_.size()] = p;
    ++size_;
  }

  sim::EventQueue* q_;
  uint64_t capacity_;
  uint32_t sector_size_;
  uint32_t io_unit_;
  sim::SimTime latency_;
  std::vector<Pending> ring_;
  size_t head_ = 0;
  size_t size_ = 0;
  bool keep_log_ = true;
  std::vector<Submission> log_;
  uint64_t violations_ = 0;
  uint64_t submitted_ = 0;
  uint64_t completed_ = 0;
  uint32_t max_in_flight_ = 0;
  sim::MemberEvent<FakeBlockDevice, &FakeBlockDevice::OnDone> done_event_{this, sim::Priority::kCompletion};
};

}  // namespace fakes
