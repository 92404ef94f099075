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

# What a layout and a data-server handle authorize (issue #26 items 3, 4,
# 6, 7, 8): as root (uid 1000 and root-owned files); a 5 s lease so that
# an unreturned layout is fenced within the test; stalls of 8 s (longer
# than the lease) for a data-server write held between its check and its
# pwrite.
set(pnfs_auth_args --needs-root --pnfs 2
    --pnfs-opts "Stripe_Unit = 65536$<SEMICOLON>"
    --nfsv4-opts "${pnfs_recall_opts}")
sparse_e2e_test(e2e_pnfs_auth
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_pnfs_auth.c
          ${CMAKE_CURRENT_SOURCE_DIR}/nfs3_test.c
          ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE/sparse_pnfs_cfg.c
  TIMEOUT 300
  HARNESS_ARGS ${pnfs_auth_args}
    --fsal-opts "Test_Hooks { Stall_Dir = @STALL_DIR@$<SEMICOLON> Stall_Ms = 8000$<SEMICOLON> }")
target_include_directories(e2e_pnfs_auth PRIVATE
  ${CMAKE_SOURCE_DIR}/src/FSAL/FSAL_SPARSE)
# A read-only export, a squashing one: no RW layout, no LAYOUTCOMMIT.
sparse_e2e_run(e2e_pnfs_auth_ro e2e_pnfs_auth ARGS ro TIMEOUT 120
  HARNESS_ARGS ${pnfs_auth_args} --export-opts "Access_Type = RO$<SEMICOLON>")
sparse_e2e_run(e2e_pnfs_auth_squash e2e_pnfs_auth ARGS squash TIMEOUT 120
  HARNESS_ARGS ${pnfs_auth_args} --export-opts "Squash = All$<SEMICOLON>")
# The metadata server and every data server restarted.
sparse_e2e_run(e2e_pnfs_auth_restart e2e_pnfs_auth ARGS restart TIMEOUT 180
  HARNESS_ARGS ${pnfs_auth_args})
# Two more exports of the metadata server's filesystem: /nested (no pNFS
# of its own) and /devx (hands out layouts, but nobody may reach it).
set(pnfs_auth_more "EXPORT { Export_Id = 2$<SEMICOLON> Path = \"@EXPORT_DIR@/nested\"$<SEMICOLON> Pseudo = /nested$<SEMICOLON> FSAL { Name = SPARSE$<SEMICOLON> } }
EXPORT { Export_Id = 3$<SEMICOLON> Path = \"@EXPORT_DIR@/devx\"$<SEMICOLON> Pseudo = /devx$<SEMICOLON> Access_Type = None$<SEMICOLON> FSAL { Name = SPARSE$<SEMICOLON> PNFS_MDS = true$<SEMICOLON> Data_Server { Address = \"127.0.0.1:1\"$<SEMICOLON> } } }")
sparse_e2e_run(e2e_pnfs_auth_exports e2e_pnfs_auth ARGS exports TIMEOUT 120
  HARNESS_ARGS ${pnfs_auth_args} --mkdir nested --mkdir devx
    --mds-conf-extra "${pnfs_auth_more}")
# An NFSv3-only export nested in the metadata server's (root: NFSv3 needs
# the harness's private rpcbind).
sparse_e2e_run(e2e_pnfs_auth_v3 e2e_pnfs_auth ARGS v3 TIMEOUT 120
  HARNESS_ARGS ${pnfs_auth_args} --protocols "3, 4" --mkdir v3only
    --mds-conf-extra "EXPORT { Export_Id = 4$<SEMICOLON> Path = \"@EXPORT_DIR@/v3only\"$<SEMICOLON> Pseudo = /v3only$<SEMICOLON> Protocols = 3$<SEMICOLON> FSAL { Name = SPARSE$<SEMICOLON> } }")

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
