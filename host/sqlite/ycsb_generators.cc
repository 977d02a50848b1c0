#include "host/sqlite/ycsb_generators.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <glog/logging.h>

namespace host::sqlite {

namespace {

// Java's (long) cast of a double: NaN is 0, out-of-range values saturate.
int64_t JavaLong(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
  if (v <= -9.2233720368547758e18) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

// Java's (int) cast of a double.
int64_t JavaInt(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 2147483647.0) return 2147483647;
  if (v <= -2147483648.0) return -2147483648LL;
  return static_cast<int64_t>(v);
}

// Terms of zeta summed one by one; the rest of a longer sum is the
// Euler-Maclaurin formula, exact to double precision that far out, so a
// zeta over 10^12 items costs no more than one over 10^6.
constexpr int64_t kExactZetaTerms = 1000000;

// sum_{k=a}^{b} k^-theta for 1 <= a <= b by Euler-Maclaurin (two
// correction terms; the next is below 1e-20 for a >= kExactZetaTerms).
double ZetaTail(double a, double b, double theta) {
  auto f = [theta](double k) { return std::pow(k, -theta); };
  auto df = [theta](double k) { return -theta * std::pow(k, -theta - 1); };
  auto d3f = [theta](double k) { return -theta * (theta + 1) * (theta + 2) * std::pow(k, -theta - 3); };
  const double integral =
      theta == 1 ? std::log(b / a) : (std::pow(b, 1 - theta) - std::pow(a, 1 - theta)) / (1 - theta);
  return integral + (f(a) + f(b)) / 2 + (df(b) - df(a)) / 12 - (d3f(b) - d3f(a)) / 720;
}

constexpr char kValueAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

}  // namespace

int64_t YcsbFnvHash64(int64_t v) {
  constexpr uint64_t kOffsetBasis = 0xCBF29CE484222325ull;
  constexpr uint64_t kPrime = 1099511628211ull;
  uint64_t h = kOffsetBasis;
  uint64_t x = static_cast<uint64_t>(v);
  for (int i = 0; i < 8; ++i) {
    h ^= x & 0xff;
    h *= kPrime;
    x >>= 8;
  }
  const int64_t s = static_cast<int64_t>(h);
  if (s >= 0 || s == std::numeric_limits<int64_t>::min()) return s;
  return -s;
}

std::string YcsbKeyName(int64_t keynum, uint32_t zeropadding, bool ordered) {
  const std::string digits = std::to_string(ordered ? keynum : YcsbFnvHash64(keynum));
  std::string out = "user";
  if (zeropadding > digits.size()) out.append(zeropadding - digits.size(), '0');
  return out + digits;
}

// --- uniform, zipfian ------------------------------------------------------

YcsbUniform::YcsbUniform(int64_t lo, int64_t hi)
    : lo_(lo), span_(static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1) {
  CHECK_LE(lo, hi);
}

int64_t YcsbUniform::Next(sim::Rng& rng) {
  return lo_ + static_cast<int64_t>(span_ == 0 ? rng.Next() : rng.Uniform(span_));
}

double YcsbZipfian::Zeta(int64_t from, int64_t to, double theta, double initial) {
  double sum = initial;
  const int64_t exact_end = std::min(to, std::max(from, kExactZetaTerms));
  for (int64_t i = from; i < exact_end; ++i) sum += 1 / std::pow(static_cast<double>(i + 1), theta);
  if (to > exact_end) sum += ZetaTail(static_cast<double>(exact_end + 1), static_cast<double>(to), theta);
  return sum;
}

YcsbZipfian::YcsbZipfian(int64_t min, int64_t max, double theta)
    : YcsbZipfian(min, max, theta, Zeta(0, max - min + 1, theta, 0)) {}

YcsbZipfian::YcsbZipfian(int64_t min, int64_t max, double theta, double zetan)
    : items_(max - min + 1), base_(min), theta_(theta), zetan_(zetan), count_for_zeta_(max - min + 1) {
  zeta2theta_ = Zeta(0, 2, theta_, 0);
  alpha_ = 1.0 / (1.0 - theta_);
  eta_ = (1 - std::pow(2.0 / static_cast<double>(items_), 1 - theta_)) / (1 - zeta2theta_ / zetan_);
}

int64_t YcsbZipfian::Next(sim::Rng& rng, int64_t itemcount) {
  if (itemcount > count_for_zeta_) {
    zetan_ = Zeta(count_for_zeta_, itemcount, theta_, zetan_);
    count_for_zeta_ = itemcount;
    // YCSB keeps the item count it was built with in eta.
    eta_ = (1 - std::pow(2.0 / static_cast<double>(items_), 1 - theta_)) / (1 - zeta2theta_ / zetan_);
  }
  const double u = rng.UniformDouble();
  const double uz = u * zetan_;
  if (uz < 1.0) return base_;
  if (uz < 1.0 + std::pow(0.5, theta_)) return base_ + 1;
  int64_t ret = base_ + JavaLong(static_cast<double>(itemcount) * std::pow(eta_ * u - eta_ + 1, alpha_));
  // Rounding can land one past the last item; it is the last item.
  if (itemcount >= 1) ret = std::clamp(ret, base_, base_ + itemcount - 1);
  return ret;
}

YcsbScrambledZipfian::YcsbScrambledZipfian(int64_t min, int64_t max)
    : min_(min), itemcount_(max - min + 1), gen_(0, kItemCount, YcsbZipfian::kConstant, kZetan) {
  CHECK_GE(itemcount_, 1);
}

int64_t YcsbScrambledZipfian::Next(sim::Rng& rng) { return min_ + YcsbFnvHash64(gen_.Next(rng)) % itemcount_; }

// --- latest, hotspot, exponential -------------------------------------------

void YcsbAckCounter::Acknowledge(int64_t v) {
  pending_.insert(v);
  while (!pending_.empty() && *pending_.begin() == limit_ + 1) {
    pending_.erase(pending_.begin());
    ++limit_;
  }
}

YcsbSkewedLatest::YcsbSkewedLatest(const YcsbAckCounter* basis)
    : basis_(basis), zipfian_(0, basis->Last() - 1) {}

int64_t YcsbSkewedLatest::Next(sim::Rng& rng) {
  const int64_t max = basis_->Last();
  return max - zipfian_.Next(rng, max);
}

YcsbHotspot::YcsbHotspot(int64_t lo, int64_t hi, double hot_data, double hot_ops) : lo_(lo), hot_ops_(hot_ops) {
  CHECK_LE(lo, hi);
  const int64_t interval = hi - lo + 1;
  hot_ = JavaInt(static_cast<double>(interval) * hot_data);
  cold_ = interval - hot_;
}

int64_t YcsbHotspot::Next(sim::Rng& rng) {
  const bool hot = rng.UniformDouble() < hot_ops_;
  // An empty set (a fraction of 0 or 1) sends its share to the other one.
  if ((hot && hot_ > 0) || cold_ == 0) return lo_ + static_cast<int64_t>(rng.Uniform(static_cast<uint64_t>(hot_)));
  return lo_ + hot_ + static_cast<int64_t>(rng.Uniform(static_cast<uint64_t>(cold_)));
}

YcsbExponential::YcsbExponential(double percentile, double range)
    : gamma_(-std::log(1.0 - percentile / 100.0) / range) {}

int64_t YcsbExponential::Next(sim::Rng& rng) { return JavaLong(-std::log(1.0 - rng.UniformDouble()) / gamma_); }

// --- operations ---------------------------------------------------------------

std::string_view YcsbOpName(YcsbOp op) {
  static constexpr std::string_view kNames[kYcsbOps] = {"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE"};
  return kNames[static_cast<int>(op)];
}

std::string_view YcsbOpStatName(YcsbOp op) {
  static constexpr std::string_view kNames[kYcsbOps] = {"read", "update", "insert", "scan", "read_modify_write"};
  return kNames[static_cast<int>(op)];
}

YcsbOpChooser::YcsbOpChooser(const YcsbProperties& p) {
  const std::pair<YcsbOp, double> all[] = {{YcsbOp::kRead, p.readproportion},
                                           {YcsbOp::kUpdate, p.updateproportion},
                                           {YcsbOp::kInsert, p.insertproportion},
                                           {YcsbOp::kScan, p.scanproportion},
                                           {YcsbOp::kReadModifyWrite, p.readmodifywriteproportion}};
  for (const auto& w : all) {
    if (w.second > 0) {
      weights_.push_back(w);
      sum_ += w.second;
    }
  }
}

YcsbOp YcsbOpChooser::Next(sim::Rng& rng) const {
  CHECK(!weights_.empty()) << "no operation has a positive proportion";
  double val = rng.UniformDouble();
  for (const auto& [op, w] : weights_) {
    const double pw = w / sum_;
    if (val < pw) return op;
    val -= pw;
  }
  return weights_.back().first;  // the normalized weights summed to a hair below 1
}

double YcsbOpChooser::Probability(YcsbOp op) const {
  for (const auto& [o, w] : weights_) {
    if (o == op) return w / sum_;
  }
  return 0;
}

// --- the workload's choosers ------------------------------------------------

namespace {

struct RequestDistribution {
  std::string_view name;
  bool back_from_latest;
  std::unique_ptr<YcsbNumberGenerator> (*make)(const YcsbSpec& s, const YcsbAckCounter* inserted);
};

// The key range the load filled.
int64_t First(const YcsbSpec& s) { return static_cast<int64_t>(s.p.insertstart); }
int64_t Last(const YcsbSpec& s) { return static_cast<int64_t>(s.p.insertstart + s.insertcount) - 1; }

const RequestDistribution kRequestDistributions[] = {
    {"uniform", false,
     [](const YcsbSpec& s, const YcsbAckCounter*) -> std::unique_ptr<YcsbNumberGenerator> {
       return std::make_unique<YcsbUniform>(First(s), Last(s));
     }},
    {"zipfian", false,
     [](const YcsbSpec& s, const YcsbAckCounter*) -> std::unique_ptr<YcsbNumberGenerator> {
       // Room for the keys the run will insert, so their arrival does not
       // move the popular keys (YCSB's fudge factor 2).
       const int64_t expected_new =
           JavaInt(static_cast<double>(s.p.operationcount) * s.p.insertproportion * 2.0);
       return std::make_unique<YcsbScrambledZipfian>(First(s), Last(s) + 1 + expected_new);
     }},
    {"latest", false,
     [](const YcsbSpec&, const YcsbAckCounter* inserted) -> std::unique_ptr<YcsbNumberGenerator> {
       return std::make_unique<YcsbSkewedLatest>(inserted);
     }},
    {"hotspot", false,
     [](const YcsbSpec& s, const YcsbAckCounter*) -> std::unique_ptr<YcsbNumberGenerator> {
       return std::make_unique<YcsbHotspot>(First(s), Last(s), s.p.hotspotdatafraction, s.p.hotspotopnfraction);
     }},
    {"sequential", false,
     [](const YcsbSpec& s, const YcsbAckCounter*) -> std::unique_ptr<YcsbNumberGenerator> {
       return std::make_unique<YcsbSequential>(First(s), Last(s));
     }},
    {"exponential", true,
     [](const YcsbSpec& s, const YcsbAckCounter*) -> std::unique_ptr<YcsbNumberGenerator> {
       return std::make_unique<YcsbExponential>(s.p.exponential.percentile,
                                                static_cast<double>(s.p.recordcount) * s.p.exponential.frac);
     }},
};

// Field and scan lengths: constant, uniform or (plain) zipfian over lo..hi.
std::unique_ptr<YcsbNumberGenerator> LengthGenerator(std::string_view dist, uint64_t lo, uint64_t hi) {
  if (dist == "constant") return std::make_unique<YcsbConstant>(static_cast<int64_t>(hi));
  if (dist == "uniform") return std::make_unique<YcsbUniform>(static_cast<int64_t>(lo), static_cast<int64_t>(hi));
  CHECK_EQ(dist, "zipfian");
  return std::make_unique<YcsbZipfian>(static_cast<int64_t>(lo), static_cast<int64_t>(hi));
}

}  // namespace

YcsbChoosers::YcsbChoosers(const YcsbSpec& spec)
    : ops_(spec.p),
      inserted_(static_cast<int64_t>(spec.p.recordcount)),
      field_(0, static_cast<int64_t>(spec.p.fieldcount) - 1) {
  if (spec.p.dotransactions && !spec.InsertOnly()) {
    const RequestDistribution* d = nullptr;
    for (const RequestDistribution& r : kRequestDistributions) {
      if (r.name == spec.p.requestdistribution) d = &r;
    }
    CHECK(d != nullptr) << "requestdistribution '" << spec.p.requestdistribution << "' not validated";
    keys_ = d->make(spec, &inserted_);
    back_from_latest_ = d->back_from_latest;
  }
  const uint64_t min_len = spec.p.fieldlengthdistribution == "constant" ? spec.p.fieldlength : spec.p.minfieldlength;
  field_length_ = LengthGenerator(spec.p.fieldlengthdistribution, min_len, spec.p.fieldlength);
  scan_length_ = LengthGenerator(spec.p.scanlengthdistribution, spec.p.minscanlength, spec.p.maxscanlength);
}

sim::Result<int64_t> YcsbChoosers::NextKeynum(sim::Rng& rng) {
  CHECK(keys_ != nullptr) << "a run that only inserts chooses no key";
  for (int draw = 0; draw < kMaxKeyDraws; ++draw) {
    const int64_t k = back_from_latest_ ? inserted_.Last() - keys_->Next(rng) : keys_->Next(rng);
    if (k >= 0 && k <= inserted_.Last()) return k;
  }
  return sim::Status::InvalidInput(fmt::format(
      "requestdistribution: no inserted key in {} draws (keys 0..{} inserted); with zipfian, the range also "
      "holds 2 x operationcount x insertproportion keys expected from inserts, which here dwarfs the records",
      kMaxKeyDraws, inserted_.Last()));
}

// --- values -------------------------------------------------------------------

void YcsbRandomValue(sim::Rng& rng, uint64_t n, std::string* out) {
  out->resize(n);
  uint64_t bits = 0;
  int left = 0;
  for (uint64_t i = 0; i < n; ++i) {
    if (left == 0) {
      bits = rng.Next();
      left = 10;  // six bits a character
    }
    (*out)[i] = kValueAlphabet[bits & 63];
    bits >>= 6;
    --left;
  }
}

void YcsbIntegrityValue(std::string_view key, std::string_view field, uint64_t n, std::string* out) {
  sim::Rng rng(sim::HashName(key) ^ (sim::HashName(field) * 0x9E3779B97F4A7C15ull));
  YcsbRandomValue(rng, n, out);
}

}  // namespace host::sqlite
