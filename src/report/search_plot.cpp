#include "src/report/search_plot.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

namespace cudaburg {

namespace {

constexpr double kWidth = 720, kHeight = 420;
constexpr double kLeft = 70, kRight = 20, kTop = 58, kBottom = 50;
constexpr double kTitleSize = 15, kSubtitleSize = 12;

std::string fmt(double v, int precision = 3) {
  std::ostringstream out;
  out.precision(precision);
  out << v;
  return out.str();
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else
      out += c;
  }
  return out;
}

// The first clause of a long explanation, for a line of a picture: "no CUDA device (libcuda...)"
// becomes "no CUDA device".
std::string firstClause(const std::string& text) {
  size_t end = std::min(text.find(" ("), text.find(": "));
  return end == std::string::npos ? text : text.substr(0, end);
}

// A line of text that fits the picture's width: one that would run past the right edge (about
// 0.6 em a character in a sans-serif font) is squeezed to the width there is instead of cut off.
std::string fittedText(double x, double y, double size, const std::string& text) {
  std::ostringstream out;
  double room = kWidth - x - 8, wanted = 0.6 * size * static_cast<double>(text.size());
  out << "<text x=\"" << x << "\" y=\"" << y << "\" font-size=\"" << size << "\"";
  if (wanted > room) out << " textLength=\"" << room << "\" lengthAdjust=\"spacingAndGlyphs\"";
  out << ">" << escape(text) << "</text>\n";
  return out.str();
}

// The frame of a plot: n points along x, values on a log scale along y between 10^logLo and
// 10^logHi.
struct Frame {
  double logLo, logHi;
  int n;
  double plotW = kWidth - kLeft - kRight, plotH = kHeight - kTop - kBottom;
  double x(double i) const { return kLeft + (i - 1) / (n - 1) * plotW; }
  double y(double v) const { return kTop + (logHi - std::log10(v)) / (logHi - logLo) * plotH; }
};

// A frame with a little room around [lo, hi], so that a 10x spread and the best both stay readable.
Frame frameFor(double lo, double hi, int n) { return {std::log10(lo) - 0.05, std::log10(hi) + 0.05, std::max(n, 2)}; }

void drawAxes(std::ostringstream& svg, const Frame& f, int count, const std::string& xLabel,
              const std::string& yLabel) {
  svg << "<rect x=\"" << kLeft << "\" y=\"" << kTop << "\" width=\"" << f.plotW << "\" height=\"" << f.plotH
      << "\" fill=\"none\" stroke=\"#888\"/>\n";
  for (int t = 0; t <= 4; ++t) {  // y ticks
    double v = std::pow(10.0, f.logLo + (f.logHi - f.logLo) * t / 4);
    svg << "<text x=\"" << kLeft - 6 << "\" y=\"" << f.y(v) + 4 << "\" text-anchor=\"end\">" << fmt(v) << "</text>\n";
    svg << "<line x1=\"" << kLeft << "\" x2=\"" << kLeft + f.plotW << "\" y1=\"" << f.y(v) << "\" y2=\"" << f.y(v)
        << "\" stroke=\"#eee\"/>\n";
  }
  svg << "<text x=\"" << kLeft + f.plotW / 2 << "\" y=\"" << kHeight - 12 << "\" text-anchor=\"middle\">" << xLabel
      << "</text>\n";
  svg << "<text transform=\"translate(16," << kTop + f.plotH / 2 << ") rotate(-90)\" text-anchor=\"middle\">" << yLabel
      << "</text>\n";
  svg << "<text x=\"" << kLeft << "\" y=\"" << kTop + f.plotH + 16 << "\">1</text>\n";
  svg << "<text x=\"" << kLeft + f.plotW << "\" y=\"" << kTop + f.plotH + 16 << "\" text-anchor=\"end\">" << count
      << "</text>\n";
}

// A candidate's model estimate, and whether it was refused (failed to compile, over a limit).
struct Estimate {
  double ms;
  bool refused;
};

// Without measurements: each candidate's model estimate, in the model's order; the chosen (the
// cheapest not refused) large, refused ones as red crosses apart from those that compiled.
void drawEstimates(std::ostringstream& svg, const std::vector<Estimate>& estimates, const std::string& why) {
  Frame f = frameFor(estimates.front().ms, estimates.back().ms, static_cast<int>(estimates.size()));
  svg << "<text x=\"" << kLeft + 6 << "\" y=\"" << kTop + 14 << "\" fill=\"#c33\">not measured ("
      << escape(firstClause(why)) << "): the model's estimates</text>\n";
  drawAxes(svg, f, static_cast<int>(estimates.size()), "candidates, in the model's order",
           "model's estimate of the kernel time, ms (log scale)");
  bool chosen = false;
  size_t refused = 0;
  for (size_t i = 0; i < estimates.size(); ++i) {
    double x = f.x(static_cast<double>(i) + 1), y = f.y(estimates[i].ms);
    if (estimates[i].refused) {
      ++refused;
      svg << "<text x=\"" << x << "\" y=\"" << y + 4 << "\" text-anchor=\"middle\" fill=\"#c33\">x</text>\n";
      continue;
    }
    bool first = !chosen;
    chosen = true;
    svg << "<circle cx=\"" << x << "\" cy=\"" << y << "\" r=\"" << (first ? 5 : 3) << "\" fill=\""
        << (first ? "#1f5fbf" : "#9ab") << "\" fill-opacity=\"0.8\"/>\n";
    if (first)
      svg << "<text x=\"" << kLeft + f.plotW - 4 << "\" y=\"" << kTop + 14
          << "\" text-anchor=\"end\" fill=\"#1f5fbf\">chosen: " << fmt(estimates[i].ms) << " ms</text>\n";
  }
  if (refused > 0)
    svg << "<text x=\"" << kLeft + 6 << "\" y=\"" << kTop + 30 << "\" fill=\"#c33\">x: refused (" << refused
        << "), not a candidate</text>\n";
  svg << "</svg>\n";
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
    if (v.result.status == RunStatus::Ok && v.result.ms > 0)
      ok.emplace_back(order, v.result.ms);
    else
      failed.push_back(order);
  }
  std::ostringstream svg;
  svg << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\"" << kHeight
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  // The title, then the device on a line of its own: each fitted to the width, never cut off.
  svg << fittedText(kLeft, 22, kTitleSize, outcome.kernelName + " (" + outcome.sizes + ")");
  svg << fittedText(kLeft, 40, kSubtitleSize,
                    outcome.gpuAvailable ? "on " + outcome.device : "not measured: " + outcome.device);
  if (ok.empty()) {
    std::string why =
        outcome.notMeasuredReason.empty() ? "no variant was verified and timed" : outcome.notMeasuredReason;
    std::vector<Estimate> estimates;
    for (const auto& v : outcome.variants)
      if (v.modelCost > 0)
        estimates.push_back(
            {v.modelCost, v.result.status != RunStatus::Ok && v.result.status != RunStatus::NotMeasured});
    std::stable_sort(estimates.begin(), estimates.end(),
                     [](const Estimate& a, const Estimate& b) { return a.ms < b.ms; });
    if (!estimates.empty()) {
      drawEstimates(svg, estimates, why);
      return svg.str();
    }
    svg << "<text x=\"" << kWidth / 2 << "\" y=\"" << kHeight / 2
        << "\" text-anchor=\"middle\">not measured: " << escape(why) << "</text>\n</svg>\n";
    return svg.str();
  }
  double lo = ok.front().second, hi = lo;
  for (auto& p : ok) lo = std::min(lo, p.second), hi = std::max(hi, p.second);
  if (outcome.reference.measured) lo = std::min(lo, outcome.reference.ms), hi = std::max(hi, outcome.reference.ms);
  Frame f = frameFor(lo, hi, order);
  double plotW = f.plotW;
  auto x = [&](double i) { return f.x(i); };
  auto y = [&](double ms) { return f.y(ms); };
  drawAxes(svg, f, order, "variants measured (in order)", "kernel time, ms (log scale)");

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
  svg << "<text x=\"" << kLeft + plotW - 4 << "\" y=\"" << kTop + 14
      << "\" text-anchor=\"end\" fill=\"#1f5fbf\">best so far: " << fmt(best) << " ms</text>\n";
  if (!failed.empty())
    svg << "<text x=\"" << kLeft + 6 << "\" y=\"" << kTop + 14 << "\" fill=\"#c33\">x: failed or wrong ("
        << failed.size() << ")</text>\n";
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace cudaburg
