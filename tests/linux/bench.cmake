# Ours and knfsd side by side (t_bench.sh; run-all.sh only: reads 3 GiB
# per server under TCG). Prints the table of docs/benchmarks.md: knfsd
# on ext4 (as /etc/exports would export it) and on tmpfs (fsid=0). Ours
# with read delegations, as scripts/serve.sh serves (knfsd grants them by
# default too).
sparse_linux_test(bench t_bench.sh TIMEOUT 7200
  HARNESS_ARGS --nfsv4-opts "Delegations = true$<SEMICOLON>"
               --export-opts "Delegations = Read$<SEMICOLON>"
  ENV "LINUX_KNFSD_FS=ext4 tmpfs")
