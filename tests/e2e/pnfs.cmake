# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# pNFS files layouts (issue #20): the harness's server is the metadata
# server, --pnfs N more servers on the same export directory its data
# servers (64 KiB stripes so that small files spread).
sparse_e2e_test(e2e_pnfs_io
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_pnfs_io.c
  TIMEOUT 300
  HARNESS_ARGS --pnfs 2 --pnfs-opts "Stripe_Unit = 65536$<SEMICOLON>")

# The metadata server a data server too (--pnfs-mds-ds): three stripes.
sparse_e2e_run(e2e_pnfs_io_mds_ds e2e_pnfs_io ARGS mds-ds
  TIMEOUT 120
  HARNESS_ARGS --pnfs 2 --pnfs-mds-ds
               --pnfs-opts "Stripe_Unit = 65536$<SEMICOLON>")

# Read delegations on (as scripts/serve.sh serves): a delegated file read
# through the data servers.
sparse_e2e_run(e2e_pnfs_io_deleg e2e_pnfs_io ARGS deleg
  TIMEOUT 120
  HARNESS_ARGS --pnfs 2 --pnfs-opts "Stripe_Unit = 65536$<SEMICOLON>"
               --nfsv4-opts "Delegations = true$<SEMICOLON>"
               --export-opts "Delegations = Read$<SEMICOLON>")

# Layout recalls and fencing: a 5 s lease so that an unreturned layout is
# fenced within the test; "unexport" removes the export over DBus.
set(pnfs_recall_opts "Lease_Lifetime = 5$<SEMICOLON>")
sparse_e2e_test(e2e_pnfs_recall
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_pnfs_recall.c
          ${CMAKE_CURRENT_SOURCE_DIR}/nfs3_test.c
  TIMEOUT 300
  HARNESS_ARGS --pnfs 2 --pnfs-opts "Stripe_Unit = 65536$<SEMICOLON>"
               --nfsv4-opts "${pnfs_recall_opts}")
sparse_e2e_run(e2e_pnfs_recall_unexport e2e_pnfs_recall ARGS unexport
  TIMEOUT 120
  HARNESS_ARGS --dbus --pnfs 2 --pnfs-opts "Stripe_Unit = 65536$<SEMICOLON>"
               --nfsv4-opts "${pnfs_recall_opts}")
# NFSv3 (no client id): SETATTR of the size answers NFS3ERR_JUKEBOX until
# the layouts are back.
sparse_e2e_run(e2e_pnfs_recall_v3 e2e_pnfs_recall ARGS v3
  TIMEOUT 120
  HARNESS_ARGS --needs-root --protocols "3, 4" --pnfs 2
               --pnfs-opts "Stripe_Unit = 65536$<SEMICOLON>"
               --nfsv4-opts "${pnfs_recall_opts}")

# A data server killed (SIGKILL) in the middle of a striped write, and a
# read with it dead, then started again.
# (33 s on an idle machine, 223 s under a load of 9 on 2 cores)
sparse_e2e_test(e2e_pnfs_failover
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_pnfs_failover.c
  TIMEOUT 600
  HARNESS_ARGS --pnfs 2 --pnfs-opts "Stripe_Unit = 65536$<SEMICOLON>")

# Counts a client sends that reach an allocation (issue #26 item 1 and
# its audit): huge READ counts on a data server, WRITE data lengths
# beyond the request, a callback reply with more results than ops.
sparse_e2e_test(e2e_pnfs_counts
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_pnfs_counts.c
  TIMEOUT 300
  HARNESS_ARGS --pnfs 2 --pnfs-opts "Stripe_Unit = 65536$<SEMICOLON>")

# LAYOUTGET with the layout stateid, as the Linux client asks (issue #26
# item 2): the layout state kept, the segments of a client merged.
sparse_e2e_test(e2e_pnfs_layoutget
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_pnfs_layoutget.c
  TIMEOUT 600
  HARNESS_ARGS --pnfs 2 --pnfs-opts "Stripe_Unit = 65536$<SEMICOLON>")
