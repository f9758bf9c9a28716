// The disk cache of compilations: a hit on the second compile, corrupt entries read as misses,
// concurrent writers of one entry.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "src/cuda/compile/compiler.hpp"
#include "tests/cuda/emit_test_kernels.hpp"

namespace cudaburg {
namespace {

using namespace testing;

class CompileCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("cudaburg-cache-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name() + "-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir_);
    options_.cacheDir = dir_.string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::vector<std::filesystem::path> entries() const {
    std::vector<std::filesystem::path> out;
    if (std::filesystem::exists(dir_))
      for (const auto& e : std::filesystem::directory_iterator(dir_)) out.push_back(e.path());
    return out;
  }

  std::filesystem::path dir_;
  CompileOptions options_;
};

TEST_F(CompileCacheTest, SecondCompileIsAHit) {
  CudaKernel k = *emitKernel(naiveMatmul(20, 30, 40)).kernel;
  CompileResult first = compile(k, options_);
  ASSERT_TRUE(first.ok) << first.reason;
  EXPECT_FALSE(first.fromCache);
  ASSERT_EQ(entries().size(), 1u);
  EXPECT_EQ(entries()[0].extension(), ".kernel");  // no temporary file left behind
  CompileResult second = compile(k, options_);
  ASSERT_TRUE(second.ok) << second.reason;
  EXPECT_TRUE(second.fromCache);
  EXPECT_EQ(second.cubin, first.cubin);
  EXPECT_EQ(second.resources.registers, first.resources.registers);
  // Other options or another source make another entry.
  CompileOptions other = options_;
  other.lineInfo = false;
  EXPECT_FALSE(compile(k, other).fromCache);
  EXPECT_EQ(entries().size(), 2u);
}

TEST_F(CompileCacheTest, CorruptEntriesAreMisses) {
  CudaKernel k = *emitKernel(naiveMatmul(8, 8, 8)).kernel;
  CompileResult first = compile(k, options_);
  ASSERT_TRUE(first.ok);
  ASSERT_EQ(entries().size(), 1u);
  std::filesystem::path entry = entries()[0];
  auto size = std::filesystem::file_size(entry);
  // One byte changed in the middle.
  {
    std::fstream f(entry, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(size / 2));
    char b = 0;
    f.seekg(static_cast<std::streamoff>(size / 2));
    f.get(b);
    f.seekp(static_cast<std::streamoff>(size / 2));
    f.put(static_cast<char>(b ^ 0x5a));
  }
  CompileResult afterFlip = compile(k, options_);
  EXPECT_TRUE(afterFlip.ok);
  EXPECT_FALSE(afterFlip.fromCache);
  EXPECT_EQ(afterFlip.cubin, first.cubin);
  EXPECT_TRUE(compile(k, options_).fromCache);  // the entry was written again
  // Truncated, then empty.
  std::filesystem::resize_file(entry, size / 3);
  EXPECT_FALSE(compile(k, options_).fromCache);
  std::filesystem::resize_file(entry, 0);
  CompileResult afterEmpty = compile(k, options_);
  EXPECT_FALSE(afterEmpty.fromCache);
  EXPECT_TRUE(afterEmpty.ok);
}

TEST_F(CompileCacheTest, ConcurrentWritersLeaveOneWholeEntry) {
  CompileCache cache(dir_.string());
  std::string key = CompileCache::key("source", "options", "toolkit");
  EXPECT_EQ(key.size(), 32u);
  EXPECT_NE(key, CompileCache::key("source", "options", "toolkit 2"));
  std::vector<std::thread> writers;
  for (int t = 0; t < 8; ++t)
    writers.emplace_back([&cache, &key, t] {
      CachedCompilation e;
      e.cubin.assign(4096, static_cast<char>('a' + t));
      e.ptx = std::string(1000, static_cast<char>('A' + t));
      e.log = "writer " + std::to_string(t);
      for (int i = 0; i < 20; ++i) EXPECT_TRUE(cache.store(key, e));
    });
  for (auto& w : writers) w.join();
  auto entry = cache.load(key);
  ASSERT_TRUE(entry);
  // Whole: every byte from one writer.
  char c = entry->cubin.at(0);
  EXPECT_EQ(entry->cubin, std::vector<char>(4096, c));
  EXPECT_EQ(entry->ptx, std::string(1000, static_cast<char>(c - 'a' + 'A')));
  EXPECT_EQ(entries().size(), 1u);
}

TEST(CompileCacheDirectory, FollowsXdgCacheHome) {
  const char* old = std::getenv("XDG_CACHE_HOME");
  std::string saved = old ? old : "";
  setenv("XDG_CACHE_HOME", "/somewhere/cache", 1);
  EXPECT_EQ(CompileCache::defaultDirectory(), "/somewhere/cache/cudaburg");
  unsetenv("XDG_CACHE_HOME");
  EXPECT_NE(CompileCache::defaultDirectory().find("cudaburg"), std::string::npos);
  if (old) setenv("XDG_CACHE_HOME", saved.c_str(), 1);
}

}  // namespace
}  // namespace cudaburg
