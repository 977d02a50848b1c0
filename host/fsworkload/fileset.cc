#include "host/fsworkload/fileset.h"

#include <cmath>
#include <cstdio>

#include <glog/logging.h>

#include "host/fsworkload/gamma.h"

namespace host {

uint64_t Fileset::MemoryBytes(const FilesetDef& def) {
  if (def.single_file) return sizeof(File);
  // Two index sets per kind: one bit per member plus a summary bit per word.
  const auto sets = [](uint64_t n) { return 2 * (n / 8 + n / 512 + 16); };
  const uint64_t members = def.entries + def.leafdirs;
  const uint64_t dirs = def.dirwidth > 1 ? static_cast<uint64_t>(2.0 * static_cast<double>(members) / def.dirwidth)
                                         : members;
  return def.entries * sizeof(File) + def.leafdirs * sizeof(LeafDir) + sets(def.entries) + sets(def.leafdirs) +
         (dirs + 1) * sizeof(Dir);
}

Fileset::Fileset(const FilesetDef& def, sim::Rng rng) : def_(def), rng_(rng) {
  root_ = def_.path;
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
  if (root_ != "/") root_ += '/';
  root_ += def_.name;
  auto draw_size = [this]() -> uint64_t {
    if (def_.size_gamma > 0) {
      return static_cast<uint64_t>(GammaSample(rng_, def_.size_gamma, def_.size_mean / def_.size_gamma));
    }
    return static_cast<uint64_t>(def_.size_mean);
  };
  if (def_.single_file) {
    files_.push_back(File{UINT32_MAX, 0});
    files_.back().size = draw_size();
    total_bytes_ = files_.back().size;
  } else {
    CHECK_GT(def_.dirwidth, 1.0) << "fileset " << def_.name << ": dirwidth must exceed 1";
    mean_depth_ = std::log(static_cast<double>(def_.entries + def_.leafdirs)) / std::log(def_.dirwidth);
    files_.reserve(def_.entries);
    leafdirs_.reserve(def_.leafdirs);
    PopulateSubdir(-1, 1, 0);
    for (File& f : files_) {
      f.size = draw_size();
      total_bytes_ += f.size;
    }
  }
  exist_files_.Reset(files_.size());
  noex_files_.Reset(files_.size());
  for (uint64_t i = 0; i < files_.size(); ++i) noex_files_.Insert(i);
  exist_leafdirs_.Reset(leafdirs_.size());
  noex_leafdirs_.Reset(leafdirs_.size());
  for (uint64_t i = 0; i < leafdirs_.size(); ++i) noex_leafdirs_.Insert(i);
}

void Fileset::PopulateSubdir(int64_t parent, uint32_t serial, double depth) {
  depth += 1;
  const auto d = static_cast<uint32_t>(dirs_.size());
  dirs_.push_back(Dir{parent < 0 ? d : static_cast<uint32_t>(parent), serial});
  double randepth, ranwidth;
  if (def_.dirgamma > 0) {
    randepth = std::floor(GammaSample(rng_, def_.dirgamma, mean_depth_ / def_.dirgamma));
    ranwidth = GammaSample(rng_, def_.dirgamma, def_.dirwidth / def_.dirgamma);
  } else {
    randepth = std::floor(mean_depth_);
    ranwidth = def_.dirwidth;
  }
  if (randepth == 0) randepth = 1;
  if (ranwidth == 0) ranwidth = 1;
  const bool leaf = parent >= 0 && depth >= randepth;
  // The root keeps adding children until every entry has a place.
  for (uint32_t i = 1; (parent < 0 || i < ranwidth + 1) && files_.size() < def_.entries; ++i) {
    if (leaf) {
      files_.push_back(File{d, i});
    } else {
      PopulateSubdir(d, i, depth);
    }
  }
  for (uint32_t i = 1; (parent < 0 || i < ranwidth + 1) && leafdirs_.size() < def_.leafdirs; ++i) {
    if (leaf) {
      leafdirs_.push_back(LeafDir{d, i});
    } else {
      PopulateSubdir(d, i, depth);
    }
  }
}

void Fileset::AppendSerial(uint32_t serial, std::string* out) const {
  // "/%08u" without printf: paths are built on every pick.
  char buf[12];
  int n = 11;
  do {
    buf[n--] = static_cast<char>('0' + serial % 10);
    serial /= 10;
  } while (serial != 0);
  while (n > 3) buf[n--] = '0';
  buf[n] = '/';
  out->append(buf + n, static_cast<size_t>(12 - n));
}

void Fileset::DirPath(uint32_t dir, std::string* out) const {
  chain_.clear();
  for (uint32_t d = dir; dirs_[d].parent != d; d = dirs_[d].parent) chain_.push_back(dirs_[d].serial);
  out->assign(root_);
  for (auto it = chain_.rbegin(); it != chain_.rend(); ++it) AppendSerial(*it, out);
}

void Fileset::FilePath(uint64_t file, std::string* out) const {
  const File& f = files_[file];
  if (def_.single_file) {
    out->assign(root_);
    return;
  }
  DirPath(f.dir, out);
  AppendSerial(f.serial, out);
}

void Fileset::LeafDirPath(uint64_t leaf, std::string* out) const {
  const LeafDir& l = leafdirs_[leaf];
  DirPath(l.dir, out);
  AppendSerial(l.serial, out);
}

int64_t Fileset::PickFile(bool existing, uint64_t* rotor) {
  sim::IndexSet& set = existing ? exist_files_ : noex_files_;
  uint64_t& r = rotor != nullptr ? *rotor : (existing ? file_exrotor_ : file_nerotor_);
  int64_t e = set.NextWrap(r);
  if (e == sim::IndexSet::kNone) return kNone;
  r = static_cast<uint64_t>(e) + 1;
  const int64_t start = e;
  while (files_[e].busy) {
    e = set.NextWrap(static_cast<uint64_t>(e) + 1);
    if (e == start) return kNone;
  }
  MarkBusy(static_cast<uint64_t>(e));
  return e;
}

int64_t Fileset::PickLeafDir(bool existing) {
  sim::IndexSet& set = existing ? exist_leafdirs_ : noex_leafdirs_;
  uint64_t& r = existing ? leaf_exrotor_ : leaf_nerotor_;
  int64_t e = set.NextWrap(r);
  if (e == sim::IndexSet::kNone) return kNone;
  r = static_cast<uint64_t>(e) + 1;
  const int64_t start = e;
  while (leafdirs_[e].busy) {
    e = set.NextWrap(static_cast<uint64_t>(e) + 1);
    if (e == start) return kNone;
  }
  leafdirs_[e].busy = true;
  ++busy_leafdirs_;
  return e;
}

int64_t Fileset::PickDir() {
  if (dirs_.empty()) return kNone;
  const uint64_t d = dir_rotor_ % dirs_.size();
  dir_rotor_ = d + 1;
  return static_cast<int64_t>(d);
}

void Fileset::SetFileExists(uint64_t i, bool exists) {
  Unbusy(i);
  File& f = files_[i];
  if (f.exists == exists) return;
  f.exists = exists;
  if (exists) {
    noex_files_.Erase(i);
    exist_files_.Insert(i);
  } else {
    exist_files_.Erase(i);
    noex_files_.Insert(i);
  }
}

void Fileset::SetLeafDirExists(uint64_t i, bool exists) {
  UnbusyLeafDir(i);
  LeafDir& l = leafdirs_[i];
  if (l.exists == exists) return;
  l.exists = exists;
  if (exists) {
    noex_leafdirs_.Erase(i);
    exist_leafdirs_.Insert(i);
  } else {
    exist_leafdirs_.Erase(i);
    noex_leafdirs_.Insert(i);
  }
}

}  // namespace host
