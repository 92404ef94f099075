# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# Unit suites of the nfs42c client library (tools/).
foreach(t nfs42_xdr nfs42_ops nfs42_rpc)
  sparse_unit_test(check_${t}
    SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/check_${t}.c
    LIBS nfs42c
    INCLUDES ${NFS42C_PRIVATE_INCLUDE} ${CMAKE_CURRENT_SOURCE_DIR})
endforeach()
