#!/usr/bin/env bash
# Where outputs go when something is wrong: burggen and cudaburg replace only a regular file (or
# write a new one), never a FIFO, a folder or what a dangling link names; a write that fails
# (here: past a file-size limit, as a full disk would) leaves no partial output and exits 1; the
# same file named twice is refused; a spec that fails leaves the old output as it was; the
# search's outputs are written all together or not at all.
# Usage: output_files_test.sh BURGGEN CUDABURG EXAMPLES_DIR SCRATCH_DIR
set -u
burggen=$1 cudaburg=$2 examples=$3 scratch=$4
rm -rf "$scratch" && mkdir -p "$scratch"
. "$(dirname "$0")/check.sh"

spec=$scratch/good.burg
printf '%%{\n#define OP_LABEL(p) ((p)->op)\n%%}\n%%term A=1 B=2\n%%%%\ns: A(s) = 1 (1);\ns: B = 2;\n' >"$spec"
leftovers() { find "$scratch" -name '*.??????' | grep -q . && fail "temporary files left: $(find "$scratch" -name '*.??????')"; }

# The same file as --header and -o (also through another spelling of its path).
expect 2 "burggen: --header and -o name the same file '$scratch/m.cpp'; the header would overwrite the matcher." \
  "$burggen" "$spec" -o "$scratch/m.cpp" --header "$scratch/m.cpp"
expect 2 "burggen: --header and -o name the same file '$scratch/./m.cpp'; the header would overwrite the matcher." \
  "$burggen" "$spec" -o "$scratch/m.cpp" --header "$scratch/./m.cpp"
[ ! -e "$scratch/m.cpp" ] || fail "an output was written for a refused command"

# Not a regular file: a FIFO, a folder, a link to nothing, a link to a FIFO.
mkfifo "$scratch/fifo"
expect 1 "burggen: '$scratch/fifo' is not a regular file (a device, a FIFO or a folder); it is not replaced." \
  "$burggen" "$spec" -o "$scratch/fifo"
[ -p "$scratch/fifo" ] || fail "the FIFO was replaced"
mkdir "$scratch/folder"
expect 1 "burggen: '$scratch/folder' is not a regular file (a device, a FIFO or a folder); it is not replaced." \
  "$burggen" "$spec" -o "$scratch/folder"
ln -s "$scratch/nothing" "$scratch/dangling"
expect 1 "burggen: '$scratch/dangling' is a symbolic link to nothing; it is not replaced." \
  "$burggen" "$spec" -o "$scratch/dangling"
ln -s "$scratch/fifo" "$scratch/to-fifo"
expect 1 "burggen: '$scratch/to-fifo' is not a regular file (a device, a FIFO or a folder); it is not replaced." \
  "$burggen" "$spec" -o "$scratch/to-fifo"
expect 1 "burggen: '$scratch/fifo' is not a regular file (a device, a FIFO or a folder); it is not replaced." \
  "$burggen" "$spec" -o "$scratch/ok.cpp" --header "$scratch/fifo"
[ ! -e "$scratch/ok.cpp" ] || fail "the source was written though the header could not be"
leftovers

# A link to a regular file: the file it names is replaced, the link stays a link.
printf 'old\n' >"$scratch/real.cpp"
ln -s "$scratch/real.cpp" "$scratch/link.cpp"
expect 0 "" "$burggen" "$spec" -o "$scratch/link.cpp"
[ -L "$scratch/link.cpp" ] || fail "the link was replaced by a file"
grep -q "Matcher" "$scratch/real.cpp" || fail "the file the link names was not written"

# A spec with errors leaves the old output as it was, and no other file.
printf 'old\n' >"$scratch/kept.cpp"
printf '%%term A=1\n%%%%\ns: A(t);\n' >"$scratch/bad.burg"
expect 1 "$scratch/bad.burg:3:6: error: undefined nonterminal 't': no rule derives it
s: A(t);
     ^" "$burggen" "$scratch/bad.burg" -o "$scratch/kept.cpp" --header "$scratch/kept.hpp"
