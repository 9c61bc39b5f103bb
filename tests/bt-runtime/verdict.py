"""The verdict on one case's run: bpftrace's matching rules, then ftr's classes.

Matching is bpftrace's engine's (tests/runtime/engine/runner.py), on the
output it sees: stdout and stderr merged in the order they arrived.
  EXPECT X        some line is X, leading/trailing white space aside
  EXPECT_NONE X   no such line
  EXPECT_REGEX R  Python's re.search(R, output, re.M)
  EXPECT_REGEX_NONE R  no match
  EXPECT_FILE F   output.strip() == F's text stripped (LOCALIZE_TIMESTAMPS:
                  the text is a strftime format of that time, local)
  EXPECT_JSON F   the output's one line as JSON == F's; .ndjson line by line
The exit code: RETURN_CODE (default 0) unless WILL_FAIL, which wants != 0.
A run the engine stopped on TIMEOUT passes if its output matches.

Classes (pass is the engine's OK; everything else is one of):
  crash    exit by a signal (rc < 0 or >= 128, not our timeout's kill), or a
           sanitizer report ("ERROR: AddressSanitizer", "runtime error:",
           "LeakSanitizer") on stderr
  timeout  still running at TIMEOUT and the output does not match
  refused  ftr exited 1 or 2 (any code in a RUN pipeline, whose status is
           the last command's) with its own error message on stderr (a line
           starting "ftr: " or "ftr COMMAND: "; on stdout too where a RUN
           sends stderr there, and then what follows it is the message's),
           and nothing on stdout contradicts the case:
           every stdout line is one the case expects (an EXPECT line, a match
           of an EXPECT_REGEX, a line of EXPECT_FILE) and no *_NONE matches
           stdout.  The message is the detail.
  wrong    anything else: ftr ran and printed something else, or exited with
           an unexpected code without a message of its own
"""

import json
import os
import re
import time

SANITIZER = re.compile(r"ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|"
                       r"ThreadSanitizer|MemorySanitizer")
# ftr's own messages: "ftr: ..." or "ftr COMMAND: ...".
NOTIFY = "__BPFTRACE_NOTIFY_PROBES_ATTACHED"
ATTACHED = r"Attached \d+ probes?"
FTR_MSG = re.compile(r"^ftr(?: [a-z]+)?: .*", re.M)


def _text_re(x):
    return r"^\s*" + re.escape(x) + r"\s*$"


def check(mode, expect, output, workdir, localize_ts=-1):
    """bpftrace's check of one expectation; True when it holds."""
    try:
        if mode == "text":
            return bool(re.search(_text_re(expect), output, re.M))
        if mode == "text_none":
            return not re.search(_text_re(expect), output, re.M)
        if mode == "regex":
            return bool(re.search(expect, output, re.M))
        if mode == "regex_none":
            return not re.search(expect, output, re.M)
        with open(os.path.join(workdir, expect)) as f:
            want = f.read()
        if mode == "file":
            want = want.strip()
            if localize_ts >= 0:
                want = time.strftime(want, time.localtime(localize_ts))
            return output.strip() == want
        got = output.strip().splitlines()
        if expect.endswith(".ndjson"):
            wl = want.strip().splitlines()
            return len(wl) == len(got) and all(json.loads(a) == json.loads(b)
                                                for a, b in zip(wl, got))
        return len(got) == 1 and json.loads(got[0]) == json.loads(want)
    except Exception:  # a bad JSON, a missing file: no match, as the engine
        return False


def expected_lines(case, workdir):
    """What the case expects to see, line by line: for telling whether a
    stdout line is one the case wants."""
    texts, regexes = set(), []
    for mode, x in case.expects:
        if mode == "text":
            texts.update(l.strip() for l in x.split("\n"))
        elif mode == "regex":
            regexes.append(x)
        elif mode in ("file", "json"):
            try:
                with open(os.path.join(workdir, x)) as f:
                    texts.update(l.strip() for l in f.read().splitlines())
            except OSError:
                pass
    return texts, regexes


def consistent_stdout(case, stdout, workdir):
    """No stdout line contradicts CASE: each is expected, no *_NONE holds."""
    for mode, x in case.expects:
        if mode in ("text_none", "regex_none") and not check(mode, x, stdout, workdir):
            return False
    texts, regexes = expected_lines(case, workdir)
    for line in stdout.splitlines():
        s = line.strip()
        if not s or s == NOTIFY or s in texts:
            continue
        if any(_safe_search(r, line) for r in regexes):
            continue
        return False
    return True


