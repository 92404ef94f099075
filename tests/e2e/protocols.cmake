# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# Protocol-layer suites (src/Protocols/NFS, src/include, patches 0005...).
sparse_e2e_test(e2e_proto_copy_xdr
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_copy_xdr.c TIMEOUT 120)

# CLONE (issue #8): an XFS filesystem with reflink on a loop device as a
# second export (skipped with the reason where it cannot be made), and the
# harness's own export on ext4, which cannot share blocks.
set(clonefs_dir ${CMAKE_CURRENT_BINARY_DIR}/clonefs)
sparse_e2e_test(e2e_proto_clone
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_clone.c
  TIMEOUT 180
  HARNESS_ARGS --conf-extra "%include \"${clonefs_dir}/exports.conf\"")
target_compile_definitions(e2e_proto_clone PRIVATE
  E2E_CLONEFS_DIR="${clonefs_dir}")
sparse_loop_fixture(e2e_proto_clone clonefs clonefs-setup.sh)

# Synchronous COPY (issue #8): FSAL_SPARSE on the harness's ext4 export
# (copy_file_range) and on a second XFS reflink fixture (clone path), with
# the time budget off so that the default 4 MiB cap alone cuts replies;
# FSAL_VFS (no copy of its own: the generic read2/write2 loop); replies cut
# by a 1 ms time budget alone; no cap and no budget (one reply); FSAL_MEM
# (generic loop, files made over NFS) with a 1 MiB cap.
# $<SEMICOLON> keeps the config's ";" in one argument.
set(copyfs_dir ${CMAKE_CURRENT_BINARY_DIR}/copyfs)
sparse_e2e_test(e2e_proto_copy
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_copy.c
  TIMEOUT 300
  HARNESS_ARGS --nfsv4-opts "Copy_Time_Budget_Ms = 0$<SEMICOLON>"
               --conf-extra "%include \"${copyfs_dir}/exports.conf\"")
target_compile_definitions(e2e_proto_copy PRIVATE
  E2E_COPYFS_DIR="${copyfs_dir}")
sparse_loop_fixture(e2e_proto_copy copyfs clonefs-setup.sh)
sparse_e2e_run(e2e_proto_copy_vfs e2e_proto_copy ARGS vfs TIMEOUT 300
  HARNESS_ARGS --fsal VFS --nfsv4-opts "Copy_Time_Budget_Ms = 0$<SEMICOLON>")
sparse_e2e_run(e2e_proto_copy_budget e2e_proto_copy ARGS budget TIMEOUT 120
  HARNESS_ARGS --nfsv4-opts "Copy_Chunk_Size = 0$<SEMICOLON> Copy_Time_Budget_Ms = 1$<SEMICOLON>")
sparse_e2e_run(e2e_proto_copy_nocap e2e_proto_copy ARGS nocap TIMEOUT 120
  HARNESS_ARGS --nfsv4-opts "Copy_Chunk_Size = 0$<SEMICOLON> Copy_Time_Budget_Ms = 0$<SEMICOLON>")
# FSAL_MEM's asynchronous mode (Async_Type = fixed) stops Ganesha 6.5 on
# a plain WRITE (destroy_fsal_fd: "Error 16, Destroy mutex"), so MEM runs
# inline here.
sparse_e2e_run(e2e_proto_copy_mem e2e_proto_copy ARGS mem TIMEOUT 120
  HARNESS_ARGS --fsal MEM
  --nfsv4-opts "Copy_Chunk_Size = 1048576$<SEMICOLON> Copy_Time_Budget_Ms = 0$<SEMICOLON>"
  --conf-extra "MEM { Inode_Size = 2097152$<SEMICOLON> }")
# Copy_Engine = COPY on a third XFS reflink fixture: the engine never
# clones, so a COPY is capped like on ext4.
set(copyfs_engine_dir ${CMAKE_CURRENT_BINARY_DIR}/copyfs_engine)
sparse_e2e_run(e2e_proto_copy_engine e2e_proto_copy
  ARGS engine ${copyfs_engine_dir} TIMEOUT 120
  HARNESS_ARGS --nfsv4-opts "Copy_Time_Budget_Ms = 0$<SEMICOLON>"
  --conf-extra "%include \"${copyfs_engine_dir}/exports.conf\"")
sparse_loop_fixture(e2e_proto_copy_engine copyfs_engine clonefs-setup.sh)
set_tests_properties(e2e/e2e_proto_copy_engine_setup PROPERTIES
  ENVIRONMENT CLONEFS_COPY_ENGINE=COPY)
# Statistics (issues #7, #8): CLONEs on two XFS exports (statsfs-setup.sh)
# and on ext4, read with tools/sparse-stats over a private DBus.
set(statsfs_dir ${CMAKE_CURRENT_BINARY_DIR}/statsfs)
add_test(NAME e2e/e2e_proto_stats
         COMMAND ${SPARSE_HARNESS} --dbus
                 --conf-extra "%include \"${statsfs_dir}/exports.conf\""
                 -- ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_stats.sh ${statsfs_dir})
set_tests_properties(e2e/e2e_proto_stats PROPERTIES LABELS e2e TIMEOUT 120
  ENVIRONMENT "SPARSE_STAGE=${GANESHA_PREFIX};SPARSE_NFS42=$<TARGET_FILE:nfs42>")
sparse_loop_fixture(e2e_proto_stats statsfs statsfs-setup.sh)

# clone_blksize (attribute 77) on ext4 and on the XFS export of the CLONE
# fixture (shared with e2e_proto_clone).
sparse_e2e_test(e2e_proto_clone_blksize
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_clone_blksize.c
  TIMEOUT 60
  HARNESS_ARGS --conf-extra "%include \"${clonefs_dir}/exports.conf\"")
target_compile_definitions(e2e_proto_clone_blksize PRIVATE
  E2E_CLONEFS_DIR="${clonefs_dir}")
set_tests_properties(e2e/e2e_proto_clone_blksize PROPERTIES
  FIXTURES_REQUIRED clonefs)
