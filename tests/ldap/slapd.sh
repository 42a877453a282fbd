#!/usr/bin/env bash
# A throwaway OpenLDAP server (Debian's slapd) for the LDAP tests: its own slapd.conf (mdb, memberof overlay) in a
# temp dir, on 127.0.0.1 and a free high port, seeded with ou=people (nested OUs) and ou=groups (seed.ldif).
#
#   tests/ldap/slapd.sh start [DIR]   start a new server in DIR (default: a new temp dir); prints `url DIR`
#   tests/ldap/slapd.sh stop DIR      stop it and remove DIR
#
# Suffix dc=example,dc=org; the directory's own administrator is cn=admin,dc=example,dc=org (password `admin-secret`),
# the drive's service account cn=reader,dc=example,dc=org (`reader-secret`), read-only. Nothing survives a stop.
# .ci/run installs slapd and ldap-utils when they are missing.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
SLAPD="${HCS_SLAPD:-/usr/sbin/slapd}"
SUFFIX='dc=example,dc=org'
ROOTDN="cn=admin,$SUFFIX"
ROOTPW='admin-secret'

die() { echo "[slapd] error: $*" >&2; exit 1; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()' 2>/dev/null \
    || node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

start() {
  [ -x "$SLAPD" ] || die "slapd is not installed: apt-get install -y slapd ldap-utils"
  command -v ldapadd >/dev/null || die "ldapadd is not installed: apt-get install -y ldap-utils"
  local dir="${1:-$(mktemp -d /tmp/hcs-slapd.XXXXXX)}"
  mkdir -p "$dir/data"
  local port; port="$(free_port)"
  cat >"$dir/slapd.conf" <<CONF
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/inetorgperson.schema
include /etc/ldap/schema/nis.schema
pidfile $dir/slapd.pid
argsfile $dir/slapd.args
modulepath /usr/lib/ldap
moduleload back_mdb
moduleload memberof
database mdb
maxsize 16777216
suffix "$SUFFIX"
rootdn "$ROOTDN"
rootpw $ROOTPW
directory $dir/data
index objectClass eq
index uid eq
overlay memberof
memberof-group-oc groupOfNames
memberof-member-ad member
memberof-memberof-ad memberOf
memberof-refint TRUE
access to attrs=userPassword by anonymous auth by self auth by * none
access to * by dn.exact="cn=reader,$SUFFIX" read by self read by * none
CONF
  "$SLAPD" -f "$dir/slapd.conf" -h "ldap://127.0.0.1:$port/" -s 0 >"$dir/slapd.log" 2>&1 || { cat "$dir/slapd.log" >&2; die "slapd did not start"; }
  echo "$port" >"$dir/port"
  # slapd forks once its listener is bound; the first add may still race its start-up, so it is retried briefly.
  local i
  for i in $(seq 1 50); do
    if ldapadd -x -H "ldap://127.0.0.1:$port/" -D "$ROOTDN" -w "$ROOTPW" -f "$HERE/seed.ldif" >"$dir/seed.log" 2>&1; then
      echo "ldap://127.0.0.1:$port $dir"
      return 0
    fi
    grep -q "Can't contact LDAP server" "$dir/seed.log" || { cat "$dir/seed.log" >&2; die "seeding failed"; }
    sleep 0.05
  done
  die "slapd did not answer"
}

stop() {
  local dir="${1:?usage: stop DIR}"
  [ -f "$dir/slapd.pid" ] && kill "$(cat "$dir/slapd.pid")" 2>/dev/null || true
  # slapd removes its pid file on the way out; the dir goes once it has.
  local i
  for i in $(seq 1 100); do [ -f "$dir/slapd.pid" ] || break; sleep 0.02; done
  rm -rf "$dir"
}

case "${1:-}" in
  start) shift; start "$@" ;;
  stop) shift; stop "$@" ;;
  *) echo "usage: $0 start [DIR] | stop DIR" >&2; exit 2 ;;
esac
