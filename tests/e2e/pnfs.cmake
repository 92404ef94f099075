# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# pNFS files layouts (issue #20): the harness's server is the metadata
# server, --pnfs N more servers on the same export directory its data
# servers (64 KiB stripes so that small files spread).
sparse_e2e_test(e2e_pnfs_io
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_pnfs_io.c
  TIMEOUT 300
  HARNESS_ARGS --pnfs 2 --pnfs-opts "Stripe_Unit = 65536$<SEMICOLON>")
