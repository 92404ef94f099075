# SPDX-License-Identifier: LGPL-3.0-or-later
# Copyright (C) 2026 The nfs-sparse authors
# End-to-end suites of FSAL_SPARSE (issue #3): every operation with its
# error cases, checked against the RFCs and the backing directory.  Each
# also runs against FSAL_VFS with SPARSE_E2E_FSAL=VFS.
set(fsal_e2e_dir ${CMAKE_CURRENT_SOURCE_DIR})
foreach(t e2e_fsal_namespace e2e_fsal_attrs e2e_fsal_open e2e_fsal_io
          e2e_fsal_sparse e2e_fsal_handles)
  sparse_e2e_test(${t} SOURCES ${fsal_e2e_dir}/${t}.c TIMEOUT 120)
endforeach()
# a deleted file's handle once a new file got its inode number: skipped
# when the backing filesystem does not reuse inode numbers
sparse_e2e_run(e2e_fsal_handles_inode_reuse e2e_fsal_handles
  ARGS inode_reuse TIMEOUT 120)
# credentials other than root only mean something when we are root (and
# FSAL_SPARSE's server does not start without root): skipped otherwise
sparse_e2e_test(e2e_fsal_perms SOURCES ${fsal_e2e_dir}/e2e_fsal_perms.c
  TIMEOUT 120 HARNESS_ARGS --needs-root)
# Undoing a failed create (e2e_fsal_namespace undo): an update latency
# interleaves a local rename with the create (see the test), as root;
# $<SEMICOLON> keeps the config's ';' in one argument.
sparse_e2e_run(e2e_fsal_namespace_undo e2e_fsal_namespace ARGS undo
  TIMEOUT 120 HARNESS_ARGS --needs-root --fsal-opts
  "Test_Hooks { Metadata_Latency_Ms = 1000$<SEMICOLON> Latency_Scope = UPDATES$<SEMICOLON> }")


# Several exports at once: a fixture (run first by ctest) makes
# fsal-exports/top and top/sub in the build tree and writes two more EXPORT
# blocks for the FSAL under test (SPARSE_E2E_FSAL, default SPARSE), which
# the harness pulls in with --conf-extra "%include ...".  Config text goes
# through a file: a ';' would split a CMake argument.
set(fsal_exports_dir ${CMAKE_CURRENT_BINARY_DIR}/fsal-exports)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/fsal-exports-setup.sh [[#!/bin/sh
# fsal-exports-setup.sh DIR: backing dirs + EXPORT blocks for e2e_fsal_exports
set -eu
d=$1
fsal=${SPARSE_E2E_FSAL:-SPARSE}
rm -rf "$d"
mkdir -p "$d/top/sub"
cat >"$d/exports.conf" <<CONF
EXPORT {
	Export_Id = 2;
	Path = "$d/top";
	Pseudo = "/second";
	UseCookieVerifier = true;
	FSAL { Name = $fsal; }
}
EXPORT {
	Export_Id = 3;
	Path = "$d/top/sub";
	Pseudo = "/subexp";
	FSAL { Name = $fsal; }
}
CONF
]])
add_test(NAME e2e/e2e_fsal_exports_setup
         COMMAND sh ${CMAKE_CURRENT_BINARY_DIR}/fsal-exports-setup.sh
                 ${fsal_exports_dir})
set_tests_properties(e2e/e2e_fsal_exports_setup PROPERTIES
  LABELS e2e FIXTURES_SETUP fsal_exports)
sparse_e2e_test(e2e_fsal_exports
  SOURCES ${fsal_e2e_dir}/e2e_fsal_exports.c TIMEOUT 120
  HARNESS_ARGS --conf-extra "%include \"${fsal_exports_dir}/exports.conf\"")
target_compile_definitions(e2e_fsal_exports PRIVATE
  E2E_EXPORTS_DIR="${fsal_exports_dir}")
set_tests_properties(e2e/e2e_fsal_exports PROPERTIES
  FIXTURES_REQUIRED fsal_exports)

# A tmpfs export (harness --export-tmpfs: root, a private mount namespace)
# with MDCACHE's dirent cache off, so READDIR cookies reach the FSAL: a
# listing resumed after a removed entry must go on, not start over.
sparse_e2e_test(e2e_fsal_tmpfs
  SOURCES ${fsal_e2e_dir}/e2e_fsal_tmpfs.c TIMEOUT 60
  HARNESS_ARGS --needs-root --export-tmpfs
    --conf-extra "MDCACHE { Dir_Chunk = 0$<SEMICOLON> }")
# Issue #32's ENOSPC point: ALLOCATE of all but 64 KiB of a 16 MiB tmpfs
# export (under the open stateid, then a write delegation's), then a
# WRITE to another file: NFS4ERR_NOSPC, as knfsd.
sparse_e2e_run(e2e_fsal_tmpfs_enospc e2e_fsal_tmpfs ARGS enospc TIMEOUT 60
  HARNESS_ARGS --needs-root --export-tmpfs
    --nfsv4-opts "Delegations = true$<SEMICOLON> Lease_Lifetime = 20$<SEMICOLON>"
    --export-opts "Delegations = RW$<SEMICOLON>")
# The attribute suite with the export on a tmpfs: a directory's ctime there
# does not move on a REMOVE within one clock tick (it takes the removed
# file's time), which the change attribute must still show.
sparse_e2e_run(e2e_fsal_attrs_tmpfs e2e_fsal_attrs TIMEOUT 120
  HARNESS_ARGS --needs-root --export-tmpfs)
