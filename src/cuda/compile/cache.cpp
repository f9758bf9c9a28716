#include "src/cuda/compile/cache.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

namespace cudaburg {
namespace {

constexpr char kMagic[] = "cudaburg-kernel-cache 1\n";

using u128 = unsigned __int128;

struct Fnv128 {
  u128 state = (u128{0x6c62272e07bb0142ULL} << 64) | 0x62b821756295c58dULL;
  void add(const void* data, size_t n) {
    const u128 prime = (u128{1} << 88) | 0x13B;
    auto bytes = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) {
      state ^= bytes[i];
      state *= prime;
    }
  }
  void addField(const std::string& s) {
    uint64_t n = s.size();
    add(&n, sizeof n);
    add(s.data(), s.size());
  }
  std::string hex() const {
    static const char digits[] = "0123456789abcdef";
    std::string out(32, '0');
    u128 v = state;
    for (int i = 31; i >= 0; --i, v >>= 4) out[i] = digits[static_cast<int>(v & 0xF)];
    return out;
  }
};

void putField(std::string& out, const std::string& field) {
  uint64_t n = field.size();
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  out += field;
}

bool getField(const std::string& in, size_t& at, std::string& field) {
  uint64_t n = 0;
  if (in.size() - at < sizeof n) return false;
  std::memcpy(&n, in.data() + at, sizeof n);
  at += sizeof n;
  if (in.size() - at < n) return false;
  field = in.substr(at, n);
  at += n;
  return true;
}

}  // namespace

std::string CompileCache::defaultDirectory() {
  if (const char* dir = std::getenv("CUDABURG_CACHE"); dir && *dir) return dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/cudaburg";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/cudaburg";
  return (std::filesystem::temp_directory_path() / "cudaburg-cache").string();
}

std::string CompileCache::key(const std::string& source, const std::string& options, const std::string& toolkit) {
  Fnv128 h;
  h.addField(source);
  h.addField(options);
  h.addField(toolkit);
  return h.hex();
}

std::optional<CachedCompilation> CompileCache::load(const std::string& key) const {
  std::ifstream in(pathOf(key), std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream buffer;
  buffer << in.rdbuf();
  std::string data = buffer.str();
  // Layout: magic, the key, cubin, ptx, log (each field length-prefixed), then a hash of it all.
  size_t magic = sizeof kMagic - 1;
  if (data.size() < magic + 32 || data.compare(0, magic, kMagic) != 0) return std::nullopt;
  std::string body = data.substr(0, data.size() - 32), check = data.substr(data.size() - 32);
  Fnv128 h;
  h.add(body.data(), body.size());
  if (h.hex() != check) return std::nullopt;
  size_t at = magic;
  std::string storedKey, cubin;
  CachedCompilation entry;
  if (!getField(body, at, storedKey) || storedKey != key || !getField(body, at, cubin) ||
      !getField(body, at, entry.ptx) || !getField(body, at, entry.log) || at != body.size())
    return std::nullopt;
  entry.cubin.assign(cubin.begin(), cubin.end());
  return entry;
}

bool CompileCache::store(const std::string& key, const CachedCompilation& entry) const {
  std::error_code ec;
  std::filesystem::create_directories(directory_, ec);
  std::string data = kMagic;
  putField(data, key);
  putField(data, std::string(entry.cubin.begin(), entry.cubin.end()));
  putField(data, entry.ptx);
  putField(data, entry.log);
  Fnv128 h;
  h.add(data.data(), data.size());
  data += h.hex();
  // A name no other writer (process or thread) uses, in the same folder so that rename is atomic.
  static std::atomic<unsigned> counter{0};
  std::ostringstream tmp;
  tmp << pathOf(key) << ".tmp." << ::getpid() << "." << std::hash<std::thread::id>{}(std::this_thread::get_id()) << "."
      << counter++;
  {
    std::ofstream out(tmp.str(), std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    out.close();
    if (!out) {
      std::filesystem::remove(tmp.str(), ec);
      return false;
    }
  }
  std::filesystem::rename(tmp.str(), pathOf(key), ec);
  if (ec) {
    std::filesystem::remove(tmp.str(), ec);
    return false;
  }
  return true;
}

}  // namespace cudaburg
