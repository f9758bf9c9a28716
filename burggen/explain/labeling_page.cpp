#include "burggen/explain/labeling_page.hpp"

#include <cstdio>
#include <sstream>

#include "burggen/explain/page_script.hpp"

namespace burggen::explain {

namespace {

// A JSON string; '<' is escaped too, so that the data cannot close the script element holding it.
std::string json(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '<':
        out += "\\u003c";
        break;
      default:
        if (c < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          out += escaped;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

std::string html(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '&':
        out += "&amp;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

void writeData(std::ostream& o, const Labeling& l) {
  o << "{\"title\":" << json(l.title) << ",\"start\":" << l.start << ",\"root\":" << l.root
    << ",\"failure\":" << json(l.failure) << ",\n\"nonterminals\":[";
  for (size_t i = 0; i < l.nonterminals.size(); ++i) o << (i ? "," : "") << json(l.nonterminals[i]);
  o << "],\n\"unmatched\":[";
  for (size_t i = 0; i < l.unmatched.size(); ++i) o << (i ? "," : "") << l.unmatched[i];
  o << "],\n\"nodes\":[";
  for (size_t i = 0; i < l.nodes.size(); ++i) {
    const TreeNode& n = l.nodes[i];
    o << (i ? ",\n" : "") << "{\"id\":" << n.id << ",\"op\":" << json(n.op) << ",\"title\":" << json(n.title)
      << ",\"kids\":[";
    for (size_t k = 0; k < n.kids.size(); ++k) o << (k ? "," : "") << n.kids[k];
    o << "]}";
  }
  o << "],\n\"steps\":[";
  for (size_t i = 0; i < l.steps.size(); ++i) {
    const Step& s = l.steps[i];
    o << (i ? ",\n" : "") << "{\"node\":" << s.node << ",\"nt\":" << s.nt << ",\"cost\":" << s.cost
      << ",\"rule\":" << s.rule << ",\"text\":" << json(s.text) << ",\"better\":" << (s.better ? "true" : "false")
      << ",\"chain\":" << (s.chain ? "true" : "false") << "}";
  }
  o << "],\n\"covers\":[";
  for (size_t c = 0; c < l.covers.size(); ++c) {
    o << (c ? ",\n" : "") << "{\"cost\":" << l.covers[c].cost << ",\"rules\":[";
    for (size_t i = 0; i < l.covers[c].rules.size(); ++i) {
      const CoverRule& r = l.covers[c].rules[i];
      o << (i ? ",\n" : "") << "{\"node\":" << r.node << ",\"nt\":" << r.nt << ",\"rule\":" << r.rule
        << ",\"text\":" << json(r.text) << ",\"cost\":" << r.cost << ",\"depth\":" << r.depth << "}";
    }
    o << "]}";
  }
  o << "]}";
}

}  // namespace

std::string pageSizeError(int nodes) {
  if (nodes <= kMaxPageNodes) return "";
  return "the tree has " + std::to_string(nodes) + " nodes; a labeling page draws trees of at most " +
         std::to_string(kMaxPageNodes);
}

bool writeLabelingPage(std::ostream& out, const Labeling& labeling) {
  if (!pageSizeError(static_cast<int>(labeling.nodes.size())).empty()) return false;
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    << "<title>Labeling: " << html(labeling.title) << "</title>\n<style>\n"
    << kPageStyle << "</style>\n</head>\n<body>\n"
    << "<h1>Labeling <code>" << html(labeling.title) << "</code></h1>\n"
    << kPageBody << "<script type=\"application/json\" id=\"labeling\">";
  writeData(o, labeling);
  o << "</script>\n<script>\n" << kPageScript << "</script>\n</body>\n</html>\n";
  out << o.str();
  return true;
}

}  // namespace burggen::explain
