// The journal's on-disk format (journal_format.h) and its in-memory part
// (journal.h) against their contracts: records round-trip through blocks,
// damage is detected and never decoded as records, epochs never block the
// operation path, a full journal refuses instead of overwriting.
#include "fs/f2fs/journal.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/rng.h"

namespace fs::f2fs {
namespace {

const JournalRecordType kTypes[] = {JournalRecordType::kCreate, JournalRecordType::kMkdir,
                                    JournalRecordType::kUnlink, JournalRecordType::kLink,
                                    JournalRecordType::kRename, JournalRecordType::kSetattr,
                                    JournalRecordType::kDataWrite, JournalRecordType::kRmdir};

std::string RandomName(sim::Rng& rng, size_t max) {
  std::string s(rng.Uniform(max + 1), 'x');
  for (char& c : s) c = static_cast<char>(1 + rng.Uniform(255));
  return s;
}

JournalRecord RandomRecord(sim::Rng& rng) {
  JournalRecord r;
  r.type = kTypes[rng.Uniform(8)];
  r.seq = rng.Next();
  r.ino = Nid{static_cast<uint32_t>(rng.Next())};
  r.dir = Nid{static_cast<uint32_t>(rng.Next())};
  r.dir2 = Nid{static_cast<uint32_t>(rng.Next())};
  r.replaced = Nid{static_cast<uint32_t>(rng.Next())};
  r.name = RandomName(rng, rng.Bernoulli(0.2) ? kMaxNameLen : 20);
  if (r.type == JournalRecordType::kRename) r.name2 = RandomName(rng, rng.Bernoulli(0.2) ? kMaxNameLen : 20);
  r.size = rng.Next();
  r.index = rng.Next();
  r.dnode = Nid{static_cast<uint32_t>(rng.Next())};
  r.ofs_in_node = static_cast<uint16_t>(rng.Next());
  r.old_addr = BlockAddr{static_cast<uint32_t>(rng.Next())};
  r.new_addr = BlockAddr{static_cast<uint32_t>(rng.Next())};
  return r;
}

// Records that fill one block.
std::vector<JournalRecord> OneBlockOfRecords(sim::Rng& rng) {
  std::vector<JournalRecord> out;
  uint32_t slot = 1;
  while (true) {
    JournalRecord r = RandomRecord(rng);
    if (slot + r.Slots() > kJournalSlotsPerBlock) break;
    slot += r.Slots();
    out.push_back(std::move(r));
  }
  return out;
}

TEST(JournalFormatTest, SlotsOf128Bytes) {
  JournalRecord r;
  r.name = "a";
  EXPECT_EQ(r.Slots(), 1u);  // a create with a short name: one 128-byte slot
  r.name = std::string(128 - kJournalRecordHeader - kJournalRecordFixed, 'n');
  EXPECT_EQ(r.Slots(), 1u);
  r.name += "n";
  EXPECT_EQ(r.Slots(), 2u);
  r.name = std::string(kMaxNameLen, 'n');
  r.name2 = std::string(kMaxNameLen, 'm');
  EXPECT_EQ(r.Slots(), 5u);  // a rename of two longest names
  EXPECT_EQ(kJournalSlotsPerBlock, 32u);
}

TEST(JournalFormatTest, RecordsRoundTrip) {
  sim::Rng rng(7, "journal.format");
  for (int it = 0; it < 500; ++it) {
    const std::vector<JournalRecord> recs = OneBlockOfRecords(rng);
    JournalBlockHeader h{rng.Next(), rng.Next(), rng.Bernoulli(0.5)};
    auto blk = EncodeJournalBlock(h, recs);
    const DecodedJournalBlock d = DecodeJournalBlock(blk->bytes);
    ASSERT_EQ(d.status, JournalDecode::kOk) << d.error;
    EXPECT_EQ(d.header.seq, h.seq);
    EXPECT_EQ(d.header.commit, h.commit);
    EXPECT_EQ(d.header.commit_end, h.commit_end);
    ASSERT_EQ(d.records.size(), recs.size());
    for (size_t i = 0; i < recs.size(); ++i)
      EXPECT_TRUE(d.records[i] == recs[i]) << "record " << i << " name " << recs[i].name.size() << "/"
                                           << d.records[i].name.size() << " name2 " << recs[i].name2.size() << "/"
                                           << d.records[i].name2.size() << " seq " << (recs[i].seq == d.records[i].seq);
  }
}

TEST(JournalFormatTest, ZerosAreNoJournalBlock) {
  std::array<uint8_t, kBlockSize> zeros{};
  EXPECT_EQ(DecodeJournalBlock(zeros).status, JournalDecode::kBadMagic);
}

// Any damaged byte is caught (CRC-32 detects every error within 32 bits),
// and arbitrary bytes behind a valid magic never decode as records.
TEST(JournalFormatTest, DamageIsDetected) {
  sim::Rng rng(11, "journal.damage");
  for (int it = 0; it < 2000; ++it) {
    auto blk = EncodeJournalBlock(JournalBlockHeader{5, 6, true}, OneBlockOfRecords(rng));
    std::array<uint8_t, kBlockSize> b = blk->bytes;
    const size_t at = rng.Uniform(kBlockSize);
    b[at] ^= static_cast<uint8_t>(1 + rng.Uniform(255));
    const DecodedJournalBlock d = DecodeJournalBlock(b);
    if (at < 4) {
      EXPECT_EQ(d.status, JournalDecode::kBadMagic);
    } else {
      ASSERT_EQ(d.status, JournalDecode::kCorrupt) << "byte " << at;
      EXPECT_FALSE(d.error.empty());
      EXPECT_TRUE(d.records.empty());
    }
  }
  for (int it = 0; it < 2000; ++it) {
    std::array<uint8_t, kBlockSize> b;
    for (auto& x : b) x = static_cast<uint8_t>(rng.Next());
    b[0] = kJournalMagic & 0xff;
    b[1] = (kJournalMagic >> 8) & 0xff;
    b[2] = (kJournalMagic >> 16) & 0xff;
    b[3] = (kJournalMagic >> 24) & 0xff;
    EXPECT_EQ(DecodeJournalBlock(b).status, JournalDecode::kCorrupt);
  }
}

// A block with a valid checksum whose record layout does not hold (a bug
// or a forged block) is refused, not decoded past its slots.
TEST(JournalFormatTest, InconsistentLayoutIsRefused) {
  sim::Rng rng(13, "journal.layout");
  auto blk = EncodeJournalBlock(JournalBlockHeader{1, 1, true}, OneBlockOfRecords(rng));
  std::array<uint8_t, kBlockSize> b = blk->bytes;
  b[26] = 40;  // slots_used beyond the 32 slots
  b[27] = 0;
  const uint32_t c = JournalBlockChecksum(b);
  for (int i = 0; i < 4; ++i) b[28 + i] = static_cast<uint8_t>(c >> (8 * i));
  const DecodedJournalBlock d = DecodeJournalBlock(b);
  EXPECT_EQ(d.status, JournalDecode::kCorrupt);
  EXPECT_NE(d.error.find("slots"), std::string::npos) << d.error;
}

JournalRecord Rec(uint32_t ino) {
  JournalRecord r;
  r.type = JournalRecordType::kCreate;
  r.ino = Nid{ino};
  r.dir = Nid{3};
  r.name = "f" + std::to_string(ino);
  return r;
}

TEST(JournalTest, AppendsGoToTheRunningEpochInSequence) {
  Journal j(64);
  j.Append(Nid{10}, Rec(10));
  j.Append(Nid{11}, Rec(11));
  j.Append(Nid{10}, Rec(12));
  EXPECT_EQ(j.epoch_records(j.running()), 3u);
  const int first = j.running();
  ASSERT_TRUE(j.SwitchEpoch());
  EXPECT_NE(j.running(), first);
  EXPECT_EQ(j.state(first), Journal::EpochState::kToBeCommitted);
  EXPECT_TRUE(j.RunningEmpty());
  // The operations keep logging into the new epoch at once.
  j.Append(Nid{10}, Rec(13));
  EXPECT_EQ(j.epoch_records(j.running()), 1u);
  int e = -1;
  std::vector<JournalRecord> recs = j.TakeEpoch(&e);
  EXPECT_EQ(e, first);
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_EQ(recs[0].seq, 1u);  // across inodes' lists, in append order
  EXPECT_EQ(recs[1].seq, 2u);
  EXPECT_EQ(recs[2].seq, 3u);
  EXPECT_EQ(recs[1].ino, Nid{11});
  EXPECT_EQ(j.state(first), Journal::EpochState::kCommitting);
  j.FinishEpoch(first);
  EXPECT_EQ(j.state(first), Journal::EpochState::kIdle);
}

// With every other epoch waiting for its commit the switch is refused (the
// committer waits); appends never are, whatever the epochs' states.
TEST(JournalTest, AppendNeverBlocksWhenEveryEpochIsBusy) {
  Journal j(64);
  for (int i = 0; i < Journal::kEpochs - 1; ++i) {
    j.Append(Nid{5}, Rec(100 + i));
    ASSERT_TRUE(j.SwitchEpoch()) << i;
  }
  j.Append(Nid{5}, Rec(200));
  EXPECT_FALSE(j.SwitchEpoch());  // no idle epoch left
  for (int i = 0; i < 100; ++i) j.Append(Nid{5}, Rec(300 + i));  // one inode in 8 epochs: 8 local lists
  EXPECT_EQ(j.epoch_records(j.running()), 101u);
  int e = -1;
  EXPECT_EQ(j.TakeEpoch(&e).size(), 1u);  // the oldest
  j.FinishEpoch(e);
  EXPECT_TRUE(j.SwitchEpoch());
}

TEST(JournalTest, FullJournalRefusesUntilACheckpoint) {
  Journal j(4);
  std::vector<std::pair<uint32_t, std::shared_ptr<JournalBlock>>> out;
  std::vector<JournalRecord> recs;
  for (int i = 0; i < 31 * 3; ++i) recs.push_back(Rec(1000 + i));  // 3 blocks of 31 one-slot records
  for (JournalRecord& r : recs) r.seq = 1;
  EXPECT_EQ(Journal::BlocksFor(recs), 3u);
  ASSERT_TRUE(j.Reserve(recs, 1, &out));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].first, 0u);
  EXPECT_EQ(out[2].first, 2u);
  EXPECT_EQ(j.free_blocks(), 1u);
  // Two more blocks do not fit: refused, nothing taken.
  std::vector<JournalRecord> two(recs.begin(), recs.begin() + 40);
  std::vector<std::pair<uint32_t, std::shared_ptr<JournalBlock>>> out2;
  EXPECT_FALSE(j.Reserve(two, 2, &out2));
  EXPECT_TRUE(out2.empty());
  EXPECT_EQ(j.free_blocks(), 1u);
  // A checkpoint covering everything frees the ring; the next commit wraps.
  const JournalPosition p = j.CheckpointBegin();
  EXPECT_EQ(p.head, 3u);
  j.CheckpointCommitted(p);
  EXPECT_EQ(j.free_blocks(), 4u);
  ASSERT_TRUE(j.Reserve(two, 2, &out2));
  ASSERT_EQ(out2.size(), 2u);
  EXPECT_EQ(out2[0].first, 3u);
  EXPECT_EQ(out2[1].first, 0u);  // wrapped
  const DecodedJournalBlock d = DecodeJournalBlock(out2[1].second->bytes);
  ASSERT_EQ(d.status, JournalDecode::kOk);
  EXPECT_TRUE(d.header.commit_end);
  EXPECT_EQ(d.header.seq, 5u);
}

TEST(JournalTest, CheckpointCoversTheRecordsNotYetCommitting) {
  Journal j(16);
  j.Append(Nid{1}, Rec(1));
  ASSERT_TRUE(j.SwitchEpoch());
  int e = -1;
  std::vector<JournalRecord> committing = j.TakeEpoch(&e);
  j.Append(Nid{1}, Rec(2));
  ASSERT_TRUE(j.SwitchEpoch());
  j.Append(Nid{2}, Rec(3));
  const JournalPosition p = j.CheckpointBegin();
  EXPECT_EQ(p.record_seq, 4u);  // records 1..3 are in the checkpoint
  EXPECT_TRUE(j.RunningEmpty());
  EXPECT_FALSE(j.HasToBeCommitted());
  EXPECT_EQ(j.state(e), Journal::EpochState::kCommitting);  // its writer finishes it
  j.FinishEpoch(e);
  j.Append(Nid{2}, Rec(4));
  ASSERT_TRUE(j.SwitchEpoch());
  std::vector<JournalRecord> next = j.TakeEpoch(&e);
  ASSERT_EQ(next.size(), 1u);
  EXPECT_EQ(next[0].seq, 4u);
}

}  // namespace
}  // namespace fs::f2fs
