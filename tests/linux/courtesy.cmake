# The courteous server from the kernel client (t_courtesy.sh,
# guest/courtesy.sh): the guest's link down for 40 s with a 10 s lease,
# a conflicting lock from the host, link up.
sparse_linux_test(courtesy t_courtesy.sh ARGS 40 TIMEOUT 600
  HARNESS_ARGS --nfsv4-opts "Lease_Lifetime = 10$<SEMICOLON>"
  ENV SPARSE_LINUX_LOCK=$<TARGET_FILE:linux_lock>)
