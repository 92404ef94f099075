# NFSv4.2 features through the kernel client's own counters
# (guest/features.sh): READ_PLUS, SEEK, ALLOCATE/DEALLOCATE, COPY, the
# xattr ops on the harness's export; CLONE on an XFS reflink export (the
# e2e clonefs fixture script, a loop image; skipped with its reason where
# it cannot be made).
sparse_linux_test(features t_features.sh
  ARGS read_plus,seek,allocate,copy,xattr TIMEOUT 300)

# With a write delegation held (issue #32 item 4): fallocate, punch,
# copy_file_range and ftruncate reach the server once each under the
# delegation's stateid, no NFS4ERR_OPENMODE, no state recovery.  A 20 s
# lease: write delegations need 2 x Lease_Lifetime under the client's
# lease-break-time.
sparse_linux_test(wdeleg t_features.sh ARGS wdeleg TIMEOUT 300
  HARNESS_ARGS --nfsv4-opts "Delegations = true$<SEMICOLON> Lease_Lifetime = 20$<SEMICOLON>"
               --export-opts "Delegations = RW$<SEMICOLON>")

set(linux_clonefs ${CMAKE_CURRENT_BINARY_DIR}/clonefs)
foreach(verb setup cleanup)
  add_test(NAME linux/clonefs_${verb}
           COMMAND sh ${CMAKE_SOURCE_DIR}/tests/e2e/clonefs-setup.sh ${verb}
                   ${linux_clonefs})
endforeach()
set_tests_properties(linux/clonefs_setup PROPERTIES LABELS linux
  FIXTURES_SETUP linux_clonefs)
set_tests_properties(linux/clonefs_cleanup PROPERTIES LABELS linux
  FIXTURES_CLEANUP linux_clonefs)
sparse_linux_test(clone t_features.sh ARGS clone TIMEOUT 300
  HARNESS_ARGS --conf-extra "%include \"${linux_clonefs}/exports.conf\""
  ENV LINUX_SKIP_FILE=${linux_clonefs}/skip)
set_tests_properties(linux/clone PROPERTIES FIXTURES_REQUIRED linux_clonefs)
