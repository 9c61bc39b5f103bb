// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Fuzz target for --serve's request handling (src/report/serve.c): the
 * decision on the method, the path and the Accept header (OpenMetrics
 * negotiation), which libmicrohttpd hands over as strings once it parsed
 * the request.  Input: METHOD \n URL \n ACCEPT (no third line: no Accept
 * header).  Beyond the sanitizers, the answer is checked: 200 only for
 * GET or HEAD of /metrics, a variant of 0 or 1 (1 only when the header
 * names OpenMetrics), 405 and 404 exactly where due.  See driver.c.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report/serve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int fuzz_last_ok;

static const char *ci_strstr(const char *h, const char *n)
{
	for (size_t len = strlen(n); *h; h++)
		if (!strncasecmp(h, n, len))
			return h;
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *url = NULL, *accept = NULL, *nl;
	bool get;
	unsigned code;
	int v = -1;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';	/* libmicrohttpd's strings end at a NUL too */
	if ((nl = strchr(text, '\n'))) {
		*nl = '\0';
		url = nl + 1;
		if ((nl = strchr(url, '\n'))) {
			*nl = '\0';
			accept = nl + 1;
		}
	}
	code = serve_route(text, url, accept, &v);
	get = !strcmp(text, "GET") || !strcmp(text, "HEAD");
	if (code != (!get ? 405u : !url || strcmp(url, "/metrics") ? 404u : 200u))
		abort();
	if (v != 0 && (v != 1 || code != 200 || !accept ||
		       !ci_strstr(accept, "application/openmetrics-text")))
		abort();
	fuzz_last_ok = code == 200;
	free(text);
	return 0;
}
