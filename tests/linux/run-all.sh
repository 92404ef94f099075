#!/usr/bin/env bash
# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# run-all.sh [ctest arguments...]: builds (scripts/build.sh) and runs every
# tests/linux test, the ones outside the CI subset too (SPARSE_LINUX_ALL=1).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${SPARSE_BUILD_DIR:-$repo/build}
"$repo/scripts/build.sh" "$build"
cd "$build"
SPARSE_LINUX_ALL=1 ctest --output-on-failure --timeout 1800 -L linux "$@"
