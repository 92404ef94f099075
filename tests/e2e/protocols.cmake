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

# Synchronous COPY (issue #8): FSAL_SPARSE on the harness's ext4 export
# (copy_file_range) and on a second XFS reflink fixture (clone path), with
# the time budget off so that the default 4 MiB cap alone cuts replies;
# FSAL_VFS (no copy of its own: the generic read2/write2 loop); replies cut
# by a 1 ms time budget alone; no cap and no budget (one reply); FSAL_MEM
# (generic loop, files made over NFS) with a 1 MiB cap.
# $<SEMICOLON> keeps the config's ";" in one argument.
set(copyfs_dir ${CMAKE_CURRENT_BINARY_DIR}/copyfs)
sparse_e2e_test(e2e_proto_copy
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_copy.c
  TIMEOUT 300
  HARNESS_ARGS --nfsv4-opts "Copy_Time_Budget_Ms = 0$<SEMICOLON>"
               --conf-extra "%include \"${copyfs_dir}/exports.conf\"")
target_compile_definitions(e2e_proto_copy PRIVATE
  E2E_COPYFS_DIR="${copyfs_dir}")
sparse_loop_fixture(e2e_proto_copy copyfs clonefs-setup.sh)
sparse_e2e_run(e2e_proto_copy_vfs e2e_proto_copy ARGS vfs TIMEOUT 300
  HARNESS_ARGS --fsal VFS --nfsv4-opts "Copy_Time_Budget_Ms = 0$<SEMICOLON>")
sparse_e2e_run(e2e_proto_copy_budget e2e_proto_copy ARGS budget TIMEOUT 120
  HARNESS_ARGS --nfsv4-opts "Copy_Chunk_Size = 0$<SEMICOLON> Copy_Time_Budget_Ms = 1$<SEMICOLON>")
sparse_e2e_run(e2e_proto_copy_nocap e2e_proto_copy ARGS nocap TIMEOUT 120
  HARNESS_ARGS --nfsv4-opts "Copy_Chunk_Size = 0$<SEMICOLON> Copy_Time_Budget_Ms = 0$<SEMICOLON>")
# FSAL_MEM's asynchronous mode (Async_Type = fixed) stops Ganesha 6.5 on
# a plain WRITE (destroy_fsal_fd: "Error 16, Destroy mutex"), so MEM runs
# inline here.
sparse_e2e_run(e2e_proto_copy_mem e2e_proto_copy ARGS mem TIMEOUT 120
  HARNESS_ARGS --fsal MEM
  --nfsv4-opts "Copy_Chunk_Size = 1048576$<SEMICOLON> Copy_Time_Budget_Ms = 0$<SEMICOLON>"
  --conf-extra "MEM { Inode_Size = 2097152$<SEMICOLON> }")
# Copy_Engine = COPY on a third XFS reflink fixture: the engine never
# clones, so a COPY is capped like on ext4.
set(copyfs_engine_dir ${CMAKE_CURRENT_BINARY_DIR}/copyfs_engine)
sparse_e2e_run(e2e_proto_copy_engine e2e_proto_copy
  ARGS engine ${copyfs_engine_dir} TIMEOUT 120
  HARNESS_ARGS --nfsv4-opts "Copy_Time_Budget_Ms = 0$<SEMICOLON>"
  --conf-extra "%include \"${copyfs_engine_dir}/exports.conf\"")
sparse_loop_fixture(e2e_proto_copy_engine copyfs_engine clonefs-setup.sh)
set_tests_properties(e2e/e2e_proto_copy_engine_setup PROPERTIES
  ENVIRONMENT CLONEFS_COPY_ENGINE=COPY)
# Statistics (issues #7, #8): CLONEs on two XFS exports (statsfs-setup.sh)
# and on ext4, read with tools/sparse-stats over a private DBus.
set(statsfs_dir ${CMAKE_CURRENT_BINARY_DIR}/statsfs)
add_test(NAME e2e/e2e_proto_stats
         COMMAND ${SPARSE_HARNESS} --dbus
                 --conf-extra "%include \"${statsfs_dir}/exports.conf\""
                 -- ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_stats.sh ${statsfs_dir})
set_tests_properties(e2e/e2e_proto_stats PROPERTIES LABELS e2e TIMEOUT 120
  ENVIRONMENT "SPARSE_STAGE=${GANESHA_PREFIX};SPARSE_NFS42=$<TARGET_FILE:nfs42>")
