// What the command-line tests of app/ share: running the built flashstack
// binary (FLASHSTACK_BINARY, set by app/CMakeLists.txt for fs_app_tests) and
// reading the files it writes.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace app::testing {

struct Outcome {
  int code = -1;    // exit code; -1 when the command did not exit normally
  std::string out;  // stdout and stderr together
};

// Runs `flashstack <args>` through the shell.
inline Outcome Cli(const std::string& args) {
  const std::string cmd = std::string(FLASHSTACK_BINARY) + " " + args + " 2>&1";
  Outcome o;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return o;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) o.out.append(buf, n);
  const int st = pclose(p);
  o.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return o;
}

// The whole content of a file ("" if it cannot be read).
inline std::string Slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace app::testing
