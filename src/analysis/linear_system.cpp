#include "src/analysis/linear_system.hpp"

#include <algorithm>
#include <numeric>
#include <set>

namespace cudaburg {

namespace {

// Past this many inequalities elimination gives up and answers "maybe".
constexpr size_t kMaxInequalities = 4000;

int64_t floorDiv(int64_t a, int64_t b) {  // b > 0
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

int64_t coefGcd(const LinearExpr& e) {
  int64_t g = 0;
  for (int64_t c : e.coefs) g = std::gcd(g, c < 0 ? -c : c);
  return g;
}

// e + k * f
LinearExpr addScaled(const LinearExpr& e, int64_t k, const LinearExpr& f) {
  LinearExpr r = e;
  for (size_t i = 0; i < r.coefs.size(); ++i) r.coefs[i] += k * f.coefs[i];
  r.constant += k * f.constant;
  return r;
}

enum class Normal { Keep, Trivial, Contradiction };

// Divides an inequality by the gcd of its coefficients, rounding the constant down.
Normal normalizeInequality(LinearExpr& e) {
  int64_t g = coefGcd(e);
  if (g == 0) return e.constant >= 0 ? Normal::Trivial : Normal::Contradiction;
  if (g > 1) {
    for (int64_t& c : e.coefs) c /= g;
    e.constant = floorDiv(e.constant, g);
  }
  return Normal::Keep;
}

}  // namespace

LinearExpr operator-(const LinearExpr& a, const LinearExpr& b) { return addScaled(a, -1, b); }

std::optional<std::vector<LinearExpr>> LinearSystem::project(size_t keep) const {
  std::vector<LinearExpr> eqs = equalities_;
  std::vector<LinearExpr> ineqs = inequalities_;

  // Equalities: solve those with a unit coefficient exactly, test the rest by their gcd.
  for (size_t i = 0; i < eqs.size(); ++i) {
    LinearExpr e = eqs[i];
    int64_t g = coefGcd(e);
    if (g == 0) {
      if (e.constant != 0) return std::nullopt;
      continue;
    }
    if (e.constant % g != 0) return std::nullopt;
    size_t unit = vars_;
    for (size_t v = 0; v < vars_; ++v)
      if (v != keep && (e.coefs[v] == 1 || e.coefs[v] == -1)) unit = v;
    if (unit == vars_) {
      ineqs.push_back(e);
      ineqs.push_back(addScaled(LinearExpr(vars_), -1, e));
      continue;
    }
    // x_unit = -c_unit * (rest): substitute it everywhere else.
    int64_t cu = e.coefs[unit];
    auto eliminate = [&](LinearExpr& r) {
      if (int64_t a = r.coefs[unit]) r = addScaled(r, -a * cu, e);
    };
    for (size_t j = i + 1; j < eqs.size(); ++j) eliminate(eqs[j]);
    for (LinearExpr& r : ineqs) eliminate(r);
  }

  std::vector<LinearExpr> rows;
  for (LinearExpr& r : ineqs) {
    Normal n = normalizeInequality(r);
    if (n == Normal::Contradiction) return std::nullopt;
    if (n == Normal::Keep) rows.push_back(r);
  }

  std::vector<bool> done(vars_, false);
  if (keep < vars_) done[keep] = true;
  for (;;) {
    // Eliminate the variable that makes the fewest new inequalities.
    size_t best = vars_;
    size_t bestCost = SIZE_MAX;
    for (size_t v = 0; v < vars_; ++v) {
      if (done[v]) continue;
      size_t pos = 0, neg = 0;
      for (const LinearExpr& r : rows) {
        if (r.coefs[v] > 0) ++pos;
        if (r.coefs[v] < 0) ++neg;
      }
      if (pos + neg == 0) {
        done[v] = true;
        continue;
      }
      size_t cost = pos * neg;
      if (cost < bestCost) {
        bestCost = cost;
        best = v;
      }
    }
    if (best == vars_) break;
    done[best] = true;
    std::vector<LinearExpr> lower, upper, next;
    for (LinearExpr& r : rows) {
      if (r.coefs[best] > 0)
        lower.push_back(std::move(r));
      else if (r.coefs[best] < 0)
        upper.push_back(std::move(r));
      else
        next.push_back(std::move(r));
    }
    std::set<std::pair<std::vector<int64_t>, int64_t>> seen;
    for (const LinearExpr& r : next) seen.insert({r.coefs, r.constant});
    for (const LinearExpr& lo : lower) {
      for (const LinearExpr& up : upper) {
        LinearExpr combined = addScaled(addScaled(LinearExpr(vars_), -up.coefs[best], lo), lo.coefs[best], up);
        Normal n = normalizeInequality(combined);
        if (n == Normal::Contradiction) return std::nullopt;
        if (n == Normal::Keep && seen.insert({combined.coefs, combined.constant}).second)
          next.push_back(std::move(combined));
      }
    }
    if (next.size() > kMaxInequalities) return std::vector<LinearExpr>{};  // too big: maybe
    rows = std::move(next);
  }
  return rows;
}

bool LinearSystem::mayBeFeasible() const { return project(vars_).has_value(); }

std::optional<std::pair<std::optional<int64_t>, std::optional<int64_t>>> LinearSystem::range(size_t v) const {
  std::optional<std::vector<LinearExpr>> rows = project(v);
  if (!rows) return std::nullopt;
  std::optional<int64_t> lo, hi;
  for (const LinearExpr& r : *rows) {
    int64_t a = r.coefs[v];
    if (a > 0) {  // a*x + k >= 0  =>  x >= ceil(-k / a)
      int64_t bound = -floorDiv(r.constant, a);
      lo = lo ? std::max(*lo, bound) : bound;
    } else if (a < 0) {  // x <= floor(k / -a)
      int64_t bound = floorDiv(r.constant, -a);
      hi = hi ? std::min(*hi, bound) : bound;
    }
  }
  if (lo && hi && *lo > *hi) return std::nullopt;
  return std::make_pair(lo, hi);
}

}  // namespace cudaburg
