// Zoned: the zoned-namespace view of a device (NVMe ZNS, ZNS Command Set
// 1.1 / NVMe 2.0 "Zoned Namespace Command Set"), as an FTL implements it
// (ftl.kind: zns, ftl/zns_ftl.h) and the layers above see it through
// ssd::DeviceLayout::zoned.
//
// Logical space (flash pages): a conventional area [0, conventional_pages())
// written in any order (page-mapped), then zones() zones of zone_pages()
// logical pages each, zone z starting at conventional_pages() + z x
// zone_pages(). Only the first zone_capacity() pages of a zone are writable
// (capacity <= size, as shipping ZNS SSDs have); the rest of its LBA range
// reads as unwritten and any write there fails (kZoneBoundary).
//
// Zone states and transitions are those of the NVMe ZNS specification
// (figure "Zone State Machine"): Empty (ZSE), Implicitly Opened (ZSIO),
// Explicitly Opened (ZSEO), Closed (ZSC), Full (ZSF), Read Only (ZSRO),
// Offline (ZSO). Open zones = ZSIO + ZSEO, limited by max_open(); active
// zones = open + ZSC, limited by max_active(). A write at the write pointer
// of an Empty or Closed zone opens it implicitly; if that would exceed the
// open limit, the device first closes an implicitly opened zone (the one
// opened least recently), and fails the write with kTooManyOpen only if
// every open zone is explicitly open. A zone reaching its capacity becomes
// Full and stops being open and active.
#pragma once

#include <cstdint>

#include "sim/time.h"

namespace ftl {

enum class ZoneState : uint8_t {
  kEmpty,
  kImplicitlyOpen,
  kExplicitlyOpen,
  kClosed,
  kFull,
  kReadOnly,
  kOffline,
};
const char* ZoneStateName(ZoneState s);

// Zone Management Send actions (and Zone Append, which is a write).
enum class ZoneAction : uint8_t { kOpen, kClose, kFinish, kReset, kOffline };
const char* ZoneActionName(ZoneAction a);

// Outcome of a zone command or a write into a zone; the names are the NVMe
// status codes (Command Specific / Generic Status).
enum class ZoneError : uint8_t {
  kOk,
  kInvalidWrite,        // "Zone Invalid Write": a write not at the write pointer
  kBoundary,            // "Zone Boundary Error": a write crossing the zone's capacity or end
  kFull,                // "Zone Is Full"
  kReadOnly,            // "Zone Is Read Only"
  kOffline,             // "Zone Is Offline"
  kTooManyActive,       // "Too Many Active Zones"
  kTooManyOpen,         // "Too Many Open Zones"
  kInvalidTransition,   // "Invalid Zone State Transition"
  kInvalidField,        // "Invalid Field in Command": not a zone start, or not in a sequential zone
};
const char* ZoneErrorName(ZoneError e);

// A zoned device's shape, in flash pages: what `check` derives from the
// configuration before a device exists (FtlConfig::Zones) and what a built
// device reports (Zoned::layout()).
struct ZoneLayout {
  uint64_t conventional_pages = 0;
  uint64_t zones = 0;
  uint64_t zone_pages = 0;     // zone size (LBA span)
  uint64_t zone_capacity = 0;  // writable pages per zone
  uint32_t max_open = 0;       // 0 = no limit
  uint32_t max_active = 0;     // 0 = no limit
  uint64_t ZoneStart(uint64_t z) const { return conventional_pages + z * zone_pages; }
  // REQUIRES: lpn >= conventional_pages.
  uint64_t ZoneOf(uint64_t lpn) const { return (lpn - conventional_pages) / zone_pages; }
};

struct ZoneInfo {
  ZoneState state = ZoneState::kEmpty;
  uint64_t start = 0;         // first logical page (Zone Start LBA)
  uint64_t write_pointer = 0; // logical page (== start + pages written)
  uint64_t capacity = 0;      // writable pages (Zone Capacity)
};

class Zoned {
 public:
  virtual ~Zoned() = default;
  virtual uint64_t conventional_pages() const = 0;
  virtual uint64_t zones() const = 0;
  virtual uint64_t zone_pages() const = 0;     // the zone size (LBA span)
  virtual uint64_t zone_capacity() const = 0;  // writable pages per zone
  virtual uint32_t max_open() const = 0;       // 0 = no limit
  virtual uint32_t max_active() const = 0;     // 0 = no limit
  // Dies a zone's pages are striped over.
  virtual uint32_t zone_dies() const = 0;
  // Report Zones for one zone. REQUIRES: z < zones().
  virtual ZoneInfo Report(uint64_t z) const = 0;
  // Admits a write of `pages` pages into the zone area, checked whole as the
  // spec checks a command: a write must start at its zone's write pointer
  // (`lpn`); a Zone Append names its zone's start (`lpn`) and the device
  // writes at the write pointer. On kOk the zone's write pointer has moved
  // past the pages (the zone opened implicitly, or become Full), *first is
  // the first page written, and the caller must submit the pages
  // [*first, *first + pages) as writes in page order. On an error nothing
  // changed and nothing may be written. REQUIRES: pages > 0, lpn >=
  // conventional_pages() (a write reaching from the conventional area into
  // a zone fails with kBoundary when lpn + pages > conventional_pages()).
  virtual ZoneError AdmitWrite(uint64_t lpn, uint64_t pages, bool append, uint64_t* first) = 0;
  // Drives zone z to Read Only or Offline as a device does on a media
  // failure (the spec's controller-initiated transitions). REQUIRES: state
  // is kReadOnly or kOffline.
  virtual void FailZone(uint64_t z, ZoneState state) = 0;
  ZoneLayout layout() const {
    return ZoneLayout{conventional_pages(), zones(), zone_pages(), zone_capacity(), max_open(), max_active()};
  }
  uint64_t ZoneOf(uint64_t lpn) const { return (lpn - conventional_pages()) / zone_pages(); }
  uint64_t ZoneStart(uint64_t z) const { return conventional_pages() + z * zone_pages(); }
};

}  // namespace ftl
