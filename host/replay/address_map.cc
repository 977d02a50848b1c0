#include "host/replay/address_map.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <glog/logging.h>

#include "host/replay/record_selector.h"

namespace host {

namespace {

using u128 = unsigned __int128;

FitMode ParseFit(const std::string& fit) {
  if (fit == "scale") return FitMode::kScale;
  if (fit == "compact") return FitMode::kCompact;
  if (fit == "error") return FitMode::kError;
  CHECK_EQ(fit, "wrap") << "fit not validated";
  return FitMode::kWrap;
}

// Aligned [begin, end) of a request; `end` saturates at the last aligned
// byte count representable in 64 bits.
struct Aligned {
  uint64_t begin;
  u128 end;
};
Aligned AlignRequest(uint64_t offset, uint64_t length, uint64_t align) {
  const u128 end = (static_cast<u128>(offset) + length + align - 1) / align * align;
  return Aligned{offset / align * align, end};
}

// Per-volume facts gathered by the pre-pass.
struct VolumeScan {
  uint64_t max_end = 0;
  // Inclusive extent ranges [lo, hi]; the first `merged` entries are sorted,
  // disjoint and non-adjacent.
  std::vector<std::pair<uint64_t, uint64_t>> runs;
  size_t merged = 0;
};

void SortMerge(VolumeScan* v) {
  auto& r = v->runs;
  std::sort(r.begin(), r.end());
  size_t out = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    if (out > 0 && r[i].first <= r[out - 1].second + 1) {
      r[out - 1].second = std::max(r[out - 1].second, r[i].second);
    } else {
      r[out++] = r[i];
    }
  }
  r.resize(out);
  v->merged = out;
}

class PrePass {
 public:
  PrePass(const TraceReplayConfig& cfg, uint64_t align, bool by_volume, bool need_extents)
      : cfg_(cfg), align_(align), granularity_(cfg.compact_granularity.value), by_volume_(by_volume),
        need_extents_(need_extents) {}

  sim::Status Run(const TraceInput& input, std::vector<uint32_t> keep) {
    FS_ASSIGN_OR_RETURN(std::unique_ptr<BlockTraceReader> reader, input.Open(cfg_.reader));
    RecordSelector selector(cfg_, std::move(keep));
    selector.StartPass();
    BlockTraceRecord rec;
    while (!selector.full()) {
      FS_ASSIGN_OR_RETURN(bool more, reader->Next(&rec));
      if (!more) break;
      if (selector.Select(rec) != RecordSelector::Verdict::kKeep) continue;
      const uint32_t key = by_volume_ ? rec.volume : 0;
      auto it = scans_.find(key);
      if (it == scans_.end()) {
        if (scans_.size() == AddressMap::kMaxVolumes) {
          return sim::Status::InvalidInput(fmt::format(
              "{}: volumes: the trace has more than {} volumes; list the ones to replay in volumes, or use "
              "volume_layout: overlay",
              input.name(), AddressMap::kMaxVolumes));
        }
        it = scans_.emplace(key, VolumeScan{}).first;
      }
      if (rec.op == ssd::BlockOp::kFlush) continue;
      FS_RETURN_IF_ERROR(Add(&it->second, rec, input));
    }
    if (need_extents_) {
      for (auto& [key, scan] : scans_) {
        total_runs_ -= scan.merged;
        SortMerge(&scan);
        total_runs_ += scan.merged;
      }
      FS_RETURN_IF_ERROR(CheckRuns(input));
    }
    return sim::Status::Ok();
  }

  const std::map<uint32_t, VolumeScan>& scans() const { return scans_; }

