# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# Unit suites of the protocol layer's pure helpers (src/Protocols/NFS/).

sparse_unit_test(check_read_plus_plan
  SOURCES ${CMAKE_SOURCE_DIR}/src/Protocols/NFS/nfs42_read_plus_plan.c
          ${CMAKE_CURRENT_SOURCE_DIR}/check_read_plus_plan.c
  INCLUDES ${CMAKE_SOURCE_DIR}/src/Protocols/NFS ${CMAKE_SOURCE_DIR}/src/include)

sparse_unit_test(check_copy_plan
  SOURCES ${CMAKE_SOURCE_DIR}/src/Protocols/NFS/nfs42_copy_plan.c
          ${CMAKE_CURRENT_SOURCE_DIR}/check_copy_plan.c
  INCLUDES ${CMAKE_SOURCE_DIR}/src/Protocols/NFS ${CMAKE_SOURCE_DIR}/src/include)
# The per-export NFSv4.2 counters (inline in src/include/nfs42_stats.h).
find_package(Threads REQUIRED)
sparse_unit_test(check_nfs42_stats
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_nfs42_stats.c
  INCLUDES ${CMAKE_SOURCE_DIR}/src/include
  LIBS Threads::Threads)

# The server's READ_PLUS result XDR (nfsv42_sparse_xdr.h) through Ganesha's
# patched nfsv41.h, against libntirpc from the staging prefix.
if(EXISTS "${GANESHA_INCLUDE}/nfsv41.h"
   AND EXISTS "${GANESHA_CONFIG_INCLUDE}/config.h")
  sparse_unit_test(check_read_plus_xdr
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_read_plus_xdr.c
    INCLUDES ${GANESHA_CONFIG_INCLUDE} ${GANESHA_INCLUDE}
             ${GANESHA_PREFIX}/include/ntirpc ${GANESHA_PREFIX}/include
    LIBS ${GANESHA_PREFIX}/lib/libntirpc.so)
  target_compile_definitions(check_read_plus_xdr PRIVATE _GNU_SOURCE)
  set_target_properties(check_read_plus_xdr PROPERTIES
    BUILD_RPATH ${GANESHA_PREFIX}/lib)
else()
  add_test(NAME unit/check_read_plus_xdr
           COMMAND sh -c "echo 'Ganesha headers missing'; exit 77")
  set_tests_properties(unit/check_read_plus_xdr PROPERTIES LABELS unit
                       SKIP_RETURN_CODE 77)
endif()
