#!/usr/bin/env bash
# Names in a BURG spec that would break the generated C++: bindings and nonterminals that are C
# or C++ keywords or reserved identifiers are refused at the name, with a caret.
# Usage: spec_names_test.sh BURGGEN SCRATCH_DIR
set -u
burggen=$1 scratch=$2
rm -rf "$scratch" && mkdir -p "$scratch"
. "$(dirname "$0")/check.sh"

# spec NAME RULES: a spec with operators A (binary) and B (leaf), and the given rules.
spec() { printf '%%term A=1 B=2\n%%%%\n%b' "$2" >"$scratch/$1.burg"; }

spec keyword 's: A(new:s, s) (1) { return; }\ns: B;\n'
expect 1 "$scratch/keyword.burg:3:6: error: binding 'new' is a keyword of C or C++; choose another name
s: A(new:s, s) (1) { return; }
     ^" "$burggen" "$scratch/keyword.burg" -o "$scratch/keyword.cpp"

spec c_keyword 's: A(s, restrict:s);\ns: B;\n'
expect 1 "$scratch/c_keyword.burg:3:9: error: binding 'restrict' is a keyword of C or C++; choose another name
s: A(s, restrict:s);
        ^" "$burggen" "$scratch/c_keyword.burg" -o "$scratch/c_keyword.cpp"

spec double_underscore 's: A(a__b:s, s);\ns: B;\n'
expect 1 "$scratch/double_underscore.burg:3:6: error: binding 'a__b' holds two underscores in a row, which C and C++ reserve; choose another name
s: A(a__b:s, s);
     ^" "$burggen" "$scratch/double_underscore.burg" -o "$scratch/double_underscore.cpp"

spec nonterminal 's: A(_Foo, s);\ns: B;\n_Foo: B;\n'
expect 1 "$scratch/nonterminal.burg:5:1: error: nonterminal '_Foo' begins with an underscore, which C and C++ reserve; the matcher's code could not use it
_Foo: B;
^" "$burggen" "$scratch/nonterminal.burg" -o "$scratch/nonterminal.cpp"

spec nonterminal_keyword 'while: A(while, while);\nwhile: B;\n'
expect 1 "$scratch/nonterminal_keyword.burg:3:1: error: nonterminal 'while' is a keyword of C or C++; the matcher's code could not use it
while: A(while, while);
^" "$burggen" "$scratch/nonterminal_keyword.burg" -o "$scratch/nonterminal_keyword.cpp"

for f in keyword c_keyword double_underscore nonterminal nonterminal_keyword; do
  [ ! -e "$scratch/$f.cpp" ] || fail "$f.cpp was written for a refused spec"
done

# Names that only look close are fine.
printf '%%term A=1 B=2\n%%%%\ns: A(news:s, x_y:s);\ns: B;\n' >"$scratch/fine.burg"
expect 0 "" "$burggen" "$scratch/fine.burg" -o "$scratch/fine.cpp"

finish
