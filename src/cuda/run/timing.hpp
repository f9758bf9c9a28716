#pragma once
// What a kernel's time is measured against: the work its loop nest does (flops, compulsory
// bytes, the length of its reductions), and the statistics of repeated runs.
#include <cstdint>
#include <vector>

#include "src/loop/loop_tree.hpp"

namespace cudaburg {

struct WorkCount {
  double flops = 0;             // arithmetic operations executed: a multiply-add counts 2
  double bytes = 0;             // compulsory traffic: every global array moved once
  int64_t reductionLength = 1;  // the most terms summed into one output element
};

// Counts the work of a kernel from its loop trip counts (exact for rectangular nests; loops whose
// bounds depend on outer indices are walked one outer value at a time).
WorkCount countWork(const Kernel& kernel);

// The trip count of a loop once the outer indices in `env` are bound.
int64_t tripCount(const Node& loop, const std::map<std::string, int64_t>& env);

// Median of a non-empty sample (the mean of the two middle values for an even count).
double median(std::vector<double> samples);

// How many timed runs to make after warm-up, given one run's estimated time: at least minRuns
// and minTotalMs of kernel time, at most maxRuns and maxTotalMs (but never fewer than 1 run).
// A race: a variant whose first runs are already slower than raceFactor times the fastest variant
// measured so far (raceAgainstMs; 0: no race) is timed by those few runs alone. Their median is
// still a measurement, precise enough to lose, and a search measures more variants in its budget.
struct RunCountPolicy {
  int minRuns = 20;
  int maxRuns = 1000;
  double minTotalMs = 100;
  double maxTotalMs = 2000;
  double raceAgainstMs = 0;
  double raceFactor = 1.1;

  bool losing(double ms) const { return raceAgainstMs > 0 && ms > raceFactor * raceAgainstMs; }
};
int timedRunCount(double estimatedMsPerRun, const RunCountPolicy& policy);

// TFLOPS and GB/s of `work` done in `ms` milliseconds.
double teraflops(const WorkCount& work, double ms);
double gigabytesPerSecond(const WorkCount& work, double ms);

}  // namespace cudaburg
