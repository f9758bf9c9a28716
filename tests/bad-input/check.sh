# Helpers for the bad-input tests (sourced): each case runs one command on a bad input and
# compares its exit status and its whole standard error with what it must be.
# The sourcing script sets $scratch (a fresh folder of its own) first.
failures=0
fail() { printf 'FAIL: %b\n' "$*"; failures=$((failures + 1)); }

# expect STATUS STDERR COMMAND...: runs COMMAND (killed after 60 s: a hang fails the case).
# Its standard output is left in $scratch/out; a crash shows as status 128 + the signal.
expect() {
  local status=$1 expected=$2
  shift 2
  timeout 60 "$@" >"$scratch/out" 2>"$scratch/err"
  local got=$?
  local err
  err=$(cat "$scratch/err")
  [ "$got" -eq "$status" ] || fail "$* exited $got, not $status; stderr:\n$err"
  [ "$err" = "$expected" ] || fail "$*: stderr differs\n--- expected\n$expected\n--- got\n$err"
}

# expect_within SECONDS STATUS STDERR COMMAND...: as expect, and it must end in time.
expect_within() {
  local seconds=$1
  shift
  local start=$SECONDS
  expect "$@"
  [ $((SECONDS - start)) -le "$seconds" ] || fail "$4 took $((SECONDS - start)) s (at most $seconds)"
}

finish() {
  if [ "$failures" -ne 0 ]; then
    echo "$failures case(s) failed"
    exit 1
  fi
  echo "all cases passed"
}
