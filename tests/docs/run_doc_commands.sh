#!/usr/bin/env bash
# Runs the commands of the documentation as written, as a reader would: every fenced block
# opened with ```sh in the given Markdown files, one block at a time, from a scratch folder that
# holds the source tree's folders (links) and the build (build/, a link). A block opened with
# ```output right after a ```sh block is what that block must print (standard output and
# standard error), exactly. Blocks may be indented (inside a list item); the indentation of
# their fence is removed from their lines. scripts/setup and scripts/test, which install and build, are what CI
# itself runs around this test: a block's `scripts/setup &&` or a line `scripts/test` is left
# out. Blocks that show commands without running them use ```console. The commands must leave
# the source tree as they found it (what `git status` shows there is the same after them), and
# what they write in the scratch folder must be what .gitignore ignores, since a reader runs
# them in the source tree.
#   run_doc_commands.sh SOURCE_DIR BUILD_DIR FILE.md...
set -uo pipefail
source_dir=$(cd "$1" && pwd)
build_dir=$(cd "$2" && pwd)
shift 2

scratch=$(mktemp -d "${TMPDIR:-/tmp}/doc-commands.XXXXXX")
blocks_dir=$(mktemp -d "${TMPDIR:-/tmp}/doc-blocks.XXXXXX")  # the blocks, apart from what they write
trap 'rm -rf "$scratch" "$blocks_dir"' EXIT
for entry in "$source_dir"/*; do
  name=$(basename "$entry")
  [[ $name == build ]] || ln -s "$entry" "$scratch/$name"
done
ln -s "$build_dir" "$scratch/build"
mkdir "$scratch/home"
# The tools' caches and databases go to the scratch folder, not to the user's.
export HOME="$scratch/home" XDG_CACHE_HOME="$scratch/home/.cache" XDG_DATA_HOME="$scratch/home/.local/share"

# What git sees in the source tree (nothing when it is not a git work tree): a file a command
# wrote through a link of the scratch folder, and that .gitignore does not cover, shows here.
tree_status() { git -C "$source_dir" status --porcelain --untracked-files=all 2>/dev/null; }
status_before=$(tree_status)

failures=0
blocks=0
for doc in "$@"; do
  # Splits the file into blocks: block.N.sh (with the line it starts at) and block.N.expected.
  rm -f "$blocks_dir"/block.*
  awk -v out="$blocks_dir/block" '
    function fence(line) { match(line, /^[ \t]*/); return RLENGTH }
    function body(line) { return substr(line, 1, indent) ~ /^[ \t]*$/ ? substr(line, indent + 1) : line }
    /^[ \t]*```sh[ \t]*$/ && !inside { inside = "sh"; indent = fence($0); n++; print NR > (out "." n ".line"); wantOutput = 0; next }
    /^[ \t]*```output[ \t]*$/ && !inside && wantOutput { inside = "output"; indent = fence($0); next }
    /^[ \t]*```/ && inside { wantOutput = inside == "sh"; inside = ""; next }
    /^[ \t]*```/ && !inside { inside = "other"; wantOutput = 0; next }
    inside == "sh" { print body($0) > (out "." n ".sh"); next }
    inside == "output" { print body($0) > (out "." n ".expected"); next }
    inside == "" && NF > 0 { wantOutput = 0 }
  ' "$doc"
  for script in "$blocks_dir"/block.*.sh; do
    [[ -e $script ]] || continue
    base=${script%.sh}
    line=$(cat "$base.line")
    blocks=$((blocks + 1))
    sed -i -e 's/^scripts\/setup && //' -e '/^scripts\/test\([ \t].*\)\?$/d' "$script"
    actual="$base.actual"
    (cd "$scratch" && timeout 900 bash -e -o pipefail "$script") >"$actual" 2>&1
    status=$?
    if [[ $status -ne 0 ]]; then
      echo "$doc:$line: the block failed (exit status $status):"
      cat "$script"
      echo "--- it printed:"
      tail -n 40 "$actual"
      failures=$((failures + 1))
    elif [[ -e $base.expected ]] && ! diff -u "$base.expected" "$actual" >"$base.diff"; then
      echo "$doc:$line: the block printed other than the document shows:"
      cat "$base.diff"
      failures=$((failures + 1))
    fi
  done
done
# What the commands wrote in the scratch folder, as git would see it in the source tree.
unignored=()
while IFS= read -r -d '' path; do
  name=${path#"$scratch"/}
  [[ $name == home || $name == home/* ]] && continue
  [[ -d $path ]] && name="$name/"
  git -C "$source_dir" check-ignore -q --no-index -- "$name" 2>/dev/null || unignored+=("$name")
done < <(find "$scratch" -mindepth 1 -maxdepth 1 ! -type l -print0)
if [[ ${#unignored[@]} -gt 0 ]] && git -C "$source_dir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "the commands write files that .gitignore does not cover, run in the source tree: ${unignored[*]}"
  failures=$((failures + 1))
fi

status_after=$(tree_status)
if [[ $status_after != "$status_before" ]]; then
  echo "the commands left files in the source tree that git does not ignore:"
  diff <(echo "$status_before") <(echo "$status_after") | sed -n 's/^> /  /p'
  failures=$((failures + 1))
fi
echo "$blocks blocks run, $failures failed"
[[ $failures -eq 0 ]]
