# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# Courtesy clients (issue #9): e2e_courtesy runs its two parts, "expiry"
# (one server) and "restart" (kill -9 and start again in the middle, with a
# grace period), once per recovery backend in SPARSE_COURTESY_BACKENDS: the
# harness writes "RecoveryBackend = <backend>" into the NFSv4 block
# (SPARSE_RECOVERY_BACKEND).  Ganesha's own "fs" runs as e2e_courtesy and
# e2e_courtesy_restart, any other backend adds _<backend> to the names.
# A 4 s lease makes each case take seconds.
set(SPARSE_COURTESY_BACKENDS "fs;sqlite" CACHE STRING
    "recovery backends the courtesy-client tests run against")
pkg_check_modules(SQLITE3 REQUIRED IMPORTED_TARGET sqlite3)
add_executable(e2e_courtesy ${CMAKE_CURRENT_SOURCE_DIR}/e2e_courtesy.c)
target_link_libraries(e2e_courtesy PRIVATE nfs42c PkgConfig::CHECK
  PkgConfig::SQLITE3)
foreach(backend ${SPARSE_COURTESY_BACKENDS})
  if(backend STREQUAL "fs")
    set(sfx "")
  else()
    set(sfx "_${backend}")
  endif()
  foreach(part expiry restart)
    if(part STREQUAL "expiry")
      set(name e2e_courtesy${sfx})
    else()
      set(name e2e_courtesy_${part}${sfx})
    endif()
    sparse_e2e_run(${name} e2e_courtesy ARGS ${part} TIMEOUT 240
      HARNESS_ARGS --nfsv4-opts
      "Lease_Lifetime = 4$<SEMICOLON> Grace_Period = 60$<SEMICOLON>")
    set_property(TEST e2e/${name} APPEND PROPERTY
      ENVIRONMENT SPARSE_RECOVERY_BACKEND=${backend})
    if(part STREQUAL "restart")
      set_property(TEST e2e/${name} APPEND PROPERTY
        ENVIRONMENT GRACELESS=false)
    endif()
  endforeach()
endforeach()

# (e) the reaper expires a client holding a lock (no courtesy) and the
# server is killed as soon as another client got the lock: the expired
# client's record must be gone (issue #18, patch 0057). Each backend; for
# sqlite the test holds the database locked meanwhile, so that a removal
# queued behind the release would still be in memory at the kill.
foreach(backend ${SPARSE_COURTESY_BACKENDS})
  if(backend STREQUAL "fs")
    set(name e2e_courtesy_reaper)
  else()
    set(name e2e_courtesy_reaper_${backend})
  endif()
  sparse_e2e_run(${name} e2e_courtesy ARGS reaper TIMEOUT 240
    HARNESS_ARGS --nfsv4-opts
    "Lease_Lifetime = 4$<SEMICOLON> Grace_Period = 60$<SEMICOLON> Expired_Client_Threshold = 0$<SEMICOLON>")
  set_property(TEST e2e/${name} APPEND PROPERTY
    ENVIRONMENT SPARSE_RECOVERY_BACKEND=${backend} GRACELESS=false)
endforeach()

# (e') sqlite: the database held 10 s past A's lease with Busy_Timeout_Ms
# = 500, so that the reaper's removal of A's record fails at several
# passes: A keeps its lock until a pass removes the record (issue #27
# item 5, patch 0052).
if("sqlite" IN_LIST SPARSE_COURTESY_BACKENDS)
  sparse_e2e_run(e2e_courtesy_reaper_busy_sqlite e2e_courtesy ARGS reaper
    TIMEOUT 240
    HARNESS_ARGS --nfsv4-opts
    "Lease_Lifetime = 4$<SEMICOLON> Grace_Period = 60$<SEMICOLON> Expired_Client_Threshold = 0$<SEMICOLON>"
    --conf-extra "SQLITE_RECOVERY { Busy_Timeout_Ms = 500$<SEMICOLON> }")
  set_property(TEST e2e/e2e_courtesy_reaper_busy_sqlite APPEND PROPERTY
    ENVIRONMENT SPARSE_RECOVERY_BACKEND=sqlite GRACELESS=false
                SPARSE_REAPER_HOLD_MS=10000)
endif()

# (f) an OPEN upgrade releasing an expired client races a CLOSE of the
# same open state (issue #18, patch 0055); the test holds the sqlite
# database to keep the release waiting, so sqlite only.
if("sqlite" IN_LIST SPARSE_COURTESY_BACKENDS)
  sparse_e2e_run(e2e_courtesy_race_sqlite e2e_courtesy ARGS race TIMEOUT 120
    HARNESS_ARGS --nfsv4-opts
    "Lease_Lifetime = 4$<SEMICOLON> Grace_Period = 60$<SEMICOLON>")
  set_property(TEST e2e/e2e_courtesy_race_sqlite APPEND PROPERTY
    ENVIRONMENT SPARSE_RECOVERY_BACKEND=sqlite)
endif()
