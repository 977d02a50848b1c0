#include "fs/f2fs/raw_block_passthrough.h"

#include <string>

#include <glog/logging.h>

namespace fs::f2fs {

namespace {
const char* kOps[] = {"read", "write", "trim", "flush"};
}

RawBlockPassthrough::RawBlockPassthrough(sim::BlockDevice* device, const sim::StatGroup& stats) : dev_(device) {
  if (stats.prefix().empty()) return;
  for (int i = 0; i < 4; ++i) {
    stats.Add(&count_[i], std::string(kOps[i]) + ".count", "count", std::string("raw ") + kOps[i] + " requests");
    stats.Add(&bytes_[i], std::string(kOps[i]) + ".bytes", "bytes", std::string("raw ") + kOps[i] + " bytes");
    stats.Add(&lat_[i], std::string(kOps[i]) + ".lat", "ns", std::string("raw ") + kOps[i] + " latency");
  }
}

RawBlockPassthrough::~RawBlockPassthrough() = default;

void RawBlockPassthrough::Submit(sim::BlockRequest* req) {
  Wrap* w = free_;
  if (w) {
    free_ = w->next_free;
  } else {
    all_.push_back(std::make_unique<Wrap>());
    w = all_.back().get();
  }
  w->op = req->op;
  w->offset = req->offset;
  w->length = req->length;
  w->fua = req->fua;
  w->queue = req->queue;
  w->client = this;
  w->orig = req;
  req->submit_time = sim::SimTime();
  const int op = static_cast<int>(req->op);
  count_[op].Inc();
  bytes_[op].Inc(req->length);
  ++in_flight_;
  dev_->Submit(w);
  req->submit_time = w->submit_time;
}

void RawBlockPassthrough::OnBlockComplete(sim::BlockRequest* req) {
  Wrap* w = static_cast<Wrap*>(req);
  sim::BlockRequest* orig = w->orig;
  orig->complete_time = w->complete_time;
  lat_[static_cast<int>(w->op)].Record((w->complete_time - w->submit_time).ns());
  w->orig = nullptr;
  w->next_free = free_;
  free_ = w;
  --in_flight_;
  CHECK(orig->client != nullptr);
  orig->client->OnBlockComplete(orig);
}

}  // namespace fs::f2fs
