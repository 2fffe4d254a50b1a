# Bench reservations between real processes: labgate-serial reports its instruments to
# labgate-session with the gateway token; labgate-reserve wraps commands in reservations (the
# grant in the command's environment, released when it ends, its exit status passed on); a
# holder killed with SIGKILL stops renewing, so its grant ends one lease later and the next in
# line gets the bench.
source "$(dirname "$0")/lib.sh"
cd "$work"
echo "gw-$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')" >gateway.token
printf 'ci ci-token-1\nalice alice-token-2\n' >clients
echo ci-token-1 >ci.token
echo alice-token-2 >alice.token
echo 'ops ops-token-3' >admins
echo ops-token-3 >ops.token
mkdir profiles
echo '{"model": "LOOP-PSU", "tags": ["psu"], "settings": {"baud_rate": 9600}}' >profiles/psu.json
cat >instruments.json <<'JSON'
{"instruments": [
  {"name": "psu-1", "profile": "LOOP-PSU", "match": {"port_name": "loop://psu-1"}},
  {"name": "psu-2", "profile": "LOOP-PSU", "match": {"port_name": "loop://psu-2"}}]}
JSON

# Bad operator and hold settings are refused at start, naming the flag.
echo 'ci other-token' >clashing
if "$(bin labgate-session)" --data-dir "$work/bad" --client-token-file clients \
    --admin-token-file clashing --check-config 2>clash.err; then
  fail "an operator named like a client was taken"
fi
grep -q 'admin-token-file: ci is also a client' clash.err || fail "$(cat clash.err)"
if "$(bin labgate-session)" --data-dir "$work/bad" --reservation-max-hold-s 0 \
    --check-config 2>hold0.err; then
  fail "a zero max hold was taken"
fi
grep -q 'reservation-max-hold-s must be at least 1' hold0.err || fail "$(cat hold0.err)"

start_service session labgate-session --data-dir "$work/data" \
  --gateway-token-file gateway.token --client-token-file clients --admin-token-file admins \
  --reservation-max-hold-s 3600
start_service serial labgate-serial --session-addr "127.0.0.1:$session_port" \
  --gateway-token-file gateway.token --publish-inventory \
  --profiles profiles --instruments instruments.json \
  --metrics-listen 127.0.0.1:0 --metrics-port-file serial.metrics-port
reserve() { "$(bin labgate-reserve)" --addr "127.0.0.1:$session_port" "$@"; }

for _ in $(seq 1 100); do
  reserve --list 2>/dev/null | grep -q '^psu-2: free' && break
  sleep 0.1
done
reserve --list | grep -q '^psu-1: free' || fail "the inventory never arrived: $(reserve --list 2>&1)"
pass "labgate-serial's instruments are reservable"
if reserve --token-file ci.token --targets psu-1 --hold 7200 -- true 2>hold.err; then
  fail "a hold over --reservation-max-hold-s was granted"
fi
grep -q 'hold_s 7200' hold.err || fail "the refusal does not name hold_s: $(cat hold.err)"
# readyz: prints labgate-serial's /readyz status code, and keeps its body in readyz.json.
readyz() {
  python3 - "http://127.0.0.1:$(cat serial.metrics-port)/readyz" <<'PY'
import sys, urllib.error, urllib.request
try:
    reply = urllib.request.urlopen(sys.argv[1], timeout=10)
    code, body = reply.status, reply.read()
except urllib.error.HTTPError as error:
    code, body = error.code, error.read()
open("readyz.json", "wb").write(body)
print(code)
PY
}
[[ $(readyz) == 200 ]] || fail "labgate-serial is not ready: $(cat readyz.json)"
grep -q '"reachable":true' readyz.json || fail "readyz does not say reservations are reachable"

set +e
reserve --token-file ci.token --tags psu --count 2 --wait 10 -- \
  sh -c 'echo "held: $LABGATE_RESERVED"; exit 3' >run.out 2>run.err
status=$?
set -e
[[ $status == 3 ]] || fail "the command's status was not passed on ($status): $(cat run.err)"
grep -q '^held: psu-1,psu-2$' run.out || fail "the grant was not in the command's environment"
reserve --list | grep -q '^psu-1: free' || fail "the reservation was not released"
pass "labgate-reserve runs a command holding both supplies, then releases them"

