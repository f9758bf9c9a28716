#pragma once
// Systems of linear constraints over integer variables, and what dependence testing asks of
// them: is there a solution, and how far does one variable range. Fourier-Motzkin elimination
// over the rationals, made tighter for integers: equalities with a unit coefficient are solved
// exactly, a GCD test refutes the others, and each inequality is normalised (its constant
// rounded down after dividing by the gcd of its coefficients). "No solution" is always right;
// "maybe" may be wrong the other way, which keeps the dependence test safe.
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace cudaburg {

struct LinearExpr {
  std::vector<int64_t> coefs;  // one per variable
  int64_t constant = 0;

  explicit LinearExpr(size_t vars = 0) : coefs(vars, 0) {}
  friend LinearExpr operator-(const LinearExpr& a, const LinearExpr& b);
};

class LinearSystem {
 public:
  explicit LinearSystem(size_t vars) : vars_(vars) {}

  size_t variables() const { return vars_; }
  void addAtLeastZero(const LinearExpr& e) { inequalities_.push_back(e); }  // e >= 0
  void addZero(const LinearExpr& e) { equalities_.push_back(e); }           // e == 0

  // False only when the system has no integer solution.
  bool mayBeFeasible() const;
  // The least and greatest values of variable `v` over the solutions, where bounded; nothing
  // at all when there is no solution.
  std::optional<std::pair<std::optional<int64_t>, std::optional<int64_t>>> range(size_t v) const;

 private:
  // Eliminates every variable but `keep` (none when keep >= vars_). Returns the remaining
  // inequalities, or nothing when a contradiction was found.
  std::optional<std::vector<LinearExpr>> project(size_t keep) const;

  size_t vars_;
  std::vector<LinearExpr> inequalities_;
  std::vector<LinearExpr> equalities_;
};

}  // namespace cudaburg
