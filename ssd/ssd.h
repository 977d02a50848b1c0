// Ssd: the simulated SSD behind the BlockDevice interface.
//
// Path of a request:
//  1. Submission queues. Each of `queues` queues admits up to `queue_depth`
//     requests at once (req->queue selects it). A request submitted to a
//     full queue waits in a host-side FIFO for that queue and is admitted,
//     in order, as admitted requests of that queue complete; the time spent
//     there is the "queue wait".
//     Queues are set up by SetupQueue (priority class, own depth limit
//     below queue_depth, flow).
//  1b. Arbitration. With arbitration.max_outstanding = 0 an admitted
//     request is fetched at once. Otherwise the controller holds at most
//     max_outstanding fetched requests; admitted requests wait in their
//     submission queue and, whenever controller slots are free, the
//     arbiter picks a queue (round robin, or weighted round robin with the
//     urgent class first, see ArbitrationConfig) and fetches up to `burst`
//     of its requests in order. The queue wait runs from submission to
//     fetch.
//  2. Controller: after request_overhead the request is split into flash
//     pages (one FtlOp per logical page touched, lpn = byte offset / page
//     size). A per-request counter tracks pages still pending.
//  3. PCIe: one link per direction (full duplex), each a FIFO resource moving
//     one page's share of the request at a time at pcie_rate. Write data
//     crosses host->device before the page goes further; read data crosses
//     device->host after the page is read.
//  4. Writes without a write buffer (or FUA writes) go to the FTL and the
//     page is done when programmed. A page written only in part is first
//     read through the FTL when partial_page_rmw is on.
//  5. With a write buffer (write_buffer.size > 0): a non-FUA page is done
//     once its data is in the buffer; if no slot is free it waits (FIFO)
//     for one. Buffered pages are destaged to the FTL in the background (see
//     WriteBufferConfig). A read page whose requested sectors are all
//     buffered is served from DRAM (no flash access). A FUA write that
//     fully covers a dirty buffered page discards the buffered copy.
//  6. Flush (BlockOp::kFlush) completes when every write that completed
//     before the flush was fetched is programmed; it forces destaging of
//     those pages. Without a buffer it completes after request_overhead.
//  7. Trim unmaps the whole pages inside the range (Ftl::Trim; the static
//     block-mapped FTL erases each logical block it covers whole) and drops
//     their dirty buffered copies; sectors of partially covered pages at the
//     ends are ignored (not unmapped). It completes after request_overhead.
//     A destage already in flight for a trimmed page is not cancelled.
//  8. Errors: on a device whose FTL fixes placement (Ftl::fixed_placement(),
//     the static block-mapped FTL, which takes whole pages written in order
//     and no write buffer), a write page covering part of a flash page is
//     refused here (IoStatus::kPartialPage) and one the FTL refuses comes
//     back with its FtlStatus; the page is not written and the request
//     completes with the first refused page's status (stats errors,
//     error_pages). The layout's `fixed` is the FTL's placement. Pages of
//     the FTL's page-mapped area (below fixed->fixed_from(), see
//     ftl/fixed_placement.h) are rewritable: a partial page there is
//     handled as in step 4, not refused.
//  9. Completion: complete_time is set and client->OnBlockComplete() runs
//     from an event, after the next waiting request of the queue (if any)
//     has been admitted (and arbitration has filled the freed slot).
//     Below the controller requests of every queue are equal: their pages
//     meet the write buffer, the PCIe links and the FTL in arrival order,
//     and the flash scheduler (flash.scheduler) orders each die's commands
//     by its own rule (FIFO, reads first, ...), not by queue priority.
//
// Per-flow figures (queues set up with a flow name): under
// "flow.<name>.": ops/bytes per read and write, latency.<op> (submit to
// completion), device_latency.<op> (fetch to completion) and queue_wait
// (submit to fetch).
//
// Memory: request contexts come from a pool of queues x queue_depth;
// page operations from a free list that grows to the peak number in flight.
// Nothing is allocated per request or per page at steady state.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ftl/ftl.h"
#include "ssd/block_device.h"
#include "sim/event_queue.h"
#include "flash/geometry.h"
#include "ssd/ssd_config.h"
#include "ssd/write_buffer.h"
#include "sim/stats.h"

