# The kernel's clients with Ceph (issue #29 items 4 and 5; labels linux
# and ceph): a cluster of their own on a bridge (fixture
# linux_ceph_cluster, ceph-fixture.sh), which the guest reaches through
# QEMU's user network; skipped with the reason where Ceph cannot start
# here (or the guest: vm.sh).
set(linux_ceph_dir ${CMAKE_CURRENT_BINARY_DIR}/ceph-cluster)
foreach(verb start stop)
  add_test(NAME linux/ceph_cluster_${verb}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/ceph-fixture.sh ${verb}
                   ${linux_ceph_dir})
endforeach()
set_tests_properties(linux/ceph_cluster_start PROPERTIES LABELS "linux;ceph"
  TIMEOUT 240 SKIP_RETURN_CODE 77 FIXTURES_SETUP linux_ceph_cluster)
set_tests_properties(linux/ceph_cluster_stop PROPERTIES LABELS "linux;ceph"
  TIMEOUT 120 FIXTURES_CLEANUP linux_ceph_cluster)

# Item 4: the kernel CephFS client, under FSAL_SPARSE in the guest
# (t_cephfs.sh, guest/cephfs.sh)
sparse_linux_test(cephfs t_cephfs.sh TIMEOUT 1500
  HARNESS_ARGS --ceph ${linux_ceph_dir} --fsal SPARSE)
# Item 5: the guest's pNFS client through the gateway over CephFS
sparse_linux_test(pnfs_ceph t_pnfs_ceph.sh TIMEOUT 600
  HARNESS_ARGS --ceph ${linux_ceph_dir} --fsal SPARSE --pnfs 2
               --pnfs-ds-host 10.0.2.100
               --pnfs-opts "Stripe_Unit = 65536$<SEMICOLON>")
foreach(t cephfs pnfs_ceph)
  set_tests_properties(linux/${t} PROPERTIES LABELS "linux;ceph"
    FIXTURES_REQUIRED linux_ceph_cluster)
endforeach()
