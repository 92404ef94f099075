# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# Unit suites of the SQLite recovery backend (issue #9): the client-record
# store and the group committer over it, Ganesha-free, built here on their
# own (Ganesha builds them into libganesha_sqlite_recov.so, patch 0050).

pkg_check_modules(SQLITE3 REQUIRED IMPORTED_TARGET sqlite3)
find_package(Threads REQUIRED)

sparse_unit_test(check_clientdb
  SOURCES ${CMAKE_SOURCE_DIR}/src/SAL/recovery/clientdb.c
          ${CMAKE_CURRENT_SOURCE_DIR}/check_clientdb.c
  INCLUDES ${CMAKE_SOURCE_DIR}/src/SAL/recovery
  LIBS PkgConfig::SQLITE3 Threads::Threads)

sparse_unit_test(check_clientdb_batch
  SOURCES ${CMAKE_SOURCE_DIR}/src/SAL/recovery/clientdb.c
          ${CMAKE_SOURCE_DIR}/src/SAL/recovery/clientdb_batch.c
          ${CMAKE_CURRENT_SOURCE_DIR}/check_clientdb_batch.c
  INCLUDES ${CMAKE_SOURCE_DIR}/src/SAL/recovery
  LIBS PkgConfig::SQLITE3 Threads::Threads)
