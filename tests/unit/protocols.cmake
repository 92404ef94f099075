# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# Unit suites of the protocol layer's pure helpers (src/Protocols/NFS/).

sparse_unit_test(check_read_plus_plan
  SOURCES ${CMAKE_SOURCE_DIR}/src/Protocols/NFS/nfs42_read_plus_plan.c
          ${CMAKE_CURRENT_SOURCE_DIR}/check_read_plus_plan.c
  INCLUDES ${CMAKE_SOURCE_DIR}/src/Protocols/NFS)

sparse_unit_test(check_copy_plan
  SOURCES ${CMAKE_SOURCE_DIR}/src/Protocols/NFS/nfs42_copy_plan.c
          ${CMAKE_CURRENT_SOURCE_DIR}/check_copy_plan.c
  INCLUDES ${CMAKE_SOURCE_DIR}/src/Protocols/NFS)
# The per-export NFSv4.2 counters (inline in src/include/nfs42_stats.h).
find_package(Threads REQUIRED)
sparse_unit_test(check_nfs42_stats
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_nfs42_stats.c
  INCLUDES ${CMAKE_SOURCE_DIR}/src/include
  LIBS Threads::Threads)
