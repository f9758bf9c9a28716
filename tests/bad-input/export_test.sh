#!/usr/bin/env bash
# Bad input to `cudaburg export`: each case's exact message and exit status, and no output folder
# left behind. The databases are copies of tests/data's in the test's own folder.
# Usage: export_test.sh CUDABURG SOURCE_DIR SCRATCH_DIR
set -u
cudaburg=$1 source=$2 scratch=$3
rm -rf "$scratch" && mkdir -p "$scratch"
. "$(dirname "$0")/check.sh"
cd "$source" || exit 1
db=$scratch/matmul2048.db
cp tests/data/matmul2048.db "$db"
out=$scratch/lib
m2048="examples/matmul.loop -D M=2048 -D N=2048 -D K=2048"

# Sizes the database never measured: the command that would tune them.
expect 1 "cudaburg: error: no verified kernel of matmul at M=1024,N=2048,K=2048 in $db; tune it with \`cudaburg examples/matmul.loop -D M=1024 --db $db\`" \
  "$cudaburg" export examples/matmul.loop -D M=1024 --db "$db" -o "$out"
# Rows of another GPU only.
expect 1 "cudaburg: error: no verified kernel of matmul at M=2048,N=2048,K=2048 in $db that ran on NVIDIA A100 and passed --precision strict (1276 verified under other terms); tune it with \`cudaburg $m2048 --db $db\`" \
  "$cudaburg" export $m2048 --db "$db" --gpu "NVIDIA A100" -o "$out"
expect 2 "cudaburg: error: the tuning database '$scratch/none.db' does not exist" \
  "$cudaburg" export $m2048 --db "$scratch/none.db" -o "$out"
[ -e "$scratch/none.db" ] && fail "a missing database was created"
# The output folder: an input, a file, a folder of other things.
expect 2 "cudaburg: error: the output folder '$db' is the input '$db'" "$cudaburg" export $m2048 --db "$db" -o "$db"
expect 2 "cudaburg: error: the output folder 'examples/matmul.loop' is the input 'examples/matmul.loop'" \
  "$cudaburg" export $m2048 --db "$db" -o examples/matmul.loop
expect 2 "cudaburg: error: the output folder 'examples' is not empty and holds no earlier export (cudaburg-export.json); give a new or empty folder" \
  "$cudaburg" export $m2048 --db "$db" -o examples
# Command-line mistakes.
expect 2 "cudaburg: error: export needs a problem: FILE.loop, --problem or --problems" "$cudaburg" export --db "$db" -o "$out"
expect 2 "cudaburg: error: --problem: the problem 'examples/matmul.loop -D' ends in -D without NAME=VALUE" \
  "$cudaburg" export --problem "examples/matmul.loop -D" --db "$db" -o "$out"
expect 2 "cudaburg: error: --problem: the problem 'examples/matmul.loop --tile 64' has '--tile' where a .loop file and -D NAME=VALUE sizes are expected" \
  "$cudaburg" export --problem "examples/matmul.loop --tile 64" --db "$db" -o "$out"
expect 2 "cudaburg: error: --problems: cannot read the problem list '$scratch/none.txt'" \
  "$cudaburg" export --problems "$scratch/none.txt" --db "$db" -o "$out"
expect 2 "cudaburg: error: --precision: 'fast' is none of strict, tf32" \
  "$cudaburg" export $m2048 --db "$db" --precision fast -o "$out"
expect 1 "cudaburg: error: the problem '$m2048' is given twice" \
  "$cudaburg" export $m2048 --problem "$m2048" --db "$db" -o "$out"
expect 1 "cudaburg: error: --library: 'my-lib' is not a C identifier" \
  "$cudaburg" export $m2048 --db "$db" --library my-lib -o "$out"
[ -e "$out" ] && fail "a refused export left $out"

# A good export, then another into the same folder (it holds an export): both succeed.
expect 0 "" "$cudaburg" export $m2048 --db "$db" -o "$out"
expect 0 "" "$cudaburg" export $m2048 --db "$db" -o "$out" --torch
[ -f "$out/torch/matmul.py" ] || fail "the second export into the folder did not write torch/"
finish
