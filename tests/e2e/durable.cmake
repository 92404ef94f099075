# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# Durable_Metadata (issue #6): e2e_fsal_durable watches the server with
# strace (e2e_sync.h) and checks that every namespace change and SETATTR
# fsyncs what it changed before the reply; 77 (skipped) when strace cannot
# attach.  e2e_fsal_durable_off runs it against a server with
# Durable_Metadata = false and checks that nothing is synced.  The option
# goes through a generated script: a ';' would split a CMake argument, and
# FSAL_VFS (SPARSE_E2E_FSAL=VFS) has no such option (skipped there).
sparse_e2e_test(e2e_fsal_durable
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_fsal_durable.c TIMEOUT 120)

file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/durable-off.sh [[#!/bin/sh
# durable-off.sh HARNESS PROGRAM: PROGRAM against Durable_Metadata = false
[ "${SPARSE_E2E_FSAL:-SPARSE}" = SPARSE ] || { echo "durable-off: SKIP: FSAL_SPARSE only"; exit 77; }
E2E_DURABLE_METADATA=false exec "$1" --fsal-opts "Durable_Metadata = false;" -- "$2"
]])
add_test(NAME e2e/e2e_fsal_durable_off
         COMMAND sh ${CMAKE_CURRENT_BINARY_DIR}/durable-off.sh
                 ${SPARSE_HARNESS} $<TARGET_FILE:e2e_fsal_durable>)
set_tests_properties(e2e/e2e_fsal_durable_off PROPERTIES
  LABELS e2e TIMEOUT 120 SKIP_RETURN_CODE 77
  ENVIRONMENT "SPARSE_STAGE=${GANESHA_PREFIX};SPARSE_NFS42=$<TARGET_FILE:nfs42>")
