// FioGenerator: drives a ssd::BlockDevice with a fio-like workload on the
// simulation clock.
//
// Jobs. numjobs independent jobs, each with its own Rng stream
// ("<stats prefix>.job<i>" under the run seed), its own iodepth request
// slots (allocated once at construction) and submission queue
// first_queue + i % device_queues. Per I/O a job draws, in this order: the op (only if
// the pattern mixes ops), the block size (only with several sizes), and the
// offset (random patterns only). No allocation happens per I/O.
//
// Issue discipline.
//  - Closed loop (no rate): Start() fills every job to iodepth; each
//    completion immediately issues the next I/O, so exactly iodepth I/Os are
//    in flight per job until the workload ends.
//  - Open loop (rate_iops and/or rate_bw): each job has a nominal arrival
//    schedule; after an arrival of b bytes the next is max(1/rate_iops,
//    b/rate_bw) later (fixed), or exponentially distributed with that mean
//    (poisson). An arrival that finds all iodepth slots busy waits for the
//    next completion and is counted as delayed (with its wait recorded);
//    later arrivals keep their nominal times, so a backlog drains as fast as
//    slots free up and the long-run rate is the configured one whenever the
//    device keeps up. The schedule is O(1) state: waiting arrivals are
//    implied by the nominal times, never queued.
//  - Flush (fsync = N): after every N-th write of a job a kFlush is issued
//    as the job's next I/O (before any further data I/O). Flushes do not
//    count toward total_ios / io_size.
//
// Bounds. No data I/O is issued once total_ios I/Os or io_size bytes have
// been issued over all jobs (the last I/O is shortened to end exactly on
// io_size), or at/after start + runtime. The workload is done when every
// job has nothing left to issue and nothing in flight; the generator then
// schedules nothing more (so EventQueue::Run() returns) and calls the done
// callback once.
//
// zonemode zbd (a zoned device, ssd::DeviceLayout::zoned), after fio's
// zbd.c. The generator keeps fio's host view of each zone's write pointer
// (from Report Zones at Start, advanced as writes are submitted):
//  - A write goes to the write pointer of an open zone: the zone its drawn
//    offset (random) or its position (sequential) falls in, or, at the
//    open-zone limit, one of the job's open zones picked from the offset
//    (fio's zbd_convert_to_open_zone); with every open zone full it waits
//    for its I/Os to complete (fio's io_u_quiesce), by which time the full
//    zones have closed, and opens the next zone. Its length is cut to the
//    zone's capacity and to a multiple of the smallest block size.
//  - A zone a write goes to that is full (or due a reset by
//    zone_reset_threshold / zone_reset_frequency) is first reset: the job
//    waits for its I/Os to complete, submits a Zone Reset and writes when it
//    has completed (fio resets synchronously too).
//  - A zone is open from the first write the job sends to it until a write
//    reaching its capacity completes. max_open_zones (or the device's max
//    open zones) is split evenly among the jobs; each job writes only its
//    own zones, range zones split evenly in job order (fio lets jobs share
//    zones under zone locks; here a zone's writes stay on one queue, in
//    order, so the device sees them at the write pointer).
//  - Sequential writes skip from a zone's capacity to the next zone and wrap
//    to the job's first zone, resetting zones as they come back to them.
//  - Reads (read_beyond_wp false) read only written data (a job that
//    writes: what its completed writes hold; a read-only job: data below
//    the device's write pointers): a read drawn into a zone with less than the smallest block
//    written moves to the nearest zone with data (sequential: the next),
//    and is cut at the write pointer; with no data anywhere a mixed job
//    writes instead and a read-only job ends (fio's zbd_adjust_ddir and
//    zbd_find_zone).
// Stats in this mode: zone_resets, zone_reset_lat (ns), quiesces,
// zone_errors (requests the device refused: 0 unless the model is wrong).
//
// Statistics (group given at construction, e.g. "workload"):
//   <op>.ios, <op>.bytes, <op>.lat (ns, complete_time - submit_time),
//   <op>.iops, <op>.bw for op in read/write/trim/flush; iops, bw,
//   measured_time, delayed_arrivals, arrival_delay, failed_ios; series iops
//   and MBps. A request the device refuses (BlockRequest::status not kOk)
//   counts in failed_ios only: never as completed work, in a rate or a
//   latency.
// Scalars cover the measured window (start + ramp_time, end]: an I/O
// counts if it completes strictly after start + ramp_time. The window ends
// at the last completion (or now, while running). Series count every
// completion, ramp included.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "host/workload/access_distribution.h"
#include "host/workload/alias_table.h"
#include "host/workload/fio_config.h"
#include "ssd/block_device.h"
#include "sim/event_queue.h"
#include "sim/rng.h"
#include "sim/stats.h"

namespace host {

class FioGenerator {
 public:
  struct Env {
    sim::EventQueue* queue = nullptr;
    ssd::BlockDevice* device = nullptr;
    sim::StatGroup stats;        // where the stats above are registered
    uint64_t seed = 1;           // run seed
    uint32_t device_queues = 1;  // job i submits on queue first_queue + i % device_queues
    uint32_t first_queue = 0;
  };

