// filebench personality "makedirs": stock, f2fsj (see filebench_personalities.h).
#include "host/fsworkload/filebench_personalities.h"
#include "sim/registry.h"

namespace host {
namespace {

constexpr std::string_view kMakedirs = R"(
set $dir=/tmp
set $ndirs=10000
set $meandirwidth=100
set $nthreads=16
set mode quit firstdone
define fileset name=bigfileset,path=$dir,size=0,leafdirs=$ndirs,dirwidth=$meandirwidth
define process name=dirmake,instances=1
{
  thread name=dirmaker,memsize=1m,instances=$nthreads
  {
    flowop makedir name=mkdir1,filesetname=bigfileset
  }
}
run
)";

constexpr std::string_view kMakedirsJ = R"(
set $dir=/tmp
set $ndirs=2500000
set $meandirwidth=100
set $nthreads=1
set mode quit firstdone
define fileset name=bigfileset,path=$dir,size=0,leafdirs=$ndirs,dirwidth=$meandirwidth
define process name=dirmake,instances=1
{
  thread name=dirmaker,memsize=1m,instances=$nthreads
  {
    flowop makedir name=mkdir1,filesetname=bigfileset
  }
}
run 100000000
)";

}  // namespace

const sim::Registrar<PersonalityFile> kRegistered{
    {"makedirs",
     {
         {"makedirs", "stock", "mkdir every leaf directory of the fileset", kMakedirs},
         {"makedirs", "f2fsj", "F2FS-J mkdir: 2.5M leaf directories, 1 thread", kMakedirsJ},
     }}};

}  // namespace host
