#!/usr/bin/env bash
# Fails when a C++ file of the project differs from what clang-format makes of it under the
# root's .clang-format. Usage: check_format.sh SOURCE_DIR
set -euo pipefail
cd "$1"
command -v clang-format >/dev/null || { echo "clang-format is not installed (scripts/setup installs it)" >&2; exit 1; }
files=$(find src burggen burgspec common bench examples tests \
          -path tests/data -prune -o \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) -print | sort)
[ -n "$files" ] || { echo "no C++ files found under $1" >&2; exit 1; }
unformatted=()
for f in $files; do
  clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || unformatted+=("$f")
done
if [ ${#unformatted[@]} -gt 0 ]; then
  echo "not formatted (run clang-format -i on them):" >&2
  printf '  %s\n' "${unformatted[@]}" >&2
  exit 1
fi
echo "$(echo "$files" | wc -l) files formatted"
