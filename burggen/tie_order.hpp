#pragma once
// The order in which a labeler tries rules, which decides the winner among rules of equal cost.
// docs/burg-language.md ("Rules of equal cost") describes the three orders.
#include <string>

namespace burggen {

enum class TieOrder {
  Iburg,  // iburg's: an operator's rules last to first, chain rules last to first
  Lburg,  // lburg's: an operator's rules first to last, chain rules last to first
  First,  // every rule first to last: of equal-cost rules the one written first wins
};

struct TiePolicy {
  bool baseRulesReversed;    // an operator's rules are tried from the last written to the first
  bool chainRulesReversed;   // the chain rules from one nonterminal, likewise
  bool leafReplacesOnEqual;  // at a leaf operator, a later-tried rule of equal cost replaces
                             // the earlier (iburg fixes a leaf's labels as it writes the matcher,
                             // the first rule written winning)
};

inline TiePolicy tiePolicy(TieOrder order) {
  switch (order) {
    case TieOrder::Iburg:
      return {true, true, true};
    case TieOrder::Lburg:
      return {false, true, false};
    case TieOrder::First:
      break;
  }
  return {false, false, false};
}

// "iburg", "lburg" or "first" as a TieOrder; false for any other word.
inline bool parseTieOrder(const std::string& word, TieOrder& order) {
  if (word == "iburg")
    order = TieOrder::Iburg;
  else if (word == "lburg")
    order = TieOrder::Lburg;
  else if (word == "first")
    order = TieOrder::First;
  else
    return false;
  return true;
}

}  // namespace burggen