 private:
  sim::Status Add(VolumeScan* v, const BlockTraceRecord& rec, const TraceInput& input) {
    const Aligned a = AlignRequest(rec.offset_bytes, rec.length_bytes, align_);
    const u128 top = UINT64_MAX / align_ * align_;
    const uint64_t end = static_cast<uint64_t>(std::min(a.end, top));
    v->max_end = std::max(v->max_end, end);
    if (!need_extents_) return sim::Status::Ok();
    const uint64_t lo = a.begin / granularity_;
    const uint64_t hi = static_cast<uint64_t>((a.end - 1) / granularity_);
    auto& r = v->runs;
    // Sequential streams extend the last run in place.
    if (r.size() > v->merged && lo <= r.back().second + 1 && hi + 1 >= r.back().first) {
      r.back().first = std::min(r.back().first, lo);
      r.back().second = std::max(r.back().second, hi);
      return sim::Status::Ok();
    }
    r.emplace_back(lo, hi);
    if (r.size() > 2 * v->merged + 1024) {
      total_runs_ -= v->merged;
      SortMerge(v);
      total_runs_ += v->merged;
      FS_RETURN_IF_ERROR(CheckRuns(input));
    }
    return sim::Status::Ok();
  }

  sim::Status CheckRuns(const TraceInput& input) const {
    if (total_runs_ <= AddressMap::kMaxCompactRuns) return sim::Status::Ok();
    return sim::Status::InvalidInput(fmt::format(
        "{}: compact_granularity: the trace uses more than {} separate runs of {}-byte extents; use a coarser "
        "compact_granularity",
        input.name(), AddressMap::kMaxCompactRuns, granularity_));
  }

  const TraceReplayConfig& cfg_;
  uint64_t align_;
  uint64_t granularity_;
  bool by_volume_;
  bool need_extents_;
  std::map<uint32_t, VolumeScan> scans_;
  size_t total_runs_ = 0;
};

}  // namespace

sim::Result<AddressMap> AddressMap::Build(const TraceReplayConfig& cfg, uint64_t capacity, uint32_t sector_size,
                                          const TraceInput& input) {
  const FitMode fit = ParseFit(cfg.fit);
  const uint64_t align = cfg.EffectiveAlign(sector_size);
  const bool overlay = cfg.volume_layout == "overlay";
  std::vector<uint32_t> listed;
  for (const std::string& v : cfg.volumes) {
    sim::Result<uint32_t> id = ParseVolumeId(v);
    CHECK(id.ok()) << "volumes not validated: " << id.status().message();
    listed.push_back(*id);
  }
  const bool need_span = fit == FitMode::kScale && cfg.trace_span.value == 0;
  const bool need_extents = fit == FitMode::kCompact;
  const bool need_volumes = !overlay && listed.empty();
  PrePass pre(cfg, align, !overlay, need_extents);
  if (need_span || need_extents || need_volumes) FS_RETURN_IF_ERROR(pre.Run(input, listed));

  // Region keys in region order: 0 for overlay, else the volume ids.
  std::vector<uint32_t> keys;
  if (overlay) {
    keys.push_back(0);
  } else if (!listed.empty()) {
    keys = listed;
  } else {
    for (const auto& [volume, scan] : pre.scans()) keys.push_back(volume);
  }
  const bool no_volume = keys.empty();  // split layout over an empty slice
  if (no_volume) keys.push_back(0);

  const uint64_t region_size = capacity / keys.size() / align * align;
  if (region_size == 0) {
    return sim::Status::InvalidInput(fmt::format(
        "{}: volumes: {} volumes side by side leave less than the alignment ({} bytes) each on a {}-byte device; "
        "list fewer volumes or use volume_layout: overlay",
        input.name(), keys.size(), align, capacity));
  }
  std::vector<Region> regions(keys.size());
  std::vector<std::pair<uint32_t, uint32_t>> volumes;
  for (size_t i = 0; i < keys.size(); ++i) {
    Region& r = regions[i];
    r.volume = keys[i];
    r.base = i * region_size;
    r.size = region_size;
    if (!overlay && !no_volume) volumes.emplace_back(keys[i], static_cast<uint32_t>(i));
    auto it = pre.scans().find(keys[i]);
    const VolumeScan* scan = it == pre.scans().end() ? nullptr : &it->second;
    if (fit == FitMode::kScale) r.span = cfg.trace_span.value != 0 ? cfg.trace_span.value : (scan ? scan->max_end : 0);
    if (fit == FitMode::kCompact && scan != nullptr) {
      uint64_t packed = 0;
      r.runs.reserve(scan->runs.size());
      for (const auto& [lo, hi] : scan->runs) {
        r.runs.push_back(Run{lo, hi - lo + 1, packed});
        packed += hi - lo + 1;
      }
    }
  }
  return AddressMap(fit, align, cfg.compact_granularity.value, overlay, std::move(regions), std::move(volumes));
}

