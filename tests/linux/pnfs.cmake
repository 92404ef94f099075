# pNFS (issue #20): the kernel's files-layout driver against an MDS and two
# data servers (harness --pnfs 2; the layouts name the data servers as the
# guest reaches them, 10.0.2.100:PORT).
sparse_linux_test(pnfs t_pnfs.sh TIMEOUT 600
  HARNESS_ARGS --pnfs 2 --pnfs-ds-host 10.0.2.100
               --pnfs-opts "Stripe_Unit = 65536$<SEMICOLON>"
               --nfsv4-opts "Lease_Lifetime = 20$<SEMICOLON>")
