# Guest: e2e_proto_stateid_matrix (GUEST_MATRIX_BIN, the host's build of
# it) against the server NFS_SERVER:NFS_PORT (knfsd under t_knfsd.sh) with
# our client library: every cell of docs/stateids.md's matrix.  The table
# it found goes to $XCHG/stateid_matrix.txt, which t_knfsd_matrix.sh
# compares with the knfsd column (tests/linux/stateid_matrix_knfsd.txt).
# $1: the table it is checked against.
check "matrix: the test against $NFS_SERVER:$NFS_PORT$NFS_EXPORT" \
	env NFS42_HOST="$NFS_SERVER" NFS42_PORT="$NFS_PORT" \
	NFS42_EXPORT="$NFS_EXPORT" STATEID_MATRIX="$1" \
	STATEID_MATRIX_OUT="$XCHG/stateid_matrix.txt" \
	"$GUEST_MATRIX_BIN"
g_done