def _safe_search(r, line):
    try:
        return re.search(r, line, re.M) is not None
    except re.error:
        return False


def first_difference(case, res, workdir):
    """One line saying what differs, for --show."""
    out = res.get("output", "")
    for mode, x in case.expects:
        if check(mode, x, out, workdir, case.localize_ts):
            continue
        if mode in ("file", "json"):
            try:
                with open(os.path.join(workdir, x)) as f:
                    want = f.read().strip().splitlines()
            except OSError:
                return "%s %s: unreadable" % (mode, x)
            got = out.strip().splitlines()
            for i in range(max(len(want), len(got))):
                w = want[i] if i < len(want) else "(end)"
                g = got[i] if i < len(got) else "(end)"
                if w != g:
                    return "line %d: want %r, got %r" % (i + 1, w, g)
            return "%s %s differs" % (mode, x)
        texts, regexes = expected_lines(case, workdir)
        # The attach line is the runner's, and bpftrace prints "Attached N
        # probes" too: neither is what differs unless the case checks it.
        own = [NOTIFY] + ([] if any("Attached" in e for _, e in case.expects) else [ATTACHED])
        other = [l for l in out.splitlines() if l.strip() and l.strip() not in texts and
                 not any(re.fullmatch(o, l.strip()) for o in own) and
                 not any(_safe_search(r, l) for r in regexes)]
        got = other[0] if other else (out.splitlines() or ["(no output)"])[0]
        label = {"text": "want", "text_none": "want no", "regex": "want /",
                 "regex_none": "want no /"}[mode]
        return "%s %r; got %r" % (label, x.split("\n")[0], got[:200])
    rc = res.get("rc")
    if case.will_fail:
        return "exit 0, WILL_FAIL wants a failure"
    return "exit %s, wants %d" % (rc, case.return_code)


def classify(case, res, workdir):
    """cls and detail of a run (res: rc, timed_out, output, stdout, stderr)."""
    out, rc = res.get("output", ""), res.get("rc")
    matched = all(check(m, x, out, workdir, case.localize_ts) for m, x in case.expects)
    san = SANITIZER.search(res.get("stderr", ""))
    if san:
        line = res["stderr"][san.start():].split("\n")[0]
        return {"cls": "crash", "detail": line[:200]}
    if res.get("timed_out"):
        if res.get("note"):
            return {"cls": "timeout", "detail": res["note"]}
        if matched:
            return {"cls": "pass"}
        return {"cls": "timeout", "detail": "after %ds: %s" % (
            case.timeout, first_difference(case, res, workdir))}
    if rc is not None and (rc < 0 or rc >= 128):
        return {"cls": "crash", "detail": "exit %d%s" % (rc, " (signal %d)" % (
            -rc if rc < 0 else rc - 128))}
    rc_ok = (rc != 0) if case.will_fail else (rc == case.return_code)
    if rc_ok and matched:
        return {"cls": "pass"}
    # A RUN with 2>&1 has ftr's message, and the source line and caret after
    # it, on stdout: what precedes the message is what must agree.
    stdout = res.get("stdout", "")
    m = FTR_MSG.search(stdout)
    if m:
        stdout = stdout[:m.start()]
    msgs = FTR_MSG.findall(res.get("stderr", "")) + ([m.group(0)] if m else [])
    # In a RUN pipeline ftr's exit code is lost (sh has no pipefail).
    piped = case.run and re.search(r"\{\{BPFTRACE\}\}[^|]*\|(?!\|)", case.run)
    if (rc in (1, 2) or piped) and msgs and consistent_stdout(case, stdout, workdir):
        return {"cls": "refused", "detail": msgs[0][:300]}
    return {"cls": "wrong", "detail": first_difference(case, res, workdir)}


def message_key(msg):
    """A refusal's message without its subject: for grouping (--show)."""
    m = re.sub(r"^ftr(?: [a-z]+)?: (error: )?", "", msg)
    m = re.sub(r"^(stdin|[^ :]+\.bt)?:?\d+(:\d+)?(-\d+)?: ", "", m)
    m = re.sub(r"^(error|warning): ", "", m)
    m = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", "'X'", m)
    m = re.sub(r"\b\d+\b", "N", m)
    m = re.split(r"[(;:]", m)[0].strip()
    return m[:80] or msg[:80]
