# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# Protocol-layer suites (src/Protocols/NFS, src/include, patches 0005...).
sparse_e2e_test(e2e_proto_copy_xdr
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_copy_xdr.c TIMEOUT 120)

# CLONE (issue #8): an XFS filesystem with reflink on a loop device as a
# second export (skipped with the reason where it cannot be made), and the
# harness's own export on ext4, which cannot share blocks.
set(clonefs_dir ${CMAKE_CURRENT_BINARY_DIR}/clonefs)
sparse_e2e_test(e2e_proto_clone
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_clone.c
  TIMEOUT 180
  HARNESS_ARGS --conf-extra "%include \"${clonefs_dir}/exports.conf\"")
target_compile_definitions(e2e_proto_clone PRIVATE
  E2E_CLONEFS_DIR="${clonefs_dir}")
sparse_loop_fixture(e2e_proto_clone clonefs clonefs-setup.sh)

# READ_PLUS (issue #7) on FSAL_SPARSE (its read_plus slot) and on FSAL_VFS
# (the protocol layer's seek2/read2 fallback), with two more exports of
# directories made here: READ_PLUS = false, READ_PLUS_Holes = false, and
# READ_PLUS_Min_Hole = 16384.
set(rpcfg_dir ${CMAKE_CURRENT_BINARY_DIR}/rpcfg)
file(MAKE_DIRECTORY ${rpcfg_dir}/off ${rpcfg_dir}/noholes ${rpcfg_dir}/fold)
file(WRITE ${rpcfg_dir}/exports.conf "EXPORT {
	Export_Id = 71;
	Path = \"${rpcfg_dir}/off\";
	Pseudo = \"/rp_off\";
	READ_PLUS = false;
	FSAL { Name = VFS; }
}
EXPORT {
	Export_Id = 72;
	Path = \"${rpcfg_dir}/noholes\";
	Pseudo = \"/rp_noholes\";
	READ_PLUS_Holes = false;
	FSAL { Name = VFS; }
}
EXPORT {
	Export_Id = 73;
	Path = \"${rpcfg_dir}/fold\";
	Pseudo = \"/rp_fold\";
	READ_PLUS_Min_Hole = 16384;
	FSAL { Name = VFS; }
}
")
sparse_e2e_test(e2e_proto_read_plus
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_read_plus.c
  TIMEOUT 240
  HARNESS_ARGS --needs-root
               --conf-extra "%include \"${rpcfg_dir}/exports.conf\"")
target_compile_definitions(e2e_proto_read_plus PRIVATE
  E2E_RPCFG_DIR="${rpcfg_dir}")
target_link_libraries(e2e_proto_read_plus PRIVATE pthread)
sparse_e2e_run(e2e_proto_read_plus_vfs e2e_proto_read_plus TIMEOUT 240
  HARNESS_ARGS --needs-root --fsal VFS
               --conf-extra "%include \"${rpcfg_dir}/exports.conf\"")

# READ_PLUS on FSAL_MEM (no read_plus slot, no seek2): one data segment.
add_test(NAME e2e/read_plus_mem_check
         COMMAND ${SPARSE_HARNESS} --fsal MEM --
                 ${CMAKE_CURRENT_SOURCE_DIR}/read_plus_mem_check.sh)
set_tests_properties(e2e/read_plus_mem_check PROPERTIES LABELS e2e
  TIMEOUT 120 SKIP_RETURN_CODE 77
  ENVIRONMENT "SPARSE_STAGE=${GANESHA_PREFIX};SPARSE_NFS42=$<TARGET_FILE:nfs42>")
