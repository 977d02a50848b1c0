#include "ssd/fixed_latency_device.h"

#include <algorithm>

#include <glog/logging.h>

namespace ssd {

FixedLatencyDevice::FixedLatencyDevice(sim::EventQueue* q, const FixedLatencyDeviceConfig& cfg)
    : q_(q), cfg_(cfg) {}

FixedLatencyDevice::~FixedLatencyDevice() {
  for (Done* d : all_) {
    if (d->scheduled()) q_->Deschedule(d);
    delete d;
  }
}

FixedLatencyDevice::Done* FixedLatencyDevice::Alloc() {
  if (!free_) {
    all_.push_back(new Done(this));
    return all_.back();
  }
  Done* d = free_;
  free_ = d->next_free;
  return d;
}

void FixedLatencyDevice::Submit(BlockRequest* req) {
  CHECK_EQ(req->offset % cfg_.sector_size, 0u);
  CHECK_EQ(req->length % cfg_.sector_size, 0u);
  CHECK_LE(req->offset + req->length, cfg_.capacity);
  const int op = static_cast<int>(req->op);
  ++count_[op];
  bytes_[op] += req->length;
  if (cfg_.log_writes && req->op == BlockOp::kWrite) write_log_.emplace_back(req->offset, req->length);
  if (cfg_.log_writes && req->op == BlockOp::kTrim)
    trim_log_.push_back(Trim{q_->now(), req->offset, req->length});
  if (cfg_.sequential) CheckSequential(*req);
  req->submit_time = q_->now();
  sim::SimTime done;
  switch (req->op) {
    case BlockOp::kRead:
    case BlockOp::kWrite: {
      const sim::SimTime start = std::max(q_->now(), busy_until_);
      busy_until_ = start + sim::TransferTime(req->length, cfg_.bandwidth_bytes_per_sec);
      done = busy_until_ + (req->op == BlockOp::kRead ? cfg_.read_latency : cfg_.write_latency);
      if (req->op == BlockOp::kWrite) {
        if (req->fua) ++fua_;
        last_write_done_ = std::max(last_write_done_, done);
      }
      if (extra_latency_) done += extra_latency_(*req);
      break;
    }
    case BlockOp::kFlush:
      done = std::max(q_->now(), last_write_done_) + cfg_.flush_latency;
      break;
    case BlockOp::kTrim:
      done = q_->now() + cfg_.trim_latency;
      break;
    case BlockOp::kZoneMgmt:
      // With a zoned layout (the zones of another device, e.g. the one a
      // power cut stopped): accepted like a trim; nothing is stored here.
      CHECK(cfg_.layout.zoned != nullptr) << "a zone command to a device that is not zoned (layout().zoned is null)";
      done = q_->now() + cfg_.trim_latency;
      break;
    case BlockOp::kZoneAppend:
      LOG(FATAL) << "Zone Append to a fixed-latency device (it keeps no write pointers)";
  }
  Done* d = Alloc();
  d->req = req;
  ++in_flight_;
  q_->Schedule(d, done);
}

void FixedLatencyDevice::CheckSequential(const BlockRequest& req) {
  SequentialBlocks& sb = *cfg_.sequential;
  const uint64_t block_bytes = uint64_t{cfg_.layout.page_size} * cfg_.layout.pages_per_block;
  if (req.op != BlockOp::kWrite && req.op != BlockOp::kTrim) return;
  uint64_t off = std::max(req.offset, sb.from);
  const uint64_t end = req.offset + req.length;
  while (off < end) {
    const uint64_t blk = off / block_bytes;
    const uint64_t in_block = off % block_bytes;
    const uint64_t n = std::min(end - off, block_bytes - in_block);
    uint64_t& wp = sb.write_pointer[blk];
    const uint64_t page = cfg_.layout.page_size;
    if (req.op == BlockOp::kWrite && (in_block % page != 0 || n % page != 0)) {
      if (sb.violations++ == 0)
        sb.first_violation = "write of " + std::to_string(n) + " B at byte " + std::to_string(in_block) +
                             " of flash block " + std::to_string(blk) + " is not whole " + std::to_string(page) +
                             " B pages";
    }
    if (req.op == BlockOp::kTrim) {
      if (in_block == 0 && n == block_bytes) {
        if (wp > 0) ++sb.erases;
        wp = 0;
      }
    } else if (in_block != wp) {
      if (sb.violations++ == 0)
        sb.first_violation = "write of " + std::to_string(n) + " B at byte " + std::to_string(in_block) +
                             " of flash block " + std::to_string(blk) + " whose write pointer is at " +
                             std::to_string(wp);
      wp = std::max(wp, in_block + n);
    } else {
      wp += n;
    }
    off += n;
  }
}

void FixedLatencyDevice::Done::Process() {
  BlockRequest* r = req;
  req = nullptr;
  next_free = dev->free_;
  dev->free_ = this;
  --dev->in_flight_;
  r->complete_time = dev->q_->now();
  r->client->OnBlockComplete(r);
}

}  // namespace ssd
