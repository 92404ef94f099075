# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
#
# Sourced by every tests/linux guest script (vm.sh does it first).
set -euo pipefail
