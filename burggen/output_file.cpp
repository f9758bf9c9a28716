#include "burggen/output_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

namespace burggen {

namespace {

// Writes `text` to a new temporary file in the folder of `path`; returns its name, or "".
std::string writeTemporary(const OutputFile& file, std::string& error) {
  std::string name = file.path + ".XXXXXX";
  int fd = mkstemp(name.data());
  if (fd < 0) {
    error = "cannot write '" + file.path + "': " + std::strerror(errno);
    return "";
  }
  const char* data = file.text.data();
  size_t left = file.text.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error = "cannot write '" + file.path + "': " + std::strerror(errno);
      ::close(fd);
      std::remove(name.c_str());
      return "";
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  // mkstemp makes the file private; generated sources are ordinary files.
  if (fchmod(fd, 0644) != 0 || ::close(fd) != 0) {
    error = "cannot write '" + file.path + "': " + std::strerror(errno);
    std::remove(name.c_str());
    return "";
  }
  return name;
}

}  // namespace

bool writeOutputFiles(const std::vector<OutputFile>& files, std::string& error) {
  std::vector<std::string> temporaries;
  auto discard = [&] {
    for (const std::string& t : temporaries) std::remove(t.c_str());
  };
  for (const OutputFile& f : files) {
    if (f.path == "-") continue;
    std::string t = writeTemporary(f, error);
    if (t.empty()) {
      discard();
      return false;
    }
    temporaries.push_back(t);
  }
  size_t next = 0;
  for (const OutputFile& f : files) {
    if (f.path == "-") {
      std::cout << f.text << std::flush;
      continue;
    }
    if (std::rename(temporaries[next].c_str(), f.path.c_str()) != 0) {
      error = "cannot write '" + f.path + "': " + std::strerror(errno);
      temporaries.erase(temporaries.begin(), temporaries.begin() + static_cast<long>(next));
      discard();
      return false;
    }
    ++next;
  }
  return true;
}

}  // namespace burggen
