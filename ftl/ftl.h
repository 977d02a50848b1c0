// Ftl: the interface between the SSD's host interface and the flash
// translation layer. Operations are in logical pages (Lpn) of the flash page
// size; the host interface splits block requests into page operations.
//
// Read/Write complete asynchronously through FtlClient::OnFtlDone(op) from an
// event. A write completes when its data is programmed (the optional write
// buffer lives in the host interface, above). The FTL may delay writes while
// foreground GC frees space (the page-mapped FTL) or while their block is
// erased (the static block-mapped FTL). Trim is a metadata operation taking
// effect immediately. Ops are owned by the caller until completion.
//
// Errors: an FTL that refuses an operation (the static block-mapped FTL
// refuses writes that break its in-order contract) still completes the op
// through OnFtlDone, with FtlOp::status saying why and nothing written. The
// submitter sets status to kOk before Submit; the FTL changes it only to
// report an error. The page-mapped FTL never fails an op.
#pragma once

#include <cstdint>
#include <string>

#include "flash/geometry.h"
#include "ftl/fixed_placement.h"
#include "ftl/zoned.h"
#include "sim/time.h"

namespace ftl {

struct Lpn {
  uint64_t v = UINT64_MAX;
  constexpr bool valid() const { return v != UINT64_MAX; }
  constexpr auto operator<=>(const Lpn&) const = default;
};

class FtlClient;

// Host hint of how soon a written page will be overwritten; with the FTL's
// hot/cold separation, cold pages go to their own open units.
enum class Temperature : uint8_t { kUnknown, kHot, kCold };

// Outcome of an op (see the header comment).
enum class FtlStatus : uint8_t {
  kOk,
  // A write of a page other than the next unwritten page of its block
  // (it skips pages): static block mapping programs pages in order.
  kWriteOutOfOrder,
  // A write of a page already programmed since its block was last erased
  // (an overwrite without an erase).
  kOverwrite,
  // A zoned device's refusal (ftl/zoned.h, ZoneError): the op's zone_error
  // says which.
  kZoneError,
};
inline const char* FtlStatusName(FtlStatus s) {
  switch (s) {
    case FtlStatus::kOk: return "ok";
    case FtlStatus::kWriteOutOfOrder: return "write out of order";
    case FtlStatus::kOverwrite: return "overwrite without erase";
    case FtlStatus::kZoneError: return "zone error";
  }
  return "?";
}

struct FtlOp {
  // kZoneMgmt: a zoned device's Zone Management Send (zone_action) on the
  // zone starting at lpn (ftl/zoned.h); only for an FTL with zoned().
  enum class Kind : uint8_t { kRead, kWrite, kZoneMgmt };
  Kind kind = Kind::kRead;
  Lpn lpn;
  FtlClient* client = nullptr;
  uint64_t tag = 0;           // the caller's own value
  sim::SimTime submit_time;   // set by the FTL
  sim::SimTime finish_time;   // set by the FTL before OnFtlDone
  FtlOp* next = nullptr;      // intrusive link, owned by the FTL while pending
  Temperature temperature = Temperature::kUnknown;  // writes only; a placement hint
  FtlStatus status = FtlStatus::kOk;  // set to kOk by the submitter; an error by the FTL
  ZoneAction zone_action = ZoneAction::kOpen;  // kZoneMgmt only
  ZoneError zone_error = ZoneError::kOk;       // with status kZoneError
};

class FtlClient {
 public:
  virtual ~FtlClient() = default;
  virtual void OnFtlDone(FtlOp* op) = 0;
};

// How to bring a fresh device to a steady state without simulating events.
struct PreconditionSpec {
  double fill_fraction = 1.0;      // of the logical space, written sequentially first
  double random_overwrites = 2.0;  // then this many times the logical space in uniform random page writes
  uint64_t seed = 1;
  // Precondition one group with its share of the logical space and copy its
  // state to every group (FtlCore::Precondition), instead of writing the
  // whole device; only where FtlConfig validates it (page_stripe, ...).
  bool replicate = false;
};

class Ftl {
 public:
  virtual ~Ftl() = default;
  // Exported logical pages (after over-provisioning).
  virtual uint64_t logical_pages() const = 0;
  virtual void Submit(FtlOp* op) = 0;
  // Unmaps [first, first + count). Pages read after a trim complete without
  // touching flash. The mapping changes at once; an FTL may start flash work
  // in the background (the static block-mapped FTL erases a logical block
  // the range covers whole).
  virtual void Trim(Lpn first, uint64_t count) = 0;
  // Functional (untimed) writes to reach a steady state; REQUIRES: no op in flight.
  virtual void Precondition(const PreconditionSpec& spec) = 0;
  // Where each logical block lives, if this FTL fixes placement; null if it
  // places data itself (the page-mapped FTL). An FTL with fixed placement
  // takes only whole pages written in order within each block (see its
  // header): the host interface must neither buffer (reorder) its writes
  // nor send it part of a page. Lives as long as the FTL.
  virtual const FixedPlacement* fixed_placement() const { return nullptr; }
  // The physical page that holds logical page `l` now, or an invalid Ppn
  // when it is unmapped (never written, or trimmed) or the FTL does not
  // say (the default). A write's page is mapped from when the FTL submits
  // its program (a read of it is then served from there). REQUIRES: l <
  // logical_pages(). For measurements; no simulated time passes.
  // The zoned view of a zoned device (ftl.kind: zns), null otherwise. The
  // host interface admits every write into a zone through it
  // (Zoned::AdmitWrite) before submitting its pages. Lives as long as the FTL.
  virtual Zoned* zoned() { return nullptr; }
  virtual flash::Ppn Locate(Lpn l) const {
    (void)l;
    return flash::kInvalidPpn;
  }
  // Cache hints from the host interface, with no effect on results: the
  // mapping tables are far larger than the CPU caches, and the host
  // interface knows a host op's Lpn an event or two before it submits it.
  // PrefetchEntry: an op on l will be submitted soon; fetch its mapping
  // entry. PrefetchRetire: a write of l will be submitted soon and
  // PrefetchEntry(l) was called at least an event ago; fetch what retiring
  // l's old copy touches (reads the entry). REQUIRES: l < logical_pages().
  virtual void PrefetchEntry(Lpn l) const { (void)l; }
  virtual void PrefetchRetire(Lpn l) const { (void)l; }
};

}  // namespace ftl
