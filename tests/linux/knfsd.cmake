# knfsd (the guest kernel's own server) side by side with ours
# (run-all.sh only): the same guest scripts against it, on the filesystem
# LINUX_KNFSD_FS names (lib.sh's knfsd_guest; default ext4).
# knfsd 6.12 sends holes as data: its READ_PLUS replies carry every byte
sparse_linux_test(knfsd_features t_knfsd.sh
  ARGS guest/features.sh read_plus,seek,allocate,copy,xattr TIMEOUT 1800
  ENV "LINUX_KNFSD_FAILS=read_plus: bytes received")
# Every check passes against knfsd on ext4 (the default). On tmpfs
# (LINUX_KNFSD_FS=tmpfs) stress-ng's sync-file made no bogo op in 20 s:
# run it there with LINUX_KNFSD_FAILS="stress-ng: sync-file bogo ops".
sparse_linux_test(knfsd_workloads t_knfsd.sh
  ARGS guest/workloads.sh stress,fio,rsync,git,sqlite TIMEOUT 3600)
# The stateid matrix against knfsd (issue #32): e2e_proto_stateid_matrix
# in the guest, our client library against knfsd on ext4; its table is
# docs/stateids.md's knfsd column (stateid_matrix_knfsd.txt).
sparse_linux_test(knfsd_matrix t_knfsd_matrix.sh TIMEOUT 1500
  ENV "GUEST_MATRIX_BIN=$<TARGET_FILE:e2e_proto_stateid_matrix>")
