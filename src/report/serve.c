// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * --serve with libmicrohttpd (serve.h).  One internal polling thread: it
 * accepts, reads requests and writes responses without blocking, so a
 * client that never reads stalls only its own connection; it waits on
 * nothing but the next rendering, and that at most SERVE_WAIT_MS.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "report/serve.h"

#ifdef FTR_NO_SERVE

int serve_parse_addr(const char *addr, char *host, size_t hlen, unsigned *port)
{
	return -ENOTSUP;
}

int serve_start(const char *addr, const char *const types[SERVE_VARIANTS], struct serve **out,
		char *err, size_t elen)
{
	snprintf(err, elen, "--serve is not in this build (built without libmicrohttpd); "
		 "use --prom-file FILE with node_exporter's textfile collector");
	return -ENOTSUP;
}

const char *serve_where(const struct serve *s) { return ""; }
unsigned serve_wanted(struct serve *s) { return 0; }
void serve_publish(struct serve *s, int v, int fd, size_t len) { }
void serve_counts(const struct serve *s, unsigned long long *ok, unsigned long long *refused)
{
	*ok = *refused = 0;
}
void serve_stop(struct serve *s) { }

#else

#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <microhttpd.h>

struct serve {
	struct MHD_Daemon *d;
	const char *types[SERVE_VARIANTS];
	char where[80];
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned want;				/* variants requests wait for */
	int fd[SERVE_VARIANTS];			/* the latest rendering, or -1 */
	size_t len[SERVE_VARIANTS];
	unsigned long long gen[SERVE_VARIANTS];	/* renderings published */
	unsigned long long ok, refused;
	/* Every open connection, with the time by which its request must be
	 * answered (issue 38: MHD's timeout is of idleness, and a client
	 * sending a header byte every 2 s kept its slot forever, and 8 of
	 * them locked out every other client of their address). */
	struct sconn *conns;
	pthread_t reaper;
	bool stopping;
};

struct sconn {
	int fd;
	time_t deadline;	/* CLOCK_MONOTONIC seconds */
	struct sconn *next;
};

static time_t mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

bool serve_available(void) { return true; }

int serve_parse_addr(const char *addr, char *host, size_t hlen, unsigned *port)
{
	const char *colon, *h = addr;
	size_t n;
	char *end;
	unsigned long p;

	if (!addr || !*addr)
		return -EINVAL;
	if (*addr == '[') {
		const char *rb = strchr(addr, ']');

		if (!rb || rb[1] != ':')
			return -EINVAL;
		h = addr + 1;
		n = (size_t)(rb - h);
		colon = rb + 1;
	} else {
		colon = strrchr(addr, ':');
		if (!colon || memchr(addr, ':', (size_t)(colon - addr)))
			return -EINVAL;		/* a bare v6 address needs [] */
		n = (size_t)(colon - addr);
	}
	errno = 0;
	p = strtoul(colon + 1, &end, 10);
	if (!colon[1] || *end || errno || p > 65535 || colon[1] == '-' || colon[1] == '+')
		return -EINVAL;
	if (!n) {
		h = "127.0.0.1";
		n = strlen(h);
	}
	if (n >= hlen)
		return -EINVAL;
	memcpy(host, h, n);
	host[n] = '\0';
	*port = (unsigned)p;
	return 0;
}

static enum MHD_Result reply(struct serve *s, struct MHD_Connection *c, unsigned code,
			     const char *text)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text,
								MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(c, code, r);
	MHD_destroy_response(r);
	pthread_mutex_lock(&s->lock);
	s->refused++;
	pthread_mutex_unlock(&s->lock);
	return ret;
}

/* A dup of variant v's rendering, made after now (or the latest one when
 * the loop does not answer in time); -1 when there is none. */
static int fresh(struct serve *s, int v, size_t *len)
{
	struct timespec until;
	unsigned long long g;
	int fd = -1;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += SERVE_WAIT_MS / 1000;
	until.tv_nsec += (SERVE_WAIT_MS % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&s->lock);
	g = s->gen[v];
	s->want |= 1u << v;
	while (s->gen[v] == g)
		if (pthread_cond_timedwait(&s->cond, &s->lock, &until) == ETIMEDOUT)
			break;
	if (s->fd[v] >= 0) {
		fd = dup(s->fd[v]);
		*len = s->len[v];
	}
	if (fd >= 0)
		s->ok++;
	pthread_mutex_unlock(&s->lock);
	return fd;
}

/* Is the media range's q parameter (RFC 9110 12.4.2: "0" to "1", three
 * decimals at most) zero, which refuses the type? */
