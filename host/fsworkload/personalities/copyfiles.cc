// filebench personality "copyfiles": stock, f2fsj (see filebench_personalities.h).
#include "host/fsworkload/filebench_personalities.h"
#include "sim/registry.h"

namespace host {
namespace {

constexpr std::string_view kCopyfiles = R"(
set $dir=/tmp
set $nfiles=1000
set $meandirwidth=20
set $meanfilesize=16k
set $iosize=1m
set $nthreads=1
set mode quit firstdone
define fileset name=bigfileset,path=$dir,size=$meanfilesize,entries=$nfiles,dirwidth=$meandirwidth,prealloc=100,paralloc
define fileset name=destfiles,path=$dir,size=$meanfilesize,entries=$nfiles,dirwidth=$meandirwidth
define process name=filereader,instances=1
{
  thread name=filereaderthread,memsize=10m,instances=$nthreads
  {
    flowop openfile name=openfile1,filesetname=bigfileset,fd=1
    flowop readwholefile name=readfile1,fd=1,iosize=$iosize
    flowop createfile name=createfile2,filesetname=destfiles,fd=2
    flowop writewholefile name=writefile2,fd=2,srcfd=1,iosize=$iosize
    flowop closefile name=closefile1,fd=1
    flowop closefile name=closefile2,fd=2
  }
}
run
)";

constexpr std::string_view kCopyfilesJ = R"(
set $dir=/tmp
set $nfiles=500000
set $meandirwidth=100
set $meanfilesize=4k
set $iosize=1m
set $nthreads=1
set $count=4000000
set mode quit firstdone
define fileset name=bigfileset,path=$dir,size=$meanfilesize,entries=$nfiles,dirwidth=$meandirwidth,prealloc=100,paralloc
define fileset name=destfiles,path=$dir,size=$meanfilesize,entries=$nfiles,dirwidth=$meandirwidth
define process name=filereader,instances=1
{
  thread name=filereaderthread,memsize=10m,instances=$nthreads
  {
    flowop openfile name=openfile1,filesetname=bigfileset,fd=1
    flowop readwholefile name=readfile1,fd=1,iosize=$iosize
    flowop createfile name=createfile2,filesetname=destfiles,fd=2
    flowop writewholefile name=writefile2,fd=2,srcfd=1,iosize=$iosize
    flowop closefile name=closefile1,fd=1
    flowop closefile name=closefile2,fd=2
    flowop finishoncount name=finish,value=$count
  }
}
run 100000000
)";

}  // namespace

const sim::Registrar<PersonalityFile> kRegistered{
    {"copyfiles",
     {
         {"copyfiles", "stock", "copy every file of one fileset into another", kCopyfiles},
         {"copyfiles", "f2fsj", "F2FS-J copy_4k: copy 500k files of 4 KiB", kCopyfilesJ},
     }}};

}  // namespace host