[ "$(cat "$scratch/kept.cpp")" = old ] || fail "the old output was changed"
[ ! -e "$scratch/kept.hpp" ] || fail "a header was written for a failed spec"
leftovers

# A write that fails (a file-size limit of 1 KiB; SIGXFSZ ignored, so write() reports EFBIG).
limited=(bash -c 'trap "" XFSZ; ulimit -f 1; exec "$@"' limited)
expect 1 "burggen: cannot write '$scratch/big.cpp': File too large." "${limited[@]}" "$burggen" "$spec" -o "$scratch/big.cpp"
[ ! -e "$scratch/big.cpp" ] || fail "a partial output was left"
leftovers
expect 1 "burggen: cannot write to standard output." bash -c 'trap "" XFSZ; ulimit -f 1; exec "$0" "$1" >"$2"' \
  "$burggen" "$spec" "$scratch/stdout.cpp"

# An unbounded input (a file past 16 MiB; from standard input too) is refused, not read whole.
printf '%*s' $((16 * 1024 * 1024 + 1)) '' >"$scratch/large.burg"
expect 1 "burggen: '$scratch/large.burg' is larger than 16 MiB, the most a source may hold." \
  "$burggen" "$scratch/large.burg" -o "$scratch/large.cpp"
expect 1 "burggen: '<stdin>' is larger than 16 MiB, the most a source may hold." \
  bash -c 'exec "$0" - -o "$2" <"$1"' "$burggen" "$scratch/large.burg" "$scratch/large.cpp"
[ ! -e "$scratch/large.cpp" ] || fail "an output was written for a refused input"

# cudaburg's outputs follow the same rules (show --dot here; the search's files alike).
expect 2 "cudaburg: error: '$scratch/fifo' is not a regular file (a device, a FIFO or a folder); it is not replaced" \
  "$cudaburg" show "$examples/matmul.loop" --dot "$scratch/fifo"
{
  printf 'kernel k(float A[64]) {\n'
  for ((s = 0; s < 64; s++)); do printf '  A[%d] = %d;\n' "$s" "$s"; done
  printf '}\n'
} >"$scratch/long.loop"
expect 2 "cudaburg: error: cannot write '$scratch/tree.dot': File too large" \
  "${limited[@]}" "$cudaburg" show "$scratch/long.loop" --dot "$scratch/tree.dot"
[ ! -e "$scratch/tree.dot" ] || fail "a partial DOT file was left"
leftovers

# The search's outputs commit together: when one cannot be written (search.svg with a folder in
# its place, then best.cu a FIFO) no other one is written or changed, and no temporary is left.
search=("$cudaburg" "$examples/matmul.loop" -D M=64 -D N=64 -D K=64 --tile 32 --unroll 2 -q --no-db)
out=$scratch/search
mkdir -p "$out/search.svg"
printf 'old\n' >"$out/report.md"
expect_within 60 1 "cudaburg: error: '$out/search.svg' is not a regular file (a device, a FIFO or a folder); it is not replaced; no output was written" \
  "${search[@]}" -o "$out"
[ "$(cat "$out/report.md")" = old ] || fail "report.md was changed though search.svg could not be written"
for f in report.json labeled.dot cover.txt best.cu; do
  [ ! -e "$out/$f" ] || fail "$f was written though search.svg could not be"
done
rmdir "$out/search.svg"
mkfifo "$out/best.cu"
expect_within 60 1 "cudaburg: error: '$out/best.cu' is not a regular file (a device, a FIFO or a folder); it is not replaced; no output was written" \
  "${search[@]}" -o "$out"
[ -p "$out/best.cu" ] || fail "the FIFO was replaced"
[ "$(cat "$out/report.md")" = old ] || fail "report.md was changed though best.cu could not be written"
for f in report.json search.svg labeled.dot cover.txt; do
  [ ! -e "$out/$f" ] || fail "$f was written though best.cu could not be"
