# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# Durable_Metadata (issue #6): e2e_fsal_durable watches the server with
# strace (e2e_sync.h) and checks that every namespace change and SETATTR
# fsyncs what it changed before the reply; 77 (skipped) when strace cannot
# attach.  e2e_fsal_durable_off runs it against a server with
# Durable_Metadata = false and checks that nothing is synced.  The option
# goes through a generated script: a ';' would split a CMake argument, and
# FSAL_VFS (SPARSE_E2E_FSAL=VFS) has no such option (skipped there).
# ALLOCATE, DEALLOCATE, CLONE and a truncating OPEN sync their file too
# (issue #17); CLONE is watched on an XFS reflink export (the clonefs fixture, a loop
# image of its own).
set(durable_clonefs_dir ${CMAKE_CURRENT_BINARY_DIR}/durable_clonefs)
sparse_e2e_test(e2e_fsal_durable
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_fsal_durable.c TIMEOUT 120
  HARNESS_ARGS --conf-extra "%include \"${durable_clonefs_dir}/exports.conf\"")
target_compile_definitions(e2e_fsal_durable PRIVATE
  E2E_CLONEFS_DIR="${durable_clonefs_dir}")
sparse_loop_fixture(e2e_fsal_durable durable_clonefs clonefs-setup.sh)

file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/durable-off.sh [[#!/bin/sh
# durable-off.sh HARNESS PROGRAM CLONEFS_DIR: PROGRAM against
# Durable_Metadata = false, on the harness's export and the XFS one
[ "${SPARSE_E2E_FSAL:-SPARSE}" = SPARSE ] || { echo "durable-off: SKIP: FSAL_SPARSE only"; exit 77; }
sed 's/Name = SPARSE;/Name = SPARSE; Durable_Metadata = false;/' "$3/exports.conf" >"$3/exports-off.conf"
E2E_DURABLE_METADATA=false exec "$1" --fsal-opts "Durable_Metadata = false;" --conf-extra "%include \"$3/exports-off.conf\"" -- "$2"
]])
add_test(NAME e2e/e2e_fsal_durable_off
         COMMAND sh ${CMAKE_CURRENT_BINARY_DIR}/durable-off.sh
                 ${SPARSE_HARNESS} $<TARGET_FILE:e2e_fsal_durable>
                 ${durable_clonefs_dir})
set_tests_properties(e2e/e2e_fsal_durable_off PROPERTIES
  LABELS e2e TIMEOUT 120 SKIP_RETURN_CODE 77
  FIXTURES_REQUIRED durable_clonefs
  ENVIRONMENT "SPARSE_STAGE=${GANESHA_PREFIX};SPARSE_NFS42=$<TARGET_FILE:nfs42>")
