#!/usr/bin/env bash
# A throwaway one-node Ceph cluster with radosgw, for running the S3 suite against a real RGW.
#
#   tests/s3/radosgw.sh start    start (idempotent) and create the S3 user
#   tests/s3/radosgw.sh env      print the HCS_TEST_S3_* exports: eval "$(bash tests/s3/radosgw.sh env)"
#   tests/s3/radosgw.sh status   exit 0 when the gateway answers
#   tests/s3/radosgw.sh stop     stop every daemon and remove the work dir
#
# One mon, one memstore OSD, no mgr, cephx off, radosgw (beast) on 127.0.0.1. Everything lives in
# HCS_RADOSGW_DIR (default /tmp/hcs-radosgw): config, pid files, logs. Needs the Debian packages
# ceph-mon ceph-osd radosgw ceph-common. Every ceph CLI call is wrapped in `timeout` because
# commands that want a mgr would otherwise hang forever.
set -euo pipefail

WORK="${HCS_RADOSGW_DIR:-/tmp/hcs-radosgw}"
ACCESS_KEY="${HCS_RADOSGW_ACCESS_KEY:-HCSSUITEACCESSKEY001}"
SECRET_KEY="${HCS_RADOSGW_SECRET_KEY:-hcsSuiteSecretKey0000000000000000000000001}"
BUCKET="${HCS_RADOSGW_BUCKET:-hcs-s3-suite}"
REGION="${HCS_RADOSGW_REGION:-us-east-1}"
CONF="$WORK/ceph.conf"
RGW_NAME="client.rgw.hcs"
T=20 # seconds allowed to any single ceph command

log() { echo "[radosgw] $*" >&2; }
die() { echo "[radosgw] error: $*" >&2; exit 1; }