namespace ssd {

class Ssd final : public ssd::BlockDevice, private ftl::FtlClient {
 public:
  // REQUIRES: config.Validate(geometry).ok(). `events` and `ftl` outlive the
  // Ssd; the FTL's page size is geometry.page_size. Registers stats under
  // `stats` (e.g. "ssd.*").
  Ssd(sim::EventQueue* events, const SsdConfig& config, const flash::Geometry& geometry, ftl::Ftl* ftl,
      sim::StatGroup stats);
  ~Ssd() override;
  Ssd(const Ssd&) = delete;
  Ssd& operator=(const Ssd&) = delete;

  uint64_t capacity() const override { return capacity_; }
  uint32_t sector_size() const override { return sector_size_; }
  uint32_t io_unit() const override { return page_size_; }
  uint32_t queues() const override { return config_.queues; }
  const ssd::DeviceLayout& layout() const override { return layout_; }
  // REQUIRES: offset/length aligned to sector_size(), offset + length <=
  // capacity(), length > 0 for reads and writes, req->queue < queues,
  // req->client set.
  void Submit(ssd::BlockRequest* req) override;
  // The observer sees each request at the top of Submit(), after its
  // submit_time is set.
  void SetObserver(ssd::RequestObserver* observer) override { observer_ = observer; }
  // Before sampling starts (it registers per-flow series) and before the
  // queue is used.
  void SetupQueue(uint32_t q, const ssd::QueueSetup& setup) override;
  // The FTL's mapping (Ftl::Locate) of the page holding `offset`, false
  // while the write buffer holds that page (dirty or being destaged).
  bool Locate(uint64_t offset, ssd::FlashPlace* out) const override;

  // Introspection (tests, reports).
  uint32_t admitted(uint32_t queue) const { return admitted_[queue]; }
  size_t host_waiting(uint32_t queue) const { return host_wait_[queue].size(); }
  // Admitted requests of `queue` not yet fetched by the controller.
  size_t queued(uint32_t queue) const { return sq_.empty() ? 0 : sq_[queue].size(); }
  uint32_t outstanding() const { return outstanding_; }
  const WriteBuffer* write_buffer() const { return buffer_.get(); }
  uint64_t requests_completed() const { return completed_; }
  sim::SimTime PcieBusyTime(bool to_device) const;

 private:
  struct Request;
  struct PageOp;
  class Link;
  // Growable ring of waiting requests (no allocation at steady state).
  class RequestFifo {
   public:
    bool empty() const { return size_ == 0; }
    size_t size() const { return size_; }
    void Push(ssd::BlockRequest* r);
    ssd::BlockRequest* Pop();

   private:
    std::vector<ssd::BlockRequest*> ring_;
    size_t head_ = 0, size_ = 0;
  };

  void OnFtlDone(ftl::FtlOp* op) override;

  struct FlowStats;
  void Admit(ssd::BlockRequest* req);
  void Fetch(ssd::BlockRequest* req);
  // Fetches queued requests into free controller slots by the arbitration
  // policy (only with a bound on outstanding commands).
  void Arbitrate();
  // The queue the arbiter serves next and how many of its requests it may
  // take (<= burst); -1 when no queue has a request. *cls: the WRR class
  // whose round credit each fetched request uses (-1: none).
  int PickQueue(uint32_t* take, int* cls);
  int NextInRing(const std::vector<uint32_t>& ring, size_t* cursor) const;
  void OnFetched(Request* r);
  void StartReadWrite(Request* r);
  void StartFlush(Request* r);
  void DoTrim(Request* r);
  // Zoned devices only.
  bool AdmitZoneWrite(Request* r, uint64_t first, uint64_t pages, uint64_t* shift);
  void StartZoneMgmt(Request* r);
  void OnLinkDone(PageOp* op, bool to_device);
  void WriteArrived(PageOp* op);
  void SubmitFlashWrite(PageOp* op);
  void PageDone(PageOp* op);
  // Records a refused page on its request.
  void Fail(PageOp* op, ssd::IoStatus s);
  static ssd::IoStatus FromFtl(ftl::FtlStatus s);
  void Complete(Request* r);
  void PlaceWaiters();
  void PumpDestage();
  void CheckFlushes();
  bool PartialPage(uint64_t mask) const { return mask != full_mask_; }
  PageOp* AllocOp();
  void FreeOp(PageOp* op);
  void RegisterStats(sim::StatGroup& stats);

