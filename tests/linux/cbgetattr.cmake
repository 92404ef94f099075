# A write delegation held by the kernel client: another client's GETATTR
# is answered through CB_GETATTR, not a recall (issue #18 item 6, patch
# 0121; t_cbgetattr.sh, tshark on the server's port). A 20 s lease, which
# the kernel's default lease-break-time (45 s) covers for write leases.
sparse_linux_test(cbgetattr t_cbgetattr.sh TIMEOUT 300
  HARNESS_ARGS --nfsv4-opts "Delegations = true$<SEMICOLON> Lease_Lifetime = 20$<SEMICOLON>"
               --export-opts "Delegations = RW$<SEMICOLON>")
