// SPDX-License-Identifier: GPL-2.0-or-later
/* Folded stacks and the SVG flame graph: see flame.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "report/flame.h"

struct fnode {
	char *name;
	struct fnode *parent;
	uint64_t total, self;
	struct fnode **kids;
	size_t nkids, cap;
	bool sorted;
};

/*
 * Children are found through one hash table of (parent, name) for the whole
 * tree: a node with many children (a folded file of 300,000 distinct
 * callees of main) would make a search of its list quadratic.  Every walk
 * of the tree is a loop on an explicit stack: a folded line can be deeper
 * than the C stack (200,000 frames).
 */
struct flame {
	struct fnode root;
	size_t max_depth;
	struct fnode **tab;	/* open addressing, a power of two; NULL is empty */
	size_t tab_cap, tab_n;
};

/* One level of a walk: a node and the next of its children to visit. */
struct level {
	struct fnode *n;
	size_t next;
	uint64_t x;		/* the SVG's left edge */
};

struct flame *flame_new(void)
{
	struct flame *f = calloc(1, sizeof(*f));

	if (f)
		f->root.sorted = true;
	return f;
}

/* A stack for a walk of f (the root and max_depth levels), or NULL. */
static struct level *levels(const struct flame *f)
{
	return calloc(f->max_depth + 2, sizeof(struct level));
}

void flame_free(struct flame *f)
{
	if (!f)
		return;
	/* Every node but the root is in the table. */
	for (size_t i = 0; i < f->tab_cap; i++) {
		if (f->tab[i]) {
			free(f->tab[i]->kids);
			free(f->tab[i]->name);
			free(f->tab[i]);
		}
	}
	free(f->tab);
	free(f->root.kids);
	free(f);
}

static size_t key_hash(const struct fnode *parent, const char *name, size_t len)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)(uintptr_t)parent;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
	return (size_t)(h ^ (h >> 29));
}

/* Where (parent, name) is in the table, or the empty slot it would take. */
static struct fnode **slot(struct flame *f, const struct fnode *parent, const char *name,
			   size_t len)
{
	size_t mask = f->tab_cap - 1, i = key_hash(parent, name, len) & mask;

	for (;; i = (i + 1) & mask) {
		struct fnode *k = f->tab[i];

		if (!k || (k->parent == parent && !strncmp(k->name, name, len) && !k->name[len]))
			return &f->tab[i];
	}
}

static int grow(struct flame *f)
{
	size_t cap = f->tab_cap ? f->tab_cap * 2 : 64, old = f->tab_cap;
	struct fnode **t = calloc(cap, sizeof(*t)), **prev = f->tab;

	if (!t)
		return -ENOMEM;
	f->tab = t;
	f->tab_cap = cap;
	for (size_t i = 0; i < old; i++)
		if (prev[i])
			*slot(f, prev[i]->parent, prev[i]->name, strlen(prev[i]->name)) = prev[i];
	free(prev);
	return 0;
}

static struct fnode *child(struct flame *f, struct fnode *n, const char *name, size_t len)
{
	struct fnode *k, **at;

	if ((f->tab_n + 1) * 2 > f->tab_cap && grow(f) < 0)
		return NULL;
	at = slot(f, n, name, len);
	if (*at)
		return *at;
	if (n->nkids == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 4;
		struct fnode **v = realloc(n->kids, cap * sizeof(*v));

		if (!v)
			return NULL;
		n->kids = v;
		n->cap = cap;
	}
	k = calloc(1, sizeof(*k));
	if (!k || !(k->name = strndup(name, len))) {
		free(k);
		return NULL;
	}
	k->parent = n;
	*at = k;
	f->tab_n++;
	n->kids[n->nkids++] = k;
	n->sorted = n->nkids == 1;
	return k;
}

int flame_add(struct flame *f, const char *const *frames, size_t n, uint64_t count)
{
	struct fnode *node = &f->root;

	/* Every node's total is at most the root's: checking it is enough. */
	if (count > UINT64_MAX - f->root.total)
		return -EOVERFLOW;
	/* Find or make every node first, so that a failure adds nothing. */
	for (size_t i = 0; i < n; i++) {
		node = child(f, node, frames[i], strlen(frames[i]));
		if (!node)
			return -ENOMEM;
	}
	node = &f->root;
	node->total += count;
	for (size_t i = 0; i < n; i++) {
		node = child(f, node, frames[i], strlen(frames[i]));
		node->total += count;
	}
	node->self += count;
	if (n > f->max_depth)
		f->max_depth = n;
	return 0;
}