static bool q_zero(const char *params, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t j;

		if (params[i] != ';')
			continue;
		for (j = i + 1; j < n && (params[j] == ' ' || params[j] == '\t'); j++)
			;
		if (j + 2 > n || (params[j] != 'q' && params[j] != 'Q') || params[j + 1] != '=')
			continue;
		j += 2;
		if (j >= n || params[j] != '0')
			return false;
		for (j++; j < n && (params[j] == '.' || params[j] == '0'); j++)
			;
		return j == n || params[j] == ';' || params[j] == ' ' || params[j] == '\t';
	}
	return false;
}

bool serve_wants_openmetrics(const char *accept)
{
	static const char om[] = "application/openmetrics-text";
	const char *e, *t;

	for (; accept && *accept; accept = *e ? e + 1 : e) {
		size_t n;

		e = accept + strcspn(accept, ",");
		while (*accept == ' ' || *accept == '\t')
			accept++;
		t = accept + strcspn(accept, ";,");
		n = (size_t)(t - accept);
		while (n && (accept[n - 1] == ' ' || accept[n - 1] == '\t'))
			n--;
		/* media types are case-insensitive; a client that refuses
		 * OpenMetrics with q=0 gets the text format */
		if (n == sizeof(om) - 1 && !strncasecmp(accept, om, n) &&
		    !q_zero(t, (size_t)(e - t)))
			return true;
	}
	return false;
}

unsigned serve_route(const char *method, const char *url, const char *accept, int *variant)
{
	*variant = 0;
	if (!method || (strcmp(method, "GET") && strcmp(method, "HEAD")))
		return 405;
	if (!url || strcmp(url, "/metrics"))
		return 404;
	*variant = serve_wants_openmetrics(accept) ? 1 : 0;
	return 200;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version,
				  const char *upload, size_t *upload_size, void **state)
{
	struct serve *s = cls;
	const char *accept;
	struct MHD_Response *r;
	enum MHD_Result ret;
	size_t len = 0;
	unsigned code;
	int v, fd;

	/* Answered on the first call, before any body: a body is never read
	 * (libmicrohttpd closes the connection after the answer). */
	accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
	code = serve_route(method, url, accept, &v);
	if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
		return reply(s, c, code, "only GET /metrics\n");
	if (code != MHD_HTTP_OK)
		return reply(s, c, MHD_HTTP_NOT_FOUND, "ftr serves /metrics only\n");
	fd = fresh(s, v, &len);
	if (fd < 0)
		return reply(s, c, MHD_HTTP_SERVICE_UNAVAILABLE, "no metrics yet\n");
	r = MHD_create_response_from_fd(len, fd);	/* closes fd */
	if (!r) {
		close(fd);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, s->types[v]);
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* libmicrohttpd's messages (a refused connection, a too long request) are
 * the clients' business, not the trace's: kept quiet. */
static void quiet(void *cls, const char *fmt, va_list ap)
{
}

/* A connection opens (its request gets SERVE_IDLE_S seconds from now) or
 * closes (forgotten, before MHD closes its socket). */
static void on_conn(void *cls, struct MHD_Connection *c, void **ctx,
		    enum MHD_ConnectionNotificationCode code)
{
	struct serve *s = cls;
	struct sconn *k, **pp;

	pthread_mutex_lock(&s->lock);
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *i =
			MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);

		k = calloc(1, sizeof(*k));
		if (k && i) {
			k->fd = i->connect_fd;
			k->deadline = mono_s() + SERVE_IDLE_S;
			k->next = s->conns;
			s->conns = k;
			*ctx = k;
		} else {
			free(k);
		}
	} else if (code == MHD_CONNECTION_NOTIFY_CLOSED && *ctx) {
		for (pp = &s->conns; *pp; pp = &(*pp)->next)
			if (*pp == *ctx) {
				*pp = (*pp)->next;
				break;
			}
		free(*ctx);
		*ctx = NULL;
	}
	pthread_mutex_unlock(&s->lock);
}