sparse_loop_fixture(e2e_proto_stats statsfs statsfs-setup.sh)

# clone_blksize (attribute 77) on ext4 and on the XFS export of the CLONE
# fixture (shared with e2e_proto_clone).
sparse_e2e_test(e2e_proto_clone_blksize
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_clone_blksize.c
  TIMEOUT 60
  HARNESS_ARGS --conf-extra "%include \"${clonefs_dir}/exports.conf\"")
target_compile_definitions(e2e_proto_clone_blksize PRIVATE
  E2E_CLONEFS_DIR="${clonefs_dir}")
set_tests_properties(e2e/e2e_proto_clone_blksize PROPERTIES
  FIXTURES_REQUIRED clonefs)

# Asynchronous COPY (issue #8): 1 MiB chunks and a test-only delay after
# each chunk of an async copy so that a copy can be watched, cancelled and
# abandoned; the "slow" run (copies outlast its 4 s lease) covers clients
# that go away and server shutdown.
set(copy_async_opts
  "Copy_Chunk_Size = 1048576$<SEMICOLON> Copy_Async_Max_Per_Client = 2$<SEMICOLON>")
sparse_e2e_test(e2e_proto_copy_async
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_copy_async.c
  TIMEOUT 180
  HARNESS_ARGS --nfsv4-opts "${copy_async_opts} Test_Hooks { Copy_Chunk_Delay_Ms = 10$<SEMICOLON> }")
sparse_e2e_run(e2e_proto_copy_async_slow e2e_proto_copy_async ARGS slow
  TIMEOUT 180
  HARNESS_ARGS --nfsv4-opts "${copy_async_opts} Test_Hooks { Copy_Chunk_Delay_Ms = 100$<SEMICOLON> } Lease_Lifetime = 4$<SEMICOLON>")
# The job bound to its caller (issue #17): with read delegations granted,
# so that one of a copy's destination could be, were the copy not counted
# as a writer.
sparse_e2e_run(e2e_proto_copy_async_deleg e2e_proto_copy_async ARGS deleg
  TIMEOUT 120
  HARNESS_ARGS --nfsv4-opts "${copy_async_opts} Test_Hooks { Copy_Chunk_Delay_Ms = 10$<SEMICOLON> } Delegations = true$<SEMICOLON>"
               --export-opts "Delegations = Read$<SEMICOLON>")

