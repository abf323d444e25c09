#!/usr/bin/env bash
# Installs everything OnAir needs on a fresh Debian 12 machine. Idempotent: a second run
# only checks. System packages come from apt-get; Python peers live in a venv (.venv-interop).
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  pkg-config openssl libssl-dev libsqlite3-dev
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libswresample-dev libavdevice-dev
  libx264-dev libopus-dev libsrtp2-dev
  ffmpeg chromium chromium-driver iproute2 nftables ethtool python3-venv curl postgresql
  golang-go golang-github-pion-webrtc.v3-dev
  python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0 gir1.2-gst-plugins-bad-1.0 gir1.2-nice-0.1
  gstreamer1.0-nice gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  gstreamer1.0-plugins-ugly gstreamer1.0-libav
  coturn
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing system packages: ${missing[*]}"
  if [[ " ${missing[*]} " == *" postgresql "* ]] && [ ! -e /etc/postgresql-common/createcluster.conf ]; then
    # Tests start their own throwaway servers (tools/pg/throwaway.sh): no system cluster, no service.
    mkdir -p /etc/postgresql-common/createcluster.d
    echo "create_main_cluster = false" >/etc/postgresql-common/createcluster.d/onair-no-main-cluster.conf
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  if [[ " ${missing[*]} " == *" coturn "* ]] && [ -d /run/systemd/system ]; then
    # Tests start their own turnserver as a plain process (Tests/Interop/coturn.py): no service.
    systemctl disable --now coturn >/dev/null 2>&1 || true
  fi
fi

VENV=.venv-interop
PY_PACKAGES=(aiortc aiohttp websockets pytest m3u8 standardwebhooks numpy pexpect "schemathesis>=4.32,<5" "pyjwt[crypto]")
if [ ! -x "$VENV/bin/python" ]; then
  echo "setup: creating $VENV"
  python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c "import aiortc, aiohttp, websockets, pytest, m3u8, standardwebhooks, numpy, pexpect, schemathesis, jwt, cryptography" 2>/dev/null; then
  echo "setup: installing Python peers: ${PY_PACKAGES[*]}"
  "$VENV/bin/pip" install -q --disable-pip-version-check "${PY_PACKAGES[@]}"
fi
echo "setup: ok"
