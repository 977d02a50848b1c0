// TraceReplayer: replays a block trace against a ssd::BlockDevice on the
// simulation clock.
//
//   host::TraceReplayer::Env env{&queue, ssd, stats.Root().Group("workload"), seed, queues};
//   FS_ASSIGN_OR_RETURN(auto replay, host::TraceReplayer::Create(cfg, env, config_dir, "workload.trace"));
//   replay->Start();
//   queue.Run();
//   if (!replay->status().ok()) ...   // malformed line (fail mode), fit: error, ...
//   std::cerr << replay->Report();
//
// Which records are replayed and where they land: see
// trace_replay_config.h. Records are issued in file order.
//
// Issue discipline.
//  - Open loop (mode open): a record arrives at start + its arrival time
//    (ReplayStream: (t - t0) / speedup, never before the record before
//    it). An arrival issues at once if one of the iodepth request slots is
//    free and no earlier arrival waits; otherwise it joins the host queue
//    (FIFO, at most max_backlog arrivals) and is counted as delayed. When
//    the host queue is full, reading the trace pauses (counted) until a
//    completion makes room, so memory stays bounded whatever the device
//    does; the paused arrival keeps its trace arrival time, so its latency
//    and lateness include the pause.
//  - Closed loop (mode closed): Start() fills every slot; each completion
//    issues the next record at once, so exactly iodepth requests are
//    outstanding until the trace runs out. Trace times are ignored.
//  Requests are spread over the device's submission queues by slot
//  (slot i uses queue i % device_queues).
//
// Errors. A malformed line in fail mode, a request beyond the device with
// fit "error", or a time out of range stops the replay: status() holds the
// "path:line: problem: <line>" error, nothing more is issued (queued
// arrivals are dropped), and the replay is done once the requests in flight
// complete. With the reader's on_error "skip", malformed lines are counted
// (skipped.malformed) and their first messages are in reader_errors().
//
// Zoned devices (workload.trace.zoned, host/replay/zone_replay.h): with
// "refuse" the records go to the device as they are (the run's checks have
// refused a trace that would miswrite a zone); with "remap" a record's
// writes become Zone Appends (split where a zone fills), its reads and trims
// follow the page map: a record is then one or more device requests (its
// slot completes when they all have; device_lat from the first submit), a
// read or trim of pages never written completes at once without the device,
// trims only unmap host-side (a ZNS device ignores them in zones), and a
// zone to reuse is reset first, the writes waiting for it in record order.
// Extra stats then: zoned.appends, zoned.resets, zoned.reset_lat,
// zoned.unmapped_pages (read pages never written), zoned.errors (device
// refusals: 0 unless the model is wrong).
//
// Memory: iodepth request slots and a max_backlog ring, allocated at
// construction; a fit "compact" or "scale" pre-pass keeps per-volume
// summaries (see AddressMap). Nothing is allocated per request.
//
// Statistics (under the group given in Env, e.g. "workload"):
//   records_read, records_issued, skipped.{op,volume,window,zero_length,
//   malformed}, loops, out_of_order, ties, spread (see "Time order" in
//   trace_replay_config.h); <op>.{ios,bytes,lat,device_lat,iops,bw} for op in
//   read/write/trim/flush (lat = arrival to completion, the end-to-end
//   latency including the host queue; device_lat = device submit to
//   completion; bytes as sent to the device, after alignment); ios_total
//   (reads+writes+trims completed), failed_ios (requests the device
//   refused: in no other statistic), iops, bw, measured_time (s, start to the
//   last completion); lateness (ns, issue - arrival, open loop), delayed,
//   pauses, backlog (host queue length seen by each delayed arrival),
//   backlog_max, outstanding (requests in flight after each issue),
//   outstanding_max; trace_time (s, trace time spanned by the issued
//   records, all loops, unscaled), speedup (trace_time / measured_time);
//   fit.{wrapped,clamped,moved,align_bytes}; series iops, MBps,
//   outstanding, backlog.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "host/replay/address_map.h"
#include "host/replay/replay_stream.h"
#include "host/replay/trace_input.h"
#include "host/replay/trace_replay_config.h"
#include "host/replay/zone_replay.h"
#include "ssd/block_device.h"
#include "sim/event_queue.h"
#include "sim/stats.h"
#include "sim/status.h"

namespace host {

// The summary warns about a coarse clock when at least half of at least
// this many records have the time of the record before.
inline constexpr uint64_t kMinTiedRecords = 16;

class TraceReplayer final : public ssd::BlockClient {
 public:
  struct Env {
    sim::EventQueue* queue = nullptr;
    ssd::BlockDevice* device = nullptr;
    sim::StatGroup stats;        // where the stats above are registered
    uint64_t seed = 1;           // run seed (a replay draws no random numbers)
    uint32_t device_queues = 1;  // slot i submits on queue first_queue + i % device_queues
    uint32_t first_queue = 0;
  };

