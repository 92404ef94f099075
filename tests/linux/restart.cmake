# Server kill -9 and restart under a guest write/fsync loop holding a
# flock (t_restart.sh, guest/restart.sh), sqlite recovery backend, a
# 20 s grace period: the hard mount recovers, reclaims its lock, and
# every record fsynced before the kill is on disk.
sparse_linux_test(restart t_restart.sh TIMEOUT 900
  HARNESS_ARGS --nfsv4-opts
               "Lease_Lifetime = 10$<SEMICOLON> Grace_Period = 20$<SEMICOLON>"
  ENV SPARSE_LINUX_LOCK=$<TARGET_FILE:linux_lock>
      SPARSE_RECOVERY_BACKEND=sqlite GRACELESS=false)
