// SPDX-License-Identifier: GPL-2.0-or-later
/* serve.c's request decision: method, path, OpenMetrics negotiation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "report/serve.h"

#ifndef FTR_NO_SERVE
static void test_route(void **state)
{
	int v = -1;

	assert_int_equal(serve_route("GET", "/metrics", NULL, &v), 200);
	assert_int_equal(v, 0);
	assert_int_equal(serve_route("HEAD", "/metrics", "*/*", &v), 200);
	assert_int_equal(v, 0);
	assert_int_equal(serve_route("POST", "/metrics", NULL, &v), 405);
	assert_int_equal(serve_route("get", "/metrics", NULL, &v), 405);
	assert_int_equal(serve_route("GET", "/metrics/", NULL, &v), 404);
	assert_int_equal(serve_route("GET", "/", NULL, &v), 404);
}

static void test_openmetrics(void **state)
{
	/* what Prometheus sends */
	assert_true(serve_wants_openmetrics("application/openmetrics-text;version=1.0.0,"
					    "application/openmetrics-text;version=0.0.1;q=0.75,"
					    "text/plain;version=0.0.4;q=0.5,*/*;q=0.1"));
	assert_true(serve_wants_openmetrics(" Application/OpenMetrics-Text ; q=0.5"));
	assert_true(serve_wants_openmetrics("text/plain, application/openmetrics-text"));
	/* refused with q=0, or only named inside another type */
	assert_false(serve_wants_openmetrics("application/openmetrics-text;q=0"));
	assert_false(serve_wants_openmetrics("application/openmetrics-text; q=0.000, text/plain"));
	assert_false(serve_wants_openmetrics("application/openmetrics-textual"));
	assert_false(serve_wants_openmetrics("text/plain;x=application/openmetrics-text"));
	assert_false(serve_wants_openmetrics(""));
	assert_false(serve_wants_openmetrics(NULL));
}
#endif

int main(void)
{
#ifdef FTR_NO_SERVE
	printf("# SKIP built without libmicrohttpd\n");
	return 0;
#else
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_route),
		cmocka_unit_test(test_openmetrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
#endif
}
