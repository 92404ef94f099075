# Third-party workloads in the guest (guest/workloads.sh): fio verify=crc32c
# and sqlite3 in CI; stress-ng's filesystem stressors with --verify,
# rsync -S and -a, git in run-all.sh only (minutes under TCG).
sparse_linux_test(workloads_ci t_workloads.sh ARGS fio,sqlite TIMEOUT 600)
sparse_linux_test(workloads t_workloads.sh ARGS stress,rsync,git
  TIMEOUT 1800 ENV LINUX_FULL_ONLY=1)
