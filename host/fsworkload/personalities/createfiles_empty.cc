// filebench personality "createfiles_empty": f2fsj (see filebench_personalities.h).
#include "host/fsworkload/filebench_personalities.h"
#include "sim/registry.h"

namespace host {
namespace {

constexpr std::string_view kCreatefilesEmptyJ = R"(
set $dir=/tmp
set $count=16000000
set $filesize=0k
set $iosize=1m
set $meandirwidth=100
set $nfiles=1000000
set $nthreads=1
set mode quit alldone
define fileset name=bigfileset,path=$dir,size=$filesize,entries=$nfiles,dirwidth=$meandirwidth,prealloc=0,paralloc
define process name=filecreate,instances=1
{
  thread name=filecreatethread,memsize=10m,instances=$nthreads
  {
    flowop createfile name=createfile1,filesetname=bigfileset,fd=1
    flowop closefile name=closefile1,fd=1
    flowop finishoncount name=finish,value=$count
  }
}
run 100000000
)";

}  // namespace

const sim::Registrar<PersonalityFile> kRegistered{
    {"createfiles_empty",
     {
         {"createfiles_empty", "f2fsj", "F2FS-J create_empty: create+close 1M empty files", kCreatefilesEmptyJ},
     }}};

}  // namespace host