# ci holds psu-1 with a 2 s lease, wrapping sleep, and is killed.
"$(bin labgate-reserve)" --addr "127.0.0.1:$session_port" --token-file ci.token \
  --targets psu-1 --lease 2 -- sleep 60 2>holder.err &
holder=$!  # labgate-reserve itself, not a shell around it
for _ in $(seq 1 100); do
  reserve --list | grep -q '^psu-1: held by ci' && break
  sleep 0.1
done
reserve --list | grep -q '^psu-1: held by ci' || fail "ci never got psu-1: $(cat holder.err)"
set +e
reserve --token-file alice.token --targets psu-1 --wait 1 -- true 2>busy.err
status=$?
set -e
[[ $status == 75 ]] || fail "alice was granted a held supply ($status)"
pkill -KILL -P "$holder" sleep || true
kill -KILL "$holder"
wait "$holder" 2>/dev/null || true
started=$SECONDS
reserve --token-file alice.token --targets psu-1 --wait 20 -- true 2>next.err ||
  fail "alice never got psu-1 after the holder died: $(cat next.err)"
grep -q 'waiting, #1 in the queue' next.err || fail "alice did not wait: $(cat next.err)"
grep -q 'granted psu-1' next.err || fail "alice was not granted: $(cat next.err)"
pass "a killed holder's grant ends a lease later, and the next in line gets it ($((SECONDS - started)) s)"

# An operator ends ci's grant on psu-2: it is recorded with the reason, the bench is free, and
# ci's labgate-reserve stops its command, which no longer holds the bench.
"$(bin labgate-reserve)" --addr "127.0.0.1:$session_port" --token-file ci.token \
  --targets psu-2 --lease 2 -- sleep 60 2>ended.err &
ended_holder=$!
for _ in $(seq 1 100); do
  reserve --list | grep -q '^psu-2: held by ci' && break
  sleep 0.1
done
id=$(reserve --list | sed -n 's/^psu-2: held by ci (reservation \([^,]*\),.*/\1/p')
[[ -n $id ]] || fail "no reservation id in --list: $(reserve --list)"
set +e
reserve --token-file alice.token --end "$id" --reason "mine now" 2>not-ops.err
status=$?
set -e
[[ $status == 69 ]] || fail "a client ended another's reservation ($status)"
grep -q 'only an operator may' not-ops.err || fail "the refusal: $(cat not-ops.err)"
set +e
reserve --token-file ops.token --end "$id" 2>no-reason.err
status=$?
set -e
[[ $status == 64 ]] || fail "an end without a reason was taken ($status)"
grep -q 'say why the reservation is ended' no-reason.err || fail "$(cat no-reason.err)"
reserve --token-file ops.token --end "$id" --reason "calibration" 2>ops.err ||
  fail "the operator could not end it: $(cat ops.err)"
grep -q "ended reservation $id of ci (ended by an operator: by ops: calibration)" ops.err ||
  fail "the end was not recorded with its reason: $(cat ops.err)"
reserve --list | grep -q '^psu-2: free' || fail "psu-2 was not freed"
set +e
wait "$ended_holder"
status=$?
set -e
[[ $status == 143 ]] || fail "ci's command went on after its grant ended ($status): $(cat ended.err)"
grep -q 'the grant ended' ended.err || fail "labgate-reserve did not say why: $(cat ended.err)"
pass "an operator ends a grant with a reason; the holder's command is stopped"

# labgate-session goes away: labgate-serial is no longer ready, and says why.
kill -KILL "$session_pid"
wait "$session_pid" 2>/dev/null || true
for _ in $(seq 1 100); do
  [[ $(readyz) == 503 ]] && break
  sleep 0.1
done
[[ $(readyz) == 503 ]] || fail "labgate-serial stayed ready without its reservation service"
grep -q '"status":"reservations unreachable"' readyz.json || fail "readyz: $(cat readyz.json)"
grep -q 'grants last known are enforced' readyz.json || fail "readyz: $(cat readyz.json)"
pass "labgate-serial's /readyz says when the reservation service is unreachable"
