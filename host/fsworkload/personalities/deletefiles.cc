// filebench personality "deletefiles": stock, f2fsj (see filebench_personalities.h).
#include "host/fsworkload/filebench_personalities.h"
#include "sim/registry.h"

namespace host {
namespace {

constexpr std::string_view kDeletefiles = R"(
set $dir=/tmp
set $count=1000
set $filesize=16k
set $nfiles=5000
set $meandirwidth=100
set $nthreads=16
set mode quit firstdone
define fileset name=bigfileset,path=$dir,size=$filesize,entries=$nfiles,dirwidth=$meandirwidth,prealloc=100,paralloc
define process name=filedelete,instances=1
{
  thread name=filedeletethread,memsize=10m,instances=$nthreads
  {
    flowop deletefile name=deletefile1,filesetname=bigfileset
    flowop opslimit name=limit
    flowop finishoncount name=finish,value=$count
  }
}
run
)";

constexpr std::string_view kDeletefilesJ = R"(
set $dir=/tmp
set $count=8000000
set $filesize=4k
set $nfiles=1000000
set $meandirwidth=100
set $nthreads=1
set mode quit alldone
define fileset name=bigfileset,path=$dir,size=$filesize,entries=$nfiles,dirwidth=$meandirwidth,prealloc=100,paralloc,reuse=100
define process name=filedelete,instances=1
{
  thread name=filedeletethread,memsize=10m,instances=$nthreads
  {
    flowop deletefile name=deletefile1,filesetname=bigfileset
    flowop opslimit name=limit
    flowop finishoncount name=finish,value=$count
  }
}
run 100000000
)";

}  // namespace

const sim::Registrar<PersonalityFile> kRegistered{
    {"deletefiles",
     {
         {"deletefiles", "stock", "delete preallocated files (filemicro_delete)", kDeletefiles},
         {"deletefiles", "f2fsj", "F2FS-J delete_4k: delete 1M preallocated 4 KiB files", kDeletefilesJ},
     }}};

}  // namespace host
