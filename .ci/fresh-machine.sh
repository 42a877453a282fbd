#!/usr/bin/env bash
# What a new user does first, proved on every CI run (issue: the README's commands died silently when
# ~/.cache/hcs-node did not exist yet):
#   1. Node 24 is provisioned from nothing: an empty HOME and an empty HCS_NODE_CACHE, with the machine's own
#      (older, or no) Node first on PATH; the provisioned `node --version` must be 24.x;
#   2. the README's start command, `bash .ci/drive start`, on an empty data dir answers 200 at /drive/;
#      then it is stopped.
# Every failure prints what failed (with the start log) and exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."

tmp="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM -- "-$server_pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$server_pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "[fresh-machine] error: $*" >&2
  exit 1
}

mkdir -p "$tmp/home"
fresh=(env HOME="$tmp/home" HCS_NODE_CACHE="$tmp/node-cache" HCS_NODE_FORCE_PROVISION=1)
started=$(date +%s)

echo "[fresh-machine] provisioning Node 24 into an empty cache (HOME=$tmp/home, machine Node: $(node --version 2>/dev/null || echo none))"
version="$("${fresh[@]}" bash -c 'set -euo pipefail; . .ci/node-env.sh; hcs_provision_node; node --version')" \
  || fail "Node provisioning from an empty cache failed (see above)"
case "$version" in
  v24.*) echo "[fresh-machine] provisioned node $version" ;;
  *) fail "the provisioned node is $version, expected 24.x" ;;
esac

port="$("$tmp/node-cache/$version/bin/node" -e 'const s=require("node:net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
echo "[fresh-machine] bash .ci/drive start on an empty data dir, port $port"
# Its own session (setsid), so the whole tree (npm, node) stops with one signal to the group.
setsid "${fresh[@]}" HCS_DATA_DIR="$tmp/data" HCS_PORT="$port" HCS_HOST=127.0.0.1 HCS_LOG_LEVEL=warn \
  bash .ci/drive start >"$tmp/start.log" 2>&1 </dev/null &
server_pid=$!

url="http://127.0.0.1:$port/drive/"
deadline=$(( $(date +%s) + ${HCS_FRESH_START_TIMEOUT:-600} ))
status=""
while :; do
  status="$(curl -s -o /dev/null -w '%{http_code}' "$url" 2>/dev/null || true)"
  [ "$status" = "200" ] && break
  if ! kill -0 "$server_pid" 2>/dev/null; then
    tail -n 40 "$tmp/start.log" >&2
    fail "bash .ci/drive start exited before $url answered (log above)"
  fi
  if [ "$(date +%s)" -ge "$deadline" ]; then
    tail -n 40 "$tmp/start.log" >&2
    fail "$url did not answer 200 in time (last status: ${status:-none}; log above)"
  fi
  sleep 1
done
[ -f "$tmp/data/admin-password.txt" ] || fail "the server answered but wrote no data/admin-password.txt on its first start"
echo "[fresh-machine] $url answered 200 after $(( $(date +%s) - started )) s; stopping it"