  // Validates `cfg` against env.device (errors name "<key_path>.<key>"),
  // resolves cfg.path against `base_dir` (the config file's directory; ""
  // = as given), opens the trace (NotFound / InvalidInput naming the file)
  // and runs the address pre-pass if the fit needs one (its errors are the
  // reader's "path:line: ..." ones).
  static sim::Result<std::unique_ptr<TraceReplayer>> Create(const TraceReplayConfig& cfg, Env env,
                                                            std::string_view base_dir = "",
                                                            std::string_view key_path = "");
  // As Create, over a trace held in memory (`data`, plain or compressed,
  // must outlive the replayer) named `name` in messages; cfg.path is not used.
  static sim::Result<std::unique_ptr<TraceReplayer>> CreateFromMemory(const TraceReplayConfig& cfg, Env env,
                                                                      std::string name, std::string_view data,
                                                                      std::string_view key_path = "");

  // REQUIRES: no request in flight at the device (done(), or the device
  // will never complete them).
  ~TraceReplayer() override;
  TraceReplayer(const TraceReplayer&) = delete;
  TraceReplayer& operator=(const TraceReplayer&) = delete;

  // Starts the replay at queue->now(). REQUIRES: called once.
  void Start();
  // Called once when the replay is done (from inside the event or call
  // that finished it).
  void SetDoneCallback(std::function<void()> fn) { on_done_ = std::move(fn); }

  bool started() const { return started_; }
  bool done() const { return done_; }
  // OK, or the error that stopped the replay.
  const sim::Status& status() const { return status_; }

  const TraceReplayConfig& config() const { return cfg_; }
  const AddressMap& address_map() const { return map_; }

  struct OpStats {
    sim::Counter ios;
    sim::Counter bytes;
    sim::Histogram lat;         // ns, arrival to completion
    sim::Histogram device_lat;  // ns, device submit to completion
  };
  const OpStats& op_stats(ssd::BlockOp op) const { return ops_[static_cast<size_t>(op)]; }
  uint64_t records_read() const { return sc_.records_read.value(); }
  uint64_t issued() const { return issued_.value(); }
  uint64_t completed() const { return completed_; }
  uint64_t skipped_op() const { return sc_.skipped_op.value(); }
  uint64_t skipped_volume() const { return sc_.skipped_volume.value(); }
  uint64_t skipped_window() const { return sc_.skipped_window.value(); }
  uint64_t skipped_malformed() const { return stream_->reader_stats().skipped; }
  uint64_t skipped_zero_length() const { return stream_->reader_stats().zero_length_dropped; }
  // First malformed-line messages of the reader (skip mode), for the report.
  const std::vector<std::string>& reader_errors() const { return stream_->reader_stats().first_errors; }
  const FitCounters& fit_counters() const { return sc_.fit; }
  uint64_t loops_started() const { return sc_.loops_started.value(); }

  uint64_t delayed() const { return delayed_.value(); }
  uint64_t pauses() const { return pauses_.value(); }
  const sim::Histogram& lateness() const { return lateness_; }
  // Largest host-queue length and number of requests in flight seen.
  size_t backlog_max() const { return backlog_max_; }
  uint32_t outstanding_max() const { return outstanding_max_; }
  uint32_t outstanding() const { return outstanding_; }
  size_t backlog() const { return backlog_size_; }

  sim::SimTime start_time() const { return start_time_; }
  // Time of the last completion once done(); now() while running.
  sim::SimTime end_time() const;
  // Trace time spanned by the issued records (all loops, unscaled).
  sim::SimTime trace_time() const { return sim::Ns(trace_max_ns_ - trace_min_ns_); }
  double Iops() const;
  double Bandwidth() const;
  double OpIops(ssd::BlockOp op) const;
  double OpBandwidth(ssd::BlockOp op) const;

  // Human end-of-run report: records read/issued/completed, skips by
  // reason, the kept malformed-line messages, fit adjustments, and the
  // error that stopped the replay if any. Deterministic.
  std::string Report() const;

  void OnBlockComplete(ssd::BlockRequest* req) override;

 private:
  TraceReplayer(const TraceReplayConfig& cfg, Env env, AddressMap map, TraceInput input,
                std::unique_ptr<BlockTraceReader> first);
  static sim::Result<std::unique_ptr<TraceReplayer>> Make(const TraceReplayConfig& cfg, Env env, TraceInput input,
                                                          std::string_view key_path);