AddressMap::AddressMap(FitMode fit, uint64_t align, uint64_t granularity, bool overlay, std::vector<Region> regions,
                       std::vector<std::pair<uint32_t, uint32_t>> volumes)
    : fit_(fit), align_(align), granularity_(granularity), overlay_(overlay), regions_(std::move(regions)),
      volumes_(std::move(volumes)) {
  CHECK_GT(align_, 0u);
  CHECK(!regions_.empty());
  CHECK(fit_ != FitMode::kCompact || (granularity_ > 0 && granularity_ % align_ == 0));
  for (const Region& r : regions_) CHECK(r.size > 0 && r.size % align_ == 0);
  std::sort(volumes_.begin(), volumes_.end());
}

int AddressMap::RegionOf(uint32_t volume) const {
  if (overlay_) return 0;
  auto it = std::lower_bound(volumes_.begin(), volumes_.end(), std::make_pair(volume, uint32_t{0}));
  if (it == volumes_.end() || it->first != volume) return -1;
  return static_cast<int>(it->second);
}

uint64_t AddressMap::PackedExtent(const Region& r, uint64_t extent) const {
  // The run holding `extent`; an extent the pre-pass did not see (the file
  // changed between passes) goes to the nearest packed place below it.
  auto it = std::upper_bound(r.runs.begin(), r.runs.end(), extent,
                             [](uint64_t e, const Run& run) { return e < run.first; });
  if (it == r.runs.begin()) return 0;
  --it;
  return it->packed + std::min(extent - it->first, it->count - 1);
}

bool AddressMap::Map(int region, uint64_t offset, uint64_t length, Placed* out, FitCounters* counters) const {
  DCHECK(region >= 0 && static_cast<size_t>(region) < regions_.size());
  DCHECK_GT(length, 0u);
  const Region& r = regions_[static_cast<size_t>(region)];
  const Aligned a = AlignRequest(offset, length, align_);
  const u128 alen = a.end - a.begin;
  counters->align_bytes.Inc(static_cast<uint64_t>(alen - length));
  const uint64_t size = r.size;

  if (fit_ == FitMode::kError) {
    out->offset = a.begin;
    out->length = alen > UINT64_MAX ? UINT64_MAX / align_ * align_ : static_cast<uint64_t>(alen);
    if (a.end > size) return false;
    out->offset = r.base + a.begin;
    return true;
  }
  if (alen > size) {
    counters->clamped.Inc();
    out->offset = r.base;
    out->length = size;
    return true;
  }
  const uint64_t len = static_cast<uint64_t>(alen);
  uint64_t o = 0;
  switch (fit_) {
    case FitMode::kWrap:
      if (a.begin >= size) counters->wrapped.Inc();
      o = a.begin % size;
      if (o + len > size) {
        o = 0;
        counters->moved.Inc();
      }
      break;
    case FitMode::kScale: {
      uint64_t x = a.begin;
      if (r.span > size) {
        if (x >= r.span) {
          x %= r.span;
          counters->wrapped.Inc();
        }
        o = static_cast<uint64_t>(static_cast<u128>(x) * size / r.span) / align_ * align_;
      } else {
        if (x >= size) {  // only with a trace_span smaller than the offsets
          x %= size;
          counters->wrapped.Inc();
        }
        o = x;
      }
      if (o + len > size) {
        o = size - len;
        counters->moved.Inc();
      }
      break;
    }
    case FitMode::kCompact: {
      const u128 packed = static_cast<u128>(PackedExtent(r, a.begin / granularity_)) * granularity_ +
                          a.begin % granularity_;
      if (packed >= size) counters->wrapped.Inc();
      o = static_cast<uint64_t>(packed % size);
      if (o + len > size) {
        o = 0;
        counters->moved.Inc();
      }
      break;
    }
    case FitMode::kError:
      break;
  }
  out->offset = r.base + o;
  out->length = len;
  return true;
}

}  // namespace host
