# Mounts with each NFSv4 minor version: everyday operations byte for byte,
# numeric owners (patch 0094), the backing files checked on the host.
sparse_linux_test(basic t_basic.sh ARGS 4.2 4.1 4.0 TIMEOUT 300
  ENV "SPARSE_MINOR_VERSIONS=0, 1, 2")
