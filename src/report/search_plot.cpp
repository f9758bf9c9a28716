#include "src/report/search_plot.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

namespace cudaburg {

namespace {

constexpr double kWidth = 720, kHeight = 420;
constexpr double kLeft = 70, kRight = 20, kTop = 40, kBottom = 50;

std::string fmt(double v, int precision = 3) {
  std::ostringstream out;
  out.precision(precision);
  out << v;
  return out.str();
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out += c;
  }
  return out;
}

}  // namespace

std::string searchPlotSvg(const SearchOutcome& outcome) {
  // Points: (measurement order, ms) for verified variants; failures are marked on the top edge.
  std::vector<std::pair<int, double>> ok;
  std::vector<int> failed;
  int order = 0;
  for (const auto& v : outcome.variants) {
    if (!v.measured) continue;
    ++order;
    if (v.result.status == "ok" && v.result.ms > 0) ok.emplace_back(order, v.result.ms);
    else failed.push_back(order);
  }
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg << "<text x=\"" << kLeft << "\" y=\"22\" font-size=\"15\">" << escape(outcome.kernelName) << " "
      << escape(outcome.sizes) << " on " << escape(outcome.device) << "</text>\n";
  double plotW = kWidth - kLeft - kRight, plotH = kHeight - kTop - kBottom;
  if (ok.empty()) {
    std::string why = outcome.notMeasuredReason.empty() ? "no variant was verified and timed" : outcome.notMeasuredReason;
    svg << "<text x=\"" << kWidth / 2 << "\" y=\"" << kHeight / 2 << "\" text-anchor=\"middle\">not measured: "
        << escape(why) << "</text>\n</svg>\n";
    return svg.str();
  }
  double lo = ok.front().second, hi = lo;
  for (auto& p : ok) lo = std::min(lo, p.second), hi = std::max(hi, p.second);
  if (outcome.reference.measured) lo = std::min(lo, outcome.reference.ms), hi = std::max(hi, outcome.reference.ms);
  // Log scale with a little room, so a 10x spread and the best both stay readable.
  double logLo = std::log10(lo) - 0.05, logHi = std::log10(hi) + 0.05;
  int n = std::max(order, 2);
  auto x = [&](double i) { return kLeft + (i - 1) / (n - 1) * plotW; };
  auto y = [&](double ms) { return kTop + (logHi - std::log10(ms)) / (logHi - logLo) * plotH; };

  svg << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << plotW << "\" height=\"" << plotH
      << "\" fill=\"none\" stroke=\"#888\"/>\n";
  for (int t = 0; t <= 4; ++t) {  // y ticks
    double ms = std::pow(10.0, logLo + (logHi - logLo) * t / 4);
    svg << "<text x=\"" << kLeft - 6 << "\" y=\"" << y(ms) + 4 << "\" text-anchor=\"end\">" << fmt(ms) << "</text>\n";
    svg << "<line x1=\"" << kLeft << "\" x2=\"" << kLeft + plotW << "\" y1=\"" << y(ms) << "\" y2=\"" << y(ms)
        << "\" stroke=\"#eee\"/>\n";
  }
  svg << "<text x=\"" << kLeft + plotW / 2 << "\" y=\"" << kHeight - 12
      << "\" text-anchor=\"middle\">variants measured (in order)</text>\n";
  svg << "<text transform=\"translate(16," << kTop + plotH / 2
      << ") rotate(-90)\" text-anchor=\"middle\">kernel time, ms (log scale)</text>\n";
  svg << "<text x=\"" << kLeft << "\" y=\"" << kTop + plotH + 16 << "\">1</text>\n";
  svg << "<text x=\"" << kLeft + plotW << "\" y=\"" << kTop + plotH + 16 << "\" text-anchor=\"end\">" << order
      << "</text>\n";

  for (auto& [i, ms] : ok)
    svg << "<circle cx=\"" << x(i) << "\" cy=\"" << y(ms) << "\" r=\"3\" fill=\"#9ab\" fill-opacity=\"0.7\"/>\n";
  for (int i : failed)
    svg << "<text x=\"" << x(i) << "\" y=\"" << kTop + 10 << "\" text-anchor=\"middle\" fill=\"#c33\">x</text>\n";

  svg << "<polyline fill=\"none\" stroke=\"#1f5fbf\" stroke-width=\"2\" points=\"";
  double best = ok.front().second;
  for (size_t k = 0; k < ok.size(); ++k) {
    best = std::min(best, ok[k].second);
    double nextX = k + 1 < ok.size() ? ok[k + 1].first : order;
    svg << x(ok[k].first) << ',' << y(best) << ' ' << x(nextX) << ',' << y(best) << ' ';
  }
  svg << "\"/>\n";

  if (outcome.reference.measured) {
    double ry = y(outcome.reference.ms);
    svg << "<line x1=\"" << kLeft << "\" x2=\"" << kLeft + plotW << "\" y1=\"" << ry << "\" y2=\"" << ry
        << "\" stroke=\"#d62\" stroke-dasharray=\"6 4\" stroke-width=\"1.5\"/>\n";
    svg << "<text x=\"" << kLeft + plotW - 4 << "\" y=\"" << ry - 5 << "\" text-anchor=\"end\" fill=\"#d62\">"
        << escape(outcome.reference.library) << " " << fmt(outcome.reference.ms) << " ms</text>\n";
  }
  svg << "<text x=\"" << kLeft + plotW - 4 << "\" y=\"" << kTop + 14 << "\" text-anchor=\"end\" fill=\"#1f5fbf\">best so far: "
      << fmt(best) << " ms</text>\n";
  if (!failed.empty())
    svg << "<text x=\"" << kLeft + 6 << "\" y=\"" << kTop + 14 << "\" fill=\"#c33\">x: failed or wrong ("
        << failed.size() << ")</text>\n";
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace cudaburg
