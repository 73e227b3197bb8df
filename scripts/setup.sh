#!/usr/bin/env bash
# Installs what envproof and its tests need on a fresh Debian machine. Idempotent: safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
want() { command -v "$1" >/dev/null 2>&1 || need_apt+=("$2"); }
want strace strace
want chromium chromium  # headless browser for the HTML report test (test/report/html)

# C++ tests (test/ecosystems/cpp): CMake, a C++ compiler, git for local FetchContent sources, zlib, nlohmann_json and brotli
# headers, pkg-config. libcurl's -dev package is deliberately NOT installed: the missing-library fixture
# needs find_package(CURL REQUIRED) to fail.
want_deb() { dpkg-query -W -f '${Status}' "$1" 2>/dev/null | grep -q 'ok installed' || need_apt+=("$1"); }
want cmake cmake
want g++ g++
want make make
want git git
want_deb zlib1g-dev
want_deb nlohmann-json3-dev
want_deb pkg-config
# Brotli's decoder and encoder, two CMake packages from one Debian package (test/ecosystems/cpp/shared-package.test.ts).
want_deb libbrotli-dev
# Java tests (test/ecosystems/java): a JDK (javac, java) and Maven; Maven Central is reached through the package caches.
want javac openjdk-17-jdk-headless
want mvn maven
# The results store's better-sqlite3 is compiled by node-gyp (no prebuilt download here): Python, make, g++.
want python3 python3
# Sandboxes (test/sandbox): bubblewrap runs programs in namespaces, debootstrap builds the clean root filesystems.
want bwrap bubblewrap
want debootstrap debootstrap
# Install and build steps under bwrap and podman get a network namespace of their own: slirp4netns connects it to
# the outside (to the host's loopback only at the ports of registries envproof points installs at), and the host's iptables loads a filter inside it that refuses private
# and link-local addresses and the host's own networks (src/sandbox/install-network.ts).
want slirp4netns slirp4netns
want iptables-restore iptables
# The host backend cuts the network of traced runs in a network namespace and brings its loopback up with ip.
want ip iproute2
# The podman backend (test/sandbox runs it for real): Debian's podman, runc (crun refuses hybrid cgroup
# hierarchies; envproof finds which runtime works), and the CNI plugins for the install steps' bridge network.
want podman podman
want runc runc
want_deb containernetworking-plugins
# The job queue and the shared results store (test/queue, test/store): Debian's Redis and PostgreSQL servers; the
# tests start their own on private ports with temporary data directories (the packages' own services are not used).
want redis-server redis-server
want_deb postgresql
# The fast tracer (native/fasttrace): an eBPF program compiled with clang against this kernel's BTF types,
# loaded by a small C program linked with libbpf. Where the kernel has no BTF it is not built (strace is used).
if [ -e /sys/kernel/btf/vmlinux ]; then
  want clang clang
  want llvm-strip llvm
  want bpftool bpftool
  want_deb libbpf-dev
fi
# envproof repro's clock and locale variations (test/repro): libfaketime and the locale sources localedef compiles
# from, on the host (--sandbox host); the sandboxes add the same Debian packages to their environments themselves
# (a derived environment, built on first use).
want_deb faketime
want_deb locales

if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${need_apt[*]}"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

if [ -e /sys/kernel/btf/vmlinux ]; then
  echo "setup: building the fast tracer"
  make --no-print-directory -s -C native/fasttrace
else
  echo "setup: this kernel has no BTF (/sys/kernel/btf/vmlinux): the fast tracer is not built, strace traces instead"
fi

echo "setup: installing npm dependencies"
# Install scripts run after the install, so that better-sqlite3's can be skipped when its addon is kept: it has no
# prebuilt binary reachable here and compiles SQLite (over a minute of both cores). The compiled addon is kept in the
# envproof cache per version, Node ABI and machine, and a clean clone copies it instead of compiling again.
npm ci --no-audit --no-fund --loglevel=error --ignore-scripts
npm rebuild --loglevel=error esbuild msgpackr-extract
addon=node_modules/better-sqlite3/build/Release/better_sqlite3.node
key=$(node -p "require('./node_modules/better-sqlite3/package.json').version + '-node' + process.versions.modules + '-' + process.platform + '-' + process.arch")
kept="${ENVPROOF_CACHE_DIR:-$HOME/.cache/envproof}/native/better-sqlite3-$key.node"
if [ -f "$kept" ]; then mkdir -p "$(dirname "$addon")" && cp "$kept" "$addon"; fi
if ! node -e "new (require('better-sqlite3'))(':memory:').close()" 2>/dev/null; then
  echo "setup: compiling better-sqlite3 (no prebuilt binary is reachable; once per version)"
  npm rebuild --loglevel=error better-sqlite3
  mkdir -p "$(dirname "$kept")" && cp "$addon" "$kept.part" && mv "$kept.part" "$kept"
fi
npm run --silent build

# Go tests (test/ecosystems/go): a go command new enough for the fixtures' go lines (1.22). Where there is none, the toolchain
# of envproof's Go environment is installed the way the environment gets it: from the module proxy, checksum
# verified, into /usr/local/go with go and gofmt linked into /usr/local/bin (src/ecosystems/go/toolchain.ts).
if ! command -v go >/dev/null 2>&1 || ! go env GOVERSION | grep -Eq '^go1\.(2[2-9]|[3-9][0-9])'; then
  echo "setup: installing the Go toolchain from the module proxy into /usr/local/go"
  if [ "$(id -u)" -ne 0 ]; then echo "setup: installing Go needs root" >&2; exit 1; fi
  rm -rf /usr/local/go /usr/local/bin/go /usr/local/bin/gofmt
  node --import tsx -e "import('./src/ecosystems/go/toolchain.ts').then((t) => t.installGoToolchain('/', console.log))"
fi
echo "setup: done"
