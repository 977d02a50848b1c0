#include "ssd/ssd.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <glog/logging.h>

namespace ssd {

namespace {
constexpr size_t kOpChunk = 256;
int OpIndex(ssd::BlockOp op) { return static_cast<int>(op); }
}  // namespace

// An admitted request.
struct Ssd::Request {
  Ssd* ssd = nullptr;
  ssd::BlockRequest* req = nullptr;
  uint32_t pending = 0;  // pages not yet done
  bool flash_used = false;
  ssd::IoStatus status = ssd::IoStatus::kOk;  // first refused page's reason
  sim::SimTime flash_start;
  sim::SimTime flash_end;
  sim::SimTime fetch_time;
  uint64_t flush_target = 0;
  Request* next_free = nullptr;

  void OnFetched() { ssd->OnFetched(this); }
  sim::MemberEvent<Request, &Request::OnFetched> fetched{this};
};

struct Ssd::FlowStats {
  sim::Counter ops[2];  // read, write
  sim::Counter bytes[2];
  sim::Histogram latency[2];         // submit -> complete
  sim::Histogram device_latency[2];  // fetch -> complete
  sim::Histogram queue_wait;         // submit -> fetch
};

// One logical page of a request, or one destage of a buffered page.
struct Ssd::PageOp : ftl::FtlOp {
  enum class Phase : uint8_t {
    kToDevice,      // write data on the PCIe link
    kRmwRead,       // read of a partially written page before its program
    kWrite,         // FTL write of host data
    kRead,          // FTL read of host data
    kToHost,        // read data on the PCIe link
    kDestageRead,   // read-modify-write read of a partial buffered page
    kDestageWrite,  // FTL write of a buffered page
    kZoneMgmt,      // a zoned device's zone management command
  };
  Request* req = nullptr;  // nullptr for destages
  uint32_t slot = 0;       // destages: buffer slot
  uint32_t bytes = 0;      // bytes of the request within this page
  uint64_t mask = 0;       // sectors of the page covered
  Phase phase = Phase::kRead;
  PageOp* link_next = nullptr;  // PCIe FIFO / buffer wait list / free list
};

// One direction of the PCIe link: a FIFO server of page transfers.
class Ssd::Link {
 public:
  Link(Ssd* ssd, bool to_device) : ssd_(ssd), to_device_(to_device) {}
  ~Link() {
    if (done_.scheduled()) ssd_->events_->Deschedule(&done_);
  }

  void Enqueue(PageOp* op) {
    op->link_next = nullptr;
    if (current_ == nullptr) {
      Start(op);
      return;
    }
    if (tail_ == nullptr) {
      head_ = tail_ = op;
    } else {
      tail_->link_next = op;
      tail_ = op;
    }
  }
  sim::SimTime BusyTime() const {
    return current_ != nullptr ? busy_ + (ssd_->events_->now() - start_) : busy_;
  }

 private:
  void Start(PageOp* op) {
    current_ = op;
    start_ = ssd_->events_->now();
    ssd_->events_->Schedule(&done_, start_ + sim::TransferTime(op->bytes, ssd_->config_.pcie_rate.bytes_per_sec));
  }
  void OnDone() {
    busy_ += ssd_->events_->now() - start_;
    PageOp* op = current_;
    current_ = nullptr;
    if (head_ != nullptr) {
      PageOp* next = head_;
      head_ = next->link_next;
      if (head_ == nullptr) tail_ = nullptr;
      Start(next);
    }
    ssd_->OnLinkDone(op, to_device_);
  }