int flame_add_folded(struct flame *f, const char *line)
{
	size_t len = strlen(line), depth = 0;
	const char *sp, *p;
	unsigned long long count;
	struct fnode *node;
	char *end;

	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' ' ||
		       line[len - 1] == '\t'))
		len--;
	if (!len)
		return 0;
	for (sp = line + len; sp > line && sp[-1] != ' ' && sp[-1] != '\t'; sp--)
		;
	if (sp == line || sp == line + len || *sp < '0' || *sp > '9')
		return -EINVAL;
	errno = 0;
	count = strtoull(sp, &end, 10);
	if (errno || end != line + len)
		return -EINVAL;
	len = sp - 1 - line;	/* the frames */
	while (len && (line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	if (!len)
		return -EINVAL;
	/* Counts near 2^64 (a hostile or corrupt file) would wrap the total
	 * and make every stack 100%: refused, as every node's total is at
	 * most the root's. */
	if (count > UINT64_MAX - f->root.total)
		return -EOVERFLOW;
	/* Make the nodes, then count (a failure adds nothing). */
	for (int pass = 0; pass < 2; pass++) {
		node = &f->root;
		if (pass)
			node->total += count;
		depth = 0;
		for (p = line; p < line + len;) {
			const char *semi = memchr(p, ';', line + len - p);
			size_t n = semi ? (size_t)(semi - p) : (size_t)(line + len - p);

			node = child(f, node, p, n);
			if (!node)
				return -ENOMEM;
			if (pass)
				node->total += count;
			depth++;
			if (!semi)
				break;
			p = semi + 1;
		}
		if (pass)
			node->self += count;
	}
	if (depth > f->max_depth)
		f->max_depth = depth;
	return 0;
}

int flame_read_folded(struct flame *f, FILE *in, size_t *lineno)
{
	char *line = NULL;
	size_t cap = 0, no = 0;
	int err = 0;

	while (getline(&line, &cap, in) >= 0) {
		no++;
		err = flame_add_folded(f, line);
		if (err)
			break;
	}
	free(line);
	if (err && lineno)
		*lineno = no;
	if (!err && ferror(in))
		err = -EIO;
	return err;
}

uint64_t flame_total(const struct flame *f)
{
	return f->root.total;
}

size_t flame_max_depth(const struct flame *f)
{
	return f->max_depth;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp((*(struct fnode *const *)a)->name, (*(struct fnode *const *)b)->name);
}

static int sort_tree(struct flame *f)
{
	struct level *st = levels(f);
	size_t d = 0;

	if (!st)
		return -ENOMEM;
	st[0].n = &f->root;
	for (;;) {
		struct fnode *n = st[d].n;

		if (st[d].next == 0 && !n->sorted) {
			if (n->nkids > 1)
				qsort(n->kids, n->nkids, sizeof(*n->kids), name_cmp);
			n->sorted = true;
		}
		if (st[d].next < n->nkids) {
			st[d + 1].n = n->kids[st[d].next++];
			st[d + 1].next = 0;
			d++;
		} else if (d-- == 0) {
			break;
		}
	}
	free(st);
	return 0;
}

int flame_walk(struct flame *f, flame_walk_fn fn, void *arg)
{
	const char **path;
	struct level *st;
	size_t d = 0;
	int r = 0;

	if (sort_tree(f) < 0)
		return -ENOMEM;
	path = calloc(f->max_depth + 1, sizeof(*path));
	st = levels(f);
	if (!path || !st) {
		free(path);
		free(st);
		return -ENOMEM;
	}
	st[0].n = &f->root;
	for (;;) {
		struct fnode *n = st[d].n;

		if (st[d].next == 0 && d) {
			path[d - 1] = n->name;
			if (n->self && (r = fn(path, d, n->self, arg)))
				break;
		}
		if (st[d].next < n->nkids) {
			st[d + 1].n = n->kids[st[d].next++];
			st[d + 1].next = 0;
			d++;
		} else if (d-- == 0) {
			break;
		}
	}
	free(path);
	free(st);
	return r;
}

static int folded_line(const char *const *path, size_t depth, uint64_t self, void *arg)
{
	FILE *out = arg;

	for (size_t i = 0; i < depth; i++) {
		if (i)
			putc(';', out);
		fputs(path[i], out);
	}
	fprintf(out, " %llu\n", (unsigned long long)self);
	return 0;
}

int flame_write_folded(struct flame *f, FILE *out)
{
	int r = flame_walk(f, folded_line, out);

	if (r)
		return r;
	return ferror(out) ? -EIO : 0;
}

/* ---- SVG ------------------------------------------------------------------------ */

/* Escaped for XML text and attributes; bytes that are not UTF-8, and
 * control characters XML 1.0 forbids, become '?' (the file must parse). */
static void xml_esc(FILE *out, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;

	while (*p && n < max) {
		unsigned c = *p;
		int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
		bool ok = len > 0;

		for (int i = 1; ok && i < len; i++)
			ok = (p[i] & 0xc0) == 0x80;
		if (!ok) {
			putc('?', out);
			p++;
		} else if (len > 1) {
			fwrite(p, 1, len, out);
			p += len;
		} else {
			switch (c) {
			case '&': fputs("&amp;", out); break;
			case '<': fputs("&lt;", out); break;
			case '>': fputs("&gt;", out); break;
			case '"': fputs("&quot;", out); break;
			case '\'': fputs("&apos;", out); break;
			default:
				putc(c < 0x20 && c != '\t' ? '?' : (int)c, out);
			}
			p++;
		}
		n++;
	}
}

static bool is_kernel(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && !strcmp(name + n - 4, "_[k]");
}

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* Warm colours for user code, a distinct orange-brown range for the kernel,
 * grey for what has no symbol; stable per name, so a function keeps its
 * colour from one graph to the next. */
static void color(const char *name, char *buf, size_t len)
{
	uint32_t h = hash(name);
	unsigned a = h & 0xff, b = (h >> 8) & 0xff, c = (h >> 16) & 0xff;

	if (!strncmp(name, "[unknown]", 9))
		snprintf(buf, len, "rgb(%u,%u,%u)", 170 + a % 30, 170 + a % 30, 170 + a % 30);
	else if (is_kernel(name))
		snprintf(buf, len, "rgb(%u,%u,%u)", 210 + a % 40, 120 + b % 60, 40 + c % 30);
	else
		snprintf(buf, len, "rgb(%u,%u,%u)", 225 + a % 30, 60 + b % 150, 40 + c % 40);
}

struct svg {
	FILE *out;
	double scale, min_width, x0, frame_h, bottom;
	uint64_t total;
	const char *unit;
	double char_w;
};

/* One frame; false when it is too narrow to draw (its callees are too). */
static bool svg_node(struct svg *s, struct fnode *n, size_t depth, uint64_t x)
{
	double w = (double)n->total * s->scale, px = s->x0 + (double)x * s->scale;
	double y = s->bottom - (double)(depth + 1) * s->frame_h;
	const char *name = depth ? n->name : "all";
	size_t shown = strlen(name), fit;
	char fill[32];

	if (w < s->min_width)
		return false;
	if (is_kernel(name))
		shown -= 4;
	color(name, fill, sizeof(fill));
	fprintf(s->out, "<g class=\"f\" data-x=\"%llu\" data-n=\"%llu\" data-d=\"%zu\"><title>",
		(unsigned long long)x, (unsigned long long)n->total, depth);
	xml_esc(s->out, name, shown);
	fprintf(s->out, "%s (%llu %s, %.2f%%)</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" "
		"height=\"%.1f\" fill=\"%s\" rx=\"2\"/><text x=\"%.2f\" y=\"%.1f\">",
		is_kernel(name) ? " [kernel]" : "", (unsigned long long)n->total, s->unit,
		s->total ? 100.0 * (double)n->total / (double)s->total : 0.0, px, y, w,
		s->frame_h - 1, fill, px + 3, y + s->frame_h - 4.5);
	/* The label: what fits, else cut with "..", else nothing.  The script
	 * does the same again after each zoom. */
	fit = w > 6 ? (size_t)((w - 6) / s->char_w) : 0;
	if (fit >= shown)
		xml_esc(s->out, name, shown);
	else if (fit >= 3) {
		xml_esc(s->out, name, fit - 2);
		fputs("..", s->out);
	}
	fputs("</text></g>\n", s->out);
	return true;
}

/* Callees from the caller's left edge; its own samples are the gap left on
 * the right. */
static int svg_tree(struct svg *s, struct flame *f)
{
	struct level *st = levels(f);
	size_t d = 0;

	if (!st)
		return -ENOMEM;
	st[0].n = &f->root;
	if (svg_node(s, &f->root, 0, 0)) {
		for (;;) {
			struct fnode *n = st[d].n;

			if (st[d].next < n->nkids) {
				struct fnode *k = n->kids[st[d].next++];
				uint64_t x = st[d].x;

				st[d].x += k->total;
				if (!svg_node(s, k, d + 1, x))
					continue;
				st[d + 1] = (struct level){ .n = k, .x = x };
				d++;
			} else if (d-- == 0) {
				break;
			}
		}
	}
	free(st);
	return 0;
}

static const char svg_script[] =
	"var W, XPAD, CHW, total, frames = [], details, matched, unzoomBtn, searchBtn,\n"
	"    zoomed = null, term = null;\n"
	"function num(g, a) { return +g.getAttribute('data-' + a); }\n"
	"function nameOf(g) {\n"
	"  var t = g.firstChild.textContent; return t.substring(0, t.lastIndexOf(' ('));\n"
	"}\n"
	"function label(g) {\n"
	"  var r = g.childNodes[1], t = g.childNodes[2], w = +r.getAttribute('width');\n"
	"  var name = nameOf(g).replace(/ \\[kernel\\]$/, ''), fit = Math.floor((w - 6) / CHW);\n"
	"  t.setAttribute('x', +r.getAttribute('x') + 3);\n"
	"  t.textContent = fit >= name.length ? name : fit >= 3 ? name.substring(0, fit - 2) + '..' : '';\n"
	"}\n"
	"function init(evt) {\n"
	"  var svg = document.documentElement;\n"
	"  W = +svg.getAttribute('width'); XPAD = +svg.getAttribute('data-xpad');\n"
	"  CHW = +svg.getAttribute('data-chw'); total = +svg.getAttribute('data-total');\n"
	"  details = document.getElementById('details'); matched = document.getElementById('matched');\n"
	"  unzoomBtn = document.getElementById('unzoom'); searchBtn = document.getElementById('search');\n"
	"  var gs = document.getElementsByTagName('g');\n"
	"  for (var i = 0; i < gs.length; i++) {\n"
	"    if (gs[i].getAttribute('class') != 'f') continue;\n"
	"    var g = gs[i]; frames.push(g);\n"
	"    g.setAttribute('data-fill', g.childNodes[1].getAttribute('fill'));\n"
	"    g.onmouseover = function () { details.textContent = this.firstChild.textContent; };\n"
	"    g.onmouseout = function () { details.textContent = ' '; };\n"
	"    g.onclick = function () { zoom(this); };\n"
	"  }\n"
	"  unzoomBtn.onclick = unzoom; searchBtn.onclick = askSearch;\n"
	"  window.addEventListener('keydown', function (e) {\n"
	"    if (e.keyCode === 114 || (e.ctrlKey && e.keyCode === 70)) { e.preventDefault(); askSearch(); }\n"
	"    else if (e.keyCode === 27) { unzoom(); resetSearch(); }\n"
	"  });\n"
	"}\n"
	"function zoom(z) {\n"
	"  var x0 = num(z, 'x'), n0 = num(z, 'n'), d0 = num(z, 'd'), scale = (W - 2 * XPAD) / n0;\n"
	"  for (var i = 0; i < frames.length; i++) {\n"
	"    var g = frames[i], x = num(g, 'x'), n = num(g, 'n'), d = num(g, 'd'), r = g.childNodes[1];\n"
	"    if (d >= d0 && x >= x0 && x + n <= x0 + n0) {\n"
	"      r.setAttribute('x', XPAD + (x - x0) * scale); r.setAttribute('width', n * scale);\n"
	"      g.style.display = n * scale < 0.05 ? 'none' : ''; g.style.opacity = '';\n"
	"    } else if (d < d0 && x <= x0 && x + n >= x0 + n0) {\n"
	"      r.setAttribute('x', XPAD); r.setAttribute('width', W - 2 * XPAD);\n"
	"      g.style.display = ''; g.style.opacity = '0.5';\n"
	"    } else {\n"
	"      g.style.display = 'none';\n"
	"    }\n"
	"    if (g.style.display != 'none') label(g);\n"
	"  }\n"
	"  zoomed = d0 > 0 ? z : null;\n"
	"  unzoomBtn.style.opacity = zoomed ? '1' : '0';\n"
	"}\n"
	"function unzoom() {\n"
	"  for (var i = 0; i < frames.length; i++) if (num(frames[i], 'd') == 0) { zoom(frames[i]); break; }\n"
	"}\n"
	"function askSearch() {\n"
	"  if (term !== null) { resetSearch(); return; }\n"
	"  var t = prompt('Search for (regular expression):', '');\n"
	"  if (t) search(t);\n"
	"}\n"
	"function resetSearch() {\n"
	"  for (var i = 0; i < frames.length; i++)\n"
	"    frames[i].childNodes[1].setAttribute('fill', frames[i].getAttribute('data-fill'));\n"
	"  term = null; matched.textContent = ' '; searchBtn.textContent = 'Search';\n"
	"}\n"
	"function search(t) {\n"
	"  var re, spans = [], sum = 0, end = -1;\n"
	"  try { re = new RegExp(t); } catch (e) { alert('bad regular expression: ' + e); return; }\n"
	"  for (var i = 0; i < frames.length; i++) {\n"
	"    var g = frames[i], r = g.childNodes[1];\n"
	"    if (num(g, 'd') > 0 && re.test(nameOf(g))) {\n"
	"      r.setAttribute('fill', 'rgb(230,0,230)'); spans.push([num(g, 'x'), num(g, 'x') + num(g, 'n')]);\n"
	"    } else r.setAttribute('fill', g.getAttribute('data-fill'));\n"
	"  }\n"
	"  /* A frame inside a matched one is not counted twice. */\n"
	"  spans.sort(function (a, b) { return a[0] - b[0]; });\n"
	"  for (var j = 0; j < spans.length; j++) {\n"
	"    var a = Math.max(spans[j][0], end);\n"
	"    if (spans[j][1] > a) { sum += spans[j][1] - a; end = spans[j][1]; }\n"
	"  }\n"
	"  term = t; searchBtn.textContent = 'Reset Search';\n"
	"  matched.textContent = 'Matched: ' + (total ? 100 * sum / total : 0).toFixed(1) + '%';\n"
	"}\n";

int flame_write_svg(struct flame *f, FILE *out, const struct flame_svg_opts *o)
{
	const double font = 12, frame_h = 16, xpad = 10, top = 56, bottom_pad = 34;
	const char *title = o && o->title ? o->title : "Flame Graph";
	const char *unit = o && o->unit ? o->unit : "samples";
	int width = o && o->width >= 200 ? o->width : 1200;
	size_t depth = f->max_depth + 1;
	double height = top + (double)depth * frame_h + bottom_pad;
	struct svg s = {
		.out = out, .x0 = xpad, .frame_h = frame_h, .total = f->root.total, .unit = unit,
		.min_width = o && o->min_width > 0 ? o->min_width : 0.05,
		.bottom = height - bottom_pad, .char_w = font * 0.6,
	};

	if (sort_tree(f) < 0)
		return -ENOMEM;
	s.scale = f->root.total ? (width - 2 * xpad) / (double)f->root.total : 0;
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		"height=\"%.0f\" viewBox=\"0 0 %d %.0f\" onload=\"init(evt)\" data-xpad=\"%.0f\" "
		"data-chw=\"%.2f\" data-total=\"%llu\">\n", width, height, width, height, xpad,
		s.char_w, (unsigned long long)f->root.total);
	fprintf(out, "<style type=\"text/css\">\n"
		"text { font-family: monospace; font-size: %.0fpx; fill: rgb(0,0,0); }\n"
		"g.f text { pointer-events: none; }\n"
		"g.f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; cursor: pointer; }\n"
		"#title { font-size: 17px; text-anchor: middle; }\n"
		"#subtitle { fill: rgb(90,90,90); text-anchor: middle; }\n"
		".button { cursor: pointer; fill: rgb(30,30,160); }\n"
		"</style>\n", font);
	fprintf(out, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n", svg_script);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%.0f\" fill=\"rgb(250,250,240)\"/>\n",
		width, height);
	fprintf(out, "<text id=\"title\" x=\"%.1f\" y=\"24\">", width / 2.0);
	xml_esc(out, title, (size_t)-1);
	fputs("</text>\n", out);
	if (o && o->subtitle) {
		fprintf(out, "<text id=\"subtitle\" x=\"%.1f\" y=\"42\">", width / 2.0);
		xml_esc(out, o->subtitle, (size_t)-1);
		fputs("</text>\n", out);
	}
	fprintf(out, "<text id=\"unzoom\" class=\"button\" x=\"%.0f\" y=\"24\" "
		"style=\"opacity:0\">Reset Zoom</text>\n", xpad);
	fprintf(out, "<text id=\"search\" class=\"button\" x=\"%.0f\" y=\"24\" "
		"text-anchor=\"end\">Search</text>\n", width - xpad);
	fprintf(out, "<text id=\"details\" x=\"%.0f\" y=\"%.0f\"> </text>\n", xpad, height - 12);
	fprintf(out, "<text id=\"matched\" x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\"> </text>\n",
		width - xpad, height - 12);
	if (f->root.total && svg_tree(&s, f) < 0)
		return -ENOMEM;
	fputs("</svg>\n", out);
	return ferror(out) ? -EIO : 0;
}
