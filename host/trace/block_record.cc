#include "host/trace/block_record.h"

namespace host {

std::string_view OpName(BlockTraceRecord::Op op) {
  switch (op) {
    case BlockTraceRecord::Op::kRead: return "read";
    case BlockTraceRecord::Op::kWrite: return "write";
    case BlockTraceRecord::Op::kTrim: return "trim";
    case BlockTraceRecord::Op::kFlush: return "flush";
    case BlockTraceRecord::Op::kZoneAppend: return "zone_append";
    case BlockTraceRecord::Op::kZoneMgmt: return "zone_mgmt";
  }
  return "?";
}

}  // namespace host
