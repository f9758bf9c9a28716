#include "burggen/output_file.hpp"

#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

namespace burggen {

namespace {

// The file an output will replace: `path` itself, or what the symbolic link `path` leads to.
// Only a regular file or a new name may be replaced; anything else (a device, a FIFO, a folder,
// a dangling link) is refused with a sentence in `error` and "" returned.
std::string replaceableTarget(const std::string& path, std::string& error) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return path;
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return "";
  }
  std::string target = path;
  if (S_ISLNK(st.st_mode)) {
    char* resolved = realpath(path.c_str(), nullptr);
    if (!resolved || stat(resolved, &st) != 0) {
      std::free(resolved);
      error = "'" + path + "' is a symbolic link to nothing; it is not replaced";
      return "";
    }
    target = resolved;
    std::free(resolved);
  }
  if (!S_ISREG(st.st_mode)) {
    error = "'" + path + "' is not a regular file (a device, a FIFO or a folder); it is not replaced";
    return "";
  }
  return target;
}

// Writes `text` to a new temporary file in the folder of `target`; returns its name, or "".
std::string writeTemporary(const OutputFile& file, const std::string& target, std::string& error) {
  std::string name = target + ".XXXXXX";
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
  std::vector<std::string> targets;
  for (const OutputFile& f : files) {
    if (f.path == "-") continue;
    std::string target = replaceableTarget(f.path, error);
    if (target.empty()) return false;
    std::error_code ec;
    std::filesystem::path canonical = std::filesystem::weakly_canonical(target, ec);
    for (const std::string& t : targets) {
      if (std::filesystem::weakly_canonical(t, ec) == canonical) {
        error = "'" + f.path + "' is named for two outputs; one would overwrite the other";
        return false;
      }
    }
    targets.push_back(target);
  }
  std::vector<std::string> temporaries;
  auto discard = [&] {
    for (const std::string& t : temporaries) std::remove(t.c_str());
  };
  size_t written = 0;
  for (const OutputFile& f : files) {
    if (f.path == "-") continue;
    std::string t = writeTemporary(f, targets[written++], error);
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
      if (!std::cout) {
        error = "cannot write to standard output";
        temporaries.erase(temporaries.begin(), temporaries.begin() + static_cast<long>(next));
        discard();
        return false;
      }
      continue;
    }
    if (std::rename(temporaries[next].c_str(), targets[next].c_str()) != 0) {
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
