#!/usr/bin/env bash
# Tests of deploy/strads-cluster, one case per CTest test: `launcher_test.sh CASE`.
#
# The launcher's logic runs in the freshly built `strads` ($STRADS_TEST_CLI, set by CTest; else
# build/bin/strads). None needs the real daemons: hostfile errors and --dry-run need no
# executables, and the start/stop flows run stub daemons written here into a bin dir whose path
# has a space: members (tiny bash scripts) register by leaving a file in a state dir and exit once
# a shutdown file appears there; the coordinator is strads_fake_coordinator, which answers the
# real `strads status`/`shutdown`/`cluster wait` from those files and drops the shutdown file on
# a ShutdownCluster request. Exit 0 = pass, 1 = fail (a tool the case needs that is missing fails it).
set -euo pipefail

HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
LAUNCHER="$HERE/../deploy/strads-cluster"
export STRADS_CLI=${STRADS_TEST_CLI:-$HERE/../build/bin/strads}
FAKE_COORDINATOR=${STRADS_FAKE_COORDINATOR:-$HERE/../build/test/strads_fake_coordinator}

TMP=$(mktemp -d "${TMPDIR:-/tmp}/strads launcher.XXXXXX")
export HOME="$TMP/home" # the launcher's defaults must never touch the real ~/.strads
export STRADS_RUN_DIR="$TMP/default run"
export STRADS_SETTLE=0.3 STRADS_STOP_GRACE=3
export STUB_STATE="$TMP/stub state"
mkdir -p "$HOME" "$STUB_STATE"
RUN="$TMP/run dir"
BIN="$TMP/bin dir"
OWN_PIDS=()
MAIN_PID=$$

