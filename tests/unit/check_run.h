/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Copyright (C) 2026 The nfs-sparse authors */
/* Running one Check test case as a suite (any unit test). */
#ifndef CHECK_RUN_H
#define CHECK_RUN_H

#include <check.h>

/* Run the tests of tc as suite name, with the given fork mode
 * (CK_FORK_GETENV: the default); the exit status for main(). */
static inline int run_tcase(const char *name, TCase *tc, enum fork_status fork)
{
	Suite *s = suite_create(name);
	SRunner *sr;
	int failed;

	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_fork_status(sr, fork);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}

#endif
