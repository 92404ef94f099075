# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# End-to-end suites of the nfs42c client library and CLI (tools/); the
# CLI's suites go by the verb groups of tools/cli/ (e2e_cli_util.h).
foreach(t e2e_client_basic e2e_client_readdir e2e_client_transport
          e2e_cli_core e2e_cli_info e2e_cli_read e2e_cli_put e2e_cli_names
          e2e_cli_copy e2e_cli_xattr)
  sparse_e2e_test(${t} SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c)
endforeach()
# layout: a metadata server with two data servers
sparse_e2e_test(e2e_cli_layout
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_cli_layout.c
  HARNESS_ARGS --pnfs 2)
