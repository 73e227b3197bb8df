#!/usr/bin/env bash
# Installs what envproof and its tests need on a fresh Debian machine. Idempotent: safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
want() { command -v "$1" >/dev/null 2>&1 || need_apt+=("$2"); }
want strace strace
want chromium chromium  # headless browser for the HTML report test (test/report-html)

# C++ tests (test/cpp): CMake, a C++ compiler, git for local FetchContent sources, zlib, nlohmann_json and brotli
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
# Brotli's decoder and encoder, two CMake packages from one Debian package (test/cpp/shared-package.test.ts).
want_deb libbrotli-dev
# Java tests (test/java): a JDK (javac, java) and Maven; Maven Central is reached through the package caches.
want javac openjdk-17-jdk-headless
want mvn maven
# The results store's better-sqlite3 is compiled by node-gyp (no prebuilt download here): Python, make, g++.
want python3 python3
# Sandboxes (test/sandbox): bubblewrap runs programs in namespaces, debootstrap builds the clean root filesystems.
want bwrap bubblewrap
want debootstrap debootstrap
# The host backend cuts the network of traced runs in a network namespace and brings its loopback up with ip.
want ip iproute2
# The podman backend (test/sandbox runs it for real): Debian's podman, runc (crun refuses hybrid cgroup
# hierarchies; envproof finds which runtime works), and the CNI plugins for the install steps' bridge network.
want podman podman
want runc runc
want_deb containernetworking-plugins
# envproof repro's clock variation (test/repro): libfaketime on the host (--sandbox host); the sandboxes add the
# same Debian package to their environments themselves (a derived environment, built on first use).
want_deb faketime

if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${need_apt[*]}"
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

echo "setup: installing npm dependencies"
npm ci --no-audit --no-fund --loglevel=error
npm run --silent build
echo "setup: done"
