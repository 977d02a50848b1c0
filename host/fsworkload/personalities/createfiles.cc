// filebench personality "createfiles": stock, f2fsj (see filebench_personalities.h).
#include "host/fsworkload/filebench_personalities.h"
#include "sim/registry.h"

namespace host {
namespace {

constexpr std::string_view kCreatefiles = R"(
set $dir=/tmp
set $nfiles=50000
set $meandirwidth=100
set $meanfilesize=16k
set $iosize=1m
set $nthreads=16
set mode quit firstdone
define fileset name=bigfileset,path=$dir,size=$meanfilesize,entries=$nfiles,dirwidth=$meandirwidth
define process name=filecreate,instances=1
{
  thread name=filecreatethread,memsize=10m,instances=$nthreads
  {
    flowop createfile name=createfile1,filesetname=bigfileset,fd=1
    flowop writewholefile name=writefile1,fd=1,iosize=$iosize
    flowop closefile name=closefile1,fd=1
  }
}
run
)";

constexpr std::string_view kCreatefilesJ = R"(
set $dir=/tmp
set $count=8000000
set $filesize=4k
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
    flowop writewholefile name=writefile1,filesetname=bigfileset,fd=1,iosize=$iosize
    flowop closefile name=closefile1,fd=1
    flowop finishoncount name=finish,value=$count
  }
}
run 100000000
)";

}  // namespace

const sim::Registrar<PersonalityFile> kRegistered{
    {"createfiles",
     {
         {"createfiles", "stock", "create and write whole files until the fileset is full", kCreatefiles},
         {"createfiles", "f2fsj", "F2FS-J create_4k: 1M files of 4 KiB, 1 thread", kCreatefilesJ},
     }}};

}  // namespace host