  Ssd* ssd_;
  bool to_device_;
  PageOp* current_ = nullptr;
  PageOp* head_ = nullptr;
  PageOp* tail_ = nullptr;
  sim::SimTime start_;
  sim::SimTime busy_;
  sim::MemberEvent<Link, &Link::OnDone> done_{this};
};

// ---------------------------------------------------------------------------

void Ssd::RequestFifo::Push(ssd::BlockRequest* r) {
  if (size_ == ring_.size()) {
    std::vector<ssd::BlockRequest*> bigger(std::max<size_t>(16, ring_.size() * 2));
    for (size_t i = 0; i < size_; ++i) bigger[i] = ring_[(head_ + i) % ring_.size()];
    ring_.swap(bigger);
    head_ = 0;
  }
  ring_[(head_ + size_) % ring_.size()] = r;
  ++size_;
}

ssd::BlockRequest* Ssd::RequestFifo::Pop() {
  CHECK_GT(size_, 0u);
  ssd::BlockRequest* r = ring_[head_];
  head_ = (head_ + 1) % ring_.size();
  --size_;
  return r;
}

// ---------------------------------------------------------------------------

Ssd::Ssd(sim::EventQueue* events, const SsdConfig& config, const flash::Geometry& geometry, ftl::Ftl* ftl,
         sim::StatGroup stats)
    : events_(events), config_(config), ftl_(ftl), geometry_(geometry), stats_(stats) {
  const sim::Status st = config_.Validate(geometry);
  CHECK(st.ok()) << "invalid ssd config: " << st.message();
  page_size_ = static_cast<uint32_t>(geometry.page_size.value);
  sector_size_ = static_cast<uint32_t>(config_.sector_size.value);
  sectors_per_page_ = page_size_ / sector_size_;
  full_mask_ = sectors_per_page_ == 64 ? ~0ull : ((1ull << sectors_per_page_) - 1);
  capacity_ = ftl_->logical_pages() * page_size_;
  layout_.channels = geometry.channels;
  layout_.chips_per_channel = geometry.chips_per_channel;
  layout_.dies_per_chip = geometry.dies_per_chip;
  layout_.planes_per_die = geometry.planes_per_die;
  layout_.blocks_per_plane = geometry.blocks_per_plane;
  layout_.page_size = page_size_;
  layout_.pages_per_block = geometry.pages_per_block;
  // Null for an FTL that places data itself (the page-mapped FTL).
  layout_.fixed = ftl_->fixed_placement();
  if (layout_.fixed != nullptr) fixed_from_page_ = layout_.fixed->fixed_from() * geometry.pages_per_block;
  // A zoned device: its zones take whole pages at their write pointers.
  zoned_ = ftl_->zoned();
  layout_.zoned = zoned_;
  if (zoned_ != nullptr) fixed_from_page_ = zoned_->conventional_pages();
  whole_pages_only_ = layout_.fixed != nullptr || zoned_ != nullptr;

  admitted_.assign(config_.queues, 0);
  depth_.assign(config_.queues, config_.queue_depth);
  host_wait_.resize(config_.queues);
  max_outstanding_ = config_.arbitration.max_outstanding;
  wrr_ = config_.arbitration.policy == "wrr";
  priority_.assign(config_.queues, ssd::QueuePriority::kMedium);
  queue_flow_.assign(config_.queues, -1);
  if (max_outstanding_ > 0) {
    sq_.resize(config_.queues);
    for (uint32_t q = 0; q < config_.queues; ++q) ring_[wrr_ ? static_cast<int>(ssd::QueuePriority::kMedium) : 0].push_back(q);
  }
  const size_t contexts = static_cast<size_t>(config_.queues) * config_.queue_depth;
  requests_ = std::make_unique<Request[]>(contexts);
  for (size_t i = contexts; i-- > 0;) {
    requests_[i].ssd = this;
    requests_[i].next_free = free_requests_;
    free_requests_ = &requests_[i];
  }
  to_device_ = std::make_unique<Link>(this, true);
  to_host_ = std::make_unique<Link>(this, false);

  const uint64_t slots = config_.write_buffer.size.value / page_size_;
  if (slots > 0) {
    CHECK_LE(slots, UINT32_MAX - 1);
    CHECK(layout_.fixed == nullptr)
        << "a write buffer in front of an FTL with fixed placement (ValidateDeviceForFtl refuses it)";
    buffer_ = std::make_unique<WriteBuffer>(static_cast<uint32_t>(slots));
    const double t = config_.write_buffer.destage_threshold.value * static_cast<double>(slots);
    destage_threshold_slots_ =
        static_cast<uint32_t>(std::min<double>(static_cast<double>(slots), std::ceil(t - 1e-9)));
    // The default (4 per plane) is capped at the buffer size: more destages
    // than slots can never be in flight, and 4 x planes may exceed 32 bits.
    max_destage_inflight_ = config_.write_buffer.max_destage_inflight != 0
                                ? config_.write_buffer.max_destage_inflight
                                : static_cast<uint32_t>(std::min<uint64_t>(4ull * geometry.planes(), slots));
  }
  RegisterStats(stats);
}

Ssd::~Ssd() {
  for (size_t i = 0, n = static_cast<size_t>(config_.queues) * config_.queue_depth; i < n; ++i) {
    if (requests_[i].fetched.scheduled()) events_->Deschedule(&requests_[i].fetched);
  }
}

Ssd::PageOp* Ssd::AllocOp() {
  if (free_ops_ == nullptr) {
    op_chunks_.push_back(std::make_unique<PageOp[]>(kOpChunk));
    PageOp* chunk = op_chunks_.back().get();
    for (size_t i = kOpChunk; i-- > 0;) {
      chunk[i].link_next = free_ops_;
      free_ops_ = &chunk[i];
    }
  }
  PageOp* op = free_ops_;
  free_ops_ = op->link_next;
  op->link_next = nullptr;
  op->next = nullptr;
  op->client = this;
  op->req = nullptr;
  op->temperature = ftl::Temperature::kUnknown;
  op->status = ftl::FtlStatus::kOk;
  return op;
}

void Ssd::FreeOp(PageOp* op) {
  op->link_next = free_ops_;
  free_ops_ = op;
}

sim::SimTime Ssd::PcieBusyTime(bool to_device) const {
  return to_device ? to_device_->BusyTime() : to_host_->BusyTime();
}

// ---------------------------------------------------------------------------
// Submission and admission

namespace {
// The FTL's hot/cold separation knows two temperatures; warm data stays
// with the regular host stream. (Writes destaged from the write buffer
// carry no hint: the buffer merges writes of any stream.)
ftl::Temperature TemperatureOf(ssd::StreamHint s) {
  switch (s) {
    case ssd::StreamHint::kHot: return ftl::Temperature::kHot;
    case ssd::StreamHint::kCold: return ftl::Temperature::kCold;
    default: return ftl::Temperature::kUnknown;
  }
}
}  // namespace

void Ssd::Submit(ssd::BlockRequest* req) {
  CHECK_LT(req->queue, config_.queues) << "submission queue out of range";
  CHECK(req->channel < 0 || static_cast<uint32_t>(req->channel) < layout_.channels) << "target channel out of range";
  CHECK(req->client != nullptr);
  CHECK_EQ(req->offset % sector_size_, 0u) << "unaligned offset " << req->offset;
  CHECK_EQ(req->length % sector_size_, 0u) << "unaligned length " << req->length;
  if (req->op != ssd::BlockOp::kFlush) {
    CHECK_LE(req->offset + req->length, capacity_) << "request beyond capacity";
  }
  if (req->op == ssd::BlockOp::kRead || req->op == ssd::BlockOp::kWrite) CHECK_GT(req->length, 0u);
  if (req->op == ssd::BlockOp::kZoneAppend || req->op == ssd::BlockOp::kZoneMgmt) {
    CHECK(zoned_ != nullptr) << "a zone command to a device that is not zoned (layout().zoned is null)";
    CHECK(req->op == ssd::BlockOp::kZoneMgmt ? req->length == 0 : req->length > 0);
  }
  req->submit_time = events_->now();
  if (observer_ != nullptr) observer_->OnSubmit(*req);
  if (admitted_[req->queue] < depth_[req->queue]) {
    Admit(req);
  } else {
    host_wait_[req->queue].Push(req);
  }
}

bool Ssd::Locate(uint64_t offset, ssd::FlashPlace* out) const {
  CHECK_LT(offset, capacity_);
  const uint64_t lpn = offset / page_size_;
  if (buffer_ != nullptr && buffer_->Lookup(lpn) != 0) return false;
  const flash::Ppn p = ftl_->Locate(ftl::Lpn{lpn});
  if (!p.valid()) return false;
  const flash::FlashAddr a = geometry_.ToAddr(p);
  *out = ssd::FlashPlace{a.channel, a.chip, a.die, a.plane, a.block};
  return true;
}

void Ssd::SetupQueue(uint32_t q, const ssd::QueueSetup& setup) {
  CHECK_LT(q, config_.queues) << "submission queue out of range";
  CHECK_LE(setup.depth, config_.queue_depth) << "queue depth above the device's";
  CHECK_EQ(admitted_[q], 0u) << "SetupQueue on a queue in use";
  depth_[q] = setup.depth > 0 ? setup.depth : config_.queue_depth;
  if (max_outstanding_ > 0 && wrr_ && priority_[q] != setup.priority) {
    auto& from = ring_[static_cast<int>(priority_[q])];
    from.erase(std::find(from.begin(), from.end(), q));
    auto& to = ring_[static_cast<int>(setup.priority)];
    to.insert(std::lower_bound(to.begin(), to.end(), q), q);
  }
  priority_[q] = setup.priority;
  if (setup.flow.empty()) {
    queue_flow_[q] = -1;
    return;
  }
  for (size_t i = 0; i < flows_.size(); ++i) {
    if (flow_names_[i] == setup.flow) {
      queue_flow_[q] = static_cast<int32_t>(i);
      return;
    }
  }
  queue_flow_[q] = static_cast<int32_t>(flows_.size());
  flows_.push_back(std::make_unique<FlowStats>());
  FlowStats& f = *flows_.back();
  const sim::StatGroup g = stats_.Group("flow").Group(setup.flow);
  flow_names_.push_back(setup.flow);
  static constexpr const char* kOps[] = {"read", "write"};
  for (int k = 0; k < 2; ++k) {
    g.Add(&f.ops[k], fmt::format("ops.{}", kOps[k]), "requests", fmt::format("Completed {} requests of the flow", kOps[k]));
    g.Add(&f.bytes[k], fmt::format("bytes.{}", kOps[k]), "bytes", fmt::format("Bytes of the flow's completed {} requests", kOps[k]));
    g.Add(&f.latency[k], fmt::format("latency.{}", kOps[k]), "ns",
          fmt::format("End-to-end {} latency of the flow: submit to completion", kOps[k]));
    g.Add(&f.device_latency[k], fmt::format("device_latency.{}", kOps[k]), "ns",
          fmt::format("Device {} latency of the flow: fetch by the controller to completion", kOps[k]));
  }
  g.Add(&f.queue_wait, "queue_wait", "ns", "Time the flow's requests waited from submission to fetch");
  // series.csv: each interval's own values (SetupQueue runs before sampling starts).
  g.AddIntervalPercentiles(&f.queue_wait, "queue_wait", "ns");
  g.AddIntervalPercentiles(&f.device_latency[0], "device_latency.read", "ns");
  g.AddIntervalPercentiles(&f.device_latency[1], "device_latency.write", "ns");
}

void Ssd::Admit(ssd::BlockRequest* req) {
  ++admitted_[req->queue];
  if (max_outstanding_ == 0) {
    Fetch(req);
    return;
  }
  sq_[req->queue].Push(req);
  Arbitrate();
}

int Ssd::NextInRing(const std::vector<uint32_t>& ring, size_t* cursor) const {
  const size_t n = ring.size();
  for (size_t i = 0; i < n; ++i) {
    const size_t at = (*cursor + i) % n;
    if (!sq_[ring[at]].empty()) {
      *cursor = (at + 1) % n;
      return static_cast<int>(ring[at]);
    }
  }
  return -1;
}

int Ssd::PickQueue(uint32_t* take, int* cls) {
  const uint32_t burst = config_.arbitration.burst;
  *cls = -1;
  if (!wrr_) {
    const int q = NextInRing(ring_[0], &cursor_[0]);
    *take = burst;
    return q;
  }
  constexpr int kUrgent = static_cast<int>(ssd::QueuePriority::kUrgent);
  if (const int q = NextInRing(ring_[kUrgent], &cursor_[kUrgent]); q >= 0) {
    *take = burst;
    return q;
  }
  // High, medium and low share by weight: each round a class may launch up
  // to its weight in commands, classes served in that order; a class with
  // nothing queued yields its turn (the arbiter never idles while a queue
  // holds a command), and a round ends when no class with credit has work.
  for (int round = 0; round < 2; ++round) {
    for (int c = kUrgent + 1; c < 4; ++c) {
      if (credit_[c] == 0) continue;
      if (const int q = NextInRing(ring_[c], &cursor_[c]); q >= 0) {
        *take = std::min(burst, credit_[c]);
        *cls = c;
        return q;
      }
    }
    credit_[1] = config_.arbitration.high_weight;
    credit_[2] = config_.arbitration.medium_weight;
    credit_[3] = config_.arbitration.low_weight;
  }
  return -1;
}

void Ssd::Arbitrate() {
  while (outstanding_ < max_outstanding_) {
    uint32_t take = 0;
    int cls = -1;
    const int q = PickQueue(&take, &cls);
    if (q < 0) return;
    RequestFifo& fifo = sq_[q];
    for (; take > 0 && !fifo.empty() && outstanding_ < max_outstanding_; --take) {
      ++outstanding_;
      if (cls >= 0) --credit_[cls];
      Fetch(fifo.Pop());
    }
  }
}

void Ssd::Fetch(ssd::BlockRequest* req) {
  Request* r = free_requests_;
  CHECK(r != nullptr);
  free_requests_ = r->next_free;
  r->req = req;
  r->pending = 0;
  r->flash_used = false;
  r->status = ssd::IoStatus::kOk;
  r->flush_target = 0;
  const sim::SimTime now = events_->now();
  r->fetch_time = now;
  queue_wait_.Record((now - req->submit_time).ns());
  // The FTL will look the first page up after the fetch: start loading its
  // mapping entry now (a cache hint).
  if ((req->op == ssd::BlockOp::kRead || req->op == ssd::BlockOp::kWrite) && zoned_ == nullptr) {
    ftl_->PrefetchEntry(ftl::Lpn{req->offset / page_size_});
  }
  if (const int32_t f = queue_flow_[req->queue]; f >= 0) flows_[f]->queue_wait.Record((now - req->submit_time).ns());
  events_->Schedule(&r->fetched, now + config_.request_overhead);
}

void Ssd::OnFetched(Request* r) {
  switch (r->req->op) {
    case ssd::BlockOp::kRead:
    case ssd::BlockOp::kWrite:
    case ssd::BlockOp::kZoneAppend:
      StartReadWrite(r);
      return;
    case ssd::BlockOp::kZoneMgmt:
      StartZoneMgmt(r);
      return;
    case ssd::BlockOp::kTrim:
      DoTrim(r);
      return;
    case ssd::BlockOp::kFlush:
      StartFlush(r);
      return;
  }
}

void Ssd::StartReadWrite(Request* r) {
  const ssd::BlockRequest* req = r->req;
  const uint64_t end = req->offset + req->length;
  const uint64_t first = req->offset / page_size_;
  const uint64_t last = (end - 1) / page_size_;
  const bool read = req->op == ssd::BlockOp::kRead;
  uint64_t shift = 0;  // a Zone Append's pages: from its zone's start to where the device writes them
  if (zoned_ != nullptr && !read && last >= fixed_from_page_ && !AdmitZoneWrite(r, first, last - first + 1, &shift)) {
    return;
  }
  r->pending = static_cast<uint32_t>(last - first + 1);
  for (uint64_t lpn = first; lpn <= last; ++lpn) {
    const uint64_t page_start = lpn * page_size_;
    const uint64_t lo = std::max(req->offset, page_start);
    const uint64_t hi = std::min(end, page_start + page_size_);
    PageOp* op = AllocOp();
    op->req = r;
    op->lpn = ftl::Lpn{lpn + shift};
    op->bytes = static_cast<uint32_t>(hi - lo);
    const uint32_t s0 = static_cast<uint32_t>((lo - page_start) / sector_size_);
    const uint32_t n = static_cast<uint32_t>((hi - lo) / sector_size_);
    op->mask = (n == 64 ? ~0ull : ((1ull << n) - 1)) << s0;
    if (!read) {
      op->temperature = TemperatureOf(req->stream);
      op->phase = PageOp::Phase::kToDevice;
      // Unbuffered, the page goes to the FTL when its transfer ends.
      if (buffer_ == nullptr && zoned_ == nullptr) ftl_->PrefetchRetire(op->lpn);
      to_device_->Enqueue(op);
    } else if (buffer_ != nullptr && (buffer_->Lookup(lpn) & op->mask) == op->mask) {
      buffer_read_hits_.Inc();
      op->phase = PageOp::Phase::kToHost;
      to_host_->Enqueue(op);
    } else {
      op->phase = PageOp::Phase::kRead;
      op->kind = ftl::FtlOp::Kind::kRead;
      if (!r->flash_used) {
        r->flash_used = true;
        r->flash_start = events_->now();
      }
      ftl_->Submit(op);
    }
  }
}

void Ssd::DoTrim(Request* r) {
  const ssd::BlockRequest* req = r->req;
  const uint64_t first = (req->offset + page_size_ - 1) / page_size_;
  const uint64_t end = (req->offset + req->length) / page_size_;
  if (end > first) {
    ftl_->Trim(ftl::Lpn{first}, end - first);
    trimmed_pages_.Inc(end - first);
    if (buffer_ != nullptr) {
      buffer_->DiscardRange(first, end, full_mask_);
      PlaceWaiters();
      CheckFlushes();
    }
  }
  Complete(r);
}

bool Ssd::AdmitZoneWrite(Request* r, uint64_t first, uint64_t pages, uint64_t* shift) {
  ssd::BlockRequest* req = r->req;
  const bool append = req->op == ssd::BlockOp::kZoneAppend;
  ssd::IoStatus s = ssd::IoStatus::kOk;
  uint64_t at = 0;
  if (req->offset % page_size_ != 0 || req->length % page_size_ != 0) {
    s = ssd::IoStatus::kPartialPage;  // zones program whole pages, once
  } else if (first < fixed_from_page_) {
    // A write reaching from the conventional area into the first zone.
    s = ssd::IoStatus::kZoneError;
    req->zone_error = ftl::ZoneError::kBoundary;
  } else {
    const ftl::ZoneError e = zoned_->AdmitWrite(first, pages, append, &at);
    if (e != ftl::ZoneError::kOk) {
      s = ssd::IoStatus::kZoneError;
      req->zone_error = e;
    }
  }
  if (s != ssd::IoStatus::kOk) {
    failed_pages_.Inc(pages);
    r->status = s;
    Complete(r);
    return false;
  }
  *shift = at - first;
  if (append) req->result_offset = at * page_size_;
  return true;
}

void Ssd::StartZoneMgmt(Request* r) {
  PageOp* op = AllocOp();
  op->req = r;
  op->lpn = ftl::Lpn{r->req->offset / page_size_};
  op->bytes = 0;
  op->mask = 0;
  op->phase = PageOp::Phase::kZoneMgmt;
  op->kind = ftl::FtlOp::Kind::kZoneMgmt;
  op->zone_action = r->req->zone_action;
  r->pending = 1;
  if (r->req->offset % page_size_ != 0) {
    r->req->zone_error = ftl::ZoneError::kInvalidField;
    r->status = ssd::IoStatus::kZoneError;
    PageDone(op);
    return;
  }
  ftl_->Submit(op);
}

void Ssd::StartFlush(Request* r) {
  if (buffer_ == nullptr || buffer_->OldestPendingSeq() == WriteBuffer::kNoSeq ||
      buffer_->OldestPendingSeq() > write_seq_) {
    Complete(r);
    return;
  }
  r->flush_target = write_seq_;
  flushes_.push_back(r);
  PumpDestage();
}

// ---------------------------------------------------------------------------
// Data path

void Ssd::OnLinkDone(PageOp* op, bool to_device) {
  if (to_device) {
    WriteArrived(op);
  } else {
    PageDone(op);
  }
}

void Ssd::WriteArrived(PageOp* op) {
  const uint64_t lpn = op->lpn.v;
  if (buffer_ != nullptr && !op->req->req->fua) {
    if (buffer_wait_head_ == nullptr && buffer_->Place(lpn, op->mask, write_seq_ + 1)) {
      ++write_seq_;
      PageDone(op);
    } else {
      buffer_stalls_.Inc();
      op->link_next = nullptr;
      if (buffer_wait_tail_ == nullptr) {
        buffer_wait_head_ = buffer_wait_tail_ = op;
      } else {
        buffer_wait_tail_->link_next = op;
        buffer_wait_tail_ = op;
      }
    }
    PumpDestage();
    return;
  }
  if (buffer_ != nullptr) buffer_->Discard(lpn, op->mask);
  SubmitFlashWrite(op);
}

void Ssd::SubmitFlashWrite(PageOp* op) {
  Request* r = op->req;
  if (!r->flash_used) {
    r->flash_used = true;
    r->flash_start = events_->now();
  }
  uint64_t have = op->mask;
  if (whole_pages_only_ && op->lpn.v >= fixed_from_page_ && PartialPage(have)) {
    // The FTL programs whole pages once per erase (no buffer merges halves).
    // Its page-mapped area (below fixed_from_page_) rewrites pages out of
    // place, so a partial page there is read-modified-written as on a
    // page-mapped FTL.
    Fail(op, ssd::IoStatus::kPartialPage);
    PageDone(op);
    return;
  }
  if (buffer_ != nullptr) have |= buffer_->Lookup(op->lpn.v);
  if (config_.partial_page_rmw && PartialPage(have)) {
    rmw_reads_.Inc();
    op->phase = PageOp::Phase::kRmwRead;
    op->kind = ftl::FtlOp::Kind::kRead;
  } else {
    op->phase = PageOp::Phase::kWrite;
    op->kind = ftl::FtlOp::Kind::kWrite;
  }
  ftl_->Submit(op);
}

void Ssd::OnFtlDone(ftl::FtlOp* f) {
  PageOp* op = static_cast<PageOp*>(f);
  switch (op->phase) {
    case PageOp::Phase::kRead:
      op->req->flash_end = events_->now();
      op->phase = PageOp::Phase::kToHost;
      to_host_->Enqueue(op);
      return;
    case PageOp::Phase::kRmwRead:
      op->phase = PageOp::Phase::kWrite;
      op->kind = ftl::FtlOp::Kind::kWrite;
      ftl_->Submit(op);
      return;
    case PageOp::Phase::kWrite:
      op->req->flash_end = events_->now();
      if (op->status != ftl::FtlStatus::kOk) {
        if (op->status == ftl::FtlStatus::kZoneError && op->req->status == ssd::IoStatus::kOk) {
          op->req->req->zone_error = op->zone_error;
        }
        Fail(op, FromFtl(op->status));
      }
      PageDone(op);
      return;
    case PageOp::Phase::kZoneMgmt:
      if (op->status != ftl::FtlStatus::kOk) {
        op->req->req->zone_error = op->zone_error;
        op->req->status = FromFtl(op->status);
      }
      PageDone(op);
      return;
    case PageOp::Phase::kDestageRead:
      op->phase = PageOp::Phase::kDestageWrite;
      op->kind = ftl::FtlOp::Kind::kWrite;
      ftl_->Submit(op);
      return;
    case PageOp::Phase::kDestageWrite: {
      CHECK(op->status == ftl::FtlStatus::kOk) << "the FTL refused a buffered page (fixed placement and a buffer)";
      buffer_->FinishDestage(op->slot);
      buffer_destaged_.Inc();
      --destage_inflight_;
      FreeOp(op);
      PlaceWaiters();
      CheckFlushes();
      PumpDestage();
      return;
    }
    case PageOp::Phase::kToDevice:
    case PageOp::Phase::kToHost:
      break;
  }
  LOG(FATAL) << "FTL completed a page op in phase " << static_cast<int>(op->phase);
}

ssd::IoStatus Ssd::FromFtl(ftl::FtlStatus s) {
  switch (s) {
    case ftl::FtlStatus::kOk: return ssd::IoStatus::kOk;
    case ftl::FtlStatus::kWriteOutOfOrder: return ssd::IoStatus::kWriteOutOfOrder;
    case ftl::FtlStatus::kOverwrite: return ssd::IoStatus::kOverwrite;
    case ftl::FtlStatus::kZoneError: return ssd::IoStatus::kZoneError;
  }
  LOG(FATAL) << "unknown FTL status " << static_cast<int>(s);
}

void Ssd::Fail(PageOp* op, ssd::IoStatus s) {
  failed_pages_.Inc();
  if (op->req->status == ssd::IoStatus::kOk) op->req->status = s;
}

void Ssd::PageDone(PageOp* op) {
  Request* r = op->req;
  FreeOp(op);
  CHECK_GT(r->pending, 0u);
  if (--r->pending == 0) Complete(r);
}

void Ssd::Complete(Request* r) {
  ssd::BlockRequest* req = r->req;
  const sim::SimTime now = events_->now();
  req->complete_time = now;
  req->status = r->status;
  // A Zone Append is a write; zone management commands are counted apart
  // (k past kWrite: no flow statistics either). A refused request counts as
  // an error only: not as completed work, in the rates or the latencies (the
  // device's or its flow's).
  const int k = req->op == ssd::BlockOp::kZoneAppend ? OpIndex(ssd::BlockOp::kWrite) : OpIndex(req->op);
  if (r->status != ssd::IoStatus::kOk) {
    failed_requests_.Inc();
  } else if (req->op == ssd::BlockOp::kZoneMgmt) {
    zone_commands_.Inc();
    zone_command_latency_.Record((now - req->submit_time).ns());
  } else {
    ops_[k].Inc();
    if (k == OpIndex(ssd::BlockOp::kWrite) && req->fua) fua_writes_.Inc();
    bytes_[k].Inc(req->length);
    latency_[k].Record((now - req->submit_time).ns());
    if (r->flash_used && k <= OpIndex(ssd::BlockOp::kWrite)) {
      flash_latency_[k].Record((r->flash_end - r->flash_start).ns());
    }
    if (const int32_t f = queue_flow_[req->queue]; f >= 0 && k <= OpIndex(ssd::BlockOp::kWrite)) {
      FlowStats& fs = *flows_[f];
      fs.ops[k].Inc();
      fs.bytes[k].Inc(req->length);
      fs.latency[k].Record((now - req->submit_time).ns());
      fs.device_latency[k].Record((now - r->fetch_time).ns());
    }
  }
  ++completed_;
  // Release the context and admit the queue's next request before telling
  // the client, so a request it submits now sees the queue's true state.
  r->req = nullptr;
  r->next_free = free_requests_;
  free_requests_ = r;
  const uint32_t q = req->queue;
  --admitted_[q];
  if (max_outstanding_ > 0) --outstanding_;
  if (!host_wait_[q].empty()) Admit(host_wait_[q].Pop());
  if (max_outstanding_ > 0) Arbitrate();
  req->client->OnBlockComplete(req);
}

// ---------------------------------------------------------------------------
// Write buffer

void Ssd::PlaceWaiters() {
  while (buffer_wait_head_ != nullptr) {
    PageOp* op = buffer_wait_head_;
    if (!buffer_->Place(op->lpn.v, op->mask, write_seq_ + 1)) break;
    ++write_seq_;
    buffer_wait_head_ = op->link_next;
    if (buffer_wait_head_ == nullptr) buffer_wait_tail_ = nullptr;
    PageDone(op);
  }
}

void Ssd::PumpDestage() {
  if (buffer_ == nullptr) return;
  const uint64_t force_seq = flushes_head_ < flushes_.size() ? flushes_.back()->flush_target : 0;
  while (destage_inflight_ < max_destage_inflight_) {
    const bool need = buffer_->occupied() >= destage_threshold_slots_ || buffer_wait_head_ != nullptr ||
                      buffer_->OldestDirtySeq() <= force_seq;
    if (!need) break;
    const uint32_t slot = buffer_->StartDestage();
    if (slot == WriteBuffer::kNone) break;
    PageOp* op = AllocOp();
    op->slot = slot;
    op->lpn = ftl::Lpn{buffer_->slot_lpn(slot)};
    op->mask = buffer_->slot_mask(slot);
    if (config_.partial_page_rmw && PartialPage(op->mask)) {
      rmw_reads_.Inc();
      op->phase = PageOp::Phase::kDestageRead;
      op->kind = ftl::FtlOp::Kind::kRead;
    } else {
      op->phase = PageOp::Phase::kDestageWrite;
      op->kind = ftl::FtlOp::Kind::kWrite;
    }
    ++destage_inflight_;
    ftl_->Submit(op);
  }
}

void Ssd::CheckFlushes() {
  while (flushes_head_ < flushes_.size()) {
    Request* f = flushes_[flushes_head_];
    const uint64_t oldest = buffer_->OldestPendingSeq();
    if (oldest != WriteBuffer::kNoSeq && oldest <= f->flush_target) break;
    ++flushes_head_;
    Complete(f);
  }
  if (flushes_head_ == flushes_.size()) {
    flushes_.clear();
    flushes_head_ = 0;
  }
}

// ---------------------------------------------------------------------------

void Ssd::RegisterStats(sim::StatGroup& stats) {
  static constexpr const char* kOps[] = {"read", "write", "trim", "flush"};
  for (int k = 0; k < 4; ++k) {
    stats.Add(&ops_[k], fmt::format("ops.{}", kOps[k]), "requests", fmt::format("Completed {} requests (refused ones count in errors only)", kOps[k]));
    stats.Add(&latency_[k], fmt::format("latency.{}", kOps[k]), "ns",
              fmt::format("End-to-end {} latency, submit to completion", kOps[k]));
    if (k < 3) {
      stats.Add(&bytes_[k], fmt::format("bytes.{}", kOps[k]), "bytes",
                fmt::format("Bytes of completed {} requests", kOps[k]));
    }
  }
  for (int k = 0; k < 2; ++k) {
    stats.Add(&flash_latency_[k], fmt::format("flash_latency.{}", kOps[k]), "ns",
              fmt::format("Device-level {} latency: first FTL submission to last FTL completion", kOps[k]));
  }
  stats.Add(&fua_writes_, "ops.fua", "requests", "Completed write requests with FUA (among ops.write)");
  stats.Add(&queue_wait_, "queue_wait", "ns", "Time a request waited for a submission-queue slot");
  stats.Add(&buffer_read_hits_, "buffer.read_hits", "pages", "Read pages served from the write buffer");
  stats.Add(&buffer_destaged_, "buffer.destaged", "pages", "Buffered pages programmed through the FTL");
  stats.Add(&buffer_stalls_, "buffer.stalls", "pages", "Written pages that waited for a free buffer slot");
  stats.Add(&rmw_reads_, "rmw_reads", "pages", "Page reads for read-modify-write of partial-page writes");
  stats.Add(&trimmed_pages_, "trimmed_pages", "pages", "Whole pages unmapped by trims");
  stats.Add(&failed_requests_, "errors", "requests",
            "Requests completed with an error status (pages refused by an FTL with fixed placement)");
  stats.Add(&failed_pages_, "error_pages", "pages", "Pages refused: out-of-order, overwrite or partial-page writes");
  if (zoned_ != nullptr) {
    stats.Add(&zone_commands_, "zone_commands", "requests",
              "Completed Zone Management Send commands (open, close, finish, reset, offline); appends count as "
              "writes");
    stats.Add(&zone_command_latency_, "latency.zone_command", "ns",
              "Zone Management Send latency, submit to completion (a reset's includes its erases)");
  }
  // Rates over the measured phase (sim::StatsRegistry::BeginMeasured).
  stats.AddRate([this] { return static_cast<double>(ops_[0].value() + ops_[1].value()); }, events_, "iops",
                "requests/s", "Completed reads and writes per simulated second of the measured phase");
  stats.AddRate([this] { return static_cast<double>(bytes_[0].value()); }, events_, "read_bandwidth", "bytes/s",
                "Bytes read per simulated second of the measured phase");
  stats.AddRate([this] { return static_cast<double>(bytes_[1].value()); }, events_, "write_bandwidth", "bytes/s",
                "Bytes written per simulated second of the measured phase");
  stats.AddRate([this] { return PcieBusyTime(true).sec(); }, events_, "pcie.to_device_utilization", "fraction",
                "Host-to-device link busy time over the measured phase");
  stats.AddRate([this] { return PcieBusyTime(false).sec(); }, events_, "pcie.to_host_utilization", "fraction",
                "Device-to-host link busy time over the measured phase");
  stats.AddFormula([this] { return buffer_ ? static_cast<double>(buffer_->occupied()) : 0.0; },
                   "buffer.occupied", "pages", "Write buffer slots in use at the end of the run");
}

}  // namespace ssd
