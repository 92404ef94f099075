# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# RecoveryBackend = sqlite (issue #9). Servers are started through
# sqlite-recovery.sh, which other suites can use the same way to run
# against the sqlite backend.
find_package(Threads REQUIRED)
set(sqlite_recov_sh ${CMAKE_CURRENT_SOURCE_DIR}/sqlite-recovery.sh)
add_executable(e2e_recovery_sqlite
  ${CMAKE_CURRENT_SOURCE_DIR}/e2e_recovery_sqlite.c)
target_link_libraries(e2e_recovery_sqlite PRIVATE nfs42c PkgConfig::CHECK
  Threads::Threads)
foreach(case restart regrace crash)
  add_test(NAME e2e/e2e_recovery_sqlite_${case}
           COMMAND sh ${sqlite_recov_sh} ${SPARSE_HARNESS}
                   $<TARGET_FILE:e2e_recovery_sqlite>)
  set_tests_properties(e2e/e2e_recovery_sqlite_${case} PROPERTIES
    LABELS e2e TIMEOUT 240 SKIP_RETURN_CODE 77
    ENVIRONMENT "SPARSE_STAGE=${GANESHA_PREFIX};SPARSE_NFS42=$<TARGET_FILE:nfs42>;GRACELESS=false;CK_RUN_CASE=${case}")
endforeach()

# a corrupt or unwritable database: the server refuses to start
add_test(NAME e2e/recovery_sqlite_refuse
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/recovery_sqlite_refuse.sh)
set_tests_properties(e2e/recovery_sqlite_refuse PROPERTIES
  LABELS e2e TIMEOUT 180 SKIP_RETURN_CODE 77
  ENVIRONMENT "SPARSE_STAGE=${GANESHA_PREFIX}")
