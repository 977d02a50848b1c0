// The built-in filebench personalities, as scripts in the filebench
// language (see filebench_script.h).
//
// Two variants per personality where both exist:
//  - "stock": filebench's own workloads (filebench/workloads/*.f; the
//    shared copies of varmail, fileserver, webserver, webproxy and oltp
//    are identical), with deletefiles = filemicro_delete.f.
//  - "f2fsj": the versions the F2FS-J evaluation runs (its j_f2fs_fb
//    directory): larger filesets, single-threaded micro-benchmarks, fixed
//    mean sizes, appendfile instead of appendfilerand, a finishoncount op
//    budget ($count) with "quit alldone", and oltp without dsync. The
//    createfiles_empty / deletefiles_empty micro-benchmarks exist only here.
// Every script sets $dir, so the fileset location can be overridden.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/status.h"

namespace host {

struct Personality {
  std::string_view name;
  std::string_view variant;  // "stock" or "f2fsj"
  std::string_view summary;
  std::string_view script;
};

// A personality's file (host/fsworkload/personalities/<name>.cc) registers
// its variants with sim::Registrar<PersonalityFile>; a new personality is
// one new file.
struct PersonalityFile {
  const char* name;
  std::vector<Personality> variants;
};

// Every variant of every registered personality, personalities sorted by
// name, variants in their file's order.
const std::vector<Personality>& BuiltinPersonalities();
// The personality names (each with at least one variant), sorted.
std::vector<std::string> PersonalityNames();
// Error naming the variants that exist when there is no such script.
sim::Result<const Personality*> FindPersonality(std::string_view name, std::string_view variant);

}  // namespace host
