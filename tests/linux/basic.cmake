# Mounts with each NFSv4 minor version: everyday operations byte for byte,
# numeric owners (patch 0094), the backing files checked on the host.
sparse_linux_test(basic t_basic.sh ARGS 4.2 4.1 4.0 TIMEOUT 300
  ENV "SPARSE_MINOR_VERSIONS=0, 1, 2")
# NFSv3 (issue #16's harness: Protocols = 3, 4, a private rpcbind stub):
# the same operations on a vers=3 mount (MOUNT over TCP, nolock).
sparse_linux_test(basic_v3 t_basic.sh ARGS 3 TIMEOUT 300
  HARNESS_ARGS --protocols "3, 4")
