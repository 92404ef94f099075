# SPDX-License-Identifier: LGPL-3.0-or-later
# Script-driven e2e checks: the independent decoder (tshark's NFS
# dissector) and the serve command.
add_test(NAME e2e/wire_check
         COMMAND ${SPARSE_HARNESS} -- ${CMAKE_CURRENT_SOURCE_DIR}/wire_check.sh)
set_tests_properties(e2e/wire_check PROPERTIES LABELS "e2e;wire" TIMEOUT 120
  ENVIRONMENT "SPARSE_STAGE=${GANESHA_PREFIX};SPARSE_NFS42=$<TARGET_FILE:nfs42>")

# The NFSv4.2 part (wire_check_v42.sh): READ_PLUS layouts, OFFLOAD_STATUS
# and OFFLOAD_CANCEL of async copies slowed to 100 ms per 1 MiB chunk;
# then CLONE and clone_blksize on an XFS reflink fixture of its own.
add_executable(wire_client ${CMAKE_CURRENT_SOURCE_DIR}/wire_client.c)
target_link_libraries(wire_client PRIVATE nfs42c)
set(wire_env "SPARSE_STAGE=${GANESHA_PREFIX};SPARSE_NFS42=$<TARGET_FILE:nfs42>;SPARSE_WIRE_CLIENT=$<TARGET_FILE:wire_client>")
add_test(NAME e2e/wire_check_v42
         COMMAND ${SPARSE_HARNESS}
                 --nfsv4-opts "Copy_Chunk_Size = 1048576$<SEMICOLON> Test_Hooks { Copy_Chunk_Delay_Ms = 100$<SEMICOLON> }"
                 -- ${CMAKE_CURRENT_SOURCE_DIR}/wire_check_v42.sh)
set_tests_properties(e2e/wire_check_v42 PROPERTIES LABELS "e2e;wire"
  TIMEOUT 120 ENVIRONMENT "${wire_env}")
set(wirefs_dir ${CMAKE_CURRENT_BINARY_DIR}/wirefs)
add_test(NAME e2e/wire_check_clone
         COMMAND ${SPARSE_HARNESS}
                 --conf-extra "%include \"${wirefs_dir}/exports.conf\""
                 -- ${CMAKE_CURRENT_SOURCE_DIR}/wire_check_v42.sh clone ${wirefs_dir})
set_tests_properties(e2e/wire_check_clone PROPERTIES LABELS "e2e;wire"
  TIMEOUT 120 ENVIRONMENT "${wire_env}")
sparse_loop_fixture(wire_check_clone wirefs clonefs-setup.sh)

# The serve command and the harness on bad input, and Ctrl-C.
add_test(NAME e2e/serve_check
         COMMAND ${SPARSE_HARNESS} -- ${CMAKE_CURRENT_SOURCE_DIR}/serve_check.sh)
set_tests_properties(e2e/serve_check PROPERTIES LABELS e2e TIMEOUT 180
  ENVIRONMENT "SPARSE_STAGE=${GANESHA_PREFIX};SPARSE_NFS42=$<TARGET_FILE:nfs42>;SPARSE_RPCB_STUB=$<TARGET_FILE:rpcb_stub>")

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

# RFC 8276 xattr ops as the dissector sees them (issue #11)
add_test(NAME e2e/wire_check_xattr
         COMMAND ${SPARSE_HARNESS} -- ${CMAKE_CURRENT_SOURCE_DIR}/wire_check_xattr.sh)
set_tests_properties(e2e/wire_check_xattr PROPERTIES LABELS "e2e;wire"
  TIMEOUT 120 SKIP_RETURN_CODE 77
  ENVIRONMENT "SPARSE_STAGE=${GANESHA_PREFIX};SPARSE_NFS42=$<TARGET_FILE:nfs42>")

# TEST-ONLY settings (FSAL_SPARSE's Test_Hooks block, the NFSv4 block's
# Test_Hooks block) are logged as warnings at startup (issue #21)
add_test(NAME e2e/test_hooks_check
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/test_hooks_check.sh)
set_tests_properties(e2e/test_hooks_check PROPERTIES LABELS e2e TIMEOUT 180
  ENVIRONMENT "SPARSE_STAGE=${GANESHA_PREFIX}")

# A malformed handle key on an export root: the export is refused, the
# key left as found (issue #27 item 5)
add_test(NAME e2e/handle_key_refuse
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/handle_key_refuse.sh)
set_tests_properties(e2e/handle_key_refuse PROPERTIES LABELS e2e TIMEOUT 180
  SKIP_RETURN_CODE 77
  ENVIRONMENT "SPARSE_STAGE=${GANESHA_PREFIX};SPARSE_NFS42=$<TARGET_FILE:nfs42>")

# serve.sh's servers each own org.ganesha.nfsd on a bus of their own (one
# sparse-stats command per head), a second server for the name on a shared
# bus is refused, and a healthy start and reload log nothing above EVENT
# (issue #28), on ext4 filesystems with a UUID (the multifs fixture's)
set(serveheadsfs_dir ${CMAKE_CURRENT_BINARY_DIR}/serveheadsfs)
add_test(NAME e2e/serve_heads_check
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/serve_heads_check.sh ${serveheadsfs_dir})
set_tests_properties(e2e/serve_heads_check PROPERTIES LABELS e2e TIMEOUT 180
  ENVIRONMENT "SPARSE_STAGE=${GANESHA_PREFIX};SPARSE_NFS42=$<TARGET_FILE:nfs42>")
sparse_loop_fixture(serve_heads_check serveheadsfs multifs-setup.sh)

# The sample configuration's commented examples (pNFS, a second export)
# work once uncommented as they say (issue #28)
add_test(NAME e2e/sample_conf_check
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/sample_conf_check.sh)
set_tests_properties(e2e/sample_conf_check PROPERTIES LABELS e2e TIMEOUT 120
  ENVIRONMENT "SPARSE_STAGE=${GANESHA_PREFIX};SPARSE_NFS42=$<TARGET_FILE:nfs42>")