need() {
  local missing=()
  for bin in ceph-mon ceph-osd radosgw radosgw-admin ceph monmaptool curl; do
    command -v "$bin" >/dev/null 2>&1 || missing+=("$bin")
  done
  [ ${#missing[@]} -eq 0 ] || die "missing ${missing[*]}; install the Debian packages: apt-get install -y ceph-mon ceph-osd radosgw ceph-common"
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()' 2>/dev/null \
    || node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# Prints the pid recorded for a daemon if that process is alive and is ours (its command line names our config).
live_pid() {
  local file="$WORK/run/$1.pid" pid
  [ -f "$file" ] || return 1
  pid="$(cat "$file")"
  [ -n "$pid" ] && alive "$pid" || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$CONF" || return 1
  echo "$pid"
}

# Alive and not a zombie (a daemon's parent may not reap it, leaving /proc/PID behind).
alive() {
  local state
  state="$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null)" || return 1
  [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

rgw_port() { cat "$WORK/rgw.port" 2>/dev/null; }

rgw_up() {
  local port; port="$(rgw_port)" || return 1
  [ -n "$port" ] || return 1
  curl -s -o /dev/null -m 2 "http://127.0.0.1:$port/" 2>/dev/null
}

write_conf() {
  local fsid="$1" mon_port="$2" rgw_port="$3"
  cat >"$CONF" <<EOF
[global]
fsid = $fsid
mon host = v2:127.0.0.1:$mon_port
auth cluster required = none
auth service required = none
auth client required = none
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd crush chooseleaf type = 0
mon allow pool size one = true
mon warn on pool no redundancy = false
mon max pg per osd = 1000
run dir = $WORK/run
admin socket = $WORK/run/\$name.asok
pid file = $WORK/run/\$name.pid
log file = $WORK/log/\$name.log
keyring = /dev/null
ms bind ipv6 = false
# cephx is off: connection modes must not demand "secure", which needs cephx.
ms mon client mode = crc
ms client mode = crc
ms mon cluster mode = crc
ms mon service mode = crc
ms cluster mode = crc
ms service mode = crc
[mon]
mon data = $WORK/mon/\$name
paxos propose interval = 0.05
mon allow pool delete = true
[osd]
osd data = $WORK/osd/\$name
osd objectstore = memstore
memstore device bytes = 2147483648
osd max object name len = 460
osd max object namespace len = 64
[$RGW_NAME]
rgw frontends = beast endpoint=127.0.0.1:$rgw_port
rgw data = $WORK/rgw
rgw dns name = 127.0.0.1
rgw enable usage log = false
EOF
}

start_osd() {
  local tries
  for tries in 1 2 3; do
    ceph-osd -c "$CONF" -i 0 >>"$WORK/log/start.log" 2>&1 || true
    sleep 0.5
    live_pid osd.0 >/dev/null && return 0
    log "ceph-osd exited (attempt $tries); starting it again"
  done
  die "ceph-osd does not stay up; see $WORK/log/osd.0.log"
}

start() {
  need
  if rgw_up && live_pid mon.a >/dev/null && live_pid osd.0 >/dev/null && live_pid "$RGW_NAME" >/dev/null; then
    log "already running on port $(rgw_port) (work dir $WORK)"
    return 0
  fi
  if [ -d "$WORK" ]; then
    log "removing a stale work dir $WORK"
    stop_daemons
    rm -rf "$WORK"
  fi
  mkdir -p "$WORK"/{run,log,mon/mon.a,osd/osd.0,rgw}
  local fsid mon_port rgw_port started
  started=$(date +%s.%N)
  fsid="$(cat /proc/sys/kernel/random/uuid)"
  mon_port="$(free_port)"
  rgw_port="$(free_port)"
  write_conf "$fsid" "$mon_port" "$rgw_port"
  echo "$rgw_port" >"$WORK/rgw.port"

  monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$mon_port]" "$WORK/monmap" >>"$WORK/log/start.log" 2>&1 \
    || die "monmaptool failed; see $WORK/log/start.log"
  ceph-mon -c "$CONF" --mkfs -i a --monmap "$WORK/monmap" >>"$WORK/log/start.log" 2>&1 || die "ceph-mon --mkfs failed; see $WORK/log/start.log"
  ceph-mon -c "$CONF" -i a >>"$WORK/log/start.log" 2>&1 || die "ceph-mon did not start; see $WORK/log/mon.a.log"

  local osd_uuid; osd_uuid="$(cat /proc/sys/kernel/random/uuid)"
  timeout "$T" ceph -c "$CONF" osd new "$osd_uuid" 0 >>"$WORK/log/start.log" 2>&1 \
    || die "'ceph osd new' failed or timed out (is the mon up?); see $WORK/log/mon.a.log"
  timeout "$T" ceph-osd -c "$CONF" -i 0 --mkfs --osd-uuid "$osd_uuid" >>"$WORK/log/start.log" 2>&1 \
    || die "ceph-osd --mkfs failed; see $WORK/log/start.log"
  start_osd

  radosgw -c "$CONF" -n "$RGW_NAME" >>"$WORK/log/start.log" 2>&1 || die "radosgw did not start; see $WORK/log/$RGW_NAME.log"
  local i
  for i in $(seq 1 300); do
    rgw_up && break
    live_pid "$RGW_NAME" >/dev/null || die "radosgw exited; see $WORK/log/$RGW_NAME.log"
    sleep 0.1
  done
  rgw_up || die "radosgw does not answer on 127.0.0.1:$rgw_port; see $WORK/log/$RGW_NAME.log"

  # The cluster is always new here, so the user cannot exist yet.
  timeout "$T" radosgw-admin -c "$CONF" -n "$RGW_NAME" user create --uid=hcs --display-name="HCS S3 suite" \
    --access-key="$ACCESS_KEY" --secret="$SECRET_KEY" >>"$WORK/log/start.log" 2>&1 \
    || die "radosgw-admin user create failed; see $WORK/log/start.log"

  log "S3 ready at http://127.0.0.1:$rgw_port in $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $started}")s (work dir $WORK)"
}

stop_daemons() {
  local name pid pids=()
  for name in "$RGW_NAME" osd.0 mon.a; do
    pid="$(live_pid "$name")" && { kill -TERM "$pid" 2>/dev/null || true; pids+=("$pid"); }
  done
  # The cluster is disposable: give the daemons a second (the OSD would otherwise wait ~5 s for
  # a mon that is going away too), then kill what is left.
  local i
  for i in $(seq 1 10); do
    local alive=0
    for pid in "${pids[@]}"; do alive "$pid" && alive=1; done
    [ "$alive" = 0 ] && return 0
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
}

stop() {
  [ -d "$WORK" ] || { log "not running (no $WORK)"; return 0; }
  stop_daemons
  rm -rf "$WORK"
  log "stopped and removed $WORK"
}

print_env() {
  rgw_up || die "not running; start it with: bash tests/s3/radosgw.sh start"
  cat <<EOF
export HCS_TEST_S3_ENDPOINT=http://127.0.0.1:$(rgw_port)
export HCS_TEST_S3_ACCESS_KEY=$ACCESS_KEY
export HCS_TEST_S3_SECRET_KEY=$SECRET_KEY
export HCS_TEST_S3_BUCKET=$BUCKET
export HCS_TEST_S3_REGION=$REGION
export HCS_TEST_S3_FLAVOR=ceph-rgw
EOF
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  env) print_env ;;
  status) rgw_up && { log "running on port $(rgw_port)"; exit 0; } || { log "not running"; exit 1; } ;;
  *) echo "usage: $0 start|stop|env|status" >&2; exit 2 ;;
esac
