// Format (mkfs) and mount: checkpoint selection, NAT/SIT/SSA loading, then
// orphan release and roll-forward recovery (the Recovery's, recovery.h) and
// the background threads.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <glog/logging.h>

#include "fs/f2fs/f2fs.h"
#include "fs/f2fs/journal.h"

namespace fs::f2fs {


sim::Result<std::vector<SegNo>> F2fs::RegionLogSegments(const F2fsConfig& cfg, const Layout& l,
                                                        const ssd::DeviceLayout& device) {
  FS_ASSIGN_OR_RETURN(std::unique_ptr<AllocationPolicy> policy,
                      MakeAllocationPolicy(cfg.allocation, AllocationPolicyContext{&cfg, &l, &device}));
  const uint32_t regions = policy->regions();
  std::vector<SegNo> out;
  if (regions <= 1) return out;
  std::vector<std::vector<uint32_t>> secs(regions);
  for (uint32_t sec = 0; sec < l.section_count; ++sec) secs[policy->RegionOfSection(sec)].push_back(sec);
  for (uint32_t r = 0; r < regions; ++r) {
    if (secs[r].size() < kNumPersistentLogs + 1)
      return sim::Status::InvalidInput(fmt::format(
          "fs.volume: region {} (a flash channel) has {} sections; each region needs at least {} (its six logs "
          "and one to clean into)",
          r, secs[r].size(), kNumPersistentLogs + 1));
    for (int t = 0; t < kNumPersistentLogs; ++t) out.push_back(SegNo{secs[r][t] * l.segs_per_sec});
  }
  return out;
}

sim::Status F2fs::ZonedLayoutParams(const F2fsConfig& cfg, const ssd::ZoneLayout& z, uint32_t page_size,
                                     LayoutParams* lp) {
  const uint64_t seg_bytes = uint64_t{kBlockSize} * kBlocksPerSeg;
  const uint64_t zone_bytes = z.zone_pages * page_size;
  const uint64_t cap_bytes = z.zone_capacity * page_size;
  const uint64_t conv_bytes = z.conventional_pages * page_size;
  if (cfg.mode != "lfs")
    return sim::Status::InvalidInput(
        "fs.f2fs.mode: a zoned device (ftl.kind: zns) is written in lfs mode only (Linux forces mode=lfs on "
        "blkzoned volumes: no in-place updates, no SSR); set mode: lfs");
  if (zone_bytes % seg_bytes != 0 || cap_bytes % seg_bytes != 0)
    return sim::Status::InvalidInput(fmt::format(
        "ftl.zns.zone_size / zone_capacity: {} / {} bytes; F2FS on a zoned device needs both in whole 2 MiB "
        "segments (a section is a zone)",
        zone_bytes, cap_bytes));
  if (cfg.mkfs.segs_per_sec != zone_bytes / seg_bytes)
    return sim::Status::InvalidInput(fmt::format(
        "fs.f2fs.mkfs.segs_per_sec: {}; on a zoned device a section is a zone: set it to {} (the {} MiB zone in "
        "2 MiB segments), as mkfs.f2fs -m does",
        cfg.mkfs.segs_per_sec, zone_bytes / seg_bytes, zone_bytes >> 20));
  if (cfg.mkfs.secs_per_zone != 1)
    return sim::Status::InvalidInput("fs.f2fs.mkfs.secs_per_zone: must be 1 on a zoned device (a section is a zone)");
  if (cfg.durability == "journal")
    return sim::Status::InvalidInput(
        "fs.f2fs.durability: journal (F2FS-J) on a zoned device is not modelled: its ordered data writes reach the "
        "device in file order, not in the order the log allocated their blocks, which a zone's write pointer "
        "refuses; use checkpoint");
  if (conv_bytes == 0 || conv_bytes % kBlockSize != 0)
    return sim::Status::InvalidInput(
        "ftl.zns.conventional: F2FS keeps its superblock, checkpoint, SIT, NAT and SSA (and F2FS-J's journal) "
        "in the conventional area, updated in place; give the device one");
  lp->zoned_main_block = conv_bytes / kBlockSize;
  lp->usable_segs_per_sec = static_cast<uint32_t>(cap_bytes / seg_bytes);
  return sim::Status::Ok();
}

sim::Status F2fs::Format(const F2fsConfig& cfg, uint64_t device_bytes, Image* image,
                         const ssd::DeviceLayout* device) {
  FS_RETURN_IF_ERROR(cfg.Validate());
  LayoutParams lp;
  lp.device_bytes = device_bytes;
  lp.segs_per_sec = cfg.mkfs.segs_per_sec;
  lp.secs_per_zone = cfg.mkfs.secs_per_zone;
  lp.overprovision_pct = cfg.mkfs.overprovision;
  if (cfg.durability == "journal") {
    const uint64_t jb = JournalAreaBlocks(cfg);
    if (jb < 2 || jb > UINT32_MAX)
      return sim::Status::InvalidInput(fmt::format(
          "fs.f2fs.journal.size: {} blocks of 4 KiB; the journal needs at least 2 and at most 2^32 - 1", jb));
    lp.journal_blocks = static_cast<uint32_t>(jb);
    // Rewritten in place: on the page-mapped head of a fixed-placement
    // device, in the conventional area of a zoned one.
    lp.journal_at_head = device != nullptr && (device->fixed != nullptr || device->zoned != nullptr);
  }
  if (device != nullptr && device->zoned != nullptr)
    FS_RETURN_IF_ERROR(ZonedLayoutParams(cfg, device->zoned->layout(), device->page_size, &lp));
  FS_ASSIGN_OR_RETURN(Layout l, ComputeLayout(lp));
  uint32_t regions = 1;
  std::vector<SegNo> region_segs;  // r * kNumPersistentLogs + LogType
  if (device) {
    // With regions, mkfs reserves a section for each region's logs: the
    // layout is computed again for the policy's region count.
    FS_ASSIGN_OR_RETURN(std::unique_ptr<AllocationPolicy> policy,
                        MakeAllocationPolicy(cfg.allocation, AllocationPolicyContext{&cfg, &l, device}));
    if (policy->regions() > 1) {
      lp.regions = policy->regions();
      FS_ASSIGN_OR_RETURN(l, ComputeLayout(lp));
    }
    FS_ASSIGN_OR_RETURN(region_segs, RegionLogSegments(cfg, l, *device));
    if (!region_segs.empty()) {
      regions = static_cast<uint32_t>(region_segs.size() / kNumPersistentLogs);
      for (int t = 0; t < kNumPersistentLogs; ++t) l.init_curseg[t] = region_segs[t];
    }
  }
  if (image->blocks() < l.total_blocks())
    return sim::Status::InvalidInput(
        fmt::format("image of {} blocks is smaller than the device ({} blocks)", image->blocks(), l.total_blocks()));
  auto sb = std::make_shared<SuperBlock>();
  sb->block_count = l.block_count;
  sb->segs_per_sec = l.segs_per_sec;
  sb->secs_per_zone = l.secs_per_zone;
  sb->overprovision_pct = l.overprovision_pct;
  sb->regions = l.regions;
  sb->journal_blocks = l.journal_blocks;
  sb->journal_at_head = l.journal_at_head;
  sb->zoned_main_block = l.zoned_main_block;
  sb->usable_segs_per_sec = l.usable_segs_per_sec == l.segs_per_sec ? 0 : l.usable_segs_per_sec;
  sb->cold_extensions = cfg.mkfs.cold_extensions;
  sb->hot_extensions = cfg.mkfs.hot_extensions;
  image->WriteDurable(BlockAddr{0}, sb);
  image->WriteDurable(BlockAddr{1}, sb);

  auto seg_of = [&](LogType t) { return l.init_curseg[static_cast<int>(t)]; };
  const BlockAddr root_addr = l.SegStart(seg_of(LogType::kHotNode));
  // The root directory.
  auto root = std::make_shared<NodeBlock>();
  root->kind = NodeKind::kInode;
  root->footer.nid = kRootIno;
  root->footer.ino = kRootIno;
  root->footer.cp_ver = 1;
  root->footer.next_blkaddr = BlockAddr{root_addr.v + 1};
  InodeFields f;
  f.is_dir = true;
  f.links = 2;
  f.pino = kRootIno;
  f.name = "/";
  f.inline_dentry = cfg.inline_dentry;
  root->inode = f;
  BlockAddr dent_addr = kNullAddr;
  if (cfg.inline_dentry) {
    root->inline_dents.emplace(kInlineDentrySlots);
    root->inline_dents->Insert(0, ".", 0, kRootIno, FileType::kDir);
    root->inline_dents->Insert(1, "..", 0, kRootIno, FileType::kDir);
  } else {
    dent_addr = l.SegStart(seg_of(LogType::kHotData));
    auto d = std::make_shared<DentryBlock>();
    d->Insert(0, ".", 0, kRootIno, FileType::kDir);
    d->Insert(1, "..", 0, kRootIno, FileType::kDir);
    image->WriteDurable(dent_addr, d);
    root->SetAddr(0, dent_addr);
    root->inode->size = kBlockSize;
    root->inode->data_blocks = 1;
    root->inode->current_depth = 1;
  }
  image->WriteDurable(root_addr, root);
  // NAT: the root entry in NAT block 0 (copy 0).
  auto nat = std::make_shared<NatBlock>();
  nat->entries[kRootIno.v] = RawNatEntry{0, kRootIno, root_addr};
  image->WriteDurable(l.NatBlockAddr(0, false), nat);

  // The first checkpoint pack (version 1), with the SIT of the six logs in
  // the SIT journal and the node summaries (umount checkpoint).
  auto cp = std::make_shared<CheckpointBlock>();
  cp->cp_ver = 1;
  cp->user_block_count = l.user_block_count;
  cp->valid_block_count = cfg.inline_dentry ? 1 : 2;
  cp->rsvd_segment_count = l.reserved_segments;
  cp->overprov_segment_count = l.overprov_segments;
  cp->free_segment_count = l.segment_count_main - kNumPersistentLogs * regions;
  for (int t = 0; t < kNumPersistentLogs; ++t) cp->cursegs[t] = CurSegState{l.init_curseg[t], 0, false};
  for (size_t i = kNumPersistentLogs; i < region_segs.size(); ++i)
    cp->region_cursegs.push_back(CurSegState{region_segs[i], 0, false});
  cp->cursegs[static_cast<int>(LogType::kHotNode)].blkoff = 1;
  if (!cfg.inline_dentry) cp->cursegs[static_cast<int>(LogType::kHotData)].blkoff = 1;
  // With regions (a fixed-placement device) the first mount moves every log
  // to a fresh section: the root's blocks were written here, not through
  // the device, and the logs holding them continue mid flash page.
  cp->umount = regions == 1;
  cp->valid_node_count = 1;
  cp->valid_inode_count = 1;
  cp->next_free_nid = Nid{kRootIno.v + 1};
  cp->sit_bitmap.assign(l.sit_blocks, false);
  cp->nat_bitmap.assign(l.nat_blocks, false);
  cp->data_sum_blocks = regions > 1 ? 3 * regions : 1;
  cp->cp_pack_start_sum = 1;
  cp->cp_pack_total_block_count = 2 + cp->data_sum_blocks + 3 * regions;
  if (l.journal_blocks > 0) cp->journal_block_seq = cp->journal_record_seq = 1;
  cp->checksum = cp->Checksum();
  auto sum = std::make_shared<CpSummaryBlock>();
  for (int i = 0; i < 3; ++i) {
    sum->data[i].assign(kBlocksPerSeg, Summary{});
    sum->node[i].assign(kBlocksPerSeg, Summary{});
  }
  for (uint32_t r = 1; r < regions; ++r)
    for (int i = 0; i < 3; ++i) {
      sum->region_data.emplace_back(kBlocksPerSeg, Summary{});
      sum->region_node.emplace_back(kBlocksPerSeg, Summary{});
    }
  sum->node[0][0] = Summary{kRootIno, 0, 0};
  if (!cfg.inline_dentry) sum->data[0][0] = Summary{kRootIno, 0, 0};
  sum->has_node = true;
  for (int t = 0; t < kNumPersistentLogs; ++t) {
    RawSitEntry e;
    e.type = static_cast<uint8_t>(t);
    const LogType lt = static_cast<LogType>(t);
    if (lt == LogType::kHotNode || (lt == LogType::kHotData && !cfg.inline_dentry)) {
      e.valid = 1;
      e.map.set(0);
    }
    sum->sit_journal.push_back(SitJournalEntry{l.init_curseg[t], e});
  }
  for (size_t i = kNumPersistentLogs; i < region_segs.size(); ++i) {
    RawSitEntry e;
    e.type = static_cast<uint8_t>(i % kNumPersistentLogs);
    sum->sit_journal.push_back(SitJournalEntry{region_segs[i], e});
  }
  const BlockAddr base = l.CpPackAddr(static_cast<int>(cp->cp_ver % 2));
  image->WriteDurable(base, cp);
  image->WriteDurable(BlockAddr{base.v + 1}, sum);
  for (uint32_t i = 2; i + 1 < cp->cp_pack_total_block_count; ++i) {
    auto cont = std::make_shared<CpSummaryBlock>();
    cont->continuation = true;
    image->WriteDurable(BlockAddr{base.v + i}, cont);
  }
  image->WriteDurable(BlockAddr{base.v + cp->cp_pack_total_block_count - 1}, cp);
  return sim::Status::Ok();
}

sim::Task<sim::Result<std::unique_ptr<F2fs>>> F2fs::Mount(const F2fsConfig& cfg, Env env) {
  sim::Status st = cfg.Validate();
  if (!st.ok()) co_return st;
  if (cfg.io_queue >= env.device->queues()) {
    co_return sim::Status::InvalidInput(fmt::format("fs.f2fs.io_queue: queue {} does not exist: the device has {}",
                                                    cfg.io_queue, env.device->queues()));
  }
  const SuperBlock* sb = As<SuperBlock>(env.image->Read(BlockAddr{0}), BlockData::Type::kSuper);
  if (!sb) co_return sim::Status::InvalidInput("no F2FS superblock on the device (format it first)");
  sim::Result<Layout> layout = ComputeLayout(LayoutParamsOf(*sb));
  if (!layout.ok()) co_return layout.status();
  if (env.device->capacity() < layout->total_blocks() * kBlockSize)
    co_return sim::Status::InvalidInput("device smaller than the formatted volume");
  if (cfg.durability == "journal" && layout->journal_blocks == 0)
    co_return sim::Status::InvalidInput(
        "fs.f2fs.durability: journal on a volume formatted without a journal area (format it with the journal)");
  F2fsConfig c = cfg;
  c.mkfs.cold_extensions = sb->cold_extensions;
  c.mkfs.hot_extensions = sb->hot_extensions;
  c.mkfs.segs_per_sec = sb->segs_per_sec;
  c.mkfs.secs_per_zone = sb->secs_per_zone;
  {
    // The allocation policy may depend on the device (ParaFS's regions).
    auto alloc = MakeAllocationPolicy(c.allocation, AllocationPolicyContext{&c, &*layout, &env.device->layout()});
    if (!alloc.ok()) co_return alloc.status();
  }
  std::unique_ptr<F2fs> fs(new F2fs(c, *layout, env));
  st = co_await fs->LoadCheckpoint();
  if (!st.ok()) co_return st;
  co_return fs;
}

sim::Task<sim::Status> F2fs::LoadCheckpoint() {
  // ---- Pick the newest valid checkpoint pack.
  co_await io_->ReadBlock(layout_.CpPackAddr(0), Io::kCp);
  co_await io_->ReadBlock(layout_.CpPackAddr(1), Io::kCp);
  std::shared_ptr<const CheckpointBlock> best;
  int best_pack = -1;
  for (int pack = 0; pack < 2; ++pack) {
    const BlockAddr base = layout_.CpPackAddr(pack);
    const BlockPtr first_ptr = image_->Read(base);
    const auto* first = As<CheckpointBlock>(first_ptr, BlockData::Type::kCheckpoint);
    if (!first || first->checksum != first->Checksum()) continue;
    if (first->cp_pack_total_block_count < 2 || first->cp_pack_total_block_count > kBlocksPerSeg) continue;
    const BlockAddr last_addr{base.v + first->cp_pack_total_block_count - 1};
    co_await io_->ReadBlock(last_addr, Io::kCp);
    const auto* last = As<CheckpointBlock>(image_->Read(last_addr), BlockData::Type::kCheckpoint);
    if (!last || last->cp_ver != first->cp_ver || last->checksum != last->Checksum() ||
        last->checksum != first->checksum)
      continue;
    if (!best || first->cp_ver > best->cp_ver) {
      best = std::static_pointer_cast<const CheckpointBlock>(first_ptr);
      best_pack = pack;
    }
  }
  if (!best) co_return sim::Status::InvalidInput("no valid checkpoint pack on the device");
  const CheckpointBlock& cp = *best;
  const BlockAddr base = layout_.CpPackAddr(best_pack);
  {
    std::vector<BlockAddr> rest;
    for (uint32_t i = 1; i + 1 < cp.cp_pack_total_block_count; ++i) rest.push_back(BlockAddr{base.v + i});
    co_await io_->ReadBlocks(rest, Io::kCp);
  }
  std::vector<Nid> orphans;
  for (uint32_t i = 0; i < cp.orphan_blocks; ++i) {
    const auto* ob = As<OrphanBlock>(image_->Read(BlockAddr{base.v + 1 + i}), BlockData::Type::kOrphan);
    if (!ob) co_return sim::Status::InvalidInput("checkpoint orphan block missing");
    orphans.insert(orphans.end(), ob->inos.begin(), ob->inos.end());
  }
  std::vector<uint32_t> stolen;
  for (uint32_t i = 0; i < cp.stolen_list_blocks; ++i) {
    const auto* sb =
        As<StolenListBlock>(image_->Read(BlockAddr{base.v + 1 + cp.orphan_blocks + i}), BlockData::Type::kStolenList);
    if (!sb) co_return sim::Status::InvalidInput("checkpoint stolen-block list missing");
    stolen.insert(stolen.end(), sb->addrs.begin(), sb->addrs.end());
  }
  if (stolen.size() != cp.stolen_blocks) {
    co_return sim::Status::InvalidInput(fmt::format("checkpoint {} counts {} stolen blocks but lists {}", cp.cp_ver,
                                                    cp.stolen_blocks, stolen.size()));
  }
  const BlockPtr sum_ptr = image_->Read(BlockAddr{base.v + cp.cp_pack_start_sum});
  const auto* sum = As<CpSummaryBlock>(sum_ptr, BlockData::Type::kCpSummary);
  if (!sum || sum->continuation) co_return sim::Status::InvalidInput("checkpoint summary block missing");

  // ---- NAT: the valid copy of every NAT block, then the journal. The
  // kernel reads NAT blocks when a lookup misses its cache (LoadNode
  // charges that); at mount only the free-nid scan reads FREE_NID_PAGES
  // blocks from next_free_nid (f2fs_build_free_nids). The model takes the
  // rest of the table from the image without I/O.
  nat_->LoadBitmap(cp.nat_bitmap);
  {
    constexpr uint32_t kFreeNidPages = 8;
    std::vector<BlockAddr> addrs;
    const uint32_t first = std::min(cp.next_free_nid.v / kNatEntriesPerBlock, layout_.nat_blocks - 1);
    for (uint32_t i = first; i < layout_.nat_blocks && i < first + kFreeNidPages; ++i) {
      addrs.push_back(layout_.NatBlockAddr(i, cp.nat_bitmap[i]));
      nat_->MarkPageCached(i);
    }
    co_await io_->ReadBlocks(addrs, Io::kMeta);
    for (uint32_t i = 0; i < layout_.nat_blocks; ++i) {
      const auto* nb = As<NatBlock>(image_->Read(layout_.NatBlockAddr(i, cp.nat_bitmap[i])), BlockData::Type::kNat);
      if (!nb) continue;
      for (uint32_t k = 0; k < kNatEntriesPerBlock; ++k) {
        const uint32_t nid = i * kNatEntriesPerBlock + k;
        if (nid <= kMetaIno.v || nid >= layout_.max_nid) continue;
        if (nb->entries[k].addr != kNullAddr) nat_->Load(Nid{nid}, nb->entries[k]);
      }
    }
  }
  nat_->LoadJournal(sum->nat_journal);
  nat_->SetNextScan(cp.next_free_nid);

  // ---- SIT: the valid copy of every SIT block, then the journal.
  {
    std::vector<BlockAddr> addrs;
    for (uint32_t i = 0; i < layout_.sit_blocks; ++i) addrs.push_back(layout_.SitBlockAddr(i, cp.sit_bitmap[i]));
    co_await io_->ReadBlocks(addrs, Io::kMeta);
    for (uint32_t i = 0; i < layout_.sit_blocks; ++i) {
      const auto* b = As<SitBlock>(image_->Read(addrs[i]), BlockData::Type::kSit);
      if (!b) continue;
      for (uint32_t k = 0; k < kSitEntriesPerBlock; ++k) {
        const uint32_t s = i * kSitEntriesPerBlock + k;
        if (s >= layout_.segment_count_main) break;
        sm_->LoadSit(SegNo{s}, b->entries[k]);
      }
    }
  }
  cpw_->Load(cp.sit_bitmap, sum->sit_journal);
  for (const SitJournalEntry& j : cpw_->sit_journal()) sm_->LoadSit(j.segno, j.entry);

  // ---- SSA, then the logs and their summaries.
  {
    std::vector<BlockAddr> addrs;
    for (uint32_t s = 0; s < layout_.segment_count_main; ++s) addrs.push_back(layout_.SsaBlockAddr(SegNo{s}));
    co_await io_->ReadBlocks(addrs, Io::kMeta);
    for (uint32_t s = 0; s < layout_.segment_count_main; ++s) {
      const auto* b = As<SummaryBlock>(image_->Read(addrs[s]), BlockData::Type::kSummary);
      if (!b) continue;
      const BlockAddr start = layout_.SegStart(SegNo{s});
      for (uint32_t i = 0; i < kBlocksPerSeg; ++i) sm_->SetSummary(BlockAddr{start.v + i}, b->entries[i]);
    }
  }
  const uint32_t regions = sm_->regions();
  if (regions > 1 && !cp.region_cursegs.empty() && cp.region_cursegs.size() != (regions - 1) * kNumPersistentLogs)
    co_return sim::Status::InvalidInput("checkpoint has logs of " +
                                        std::to_string(cp.region_cursegs.size() / kNumPersistentLogs + 1) +
                                        " regions; the allocation policy has " + std::to_string(regions));
  if (regions == 1 && !cp.region_cursegs.empty())
    co_return sim::Status::InvalidInput("checkpoint has logs of several regions; the allocation policy has one");
  for (int t = 0; t < kNumPersistentLogs; ++t) sm_->SetCurseg(static_cast<LogType>(t), 0, cp.cursegs[t]);
  for (size_t i = 0; i < cp.region_cursegs.size(); ++i)
    sm_->SetCurseg(static_cast<LogType>(i % kNumPersistentLogs), static_cast<uint32_t>(i / kNumPersistentLogs + 1),
                   cp.region_cursegs[i]);
  for (int t = 0; t < kNumPersistentLogs; ++t)
    if (cp.stripes[t].region < regions) sm_->SetStripe(static_cast<LogType>(t), cp.stripes[t]);
  const LogType dl[3] = {LogType::kHotData, LogType::kWarmData, LogType::kColdData};
  const LogType nl[3] = {LogType::kHotNode, LogType::kWarmNode, LogType::kColdNode};
  // The summaries of log (type, region): region 0 in data/node, the others
  // in region_data/region_node.
  auto summaries_of = [&](bool node, int i, uint32_t r) -> const std::vector<Summary>* {
    if (r == 0) return node ? &sum->node[i] : &sum->data[i];
    const auto& v = node ? sum->region_node : sum->region_data;
    const size_t k = (r - 1) * 3 + i;
    return k < v.size() ? &v[k] : nullptr;
  };
  for (uint32_t r = 0; r < regions; ++r) {
    for (int i = 0; i < 3; ++i) {
      const CurSegState& c = r == 0 ? cp.cursegs[static_cast<int>(dl[i])]
                                    : cp.region_cursegs.empty() ? CurSegState{}
                                                                : cp.region_cursegs[(r - 1) * kNumPersistentLogs +
                                                                                    static_cast<int>(dl[i])];
      if (c.segno == kNullSegNo) continue;
      if (const size_t k = (r - 1) * 3 + i; r > 0 && k < sum->region_data_in_ssa.size() && sum->region_data_in_ssa[k]) {
        // Left out of the pack: its SSA block, read above, holds it.
        if (!As<SummaryBlock>(image_->Read(layout_.SsaBlockAddr(c.segno)), BlockData::Type::kSummary))
          co_return sim::Status::InvalidInput(fmt::format(
              "checkpoint {}: the summary of data log {} of region {} is in the SSA block of segment {}, which holds none",
              cp.cp_ver, i, r, c.segno.v));
        continue;
      }
      const std::vector<Summary>* v = summaries_of(false, i, r);
      if (!v) continue;
      const BlockAddr start = layout_.SegStart(c.segno);
      for (uint32_t k = 0; k < v->size() && k < kBlocksPerSeg; ++k) sm_->SetSummary(BlockAddr{start.v + k}, (*v)[k]);
    }
  }
  for (uint32_t r = 0; r < regions; ++r) {
    for (int i = 0; i < 3; ++i) {
      const CurSegState& c = r == 0 ? cp.cursegs[static_cast<int>(nl[i])]
                                    : cp.region_cursegs.empty() ? CurSegState{}
                                                                : cp.region_cursegs[(r - 1) * kNumPersistentLogs +
                                                                                    static_cast<int>(nl[i])];
      if (c.segno == kNullSegNo) continue;
      const BlockAddr start = layout_.SegStart(c.segno);
      if (sum->has_node) {
        const std::vector<Summary>* v = summaries_of(true, i, r);
        if (v) {
          for (uint32_t k = 0; k < v->size() && k < kBlocksPerSeg; ++k)
            sm_->SetSummary(BlockAddr{start.v + k}, (*v)[k]);
          continue;
        }
      }
      // Node summaries of the active node segments come from the node
      // footers (restore_node_summary).
      std::vector<BlockAddr> addrs;
      for (uint32_t k = 0; k < kBlocksPerSeg; ++k) {
        if (!sm_->seg(c.segno).cur_map.test(k)) continue;
        addrs.push_back(BlockAddr{start.v + k});
      }
      co_await io_->ReadBlocks(addrs, Io::kNode);
      for (BlockAddr a : addrs) {
        const auto* nb = As<NodeBlock>(image_->Read(a), BlockData::Type::kNode);
        if (nb) sm_->SetSummary(a, Summary{nb->footer.nid, 0, 0});
      }
    }
  }
  sm_->FinishLoad();
  valid_block_count_ = cp.valid_block_count;
  valid_inode_count_ = cp.valid_inode_count;
  if (!stolen.empty()) {
    // Blocks running transactions had written early: their transactions
    // died with the power; roll-forward takes back those a durable commit
    // record names. The pack lists them (the SSA, updated in place, may
    // already show a later commit's owners).
    uint64_t freed = 0;
    for (uint32_t v : stolen) {
      const BlockAddr a{v};
      if (!layout_.InMain(a) || !sm_->BlockValid(a)) {
        co_return sim::Status::InvalidInput(
            fmt::format("checkpoint {} lists stolen block {}, which its SIT does not hold valid", cp.cp_ver, v));
      }
      sm_->Invalidate(a);
      ++freed;
    }
    valid_block_count_ -= freed;
  }
  // f2fs_fill_super: last_valid_block_count from the mounted checkpoint.
  valid_at_cp_ = valid_block_count_;
  alloc_since_cp_ = 0;
  cpm_->Loaded(cp.cp_ver);
  mounted_cp_ver_ = cp.cp_ver;
  mounted_clean_ = cp.umount;
  durability_->OnCheckpointCommitted(q_->now());
  last_op_time_ = q_->now();
  // ---- Orphans, roll-forward recovery, then a checkpoint if anything changed.
  co_await recovery_->RecoverOrphans(orphans);
  // The journal's committed records after the checkpoint, before
  // roll-forward (which may find their inodes).
  uint64_t replayed = 0;
  if (journal_) {
    mounted_journal_pos_ = JournalPosition{cp.journal_head, cp.journal_block_seq, cp.journal_record_seq};
    sim::Status jst = co_await replay_->Replay(mounted_journal_pos_, &replayed, &journal_recovered_key_);
    if (!jst.ok()) co_return jst;
  }
  const uint64_t rec0 = stats_.recovered_dnodes.value() + stats_.recovered_inodes.value();
  sim::Status st = co_await recovery_->RollForward();
  if (!st.ok()) co_return st;
  const bool recovered = stats_.recovered_dnodes.value() + stats_.recovered_inodes.value() > rec0;
  if (replayed > 0 && !recovered) {
    // No log may overwrite a block replay adopted before the checkpoint
    // (roll-forward recovery, when it recovered something, moved them).
    if (erase_before_reuse_) {
      st = MoveLogsPastUncheckpointedWrites(/*all=*/true);
      if (!st.ok()) co_return st;
    } else {
      sm_->MoveAllLogsToNewSegments();
    }
  }
  // With a journal, always: it records where the journal continues.
  if (recovered || replayed > 0 || !orphans.empty() || journal_) co_await Checkpoint(CpReason::kRecovery);
  if (cfg_.atgc) sm_->OpenLog(LogType::kAtgcData);
  StartThreads();
  co_return sim::Status::Ok();
}

sim::Task<void> F2fs::DiscardThread() {
  ++threads_running_;
  co_await dm_->Thread();
  --threads_running_;
  threads_wq_.NotifyAll();
}

void F2fs::StartThreads() {
  flusher_thread_.Start(q_, FlusherThread(), owner_flusher_);
  if (journal_) commit_thread_.Start(q_, JournalCommitThread(), owner_journal_);
  if (cfg_.gc.background) gc_thread_.Start(q_, GcThread(), owner_gc_);
  if (cfg_.discard.enabled) discard_thread_.Start(q_, DiscardThread(), owner_discard_);
}

}  // namespace fs::f2fs