# READ_PLUS (issue #7) on FSAL_SPARSE (its read_plus slot) and on FSAL_VFS
# (the protocol layer's seek2/read2 fallback), with more exports of
# directories made here: READ_PLUS = false, READ_PLUS_Holes = false, and
# READ_PLUS_Min_Hole = 16384 on FSAL_VFS and on FSAL_SPARSE, and the old
# name of that knob, FSAL_SPARSE's Min_Hole_Size (issue #17).
set(rpcfg_dir ${CMAKE_CURRENT_BINARY_DIR}/rpcfg)
file(MAKE_DIRECTORY ${rpcfg_dir}/off ${rpcfg_dir}/noholes ${rpcfg_dir}/fold
     ${rpcfg_dir}/fold_sparse ${rpcfg_dir}/fold_oldname)
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
EXPORT {
	Export_Id = 74;
	Path = \"${rpcfg_dir}/fold_sparse\";
	Pseudo = \"/rp_fold_sparse\";
	READ_PLUS_Min_Hole = 16384;
	FSAL { Name = SPARSE; }
}
EXPORT {
	Export_Id = 75;
	Path = \"${rpcfg_dir}/fold_oldname\";
	Pseudo = \"/rp_fold_oldname\";
	FSAL { Name = SPARSE; Min_Hole_Size = 16384; }
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

# RFC 8276 extended attributes (issue #11): FSAL_SPARSE's user. namespace,
# other uids (needs root, skipped otherwise), and a read-only export made
# by a fixture (xattr-ro-setup.sh) next to the harness's own.
set(xattr_ro_dir ${CMAKE_CURRENT_BINARY_DIR}/xattr-ro)
add_test(NAME e2e/e2e_proto_xattr_setup
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/xattr-ro-setup.sh
                 ${xattr_ro_dir})
set_tests_properties(e2e/e2e_proto_xattr_setup PROPERTIES
  LABELS e2e FIXTURES_SETUP xattr_ro)
sparse_e2e_test(e2e_proto_xattr
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_xattr.c
  TIMEOUT 120
  HARNESS_ARGS --needs-root
               --conf-extra "%include \"${xattr_ro_dir}/exports.conf\"")
target_compile_definitions(e2e_proto_xattr PRIVATE
  E2E_XATTR_RO_DIR="${xattr_ro_dir}")
set_tests_properties(e2e/e2e_proto_xattr PROPERTIES
  FIXTURES_REQUIRED xattr_ro)
# Session-layer fixes (issue #11, patches 0080-0082): fore channel limits
# checked in SEQUENCE, RPCSEC_GSS in csa_sec_parms; and, with a 3 s lease,
# an unconfirmed clientid going stale.
find_package(Threads REQUIRED)
sparse_e2e_test(e2e_proto_session
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_session.c TIMEOUT 120
  LIBS Threads::Threads)
# BACKCHANNEL_CTL racing BIND_CONN_TO_SESSION (issue #27 item 2): meant
# for ./scripts/test.sh --asan, where a read of freed callback security
# parameters stops the server.
sparse_e2e_run(e2e_proto_session_bcrace e2e_proto_session ARGS bcrace
  TIMEOUT 120)
sparse_e2e_run(e2e_proto_session_lease e2e_proto_session ARGS lease 3
  TIMEOUT 120 HARNESS_ARGS --nfsv4-opts "Lease_Lifetime = 3$<SEMICOLON>")
# An empty client owner in EXCHANGE_ID or SETCLIENTID is NFS4ERR_BADXDR
# (patch 0191, the in-process fuzzer's first finding); NFSv4.0 on.
sparse_e2e_run(e2e_proto_session_owner e2e_proto_session ARGS owner
  TIMEOUT 120)
set_property(TEST e2e/e2e_proto_session_owner APPEND PROPERTY ENVIRONMENT
  "SPARSE_MINOR_VERSIONS=0, 1, 2")
# The same program under a tshark capture (wire_check_session.sh): every
# frame decodes, GSS offers included; the errors have RFC 8881's shape.
add_test(NAME e2e/wire_check_session
         COMMAND ${SPARSE_HARNESS} -- ${CMAKE_CURRENT_SOURCE_DIR}/wire_check_session.sh
                 $<TARGET_FILE:e2e_proto_session>)
set_tests_properties(e2e/wire_check_session PROPERTIES LABELS "e2e;wire"
  TIMEOUT 120 ENVIRONMENT
  "SPARSE_STAGE=${GANESHA_PREFIX};SPARSE_NFS42=$<TARGET_FILE:nfs42>")
# Read delegations on FSAL_SPARSE (issue #11): Linux leases under
# lease_op2, CB_RECALL, DELEGRETURN, revocation.  A 5 s lease keeps the
# revocation test short; the second run exports with Delegations = None.
find_package(Threads REQUIRED)
set(deleg_nfsv4_opts "Delegations = true$<SEMICOLON> Lease_Lifetime = 5$<SEMICOLON>")
sparse_e2e_test(e2e_proto_deleg
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_deleg.c
  LIBS Threads::Threads
  TIMEOUT 180
  HARNESS_ARGS --nfsv4-opts "${deleg_nfsv4_opts}"
               --export-opts "Delegations = Read$<SEMICOLON>")
sparse_e2e_run(e2e_proto_deleg_none e2e_proto_deleg ARGS none
  TIMEOUT 60
  HARNESS_ARGS --nfsv4-opts "${deleg_nfsv4_opts}"
               --export-opts "Delegations = None$<SEMICOLON>")
# A DELEGRETURN racing the revocation of the same delegation (patch 0091
# counts only what it revoked); the return is held up by a test stall.
sparse_e2e_run(e2e_proto_deleg_returned e2e_proto_deleg ARGS returned
  TIMEOUT 120
  HARNESS_ARGS --nfsv4-opts "${deleg_nfsv4_opts}"
               --export-opts "Delegations = Read$<SEMICOLON>"
               --fsal-opts "Test_Hooks { Stall_Dir = @STALL_DIR@$<SEMICOLON> Stall_Ms = 8000$<SEMICOLON> }")
# RemoveExport over DBus while a delegation is held: its lease goes with
# the deleted state (issue #18).
sparse_e2e_run(e2e_proto_deleg_unexport e2e_proto_deleg ARGS unexport
  TIMEOUT 120
  HARNESS_ARGS --dbus --nfsv4-opts "${deleg_nfsv4_opts}"
               --export-opts "Delegations = Read$<SEMICOLON>")
# Write delegations on FSAL_SPARSE (issue #18 item 6): a write lease on
# the holder's open file description, recalled by any other open, local
# or through NFS.
sparse_e2e_test(e2e_proto_wdeleg
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_wdeleg.c
  LIBS Threads::Threads
  TIMEOUT 180
  HARNESS_ARGS --nfsv4-opts "${deleg_nfsv4_opts}"
               --export-opts "Delegations = RW$<SEMICOLON>")
# Delegated timestamps (RFC 9754 section 5, issue #30 item 1): the
# ATTRS_DELEG delegation types for an NFSv4.2 OPEN that wants them.
sparse_e2e_test(e2e_proto_deleg_ts
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_deleg_ts.c
  LIBS Threads::Threads
  TIMEOUT 120
  HARNESS_ARGS --nfsv4-opts "${deleg_nfsv4_opts}"
               --export-opts "Delegations = RW$<SEMICOLON>")
# ... and on an export granting read delegations only: not advertised,
# the want ignored.
sparse_e2e_run(e2e_proto_deleg_ts_readdeleg e2e_proto_deleg_ts ARGS readdeleg
  TIMEOUT 60
  HARNESS_ARGS --nfsv4-opts "${deleg_nfsv4_opts}"
               --export-opts "Delegations = Read$<SEMICOLON>")
# ... and on an export granting none: neither they nor OPEN_XOR_DELEGATION
# advertised, an open stateid for an OPEN that wants both.
sparse_e2e_run(e2e_proto_deleg_ts_nodeleg e2e_proto_deleg_ts ARGS nodeleg
  TIMEOUT 60
  HARNESS_ARGS --nfsv4-opts "${deleg_nfsv4_opts}"
               --export-opts "Delegations = None$<SEMICOLON>")
# OPEN's delegation claims (issue #27 item 1): only the caller's own
# delegation on the file lets CLAIM_DELEGATE_CUR / CLAIM_DELEG_CUR_FH
# through; NFSv4.0 on for its CLAIM_DELEGATE_CUR.
sparse_e2e_test(e2e_proto_deleg_claim
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_deleg_claim.c
  LIBS Threads::Threads
  TIMEOUT 120
  HARNESS_ARGS --nfsv4-opts "${deleg_nfsv4_opts}"
               --export-opts "Delegations = RW$<SEMICOLON>")
set_property(TEST e2e/e2e_proto_deleg_claim APPEND PROPERTY ENVIRONMENT
  "SPARSE_MINOR_VERSIONS=0, 1, 2")
# No write delegation while lease-break-time is shorter than Ganesha may
# take to revoke (2 x Lease_Lifetime).
sparse_e2e_run(e2e_proto_wdeleg_shortbreak e2e_proto_wdeleg ARGS shortbreak
  TIMEOUT 60
  HARNESS_ARGS --nfsv4-opts "Delegations = true$<SEMICOLON> Lease_Lifetime = 30$<SEMICOLON>"
               --export-opts "Delegations = RW$<SEMICOLON>")
# tshark decodes the delegation, CB_RECALL and DELEGRETURN.
add_test(NAME e2e/wire_check_deleg
         COMMAND ${SPARSE_HARNESS} --nfsv4-opts "${deleg_nfsv4_opts}"
                 --export-opts "Delegations = Read$<SEMICOLON>"
                 -- ${CMAKE_CURRENT_SOURCE_DIR}/wire_check_deleg.sh)
set_tests_properties(e2e/wire_check_deleg PROPERTIES LABELS "e2e;wire"
  TIMEOUT 120 ENVIRONMENT
  "SPARSE_STAGE=${GANESHA_PREFIX};SPARSE_NFS42=$<TARGET_FILE:nfs42>;SPARSE_DELEG_CLIENT=$<TARGET_FILE:e2e_proto_deleg>")

# READDIR replies up to the client's maxcount, with the Linux client's
# requests (patch 0130; issue #19: rm -r and ls -lR against knfsd)
sparse_e2e_test(e2e_proto_readdir
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_readdir.c TIMEOUT 120)
sparse_e2e_run(e2e_proto_readdir_capped e2e_proto_readdir ARGS capped
  TIMEOUT 120
  HARNESS_ARGS --core-opts "Readdir_Res_Size = 32768$<SEMICOLON>")
# NFSv3 COMMIT of a directory or a symbolic link is refused before the
# FSAL (patch 0192; the in-process fuzzer's finding that stopped the
# server), on FSAL_SPARSE and FSAL_VFS.
sparse_e2e_test(e2e_proto_nfs3_commit
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_nfs3_commit.c
          ${CMAKE_CURRENT_SOURCE_DIR}/nfs3_test.c
  TIMEOUT 120 HARNESS_ARGS --needs-root --protocols "3, 4")
sparse_e2e_run(e2e_proto_nfs3_commit_vfs e2e_proto_nfs3_commit
  TIMEOUT 120 HARNESS_ARGS --needs-root --protocols "3, 4" --fsal VFS)
# Whose stateid it is (issue #27 item 6, fuzz_stateful's findings):
# another client's stateid over a session, DELEGRETURN of an open stateid
# (patches 0099, 0169).
sparse_e2e_test(e2e_proto_stateid_scope
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_stateid_scope.c
  TIMEOUT 120
  HARNESS_ARGS --nfsv4-opts "${deleg_nfsv4_opts}"
               --export-opts "Delegations = RW$<SEMICOLON>")
# A state freed after its CLOSE though a WRITE and a READ of 0 bytes
# used its stateid (issue #32, patch 0211): SAL's "Deleted STATE" line,
# the server's STATE component at FULL_DEBUG.
sparse_e2e_run(e2e_proto_stateid_scope_free e2e_proto_stateid_scope
  ARGS free TIMEOUT 120)
set_property(TEST e2e/e2e_proto_stateid_scope_free APPEND PROPERTY
  ENVIRONMENT "SPARSE_LOG_FULL_DEBUG=STATE")
# What a stateid authorizes, operation by operation (issue #32): the
# matrix of docs/stateids.md, one cell per operation and kind of stateid,
# from the table stateid_matrix.txt (a changed answer fails); the V40_
# rows over NFSv4.0 (SETCLIENTID, seqids); a data server for the layout
# stateids and the DS_ rows.  A 20 s
# lease: write delegations need 2 x Lease_Lifetime under lease-break-time.
sparse_e2e_test(e2e_proto_stateid_matrix
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_stateid_matrix.c
  TIMEOUT 300
  LIBS Threads::Threads
  HARNESS_ARGS --pnfs 1 --pnfs-opts "Stripe_Unit = 65536$<SEMICOLON>"
               --nfsv4-opts "Delegations = true$<SEMICOLON> Lease_Lifetime = 20$<SEMICOLON>"
               --export-opts "Delegations = RW$<SEMICOLON>")
target_compile_definitions(e2e_proto_stateid_matrix PRIVATE
  STATEID_MATRIX_DEFAULT="${CMAKE_CURRENT_SOURCE_DIR}/stateid_matrix.txt")
# the V40_ rows: NFSv4.0 on
set_property(TEST e2e/e2e_proto_stateid_matrix APPEND PROPERTY ENVIRONMENT
  "SPARSE_MINOR_VERSIONS=0, 1, 2")
# The stateful fuzzer's findings as targeted compounds (issue #27 item 6,
# patches 0160-0168, 0174): stateids of another type, a data server's
# handles, an NFSv4.0 LOCK replay, another client's closed stateid, an
# OPEN creating a name refused by a share, a client restart past its
# recalled delegation (a 20 s lease: a restart that waited for it would
# show), a recall waiting for an NFSv4.0 callback channel that goes down
# (the test serves the client's callback address on a thread).
# MDS + one DS, NFSv4.0 on.  _courtesy: the OPEN creating a name beside
# an expired client kept for delayed cleanup, alone, with a 4 s lease and
# the directory cache trusted for names it lacks.
sparse_e2e_test(e2e_proto_fuzz_findings
  SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/e2e_proto_fuzz_findings.c
  TIMEOUT 240
  LIBS Threads::Threads
  HARNESS_ARGS --pnfs 1 --pnfs-opts "Stripe_Unit = 65536$<SEMICOLON>"
               --nfsv4-opts "Delegations = true$<SEMICOLON> Lease_Lifetime = 20$<SEMICOLON>"
               --export-opts "Delegations = RW$<SEMICOLON>")
set_property(TEST e2e/e2e_proto_fuzz_findings APPEND PROPERTY ENVIRONMENT
  "SPARSE_MINOR_VERSIONS=0, 1, 2")
sparse_e2e_run(e2e_proto_fuzz_findings_courtesy e2e_proto_fuzz_findings
  ARGS open_create_share_denied TIMEOUT 120
  HARNESS_ARGS --nfsv4-opts "Lease_Lifetime = 4$<SEMICOLON>"
               --export-opts "Trust_Readdir_Negative_Cache = true$<SEMICOLON>")