done
leftovers
# A write that fails part-way (the file-size limit) into folders the search made: they go too.
expect_within 60 1 "cudaburg: error: cannot write '$scratch/made/deeper/report.md': File too large; no output was written" \
  "${limited[@]}" "${search[@]}" -o "$scratch/made/deeper"
[ ! -e "$scratch/made" ] || fail "the folders made for the outputs were left: $(find "$scratch/made")"
# With nothing in the way, every output is written.
rm "$out/best.cu"
expect_within 60 0 "" "${search[@]}" -o "$out"
for f in report.md report.json search.svg labeled.dot cover.txt best.cu; do
  [ -f "$out/$f" ] || fail "$f was not written"
done
grep -q "old" "$out/report.md" && fail "report.md was not replaced"
leftovers
# A search that finds no kernel writes its report and leaves no best.cu of an earlier run behind.
# (No rule covers this nest, and its fallback, the nest as written, needs more blocks than grid.z has.)
printf 'size N = 70000;\nkernel k(float A[N][1][1][1]) {\n  parallel for (a = 0; a < N; a++)\n    parallel for (b = 0; b < 1; b++)\n      parallel for (c = 0; c < 1; c++)\n        parallel for (d = 0; d < 1; d++)\n          A[a][b][c][d] = 1;\n}\n' >"$scratch/serial.loop"
no_kernel="cudaburg: no kernel: no rule of the grammar covers this loop nest (the nest reduces nothing: the tiled rules cover products and convolutions, each output a reduction), and the nest as written failed: the emitter refused it: the outer parallel loops need more than 65535 blocks on grid.z (see $out/report.md)"
expect_within 60 1 "$no_kernel" \
  "$cudaburg" "$scratch/serial.loop" -q --no-db -o "$out"
[ ! -e "$out/best.cu" ] || fail "an earlier run's best.cu was left beside a report of no kernel"
grep -q "serial.loop" "$out/report.md" || fail "report.md is not this run's"
leftovers
# ... but a best.cu this program did not write (the user's own) is left as it is.
printf 'my own kernel\n' >"$out/best.cu"
expect_within 60 1 "$no_kernel" \
  "$cudaburg" "$scratch/serial.loop" -q --no-db -o "$out"
[ "$(cat "$out/best.cu" 2>/dev/null)" = "my own kernel" ] || fail "a failing search removed a best.cu it did not write"

# No output replaces an input, however its path is spelled: the .loop named as the DOT file, the
# .loop (or the tuning database) where the search would write one of its outputs.
cp "$examples/matmul.loop" "$scratch/kept.loop"
expect 2 "cudaburg: error: --dot '$scratch/./kept.loop' is the input '$scratch/kept.loop'; an output never replaces an input, so name another" \
  "$cudaburg" show "$scratch/kept.loop" --dot "$scratch/./kept.loop"
cmp -s "$examples/matmul.loop" "$scratch/kept.loop" || fail "show --dot replaced its .loop file"
mkdir -p "$scratch/inputs"
cp "$examples/matmul.loop" "$scratch/inputs/report.md"
expect 2 "cudaburg: error: '$scratch/inputs/report.md' is the input '$scratch/inputs/report.md'; an output never replaces an input, so name another" \
  "$cudaburg" "$scratch/inputs/report.md" -q --no-db -o "$scratch/inputs"
cmp -s "$examples/matmul.loop" "$scratch/inputs/report.md" || fail "the search replaced its .loop file"
printf 'not a database\n' >"$scratch/inputs/cover.txt"
expect 2 "cudaburg: error: '$scratch/inputs/cover.txt' is the input '$scratch/inputs/cover.txt'; an output never replaces an input, so name another" \
  "$cudaburg" "$scratch/kept.loop" -q --db "$scratch/inputs/cover.txt" -o "$scratch/inputs"
[ "$(cat "$scratch/inputs/cover.txt")" = "not a database" ] || fail "the search replaced its tuning database"
leftovers

finish
