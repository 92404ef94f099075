# Write workloads of the 6.12 client with OPEN_XOR_DELEGATION and
# delegated timestamps advertised (issue #30 item 4; t_delegts.sh, tshark
# on the server's port): tar -x, cp -r, git add and git status.
sparse_linux_test(delegts t_delegts.sh TIMEOUT 600
  HARNESS_ARGS --nfsv4-opts "Delegations = true$<SEMICOLON> Lease_Lifetime = 20$<SEMICOLON>"
               --export-opts "Delegations = RW$<SEMICOLON>")
