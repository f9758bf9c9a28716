#!/usr/bin/env bash
# A tool's manual page says what its --help says: every option of --help is on the page, and the
# page formats without warnings.
#   man_page_test.sh TOOL PAGE
set -u
tool=$1 page=$2
failures=0
for option in $("$tool" --help | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u); do
  grep -qF -- "\\fB${option//-/\\-}\\fR" "$page" || { echo "FAIL: $option of --help is not on $page"; failures=$((failures + 1)); }
done
if command -v groff >/dev/null; then
  warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
  [ -z "$warnings" ] || { echo "FAIL: groff warns about $page: $warnings"; failures=$((failures + 1)); }
fi
grep -q '^\.SH OPTIONS' "$page" || { echo "FAIL: $page has no OPTIONS section"; failures=$((failures + 1)); }
[ "$failures" -eq 0 ]
