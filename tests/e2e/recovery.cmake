# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# RecoveryBackend = sqlite (issue #9): the harness writes it into the
# NFSv4 block (SPARSE_RECOVERY_BACKEND), as for the courtesy tests.
find_package(Threads REQUIRED)
add_executable(e2e_recovery_sqlite
  ${CMAKE_CURRENT_SOURCE_DIR}/e2e_recovery_sqlite.c)
pkg_check_modules(SQLITE3 REQUIRED IMPORTED_TARGET sqlite3)
target_link_libraries(e2e_recovery_sqlite PRIVATE nfs42c PkgConfig::CHECK
  Threads::Threads PkgConfig::SQLITE3)
# gracestart (root: a tmpfs over the recovery directory) and graceend
# (a short grace period): what the database cannot do at grace start and
# end (issue #27 item 5)
# reaper (clients holding state expired by the reaper: one transaction
# per pass) and stuck (a removal that must be durable, the database held
# by another process: bounded) (issue #27 item 5)
foreach(case restart regrace crash locked keys gracestart graceend reaper
        stuck)
  set(nfsv4_opts "")
  if(case STREQUAL "graceend")
    set(nfsv4_opts --nfsv4-opts
      "Lease_Lifetime = 4$<SEMICOLON> Grace_Period = 8$<SEMICOLON>")
  elseif(case STREQUAL "reaper")
    set(nfsv4_opts --nfsv4-opts
      "Lease_Lifetime = 4$<SEMICOLON> Grace_Period = 4$<SEMICOLON> Expired_Client_Threshold = 0$<SEMICOLON>")
  endif()
  sparse_e2e_run(e2e_recovery_sqlite_${case} e2e_recovery_sqlite TIMEOUT 240
    HARNESS_ARGS --conf-extra "SQLITE_RECOVERY { Busy_Timeout_Ms = 1000$<SEMICOLON> }"
      ${nfsv4_opts})
  set_property(TEST e2e/e2e_recovery_sqlite_${case} APPEND PROPERTY
    ENVIRONMENT SPARSE_RECOVERY_BACKEND=sqlite GRACELESS=false
                CK_RUN_CASE=${case})
endforeach()

# a corrupt or unwritable database: the server refuses to start
add_test(NAME e2e/recovery_sqlite_refuse
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/recovery_sqlite_refuse.sh)
set_tests_properties(e2e/recovery_sqlite_refuse PROPERTIES
  LABELS e2e TIMEOUT 180 SKIP_RETURN_CODE 77
  ENVIRONMENT "SPARSE_STAGE=${GANESHA_PREFIX}")
