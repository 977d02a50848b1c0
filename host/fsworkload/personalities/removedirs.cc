// filebench personality "removedirs": stock, f2fsj (see filebench_personalities.h).
#include "host/fsworkload/filebench_personalities.h"
#include "sim/registry.h"

namespace host {
namespace {

constexpr std::string_view kRemovedirs = R"(
set $dir=/tmp
set $ndirs=10000
set $meandirwidth=100
set $nthreads=16
set mode quit firstdone
define fileset name=bigfileset,path=$dir,size=0,leafdirs=$ndirs,dirwidth=$meandirwidth,prealloc
define process name=remdir,instances=1
{
  thread name=removedirectory,memsize=1m,instances=$nthreads
  {
    flowop removedir name=dirremover,filesetname=bigfileset
  }
}
run
)";

constexpr std::string_view kRemovedirsJ = R"(
set $dir=/tmp
set $ndirs=1000000
set $meandirwidth=100
set $nthreads=1
set $count=16000000
set mode quit alldone
define fileset name=bigfileset,path=$dir,size=0,leafdirs=$ndirs,dirwidth=$meandirwidth,prealloc
define process name=remdir,instances=1
{
  thread name=removedirectory,memsize=1m,instances=$nthreads
  {
    flowop removedir name=dirremover,filesetname=bigfileset
    flowop opslimit name=limit
    flowop finishoncount name=finish,value=$count
  }
}
run 100000000
)";

}  // namespace

const sim::Registrar<PersonalityFile> kRegistered{
    {"removedirs",
     {
         {"removedirs", "stock", "rmdir every preallocated leaf directory", kRemovedirs},
         {"removedirs", "f2fsj", "F2FS-J rmdir: 1M leaf directories, 1 thread", kRemovedirsJ},
     }}};

}  // namespace host
