#!/usr/bin/env bash
# Opens the labeling pages of the tutorial's examples (isel --html) in headless Chromium, has each
# page click through every step (?walk) and checks what each step showed against `isel --trace`:
# the same matches in the same order with the same costs, the focused table entry holding the
# step's nonterminal and cost, the step's node outlined, then the reduction line by line. Also:
# ?step=N shows what the walk showed at N; --kbest's covers side by side; a tree too large.
#   labeling_page_test.sh ISEL SOURCE_DIR
set -uo pipefail
isel=$1
examples=$2/examples/isel
browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z $browser ]]; then
  echo "SKIPPED: Chromium is not installed (scripts/setup installs the Debian package chromium)"
  exit 77
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/labeling-page.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The DOM of a page after its script ran, with the query string $2.
dom() {
  "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$work/profile" \
    --dump-dom "file://$1?$2" 2>/dev/null
}
unescape() { sed -e 's/&lt;/</g' -e 's/&gt;/>/g' -e 's/&quot;/"/g' -e 's/&amp;/\&/g'; }

check() {  # NAME PROGRAM-TEXT
  local name=$1 dir="$work/$1"
  mkdir -p "$dir"
  printf '%s\n' "$2" >"$dir/program.tiny"
  if ! "$isel" "$dir/program.tiny" --html "$dir/page.html" >/dev/null; then
    fail "$name: isel --html failed"
    return
  fi
  # The last statement's part of the trace: its matches, then its reduction (unindented).
  "$isel" "$dir/program.tiny" --trace |
    awk '/^# labeling: /{n=0; delete lines; on=1; next} /^# reducing/{red=1; next}
         on && /^# /{on=0} on{sub(/^ +/, ""); lines[++n]=$0} END{for(i=1;i<=n;i++) print lines[i]}' >"$dir/expected"
  [[ -s $dir/expected ]] || { fail "$name: --trace printed no matches"; return; }
  dom "$dir/page.html" walk | sed -n '/<pre id="walk"/,/<\/pre>/p' | sed -e 's/^<pre[^>]*>//' -e 's/<\/pre>.*$//' |
    unescape >"$dir/walk"
  local steps
  steps=$(wc -l <"$dir/walk")
  if [[ $steps -lt 2 ]]; then
    fail "$name: the page showed no steps"
    return
  fi
  # Every step was reached in order: "step i of N".
  awk -F'\t' -v n="$steps" '$1 != "step " NR " of " n {print "step " NR " showed: " $1; bad=1} END{exit bad}' "$dir/walk" ||
    fail "$name: the counter did not follow the steps"
  # The matches and the reduction, in order, as --trace prints them.
  awk -F'\t' '$2 ~ /^#[0-9]+ [^ ]+: / && $2 !~ /its rules are tried$/ || $2 ~ /\[#[0-9]+ /{print $2}' "$dir/walk" >"$dir/shown"
  diff -u "$dir/expected" "$dir/shown" >"$dir/diff" || { fail "$name: the steps differ from --trace:"; cat "$dir/diff"; }
  # What each step highlighted: the entry of the step's nonterminal, with its cost, at its node.
  awk -F'\t' '
    function bad(why) { print "step " NR " (" $2 "): " why; failed = 1 }
    match($2, /^#[0-9]+ [^ ]+: [^:]+: .* = [0-9]+  cost [0-9]+/) {
      split($2, w, " "); node = w[1]; nt = w[3]; sub(/:$/, "", nt)
      cost = $2; sub(/.*  cost /, "", cost); sub(/  .*/, "", cost)
      split($3, e, "=")
      if ($4 != node) bad("outlined " $4 ", not " node)
      if (e[1] != nt) bad("focused " $3 ", not " nt)
      if ($2 ~ /\(not better\)$/) { if (e[2] + 0 > cost + 0) bad("kept " $3 ", dearer than " cost) }
      else if (e[2] != cost) bad("shows " $3 ", not " nt "=" cost)
      next
    }
    match($2, /\[#[0-9]+ [^ ]+, cost [0-9]+\]$/) {
      nt = $2; sub(/:.*/, "", nt)
      node = $2; sub(/.*\[/, "", node); sub(/ .*/, "", node)
      cost = $2; sub(/.*cost /, "", cost); sub(/\]/, "", cost)
      if ($4 != node) bad("outlined " $4 ", not " node)
      if ($3 != nt "=" cost) bad("shows " $3 ", not " nt "=" cost)
    }
    END { exit failed }' "$dir/walk" || fail "$name: a step highlighted the wrong entry"
  # Opened at one step, the page shows what the walk showed there.
  local middle=$(( (steps + 1) / 2 ))
  local at
  at=$(dom "$dir/page.html" "step=$middle" | grep -o 'data-shown="[^"]*"' | sed -e 's/^data-shown="//' -e 's/"$//' | unescape)
  [[ $at == "$(sed -n "${middle}p" "$dir/walk")" ]] || fail "$name: ?step=$middle shows '$at'"
  echo "ok: $name ($steps steps)"
}

check tutorial "$(cat "$examples/tutorial.tiny")"
check sample "$(cat "$examples/sample.tiny")"
check memory '[&z + 8] = [&x + 4];'
check exercise1 'a = b * 6;'
check exercise2 'a = 5000;'
check exercise3 '[&x + 4] = 0;'
check exercise4 'w = a * 4 + b;'
check ties 'a = 1 + 2;'
check exercise7 'a = 0;'

# --kbest 3: the last step shows the three cheapest covers with the costs isel --kbest prints.
"$isel" "$examples/tutorial.tiny" --kbest 3 --html "$work/kbest.html" >/dev/null
expected=$("$isel" "$examples/tutorial.tiny" --kbest 3 | grep '^cover ' | sed 's/:$//' | paste -sd';' | sed 's/;/; /g')
shown=$(dom "$work/kbest.html" walk | sed -n '/<pre id="walk"/,/<\/pre>/p' | sed -e 's/<\/pre>.*$//' | tail -n 1 | cut -f5)
[[ $shown == "$expected" ]] || fail "kbest: the last step showed '$shown', not '$expected'"
[[ $shown == "$expected" ]] && echo "ok: kbest ($shown)"

# A tree too large to draw: a plain error naming the limit, and no page.
big="x = 1$(printf ' + 1%.0s' $(seq 1 260));"
echo "$big" >"$work/big.tiny"
message=$("$isel" "$work/big.tiny" --html "$work/big.html" 2>&1 >/dev/null)
status=$?
[[ $status -ne 0 && $message == "isel: --html: the tree has 523 nodes; a labeling page draws trees of at most 500." &&
   ! -e $work/big.html ]] || fail "a tree too large: exit $status, '$message'"

echo "labeling pages: $failures checks failed"
[[ $failures -eq 0 ]]
