// filebench personality "deletefiles_empty": f2fsj (see filebench_personalities.h).
#include "host/fsworkload/filebench_personalities.h"
#include "sim/registry.h"

namespace host {
namespace {

constexpr std::string_view kDeletefilesEmptyJ = R"(
set $dir=/tmp
set $count=16000000
set $filesize=0k
set $nfiles=1000000
set $meandirwidth=100
set $nthreads=1
set mode quit alldone
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
run 100000000
)";

}  // namespace

const sim::Registrar<PersonalityFile> kRegistered{
    {"deletefiles_empty",
     {
         {"deletefiles_empty", "f2fsj", "F2FS-J delete_empty: delete 1M empty files", kDeletefilesEmptyJ},
     }}};

}  // namespace host
