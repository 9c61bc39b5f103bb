"""Reading bpftrace's runtime test suites (tests/runtime/SUITE), unchanged.

The format is bpftrace's (its tests/README.md): cases are blocks of lines
separated by an empty line; a line starting with '#' is a comment; each
line is "DIRECTIVE VALUE"; a line indented by at least the width of the
previous directive plus one continues a PROG, EXPECT or EXPECT_REGEX (the
indentation up to that width is dropped).  This module only reads: what a
directive means when run is run.py's business.
"""

import os
import platform
import sys

# Directories of tests/runtime that hold no suite.
NOT_SUITES = {"engine", "scripts", "outputs"}
DEFAULT_TIMEOUT = 5
KNOWN = {
    "NAME", "RUN", "PROG", "EXPECT", "EXPECT_NONE", "EXPECT_REGEX", "EXPECT_REGEX_NONE",
    "EXPECT_FILE", "EXPECT_JSON", "TIMEOUT", "BEFORE", "AFTER", "SETUP", "CLEANUP",
    "MIN_KERNEL", "MAX_KERNEL", "REQUIRES", "REQUIRES_FEATURE", "ENV", "ARCH", "WILL_FAIL",
    "NEW_PIDNS", "SKIP_IF_ENV_HAS", "RETURN_CODE", "LOCALIZE_TIMESTAMPS",
}
# Directive -> Case attribute, by the kind of value.
STRINGS = {"NAME": "name", "RUN": "run", "PROG": "prog", "AFTER": "after", "SETUP": "setup",
           "CLEANUP": "cleanup", "MIN_KERNEL": "kernel_min", "MAX_KERNEL": "kernel_max"}
EXPECTS = {"EXPECT": "text", "EXPECT_NONE": "text_none", "EXPECT_REGEX": "regex",
           "EXPECT_REGEX_NONE": "regex_none", "EXPECT_FILE": "file", "EXPECT_JSON": "json"}
LISTS = {"BEFORE": "befores", "REQUIRES": "requires"}
INTS = {"TIMEOUT": "timeout", "RETURN_CODE": "return_code", "LOCALIZE_TIMESTAMPS": "localize_ts"}
FLAGS = {"WILL_FAIL": "will_fail", "NEW_PIDNS": "new_pidns"}


class SuiteError(Exception):
    pass


class Case:
    """One test case: its directives, as read."""

    def __init__(self, suite, line):
        self.suite = suite
        self.line = line        # where it starts in the suite file
        self.name = ""
        self.run = ""
        self.prog = ""
        self.expects = []       # [mode, text]: text, text_none, regex, regex_none, file, json
        self.timeout = DEFAULT_TIMEOUT
        self.befores = []
        self.after = ""
        self.setup = ""
        self.cleanup = ""
        self.kernel_min = ""
        self.kernel_max = ""
        self.requires = []
        self.features = []      # "name" or "!name"
        self.env = {}
        self.arch = []
        self.will_fail = False
        self.new_pidns = False
        self.skip_if_env_has = None
        self.return_code = 0
        self.localize_ts = -1
        self.directives = set()

    @property
    def ident(self):
        return "%s.%s" % (self.suite, self.name)

    def prog_only(self):
        """The issue's "PROG-only" subset: PROG, nothing run beside it,
        no environment, and only EXPECT / EXPECT_REGEX checks."""
        if not self.prog or self.befores or self.after or self.setup or self.requires:
            return False
        if self.env or self.features:
            return False
        return all(m in ("text", "regex") for m, _ in self.expects)

    def arch_ok(self, machine=None):
        ids = {(machine or platform.machine()).lower(), "be" if sys.byteorder == "big" else "le"}
        pos = {a for a in self.arch if not a.startswith("!")}
        neg = {a[1:] for a in self.arch if a.startswith("!")}
        if pos and not ids & pos:
            return False
        return not ids & neg


def _case(lines, suite, start):
    c = Case(suite, start)
    prev = ""
    for raw in lines:
        body = raw[:-1] if raw.endswith("\n") else raw
        if prev and body[:len(prev) + 1].isspace():
            text = body[len(prev) + 1:]
            if prev == "PROG":
                c.prog += "\n" + text
                continue
            if prev in ("EXPECT", "EXPECT_REGEX"):
                c.expects[-1][1] += "\n" + text
                continue
        parts = raw.strip().split(maxsplit=1)
        key = parts[0]
        val = parts[1] if len(parts) > 1 else ""
        prev = key
        if key not in KNOWN:
            raise SuiteError("%s:%d: %s is not a runtime test directive" % (suite, start, key))
        c.directives.add(key)
        if key in STRINGS:
            setattr(c, STRINGS[key], val)
        elif key in EXPECTS:
            c.expects.append([EXPECTS[key], val])
        elif key in LISTS:
            getattr(c, LISTS[key]).append(val)
        elif key in INTS:
            setattr(c, INTS[key], int(val.strip()))
        elif key in FLAGS:
            setattr(c, FLAGS[key], True)
        elif key == "REQUIRES_FEATURE":
            c.features += [f.strip() for f in val.split(" ") if f.strip()]
        elif key == "ENV":
            for e in val.split():
                k, v = e.split("=", 1)
                c.env[k] = v
        elif key == "ARCH":
            c.arch = [a.strip() for a in val.split("|")]
        elif key == "SKIP_IF_ENV_HAS":
            k, v = val.split("=", 1)
            c.skip_if_env_has = (k, v)
    if not c.name:
        raise SuiteError("%s:%d: a case without NAME" % (suite, start))
    if bool(c.run) == bool(c.prog):
        raise SuiteError("%s: %s: needs exactly one of RUN and PROG" % (suite, c.name))
    return c


def read_suite(path):
    suite = os.path.basename(path)
    cases, block, start = [], [], 0
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    for n, line in enumerate(lines, 1):
        if line.startswith("#"):
            continue
        if line != "\n":
            if not block:
                start = n
            block.append(line)
        if (line == "\n" or n == len(lines)) and block:
            cases.append(_case(block, suite, start))
            block = []
    return cases


def read_all(runtime_dir):
    """Every suite of RUNTIME_DIR, sorted: [(suite, [Case])]."""
    out = []
    for name in sorted(os.listdir(runtime_dir)):
        path = os.path.join(runtime_dir, name)
        if name.startswith(".") or name in NOT_SUITES or not os.path.isfile(path):
            continue
        out.append((name, read_suite(path)))
    return out