/* A response sent: a kept-alive connection's next request gets its time. */
static void on_done(void *cls, struct MHD_Connection *c, void **req,
		    enum MHD_RequestTerminationCode toe)
{
	struct serve *s = cls;
	const union MHD_ConnectionInfo *i = MHD_get_connection_info(c,
								    MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	pthread_mutex_lock(&s->lock);
	if (i && i->socket_context)
		((struct sconn *)i->socket_context)->deadline = mono_s() + SERVE_IDLE_S;
	pthread_mutex_unlock(&s->lock);
}

/* Once a second: a connection past its deadline is shut down, whatever it
 * trickles; MHD then sees the socket end and closes it (the list holds
 * only sockets MHD has not closed yet: on_conn's CLOSED comes first). */
static void *reaper(void *arg)
{
	struct serve *s = arg;
	struct timespec until;

	pthread_mutex_lock(&s->lock);
	while (!s->stopping) {
		time_t now = mono_s();

		for (struct sconn *k = s->conns; k; k = k->next)
			if (now >= k->deadline && k->fd >= 0) {
				shutdown(k->fd, SHUT_RDWR);
				k->fd = -1;
			}
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec++;
		pthread_cond_timedwait(&s->cond, &s->lock, &until);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

int serve_start(const char *addr, const char *const types[SERVE_VARIANTS], struct serve **out,
		char *err, size_t elen)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *ai = NULL;
	const union MHD_DaemonInfo *info;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	sigset_t all, old;
	char host[256], port[8], ip[INET6_ADDRSTRLEN];
	unsigned p;
	struct serve *s;
	int rc;

	if (serve_parse_addr(addr, host, sizeof(host), &p) < 0) {
		snprintf(err, elen, "bad address '%s' (ADDR:PORT, :PORT or [V6ADDR]:PORT)", addr);
		return -EINVAL;
	}
	snprintf(port, sizeof(port), "%u", p);
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc) {
		snprintf(err, elen, "cannot resolve '%s': %s", host, gai_strerror(rc));
		return -EINVAL;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		freeaddrinfo(ai);
		return -ENOMEM;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	for (int v = 0; v < SERVE_VARIANTS; v++) {
		s->fd[v] = -1;
		s->types[v] = types[v];
	}
	/* The server's thread inherits this mask: signals stay with the
	 * reading loop, which handles them. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	errno = 0;
	s->d = MHD_start_daemon(MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_ERROR_LOG |
				(ai->ai_family == AF_INET6 ? MHD_USE_IPv6 : 0),
				0, NULL, NULL, on_request, s,
				MHD_OPTION_SOCK_ADDR, ai->ai_addr,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)SERVE_CONNS,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)SERVE_CONNS_PER_IP,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SERVE_IDLE_S,
				MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)SERVE_REQ_MAX,
				MHD_OPTION_EXTERNAL_LOGGER, quiet, NULL,
				MHD_OPTION_NOTIFY_CONNECTION, on_conn, s,
				MHD_OPTION_NOTIFY_COMPLETED, on_done, s,
				MHD_OPTION_END);
	rc = errno ? errno : EADDRINUSE;
	if (s->d && (rc = pthread_create(&s->reaper, NULL, reaper, s))) {
		MHD_stop_daemon(s->d);
		s->d = NULL;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	freeaddrinfo(ai);
	if (!s->d) {
		snprintf(err, elen, "cannot listen on '%s': %s", addr, strerror(rc));
		pthread_mutex_destroy(&s->lock);
		pthread_cond_destroy(&s->cond);
		free(s);
		return -rc;
	}
	info = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_LISTEN_FD);
	if (info && getsockname(info->listen_fd, (struct sockaddr *)&ss, &sl) == 0) {
		if (ss.ss_family == AF_INET6) {
			struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

			inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof(ip));
			snprintf(s->where, sizeof(s->where), "[%s]:%u", ip, ntohs(a->sin6_port));
		} else {
			struct sockaddr_in *a = (struct sockaddr_in *)&ss;

			inet_ntop(AF_INET, &a->sin_addr, ip, sizeof(ip));
			snprintf(s->where, sizeof(s->where), "%s:%u", ip, ntohs(a->sin_port));
		}
	} else {
		snprintf(s->where, sizeof(s->where), "%s", addr);
	}
	*out = s;
	return 0;
}

const char *serve_where(const struct serve *s)
{
	return s->where;
}

unsigned serve_wanted(struct serve *s)
{
	unsigned w;

	pthread_mutex_lock(&s->lock);
	w = s->want;
	pthread_mutex_unlock(&s->lock);
	return w;
}

void serve_publish(struct serve *s, int v, int fd, size_t len)
{
	int old;

	pthread_mutex_lock(&s->lock);
	old = s->fd[v];
	s->fd[v] = fd;
	s->len[v] = len;
	s->gen[v]++;
	s->want &= ~(1u << v);
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	if (old >= 0)
		close(old);	/* responses still sending hold their own dup */
}

void serve_counts(const struct serve *s, unsigned long long *ok, unsigned long long *refused)
{
	pthread_mutex_lock((pthread_mutex_t *)&s->lock);
	*ok = s->ok;
	*refused = s->refused;
	pthread_mutex_unlock((pthread_mutex_t *)&s->lock);
}

void serve_stop(struct serve *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->stopping = true;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->reaper, NULL);
	MHD_stop_daemon(s->d);
	for (int v = 0; v < SERVE_VARIANTS; v++)
		if (s->fd[v] >= 0)
			close(s->fd[v]);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	free(s);
}

#endif
