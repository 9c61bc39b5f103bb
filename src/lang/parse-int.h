/* N_CALL.idx of a bare name the parser did not know (see expand). */
#define BARE_NAME (-2)

struct lexer {
	const char *src, *p;
	int line;
	const char *line_start;
	/* the current token */
	enum tok t;
	int tline, tcol;
	int64_t ival;
	char *sval;
	struct lang_err *err;
	bool failed;
	bool in_pred;		/* a predicate: '/' at paren depth 0 ends it */
	int parens;
	int nest;		/* the parser's own recursion */
	int depth;		/* the height of the expression just parsed */
	char *const *params;	/* positional parameters $1..$N */
	int nparams;
	struct macro *macros;
	int nmacros;
	int expansions;		/* a macro's variables are renamed per expansion */
};
