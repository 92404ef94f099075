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

# A suite built against Ganesha's configured headers and the patched
# libntirpc of the staging prefix; skipped (77) where those are missing.
function(sparse_ntirpc_unit_test name)
  if(EXISTS "${GANESHA_INCLUDE}/nfsv41.h"
     AND EXISTS "${GANESHA_CONFIG_INCLUDE}/config.h")
    sparse_unit_test(${name}
      SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${name}.c
      INCLUDES ${GANESHA_CONFIG_INCLUDE} ${GANESHA_INCLUDE}
               ${GANESHA_PREFIX}/include/ntirpc ${GANESHA_PREFIX}/include
      LIBS ${GANESHA_PREFIX}/lib/libntirpc.so Threads::Threads)
    target_compile_definitions(${name} PRIVATE _GNU_SOURCE)
    set_target_properties(${name} PROPERTIES
      BUILD_RPATH ${GANESHA_PREFIX}/lib)
  else()
    add_test(NAME unit/${name}
             COMMAND sh -c "echo 'Ganesha headers missing'; exit 77")
    set_tests_properties(unit/${name} PROPERTIES LABELS unit
                         SKIP_RETURN_CODE 77)
  endif()
endfunction()

# The server's READ_PLUS result XDR (nfsv42_sparse_xdr.h) through Ganesha's
# patched nfsv41.h.
sparse_ntirpc_unit_test(check_read_plus_xdr)

# libntirpc's back-channel calls on a closing connection (the ntirpc
# patch).
sparse_ntirpc_unit_test(check_ntirpc_callback)
set_tests_properties(unit/check_ntirpc_callback PROPERTIES ENVIRONMENT
  "LSAN_OPTIONS=suppressions=${CMAKE_SOURCE_DIR}/tests/sanitizers/lsan.supp")