  // Validates `cfg` against env.device (see FioConfig::Validate) and builds
  // the generator. The error names the offending key under `path`.
  static sim::Result<std::unique_ptr<FioGenerator>> Create(const FioConfig& cfg, Env env,
                                                           std::string_view path = "");
  // Registers the stats (and series, so construct it before
  // StatsRegistry::StartSampling). REQUIRES: plan from ResolveFio for
  // env.device's capacity and sector size.
  FioGenerator(const FioPlan& plan, Env env);
  // REQUIRES: no request still in flight at the device (done(), or the
  // device will never complete them).
  ~FioGenerator();
  FioGenerator(const FioGenerator&) = delete;
  FioGenerator& operator=(const FioGenerator&) = delete;

  // Starts every job at queue->now(). REQUIRES: called once.
  void Start();
  // Called once when the workload is done (from inside the event or call
  // that finished it).
  void SetDoneCallback(std::function<void()> fn) { on_done_ = std::move(fn); }

  bool started() const { return started_; }
  bool done() const { return done_; }
  const FioPlan& plan() const { return plan_; }

  struct OpStats {
    sim::Counter ios;
    sim::Counter bytes;
    sim::Histogram lat;  // ns
  };
  // Measured-window stats of one op.
  const OpStats& op_stats(ssd::BlockOp op) const { return ops_[static_cast<size_t>(op)]; }
  // Data I/Os (read/write/trim) submitted / completed since Start(), ramp
  // included; flushes and refused requests excluded.
  uint64_t issued() const { return issued_ios_; }
  uint64_t completed() const { return completed_all_.value(); }
  uint64_t flushes_issued() const { return flushes_issued_; }
  uint64_t delayed_arrivals() const { return delayed_.value(); }
  const sim::Histogram& arrival_delay() const { return arrival_delay_; }

  sim::SimTime start_time() const { return start_time_; }
  sim::SimTime measure_start() const { return start_time_ + plan_.ramp_time; }
  // Time of the last completion once done(); now() while running.
  sim::SimTime end_time() const;
  // Over the measured window: data I/Os per second and bytes per second.
  double Iops() const;
  double Bandwidth() const;
  double OpIops(ssd::BlockOp op) const;
  double OpBandwidth(ssd::BlockOp op) const;

 private:
  class Job;
  friend class Job;

  bool MayIssue(sim::SimTime now) const;
  // Bytes the next data I/O may move: `want`, or less to end exactly on io_size.
  uint64_t ClampToIoSize(uint64_t want) const;
  void NoteIssued(uint64_t bytes);
  void NoteCompleted(const ssd::BlockRequest& req);
  void OnJobFinished();
  // Marks the start of the measured phase (sim::StatsRegistry::BeginMeasured)
  // at start + ramp_time.
  void BeginMeasured();
  void RegisterStats();
  double MeasuredSeconds() const;
  // zonemode zbd.
  uint64_t ZoneStartByte(uint64_t z) const { return zl_.ZoneStart(z) * page_; }
  uint64_t& Wp(uint64_t z) { return zwp_[z - zr0_]; }
  // Bytes of zone z a read may cover: its own writes that have completed
  // (a job that writes), else those below the device's write pointer.
  uint64_t Readable(uint64_t z) const;
  bool AnyData() const;
  bool DecWriteCnt();

  FioPlan plan_;
  Env env_;
  std::unique_ptr<AliasTable> size_table_;  // null with a single block size
  std::vector<std::unique_ptr<Job>> jobs_;
  std::function<void()> on_done_;

  bool started_ = false;
  bool done_ = false;
  uint32_t finished_jobs_ = 0;
  bool measure_begun_ = false;
  sim::MemberEvent<FioGenerator, &FioGenerator::BeginMeasured> ramp_end_{this};
  sim::SimTime start_time_;
  sim::SimTime deadline_ = sim::SimTime::Max();  // start + runtime, or Max
  sim::SimTime end_time_;
  uint64_t issued_ios_ = 0;
  uint64_t issued_bytes_ = 0;
  uint64_t flushes_issued_ = 0;

  std::array<OpStats, 4> ops_;  // indexed by BlockOp
  sim::Counter completed_all_;  // data I/Os, ramp included (series)
  sim::Counter failed_;         // requests the device refused
  sim::Counter bytes_all_;
  sim::Counter delayed_;
  sim::Histogram arrival_delay_;  // ns an open-loop arrival waited for a slot

  // zonemode zbd (see above).
  const ssd::Zoned* zoned_ = nullptr;
  ssd::ZoneLayout zl_;
  uint64_t page_ = 0;
  uint64_t zone_bytes_ = 0;     // zone size
  uint64_t zone_cap_ = 0;       // zone capacity
  uint64_t zr0_ = 0, zr1_ = 0;  // the range's zones [zr0_, zr1_)
  uint32_t job_open_limit_ = 0; // open zones per job; 0 = no limit
  std::vector<uint64_t> zwp_;   // host write pointers: bytes written into each range zone
  std::vector<uint64_t> zinflight_;  // bytes of writes in flight per range zone
  uint64_t zdata_ = 0;          // bytes below the host write pointers (fio's wp_sectors_with_data)
  uint64_t write_cnt_ = 0;      // writes to the next threshold reset (fio's write_cnt)
  sim::Counter zone_resets_;
  sim::Histogram zone_reset_lat_;
  sim::Counter quiesces_;
  sim::Counter zone_errors_;
};

}  // namespace host
