# SPDX-License-Identifier: LGPL-3.0-or-later
# Script-driven e2e checks: the independent decoder (tshark's NFS
# dissector) and the serve command.
add_test(NAME e2e/wire_check
         COMMAND ${SPARSE_HARNESS} -- ${CMAKE_CURRENT_SOURCE_DIR}/wire_check.sh)
set_tests_properties(e2e/wire_check PROPERTIES LABELS "e2e;wire" TIMEOUT 120
  ENVIRONMENT "SPARSE_STAGE=${GANESHA_PREFIX};SPARSE_NFS42=$<TARGET_FILE:nfs42>")

# The serve command and the harness on bad input, and Ctrl-C.
add_test(NAME e2e/serve_check
         COMMAND ${SPARSE_HARNESS} -- ${CMAKE_CURRENT_SOURCE_DIR}/serve_check.sh)
set_tests_properties(e2e/serve_check PROPERTIES LABELS e2e TIMEOUT 180
  ENVIRONMENT "SPARSE_STAGE=${GANESHA_PREFIX};SPARSE_NFS42=$<TARGET_FILE:nfs42>")

# harness.sh killed with SIGKILL (ctest's timeout): no server outlives it,
# and the next harness removes its temporary directory.
add_test(NAME e2e/harness_kill_check
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/harness_kill_check.sh)
set_tests_properties(e2e/harness_kill_check PROPERTIES LABELS e2e TIMEOUT 120
  ENVIRONMENT "SPARSE_STAGE=${GANESHA_PREFIX}")

# The server without a message bus still serves; sparse-stats says so.
add_test(NAME e2e/nobus_check
         COMMAND ${SPARSE_HARNESS} -- ${CMAKE_CURRENT_SOURCE_DIR}/nobus_check.sh)
set_tests_properties(e2e/nobus_check PROPERTIES LABELS e2e TIMEOUT 60
  ENVIRONMENT "SPARSE_STAGE=${GANESHA_PREFIX};SPARSE_NFS42=$<TARGET_FILE:nfs42>")