  sim::EventQueue* events_;
  const SsdConfig config_;
  ftl::Ftl* ftl_;
  uint32_t page_size_;
  uint32_t sector_size_;
  uint32_t sectors_per_page_;
  uint64_t full_mask_;
  uint64_t fixed_from_page_ = 0;  // first logical page with fixed placement (layout_.fixed) or of the zones
  bool whole_pages_only_ = false;  // layout_.fixed or zoned_: partial pages from fixed_from_page_ on are refused
  ftl::Zoned* zoned_ = nullptr;    // the FTL's zoned view (ftl.kind: zns), null otherwise
  uint64_t capacity_;
  ssd::DeviceLayout layout_;
  flash::Geometry geometry_;
  ssd::RequestObserver* observer_ = nullptr;

  // Queues and request contexts.
  std::vector<uint32_t> admitted_;
  std::vector<uint32_t> depth_;  // per-queue depth limit (<= queue_depth)
  std::vector<RequestFifo> host_wait_;
  // Arbitration (max_outstanding > 0): admitted, not yet fetched requests.
  std::vector<RequestFifo> sq_;
  uint32_t max_outstanding_ = 0;  // 0 = no bound
  uint32_t outstanding_ = 0;
  bool wrr_ = false;
  std::vector<ssd::QueuePriority> priority_;
  std::vector<uint32_t> ring_[4];  // rr: every queue in ring_[0]; wrr: the queues of each class
  size_t cursor_[4] = {0, 0, 0, 0};
  uint32_t credit_[4] = {0, 0, 0, 0};  // wrr: commands left to each class in this round
  // Per-flow figures: queue -> index into flows_ (-1 = none).
  std::vector<int32_t> queue_flow_;
  std::vector<std::unique_ptr<FlowStats>> flows_;
  std::vector<std::string> flow_names_;  // name of each flow
  sim::StatGroup stats_;
  std::unique_ptr<Request[]> requests_;
  Request* free_requests_ = nullptr;

  // Page operations.
  std::vector<std::unique_ptr<PageOp[]>> op_chunks_;
  PageOp* free_ops_ = nullptr;

  std::unique_ptr<Link> to_device_;
  std::unique_ptr<Link> to_host_;

  // Write buffer.
  std::unique_ptr<WriteBuffer> buffer_;
  uint32_t destage_threshold_slots_ = 0;
  uint32_t max_destage_inflight_ = 0;
  uint32_t destage_inflight_ = 0;
  uint64_t write_seq_ = 0;  // sequence number of the last placed page
  PageOp* buffer_wait_head_ = nullptr;  // pages waiting for a free slot (FIFO)
  PageOp* buffer_wait_tail_ = nullptr;
  std::vector<Request*> flushes_;  // pending flushes, targets non-decreasing
  size_t flushes_head_ = 0;

  // Stats.
  uint64_t completed_ = 0;
  sim::Counter ops_[4];    // [BlockOp]
  sim::Counter fua_writes_;
  sim::Counter bytes_[4];
  sim::Histogram latency_[4];        // submit -> complete
  sim::Histogram flash_latency_[2];  // first FTL submit -> last FTL done (read, write)
  sim::Histogram queue_wait_;        // submit -> admitted
  sim::Counter buffer_read_hits_;
  sim::Counter buffer_destaged_;
  sim::Counter buffer_stalls_;
  sim::Counter rmw_reads_;
  sim::Counter trimmed_pages_;
  sim::Counter failed_requests_;
  sim::Counter failed_pages_;
  // Zoned devices only (registered only then).
  sim::Counter zone_commands_;
  sim::Histogram zone_command_latency_;
};

}  // namespace ssd
