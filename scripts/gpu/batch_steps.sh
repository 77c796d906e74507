# The steps of a GPU batch script (sourced by onegpu_batch.sh and onegpu_extras.sh): `say` logs a
# line with the seconds since START to $BATCH_LOG; `run NAME TIMEOUT CMD...` runs an executable
# (never a shell function: timeout execs it) into $LOGS/NAME.log and $LOGS/NAME.rc, and skips it
# (rc 125, said) when it would start within 5 s of DEADLINE (epoch seconds): the device call is
# killed at its limit, and then nothing comes back.
# Needs: START, DEADLINE, LOGS, BATCH_LOG.
say() { echo "[$(( $(date +%s) - START )) s] $*" | tee -a "$BATCH_LOG"; }
run() {
  local name=$1 limit=$2 left=$(( DEADLINE - $(date +%s) ))
  shift 2
  if [ "$left" -le 5 ]; then echo 125 > "$LOGS/$name.rc"; say "$name: skipped (batch deadline)"; return; fi
  [ "$limit" -gt "$left" ] && limit=$left
  local t0; t0=$(date +%s%N)
  timeout --kill-after=10 "$limit" "$@" > "$LOGS/$name.log" 2>&1
  local rc=$?
  echo "$rc" > "$LOGS/$name.rc"
  say "$name: exit $rc ($(( ($(date +%s%N) - t0) / 1000000 )) ms)"
}