  void ReadNext();
  void PumpArrivals();
  void OnArrivalEvent() { PumpArrivals(); }
  void Fill();
  void Issue(const ReplayItem& item, sim::SimTime arrival);
  // A slot's request(s) completed: stats, then the next issue.
  // `ok`: the device did it (else it counts as failed only).
  void Finish(uint32_t slot, ssd::BlockOp op, uint64_t length, sim::SimTime submit, bool ok);
  // workload.trace.zoned: remap.
  void IssueRemapped(uint32_t slot, const ReplayItem& item);
  void PlaceHeld();
  uint32_t SubmitPart(uint32_t slot, ssd::BlockOp op, uint64_t offset, uint64_t length);
  void OnPartDone(ssd::BlockRequest* req);
  void Instant(uint32_t slot);
  void OnInstantEvent();
  void Fail(const sim::Status& st);
  void MaybeDone();
  void RegisterStats();
  double MeasuredSeconds() const;

  TraceReplayConfig cfg_;
  Env env_;
  AddressMap map_;
  ReplayStreamCounters sc_;
  std::unique_ptr<ReplayStream> stream_;
  std::function<void()> on_done_;
  bool open_loop_;

  // Request slots.
  struct SlotInfo {
    sim::SimTime arrival;
    // remap: the record's device requests in flight, its first submit,
    // what it was, and for a write the pages still to place.
    uint32_t parts = 0;
    sim::SimTime first_submit;
    ssd::BlockOp op = ssd::BlockOp::kRead;
    uint64_t length = 0;
    uint64_t line_no = 0;
    uint64_t next_lp = 0;
    uint64_t left = 0;
    bool failed = false;  // a device request of the record was refused
  };
  std::vector<ssd::BlockRequest> slots_;
  std::vector<SlotInfo> slot_info_;
  std::vector<uint32_t> free_;  // stack of free slot indexes
  uint32_t outstanding_ = 0;
  uint32_t outstanding_max_ = 0;

  // Lookahead and host queue (open loop).
  ReplayItem pending_;
  bool have_pending_ = false;
  bool stream_over_ = false;
  bool paused_ = false;
  std::vector<ReplayItem> backlog_;  // ring of max_backlog items
  size_t backlog_head_ = 0;
  size_t backlog_size_ = 0;
  size_t backlog_max_ = 0;
  sim::MemberEvent<TraceReplayer, &TraceReplayer::OnArrivalEvent> arrival_event_{this, sim::Priority::kIssue};

  bool started_ = false;
  bool done_ = false;
  sim::Status status_;
  sim::SimTime start_time_;
  sim::SimTime end_time_;
  uint64_t completed_ = 0;
  int64_t trace_min_ns_ = 0;
  int64_t trace_max_ns_ = 0;
  bool have_trace_time_ = false;
  uint64_t dropped_ = 0;  // queued arrivals dropped by an error

  std::array<OpStats, 4> ops_;
  sim::Counter issued_;
  sim::Counter ios_total_;
  sim::Counter bytes_total_;
  sim::Counter failed_;
  sim::Counter delayed_;
  sim::Counter pauses_;
  sim::Histogram lateness_;
  sim::Histogram backlog_hist_;
  sim::Histogram outstanding_hist_;
  sim::Gauge backlog_max_gauge_;
  sim::Gauge outstanding_max_gauge_;

  // workload.trace.zoned: remap (null otherwise).
  static constexpr uint64_t kPartTag = uint64_t{1} << 40;
  struct PartInfo {
    uint32_t slot = 0;  // UINT32_MAX for a zone reset
    uint64_t zone = 0;
    uint64_t first_lp = 0;  // appends: the logical pages written
    uint64_t pages = 0;
  };
  std::unique_ptr<ZoneRemap> remap_;
  uint64_t page_ = 0;
  ssd::ZoneLayout zones_;
  std::vector<std::unique_ptr<ssd::BlockRequest>> parts_;
  std::vector<PartInfo> part_info_;
  std::vector<uint32_t> free_parts_;
  std::vector<uint32_t> held_;  // write slots waiting for placement, in record order (FIFO)
  size_t held_head_ = 0;
  bool reset_inflight_ = false;
  std::vector<uint32_t> instant_;  // slots completing without the device
  std::vector<ZoneRemap::Run> runs_;
  sim::MemberEvent<TraceReplayer, &TraceReplayer::OnInstantEvent> instant_event_{this, sim::Priority::kIssue};
  sim::Counter z_appends_, z_resets_, z_unmapped_, z_errors_;
  sim::Histogram z_reset_lat_;
};

}  // namespace host
