# SPDX-License-Identifier: LGPL-3.0-or-later
# Independent decoder: tshark's NFS dissector checks what goes on the wire.
add_test(NAME e2e/wire_check
         COMMAND ${SPARSE_HARNESS} -- ${CMAKE_CURRENT_SOURCE_DIR}/wire_check.sh)
set_tests_properties(e2e/wire_check PROPERTIES LABELS "e2e;wire" TIMEOUT 120
  ENVIRONMENT "SPARSE_STAGE=${GANESHA_PREFIX};SPARSE_NFS42=$<TARGET_FILE:nfs42>")
