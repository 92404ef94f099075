# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# Unit suite of the client-record store under the SQLite recovery backend
# (issue #9). Not yet built into Ganesha: only this test links it.

pkg_check_modules(SQLITE3 REQUIRED IMPORTED_TARGET sqlite3)

sparse_unit_test(check_sparse_recdb
  SOURCES ${CMAKE_SOURCE_DIR}/src/SAL/recovery/sparse_recdb.c
          ${CMAKE_CURRENT_SOURCE_DIR}/check_sparse_recdb.c
  INCLUDES ${CMAKE_SOURCE_DIR}/src/SAL/recovery
  LIBS PkgConfig::SQLITE3)
