# Ours and knfsd side by side (t_bench.sh; run-all.sh only: reads 3 GiB
# per server under TCG). Prints the table of docs/benchmarks.md.
sparse_linux_test(bench t_bench.sh TIMEOUT 7200)
