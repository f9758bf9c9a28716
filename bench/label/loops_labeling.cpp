// Labeling time of the search's matcher (specs/loops.burg at the build's K) on the searches of
// tests/data/problems.txt, read as the search tests read them: for each, the first labeling
// (the prior model's estimates, for an sm_90 target) and the labeling with the times its database
// holds, in CPU seconds, the least of RUNS runs. Beside them a digest of what both labelings kept
// (every cover of the root as `kernel`: its cost, its rules with their parameters and its recipe),
// so that two builds can be compared for equal results as well as for speed.
// Usage: loops_labeling [--runs N] [PROBLEM...]   (every problem of the list when none is named)
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "src/idioms/epilogue/local_accumulator.hpp"
#include "tests/search/search_problem.hpp"

namespace {

using cudaburg::LoopRules;
using cudaburg::generated::LoopsMatcher;

double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// FNV-1a over the text of every cover kept at the root, in rank order.
struct Digest {
  uint64_t h = 0xcbf29ce484222325ull;
  void add(const std::string& text) {
    for (unsigned char c : text) h = (h ^ c) * 0x100000001b3ull;
    h = (h ^ 0xff) * 0x100000001b3ull;  // the end of a text
  }
};

void digestCovers(const LoopsMatcher& m, const cudaburg::Node* root, const cudaburg::Kernel& kernel, Digest& d) {
  for (int rank = 0; rank < m.count(root, LoopsMatcher::kernel_NT); ++rank) {
    d.add(std::to_string(m.cost(root, LoopsMatcher::kernel_NT, rank)));
    d.add(m.coverText(root, rank));
    d.add(cudaburg::printRecipeLine(m.value(root, LoopsMatcher::kernel_NT, rank).recipe(kernel)));
  }
}

struct Timing {
  int covers = 0;          // of the first labeling
  int measuredCovers = 0;  // of the labeling with measured times
  double first = 1e300, measured = 1e300;
  uint64_t digest = 0;
};

// The database's times for the problem as the labeler takes them: recipe line -> ms, or nullopt
// for a kernel that failed.
std::map<std::string, std::optional<double>> storedTimes(const cudaburg::testing::SearchProblem& p) {
  std::map<std::string, std::optional<double>> times;
  for (const auto& [key, m] : cudaburg::testing::shippedMeasurements(p))
    times[key.recipe] = m.status == cudaburg::RunStatus::Ok ? std::optional<double>(m.ms) : std::nullopt;
  return times;
}

// Labels the problem `runs` times as a search does (a fresh matcher, then the same one again with
// the measured times), keeping the least time of each labeling.
Timing time(const cudaburg::testing::SearchProblem& p, int runs) {
  cudaburg::GpuModel gpu;
  gpu.target = cudaburg::GpuTarget::forArchitecture("sm_90");
  const cudaburg::Kernel matched = cudaburg::withLocalAccumulators(p.kernel);
  const cudaburg::Node* root = matched.body.get();
  auto times = storedTimes(p);
  Timing t;
  for (int run = 0; run < runs; ++run) {
    LoopRules rules(matched, p.space, gpu);
    LoopsMatcher matcher(&rules);
    double start = cpuSeconds();
    matcher.label(root);
    t.first = std::min(t.first, cpuSeconds() - start);
    Digest d;
    if (run == 0) {
      t.covers = matcher.count(root, LoopsMatcher::kernel_NT);
      digestCovers(matcher, root, p.kernel, d);
    }
    rules.setMeasured(times);
    start = cpuSeconds();
    matcher.label(root);
    t.measured = std::min(t.measured, cpuSeconds() - start);
    if (run == 0) {
      t.measuredCovers = matcher.count(root, LoopsMatcher::kernel_NT);
      digestCovers(matcher, root, p.kernel, d);
      t.digest = d.h;
    }
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  std::set<std::string> named;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) {
      runs = std::atoi(argv[++i]);
      if (runs < 1) {
        std::fprintf(stderr, "loops_labeling: --runs takes a number of runs, 1 or more, not '%s'\n", argv[i]);
        return 2;
      }
    } else {
      named.insert(argv[i]);
    }
  }
  std::vector<cudaburg::testing::SearchProblem> problems;
  std::set<std::string> unknown = named;
  for (auto& p : cudaburg::testing::shippedProblems())
    if (named.empty() || unknown.erase(p.name)) problems.push_back(std::move(p));
  if (!unknown.empty()) {
    std::fprintf(stderr, "loops_labeling: no problem '%s' in tests/data/problems.txt\n", unknown.begin()->c_str());
    return 2;
  }
  std::printf("K %d, CPU seconds, the least of %d runs\n", LoopsMatcher::kBest, runs);
  std::printf("%-12s %8s %8s %9s %10s  %s\n", "problem", "covers", "first", "measured", "(covers)", "digest");
  for (const auto& p : problems) {
    if (!p.kernel.body) {
      std::fprintf(stderr, "loops_labeling: %s: its .loop file did not load\n", p.name.c_str());
      return 1;
    }
    Timing t = time(p, runs);
    std::printf("%-12s %8d %8.3f %9.3f %10d  %016llx\n", p.name.c_str(), t.covers, t.first, t.measured,
                t.measuredCovers, static_cast<unsigned long long>(t.digest));
    std::fflush(stdout);
  }
  return 0;
}