cleanup() {
  # A background child killed before its exec would run this trap too: only the test cleans up.
  [[ $BASHPID == "$MAIN_PID" ]] || return 0
  # Stub daemons exit by themselves once this file exists; then drop what is left by pid.
  touch "$STUB_STATE/shutdown" 2>/dev/null || true
  local f pid
  for pid in "${OWN_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  sleep 0.3
  for f in "$RUN"/pids/*.pid; do
    [[ -f $f ]] || continue
    pid=$(head -n 1 -- "$f")
    if [[ $pid =~ ^[0-9]+$ && -d /proc/$pid ]] && grep -qs "$TMP" "/proc/$pid/cmdline"; then
      kill "$pid" 2>/dev/null || true
    fi
  done
  rm -rf -- "$TMP"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  echo "--- exit code: ${RC:-?}" >&2
  echo "--- stdout:" >&2
  printf '%s\n' "${OUT:-}" >&2
  echo "--- stderr:" >&2
  printf '%s\n' "${ERR:-}" >&2
  exit 1
}

# run ARGS...: runs the launcher, sets RC, OUT, ERR.
run() {
  set +e
  OUT=$(bash "$LAUNCHER" "$@" 2>"$TMP/stderr")
  RC=$?
  set -e
  ERR=$(<"$TMP/stderr")
}

assert_rc() { [[ $RC == "$1" ]] || fail "expected exit code $1, got $RC"; }
assert_err_has() { [[ $ERR == *"$1"* ]] || fail "stderr does not contain: $1"; }
assert_out_has() { [[ $OUT == *"$1"* ]] || fail "stdout does not contain: $1"; }
assert_out_lacks() { [[ $OUT != *"$1"* ]] || fail "stdout contains: $1"; }
assert_err_lacks() { [[ $ERR != *"$1"* ]] || fail "stderr contains: $1"; }

# hostfile NAME LINE...: writes a hostfile in TMP (cwd for relative names).
hostfile() {
  local name=$1
  shift
  printf '%s\n' "$@" >"$TMP/$name"
}

alive() { [[ -d /proc/$1 ]] && [[ $(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) != Z ]]; }

make_stubs() {
  [[ -x $FAKE_COORDINATOR ]] || fail "no fake coordinator at $FAKE_COORDINATOR (build strads_fake_coordinator)"
  mkdir -p "$BIN"
  cat >"$BIN/strads-coordinator" <<EOF
#!/usr/bin/env bash
# Stub coordinator: records its arguments, then runs the fake coordinator.
printf '%s\n' "\$@" >"\$STUB_STATE/coordinator.args"
touch "\$STUB_STATE/coordinator.ran"
echo "stub coordinator up"
exec $(printf '%q' "$FAKE_COORDINATOR") "\$@"
EOF
  local role
  for role in scheduler worker; do
    cat >"$BIN/strads-$role" <<EOF
#!/usr/bin/env bash
# Stub $role: registers with a file (holding its --advertise-host) in the state dir, waits for
# shutdown.
set -eu
role=$role
EOF
    cat >>"$BIN/strads-$role" <<'EOF'
printf '%s\n' "$@" >>"$STUB_STATE/$role.args"
if [[ ${STUB_FAIL:-} == "$role" ]]; then
  echo "stub $role: cannot reach the coordinator (simulated failure)"
  exit 1
fi
host=unknown prev=""
for a in "$@"; do
  [[ $prev != --advertise-host ]] || host=$a
  prev=$a
done
echo "stub $role up"
printf '%s\n' "$host" >"$STUB_STATE/member.$role.$$"
trap 'rm -f "$STUB_STATE/member.$role.$$"' EXIT
while [[ ! -e $STUB_STATE/shutdown ]]; do sleep 0.1; done
EOF
  done
  chmod +x "$BIN"/*
}

# The requests the fake coordinator answered, one kind per line.
requests() { cat -- "$STUB_STATE/requests.log" 2>/dev/null || true; }

# ---------------------------------------------------------------------------------------------
# Hostfile errors: FILE:LINE: message on stderr, exit 2.

case_rejects_unknown_role() {
  cd "$TMP"
  hostfile hosts.txt '# cluster' '127.0.0.1 coordinator scheduler' '127.0.0.1 wroker=2 worker'
  run start --hostfile hosts.txt --dry-run --run-dir "$RUN"
  assert_rc 2
  assert_err_has "hosts.txt:3: unknown role 'wroker'"
  [[ -z $OUT ]] || fail "a rejected hostfile must print no commands"
}

case_rejects_bad_count() {
  cd "$TMP"
  local bad
  for bad in two 0 -1 1.5 ''; do
    hostfile hosts.txt '127.0.0.1 coordinator scheduler' "127.0.0.1 worker=$bad"
    run start --hostfile hosts.txt --dry-run --run-dir "$RUN"
    assert_rc 2
    assert_err_has "hosts.txt:2: bad count '$bad' for role 'worker'"
  done
  hostfile hosts.txt '127.0.0.1 coordinator=2 scheduler worker'
  run start --hostfile hosts.txt --dry-run --run-dir "$RUN"
  assert_rc 2
  assert_err_has "hosts.txt:1: coordinator count must be 1"
}

case_rejects_two_coordinators() {
  cd "$TMP"
  hostfile hosts.txt '127.0.0.1 coordinator scheduler' '' 'node1 worker' 'node2 coordinator worker'
  run start --hostfile hosts.txt --dry-run --run-dir "$RUN"
  assert_rc 2
  assert_err_has "hosts.txt:4: second coordinator"
  assert_err_has "line 1"
}

case_rejects_missing_coordinator() {
  cd "$TMP"
  hostfile hosts.txt '127.0.0.1 scheduler=2 worker=2' '# coordinator is commented out'
  run start --hostfile hosts.txt --dry-run --run-dir "$RUN"
  assert_rc 2
  assert_err_has "hosts.txt: no coordinator"
  assert_err_lacks "hosts.txt:1"
}

case_rejects_missing_worker() {
  cd "$TMP"
  hostfile hosts.txt '127.0.0.1 coordinator scheduler=2 # worker=2'
  run start --hostfile hosts.txt --dry-run --run-dir "$RUN"
  assert_rc 2
  assert_err_has "hosts.txt: no worker"
}

case_rejects_missing_scheduler() {
  cd "$TMP"
  hostfile hosts.txt '127.0.0.1 coordinator worker=2'
  run start --hostfile hosts.txt --dry-run --run-dir "$RUN"
  assert_rc 2
  assert_err_has "hosts.txt: no scheduler"
}

case_rejects_host_without_roles() {
  cd "$TMP"
  hostfile hosts.txt '127.0.0.1 coordinator scheduler worker' 'node1' '-oProxyCommand=x worker'
  run start --hostfile hosts.txt --dry-run --run-dir "$RUN"
  assert_rc 2
  assert_err_has "hosts.txt:2: host 'node1' has no roles"
  assert_err_has "hosts.txt:3: bad host name"
}

case_rejects_missing_hostfile() {
  cd "$TMP"
  run start --hostfile "no such hosts.txt" --dry-run --run-dir "$RUN"
  assert_rc 2
  assert_err_has "no such hosts.txt: no such hostfile"
  # The error and where help is: two lines, not the whole usage.
  run start --run-dir "$RUN"
  assert_rc 2
  [[ $ERR == "strads-cluster: start needs --hostfile FILE"$'\n'"(see strads-cluster --help)" ]] ||
    fail "expected the error and a pointer to --help, got: $ERR"
}

# ---------------------------------------------------------------------------------------------
# Dry runs.

case_accepts_comments_and_blank_lines() {
  cd "$TMP"
  hostfile hosts.txt '# a STRADS cluster' '' '   ' $'\t# indented comment' \
    '127.0.0.1 coordinator   # the front door' '' 'localhost scheduler=2 worker # trailing' \
    $'127.0.0.1\tworker=3\r'
  run start --hostfile hosts.txt --dry-run --run-dir "$RUN"
  assert_rc 0
  assert_out_has "--expect-schedulers 2 --expect-workers 4"
  [[ ! -e $RUN ]] || fail "dry run created the run dir"
}

case_dry_run_sums_totals_and_runs_nothing() {
  make_stubs
  cd "$TMP"
  hostfile hosts.txt '127.0.0.1 coordinator scheduler=2 worker=3' 'localhost worker=4 scheduler' \
    '127.0.0.1 worker'
  run start --hostfile hosts.txt --dry-run --run-dir "$RUN" --bin-dir "$BIN" --port 9100 --log-level debug
  assert_rc 0
  local coord
  coord=$(grep -F 'strads-coordinator' <<<"$OUT") || fail "no coordinator command"
  [[ $(wc -l <<<"$coord") == 1 ]] || fail "expected one coordinator command"
  [[ $coord == *"--expect-schedulers 3 "* ]] || fail "wrong --expect-schedulers in: $coord"
  [[ $coord == *"--expect-workers 8 "* ]] || fail "wrong --expect-workers in: $coord"
  [[ $coord == *"--port 9100 --status-port 9101 "* ]] || fail "wrong ports in: $coord"
  [[ $coord == *"--log-level debug"* ]] || fail "wrong log level in: $coord"
  [[ $coord == *"'$BIN/strads-coordinator'"* ]] || fail "bin dir with a space not quoted: $coord"
  [[ $coord == *"--endpoint-file '$RUN/coordinator.endpoint'"* ]] || fail "endpoint file: $coord"
  [[ $(grep -c "strads-scheduler' --coordinator" <<<"$OUT") == 3 ]] || fail "expected 3 scheduler commands"
  [[ $(grep -c "strads-worker' --coordinator" <<<"$OUT") == 8 ]] || fail "expected 8 worker commands"
  assert_out_has "cluster wait start --hostfile hosts.txt"
  assert_out_lacks "ssh "
  sleep 0.5
  [[ ! -e $RUN ]] || fail "dry run created the run dir"
  [[ ! -e $STUB_STATE/coordinator.ran && ! -e $STUB_STATE/worker.args ]] || fail "dry run ran a daemon"

  run start --hostfile hosts.txt --dry-run --run-dir "$RUN" --bin-dir "$BIN" --port 0
  assert_rc 0
  assert_out_has "--port 0 --status-port 0 "
}

case_dry_run_uses_ssh_batch_mode_for_remote_hosts() {
  cd "$TMP"
  hostfile hosts.txt '127.0.0.1 coordinator scheduler' 'node-7.example.org worker=2'
  run start --hostfile hosts.txt --dry-run --run-dir "$RUN"
  assert_rc 0
  local remote
  remote=$(grep -F 'strads-worker' <<<"$OUT") || fail "no worker command"
  [[ $(wc -l <<<"$remote") == 2 ]] || fail "expected 2 worker commands"
  while IFS= read -r line; do
    [[ $line == "ssh "*"-o BatchMode=yes"*"-o ConnectTimeout=5"*" node-7.example.org "* ]] ||
      fail "remote worker not started over ssh in batch mode: $line"
    [[ $line == *nohup* && $line == *'echo $!'* && $line == *"cd "* ]] || fail "remote command: $line"
    [[ $line == *"--advertise-host node-7.example.org"* ]] || fail "advertise host: $line"
  done <<<"$remote"
  grep -F 'strads-coordinator' <<<"$OUT" | grep -vq '^ssh' || fail "local coordinator must not use ssh"
  [[ ! -e $RUN ]] || fail "dry run created the run dir"
}

# ---------------------------------------------------------------------------------------------
# Run-dir state.

case_refuses_double_start() {
  make_stubs
  cd "$TMP"
  hostfile hosts.txt '127.0.0.1 coordinator scheduler worker'
  mkdir -p "$RUN/pids"
  sleep 300 &
  local live=$!
  OWN_PIDS+=("$live")
  echo "$live" >"$RUN/pids/worker-127.0.0.1-0.pid"
  run start --hostfile hosts.txt --run-dir "$RUN" --bin-dir "$BIN" --timeout 5
  assert_rc 1
  assert_err_has "already has running daemons"
  assert_err_has "pid $live"
  assert_err_has "stop --run-dir"
  alive "$live" || fail "the live process was touched"
  [[ -f $RUN/pids/worker-127.0.0.1-0.pid ]] || fail "the live pid file was removed"
  [[ ! -e $RUN/pids/coordinator-127.0.0.1-0.pid && ! -e $STUB_STATE/coordinator.ran ]] ||
    fail "a second coordinator was started"
}

case_cleans_stale_pid_file() {
  make_stubs
  cd "$TMP"
  hostfile hosts.txt '127.0.0.1 coordinator scheduler worker'
  mkdir -p "$RUN/pids"
  local dead
  dead=$(sh -c 'echo $$') # a process that has exited by now
  echo "$dead" >"$RUN/pids/worker-127.0.0.1-7.pid"
  run start --hostfile hosts.txt --run-dir "$RUN" --bin-dir "$BIN" --port 0 --timeout 10
  assert_rc 0
  assert_err_has "removing stale pid file"
  assert_err_has "worker-127.0.0.1-7.pid"
  [[ ! -e $RUN/pids/worker-127.0.0.1-7.pid ]] || fail "stale pid file left behind"
  run stop --run-dir "$RUN" --bin-dir "$BIN"
  assert_rc 0
}

case_rejects_unknown_flag() {
  cd "$TMP"
  hostfile hosts.txt '127.0.0.1 coordinator scheduler worker'
  run start --hostfile hosts.txt --dry-run --bogus
  assert_rc 2
  assert_err_has "unknown option '--bogus'"
  assert_err_has "(see strads-cluster --help)"
  assert_err_lacks "Usage:"
  run start --hostfile hosts.txt --dry-run --port 70000
  assert_rc 2
  assert_err_has "bad --port"
  run start --hostfile hosts.txt --dry-run --timeout
  assert_rc 2
  assert_err_has "needs a value"
}

case_rejects_unknown_command() {
  run reboot --run-dir "$RUN"
  assert_rc 2
  assert_err_has "unknown command 'reboot'"
  assert_err_has "(see strads-cluster --help)"
  assert_err_lacks "Usage:"
  run --run-dir "$RUN"
  assert_rc 2
  assert_err_has "no command"
}

case_restart_without_recorded_endpoints_refuses() {
  make_stubs
  cd "$TMP"
  hostfile hosts.txt '127.0.0.1 coordinator scheduler worker'
  run restart coordinator --hostfile hosts.txt --run-dir "$RUN" --bin-dir "$BIN" --timeout 5
  assert_rc 1
  assert_err_has "cannot restart the coordinator"
  assert_err_has "coordinator.endpoint: no recorded endpoints"
  [[ ! -e $STUB_STATE/coordinator.ran ]] || fail "a coordinator was started"
  run restart worker --hostfile hosts.txt --run-dir "$RUN" --bin-dir "$BIN"
  assert_rc 2
  assert_err_has "cannot restart 'worker'"
}

case_prints_help() {
  run --help
  assert_rc 0
  assert_out_has "Usage: strads-cluster start"
  assert_out_has "--hostfile FILE"
  assert_out_has "--dry-run"
}

case_stop_on_empty_run_dir_succeeds() {
  run stop --run-dir "$RUN"
  assert_rc 0
  assert_out_has "already stopped"
  mkdir -p "$RUN/pids"
  run stop --run-dir "$RUN"
  assert_rc 0
  assert_out_has "already stopped"
  run stop # the default run dir, which does not exist either
  assert_rc 0
}

# ---------------------------------------------------------------------------------------------
# Start/stop flows with stub daemons.

case_start_status_stop_with_stub_daemons() {
  make_stubs
  cd "$TMP"
  hostfile hosts.txt '127.0.0.1 coordinator scheduler=2 worker' 'localhost worker'
  run start --hostfile hosts.txt --run-dir "$RUN" --bin-dir "$BIN" --port 7811 --timeout 15
  assert_rc 0
  assert_out_has "export STRADS_COORDINATOR=tcp://127.0.0.1:7811"
  [[ $(head -n 1 "$RUN/coordinator.endpoint") == tcp://127.0.0.1:7811 ]] || fail "endpoint file"
  grep -qx -- "--expect-workers" "$STUB_STATE/coordinator.args" || fail "coordinator args"
  grep -qx -- "tcp://127.0.0.1:7811" "$STUB_STATE/worker.args" || fail "workers got the endpoint"
  local n
  n=$(find "$RUN/pids" -name '*.pid' | wc -l)
  [[ $n == 5 ]] || fail "expected 5 pid files, found $n"
  [[ -f $RUN/logs/worker-localhost-0.log && -f $RUN/logs/scheduler-127.0.0.1-1.log ]] ||
    fail "log files missing"
  local -a pids=()
  local f
  for f in "$RUN"/pids/*.pid; do pids+=("$(head -n 1 "$f")"); done
  for n in "${pids[@]}"; do alive "$n" || fail "daemon $n is not running"; done

  run status --run-dir "$RUN" --bin-dir "$BIN"
  assert_rc 0
  assert_out_has "coordinator"
  assert_out_has "alive"
  assert_out_has "$RUN/logs/worker-localhost-0.log"
  assert_out_has "4 members"

  run start --hostfile hosts.txt --run-dir "$RUN" --bin-dir "$BIN" --port 7811 --timeout 15
  assert_rc 1
  assert_err_has "already has running daemons"

  run stop --dry-run --run-dir "$RUN" --bin-dir "$BIN"
  assert_rc 0
  assert_out_has "--coordinator tcp://127.0.0.1:7811 shutdown"
  assert_out_has "kill -TERM ${pids[0]}"
  [[ $(requests) != *shutdown* ]] || fail "stop --dry-run called strads shutdown"
  for n in "${pids[@]}"; do alive "$n" || fail "stop --dry-run stopped daemon $n"; done
  [[ $(find "$RUN/pids" -name '*.pid' | wc -l) == 5 ]] || fail "stop --dry-run removed pid files"

  run stop --run-dir "$RUN" --bin-dir "$BIN"
  assert_rc 0
  [[ $(requests) == *shutdown* ]] || fail "stop did not call strads shutdown"
  for n in "${pids[@]}"; do ! alive "$n" || fail "daemon $n still running after stop"; done
  [[ -z $(find "$RUN/pids" -name '*.pid') ]] || fail "pid files left after stop"

  run status --run-dir "$RUN" --bin-dir "$BIN"
  assert_rc 1
  assert_out_has "no daemons recorded"
  run stop --run-dir "$RUN" --bin-dir "$BIN"
  assert_rc 0
  assert_out_has "already stopped"
}

case_stop_signals_daemons_that_ignore_shutdown() {
  make_stubs
  export STUB_IGNORE_SHUTDOWN=1 # the coordinator answers 'strads shutdown' but nothing stops
  cd "$TMP"
  hostfile hosts.txt '127.0.0.1 coordinator scheduler worker'
  run start --hostfile hosts.txt --run-dir "$RUN" --bin-dir "$BIN" --port 0 --timeout 15
  assert_rc 0
  [[ $OUT =~ export\ STRADS_COORDINATOR=tcp://127\.0\.0\.1:([0-9]+) ]] || fail "no endpoint"
  [[ ${BASH_REMATCH[1]} != 0 && ${BASH_REMATCH[1]} != 7700 ]] || fail "--port 0 did not pick a free port"
  local -a pids=()
  local f n
  for f in "$RUN"/pids/*.pid; do pids+=("$(head -n 1 "$f")"); done
  STRADS_STOP_GRACE=1 run stop --run-dir "$RUN" --bin-dir "$BIN"
  assert_rc 0
  [[ $(requests) == *shutdown* ]] || fail "stop did not ask the coordinator to shut down first"
  assert_err_has "SIGTERM"
  for n in "${pids[@]}"; do ! alive "$n" || fail "daemon $n still running after stop"; done
}

case_start_reports_dead_daemon_with_log_tail() {
  make_stubs
  cd "$TMP"
  hostfile hosts.txt '127.0.0.1 coordinator scheduler worker=2'
  STUB_FAIL=worker run start --hostfile hosts.txt --run-dir "$RUN" --bin-dir "$BIN" --port 0 --timeout 10
  assert_rc 1
  assert_err_has "not running: worker on 127.0.0.1"
  assert_err_has "simulated failure"
  assert_err_has "worker-127.0.0.1-0.log"
  assert_out_lacks "export STRADS_COORDINATOR"
  run stop --run-dir "$RUN" --bin-dir "$BIN"
  assert_rc 0
  [[ -z $(find "$RUN/pids" -name '*.pid') ]] || fail "pid files left after stop"
}

case_start_reports_unregistered_daemons() {
  make_stubs
  cd "$TMP"
  hostfile hosts.txt '127.0.0.1 coordinator scheduler worker=2'
  STUB_HIDE=worker run start --hostfile hosts.txt --run-dir "$RUN" --bin-dir "$BIN" --port 0 --timeout 2
  assert_rc 1
  assert_err_has "1/1 scheduler and 0/2 workers"
  assert_err_has "not registered: 2 of 2 workers on 127.0.0.1"
  assert_err_has "stub coordinator up"
  run stop --run-dir "$RUN" --bin-dir "$BIN"
  assert_rc 0
}

# make_fake_ssh: an ssh on PATH that runs the remote command here (logging "HOST COMMAND" to
# the state dir), so the remote code path runs for real.
make_fake_ssh() {
  mkdir -p "$TMP/fake path"
  cat >"$TMP/fake path/ssh" <<'EOF'
#!/usr/bin/env bash
while (($#)); do
  case $1 in
    -n) shift ;;
    -o) shift 2 ;;
    *) break ;;
  esac
done
host=$1
shift
printf '%s %s\n' "$host" "$*" >>"$STUB_STATE/ssh.log"
exec sh -c "$*" </dev/null
EOF
  chmod +x "$TMP/fake path/ssh"
  export PATH="$TMP/fake path:$PATH"
}

case_start_status_stop_remote_hosts_via_fake_ssh() {
  make_stubs
  make_fake_ssh
  cd "$TMP"
  hostfile hosts.txt 'node-a.example coordinator' '127.0.0.1 scheduler' 'node-b.example worker=2'
  export STUB_IGNORE_SHUTDOWN=1 # stop must signal over ssh
  run start --hostfile hosts.txt --run-dir "$RUN" --bin-dir "$BIN" --port 0 --timeout 15
  assert_rc 0
  [[ $OUT =~ export\ STRADS_COORDINATOR=tcp://127\.0\.0\.1:[1-9][0-9]* ]] || fail "no endpoint"
  local ep=${OUT##*STRADS_COORDINATOR=}
  grep -q '^node-a.example cd ' "$STUB_STATE/ssh.log" || fail "coordinator not started over ssh"
  [[ $(grep -c '^node-b.example cd ' "$STUB_STATE/ssh.log") == 2 ]] || fail "workers not started over ssh"
  grep -qx 'node-b.example:[0-9]*' "$RUN/pids/worker-node-b.example-1.pid" || fail "remote pid not HOST:PID"
  [[ $(head -n 1 "$RUN/coordinator.endpoint") == "$ep" ]] || fail "endpoint file"

  run status --run-dir "$RUN" --bin-dir "$BIN"
  assert_rc 0
  assert_out_has "node-b.example:$RUN/logs/worker-node-b.example-0.log"
  [[ $(grep -c ' alive ' <<<"$OUT") == 4 ]] || fail "expected 4 alive daemons"

  local -a pids=()
  local f n
  for f in "$RUN"/pids/*.pid; do pids+=("$(head -n 1 "$f")"); done
  STRADS_STOP_GRACE=1 run stop --run-dir "$RUN" --bin-dir "$BIN"
  assert_rc 0
  grep -q '^node-b.example kill -TERM ' "$STUB_STATE/ssh.log" || fail "remote daemons not signalled over ssh"
  for n in "${pids[@]}"; do ! alive "${n##*:}" || fail "daemon $n still running after stop"; done
  [[ -z $(find "$RUN/pids" -name '*.pid') ]] || fail "pid files left after stop"
}

# A remote host with the package and not this build tree: the daemon missing from --bin-dir there
# is taken from the remote PATH.
case_remote_host_runs_installed_daemons() {
  make_stubs
  make_fake_ssh
  mkdir -p "$TMP/installed bin"
  mv "$BIN/strads-worker" "$TMP/installed bin/"
  export PATH="$TMP/installed bin:$PATH"
  cd "$TMP"
  hostfile hosts.txt '127.0.0.1 coordinator scheduler' 'node-b.example worker'
  run start --hostfile hosts.txt --run-dir "$RUN" --bin-dir "$BIN" --port 0 --timeout 15
  assert_rc 0
  grep -q '^node-b.example cd ' "$STUB_STATE/ssh.log" || fail "worker not started over ssh"
  grep -qx -- '--advertise-host' "$STUB_STATE/worker.args" || fail "the installed worker did not run"
  STRADS_STOP_GRACE=1 run stop --run-dir "$RUN" --bin-dir "$BIN"
  assert_rc 0
}

case_start_fails_without_executables() {
  cd "$TMP"
  hostfile hosts.txt '127.0.0.1 coordinator scheduler worker'
  mkdir -p "$TMP/empty bin"
  run start --hostfile hosts.txt --run-dir "$RUN" --bin-dir "$TMP/empty bin"
  assert_rc 1
  assert_err_has "strads-coordinator does not exist"
}

case_scripts_are_shellcheck_clean() {
  command -v shellcheck >/dev/null 2>&1 ||
    fail "shellcheck is not installed (deploy/install-deps.sh installs it)"
  shellcheck "$LAUNCHER" "$HERE/../deploy/install-deps.sh" "$HERE/../deploy/test-deb.sh" \
    "$HERE/../deploy/quickstart.sh" "$HERE/../deploy/run-tests.sh" "${BASH_SOURCE[0]}" ||
    fail "shellcheck found problems"
}

main() {
  (($# == 1)) || {
    echo "usage: $0 CASE" >&2
    exit 2
  }
  declare -F "case_$1" >/dev/null || {
    echo "unknown case '$1'; cases:" >&2
    declare -F | sed -n 's/^declare -f case_/  /p' >&2
    exit 2
  }
  "case_$1"
  echo "PASS: $1"
}

main "$@"
