# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# Protocol-layer suites (src/Protocols/NFS, src/include, patches 0005...).
sparse_e2e_test(e2e_proto_copy_xdr
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_copy_xdr.c TIMEOUT 120)
