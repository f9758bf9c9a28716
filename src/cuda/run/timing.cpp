#include "src/cuda/run/timing.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "src/loop/tree_walk.hpp"

namespace cudaburg {
namespace {

// Arithmetic operations of one evaluation of an expression: + - * / min max count one each.
double expressionFlops(const Expr& e) {
  double n = (e.kind == Expr::Kind::Binary || e.kind == Expr::Kind::Call) ? 1 : 0;
  for (const auto& arg : e.args) n += expressionFlops(*arg);
  return n;
}

// True when a loop bound below `loop` mentions `index`: then the trip counts below vary with it.
bool boundsBelowUse(const Node& loop, const std::string& index) {
  return findNode(*loop.body(), [&](const Node& node) {
           if (node.kind != NodeKind::For) return false;
           return node.lower.uses(index) ||
                  std::any_of(node.upper.begin(), node.upper.end(), [&](const Affine& u) { return u.uses(index); });
         }) != nullptr;
}

struct Counter {
  WorkCount work;
  std::vector<const Node*> loops;  // the enclosing loops of the node being visited

  // Adds the work of `node` run `times` times with the outer indices bound as in `env`.
  void visit(const Node& node, std::map<std::string, int64_t>& env, double times) {
    switch (node.kind) {
      case NodeKind::For: {
        int64_t trips = tripCount(node, env);
        if (trips <= 0) return;
        loops.push_back(&node);
        if (boundsBelowUse(node, node.index)) {
          for (int64_t t = 0; t < trips; ++t) {
            env[node.index] = node.lower.eval(env) + t * node.step;
            visit(*node.body(), env, times);
          }
          env.erase(node.index);
        } else {
          env[node.index] = node.lower.eval(env);
          visit(*node.body(), env, times * double(trips));
          env.erase(node.index);
        }
        loops.pop_back();
        return;
      }
      case NodeKind::Assign: {
        work.flops += times * (expressionFlops(*node.value) + (node.accumulate ? 1 : 0));
        if (node.accumulate) {
          // Loops that choose the element: those in the subscripts, and (for strip-mined loops)
          // those that the bounds of such loops depend on. The others sum into one element.
          std::set<std::string> choosing;
          for (const auto& sub : node.target.subscripts)
            for (const auto& [name, c] : sub.terms) choosing.insert(name);
          for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
            if (!choosing.count((*it)->index)) continue;
            for (const auto& [name, c] : (*it)->lower.terms) choosing.insert(name);
            for (const auto& u : (*it)->upper)
              for (const auto& [name, c] : u.terms) choosing.insert(name);
          }
          int64_t terms = 1;
          for (const Node* loop : loops)
            if (!choosing.count(loop->index)) terms *= std::max<int64_t>(1, tripCount(*loop, env));
          work.reductionLength = std::max(work.reductionLength, terms);
        }
        return;
      }
      default:
        for (const auto& kid : node.kids) visit(*kid, env, times);
    }
  }
};

}  // namespace

int64_t tripCount(const Node& loop, const std::map<std::string, int64_t>& env) {
  int64_t lo = loop.lower.eval(env);
  int64_t hi = loop.upper.front().eval(env);
  for (const auto& u : loop.upper) hi = std::min(hi, u.eval(env));
  return hi <= lo ? 0 : (hi - lo + loop.step - 1) / loop.step;
}

WorkCount countWork(const Kernel& kernel) {
  Counter counter;
  std::map<std::string, int64_t> env;
  if (kernel.body) counter.visit(*kernel.body, env, 1);
  for (const auto& a : kernel.params) counter.work.bytes += double(a.elements()) * scalarTypeBytes(a.type);
  return counter.work;
}

double median(std::vector<double> samples) {
  size_t mid = samples.size() / 2;
  std::nth_element(samples.begin(), samples.begin() + mid, samples.end());
  double upper = samples[mid];
  if (samples.size() % 2 == 1) return upper;
  double lower = *std::max_element(samples.begin(), samples.begin() + mid);
  return (lower + upper) / 2;
}

int timedRunCount(double estimatedMsPerRun, const RunCountPolicy& policy) {
  double per = std::max(estimatedMsPerRun, 1e-4);
  double wanted = std::max<double>(policy.minRuns, std::ceil(policy.minTotalMs / per));
  double allowed = std::min<double>(policy.maxRuns, std::floor(policy.maxTotalMs / per));
  return int(std::max(1.0, std::min(wanted, allowed)));
}

double teraflops(const WorkCount& work, double ms) { return ms > 0 ? work.flops / (ms * 1e-3) / 1e12 : 0; }

double gigabytesPerSecond(const WorkCount& work, double ms) { return ms > 0 ? work.bytes / (ms * 1e-3) / 1e9 : 0; }

}  // namespace cudaburg
