#pragma once
// A manual page (roff, as man(7) reads it) made from a CLI11 command's own definition, so that
// the page and --help say the same: the name, the synopsis, every option with its placeholder
// and its help, the subcommands with theirs, and the sections the caller adds. burggen and
// cudaburg print theirs with --man; the build writes them to build/man/.
#include <CLI/CLI.hpp>

#include <iostream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace burggen {

struct ManSection {
  std::string title;  // "DESCRIPTION", "ENVIRONMENT", ...
  std::string text;   // paragraphs separated by blank lines; lines starting with "  " are shown as code
};

// Text as roff shows it literally: backslashes and minus signs escaped, no line taken for a request.
inline std::string roffText(const std::string& text) {
  std::string out;
  bool lineStart = true;
  for (char c : text) {
    if (lineStart && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
    lineStart = c == '\n';
  }
  return out;
}

namespace man_detail {

inline std::string placeholder(const CLI::Option* option) {
  std::string text = option->get_option_text();
  if (text.empty() && !option->nonpositional()) text = option->get_name(true);
  return text;
}

inline void writeOptions(std::ostream& out, const CLI::App& app) {
  for (const CLI::Option* option : app.get_options()) {
    if (!option->nonpositional()) continue;
    std::string names = option->get_name(false, true), line;
    std::stringstream split(names);
    for (std::string name; std::getline(split, name, ',');)
      line += (line.empty() ? "" : ", ") + ("\\fB" + roffText(name) + "\\fR");
    std::string text = placeholder(option);
    if (!text.empty()) line += " \\fI" + roffText(text) + "\\fR";
    out << ".TP\n" << line << "\n" << roffText(option->get_description()) << "\n";
  }
}

inline std::string synopsis(const CLI::App& app) {
  std::string out = "[\\fIOPTIONS\\fR]";
  for (const CLI::Option* option : app.get_options()) {
    if (option->nonpositional()) continue;
    std::string text = "\\fI" + roffText(placeholder(option)) + "\\fR";
    out += option->get_required() ? " " + text : " [" + text + "]";
  }
  return out;
}

}  // namespace man_detail

inline void writeManPage(std::ostream& out, const CLI::App& app, const std::string& name, const std::string& version,
                         const std::string& summary, const std::vector<ManSection>& sections) {
  out << ".TH " << name << " 1 \"\" \"" << roffText(version) << "\" \"User Commands\"\n"
      << ".SH NAME\n"
      << name << " \\- " << roffText(summary) << "\n"
      << ".SH SYNOPSIS\n.B " << name << "\n"
      << man_detail::synopsis(app) << "\n";
  auto subcommands = app.get_subcommands([](const CLI::App*) { return true; });
  for (const CLI::App* sub : subcommands)
    out << ".br\n.B " << name << " " << sub->get_name() << "\n" << man_detail::synopsis(*sub) << "\n";
  out << ".SH DESCRIPTION\n" << roffText(app.get_description()) << "\n";
  for (const CLI::Option* option : app.get_options())
    if (!option->nonpositional())
      out << ".TP\n\\fI" << roffText(man_detail::placeholder(option)) << "\\fR\n"
          << roffText(option->get_description()) << "\n";
  out << ".SH OPTIONS\n";
  man_detail::writeOptions(out, app);
  for (const CLI::App* sub : subcommands) {
    out << ".SS " << name << " " << sub->get_name() << "\n" << roffText(sub->get_description()) << "\n";
    for (const CLI::Option* option : sub->get_options())
      if (!option->nonpositional())
        out << ".TP\n\\fI" << roffText(man_detail::placeholder(option)) << "\\fR\n"
            << roffText(option->get_description()) << "\n";
    man_detail::writeOptions(out, *sub);
  }
  for (const ManSection& section : sections) {
    out << ".SH " << section.title << "\n";
    std::stringstream lines(section.text);
    bool code = false;
    for (std::string line; std::getline(lines, line);) {
      bool codeLine = line.rfind("  ", 0) == 0;
      if (codeLine != code) out << (codeLine ? ".PP\n.nf\n" : ".fi\n");
      code = codeLine;
      if (line.empty() && !code)
        out << ".PP\n";
      else
        out << roffText(line) << "\n";
    }
    if (code) out << ".fi\n";
  }
}

// Adds `--man` to `app`: it prints the page and ends the parse as --help does.
inline void addManFlag(CLI::App& app, const std::string& name, const std::string& version, const std::string& summary,
                       std::vector<ManSection> sections) {
  app.add_flag_callback(
      "--man",
      [&app, name, version, summary, sections] {
        writeManPage(std::cout, app, name, version, summary, sections);
        throw CLI::Success();
      },
      "print this manual page (roff) and exit");
}

}  // namespace burggen
