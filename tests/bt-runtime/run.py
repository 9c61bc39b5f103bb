#!/usr/bin/env python3
"""bpftrace's runtime test suite (tests/runtime), unchanged, run against ftr.

Usage: tests/bt-runtime/run.py [options] [SUITE|SUITE.NAME-REGEX ...]

See tests/bt-runtime/README.md for the classes, the n/a list, the figures.
"""

import argparse
import base64
import collections
import fcntl
import glob
import gzip
import hashlib
import json
import os
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import suite as bsuite  # noqa: E402
import verdict  # noqa: E402

REPO = os.path.dirname(os.path.dirname(HERE))
CLASSES = ["pass", "refused", "wrong", "crash", "timeout", "skipped", "n/a"]

# bpftrace's engine waits this long for its "probes attached" line before
# it counts TIMEOUT (runner.py's ATTACH_TIMEOUT).
ATTACH_TIMEOUT = 10
NOTIFY = verdict.NOTIFY
TERM_GRACE = 5

# Cases that check only bpftrace's own identity: its name, version, --info,
# its BPF machinery.  Not applicable to ftr; never run.
NOT_APPLICABLE = {
    "basic.it shows version": "bpftrace's version string ('bpftrace v...')",
    "basic.it shows usage with help flag": "bpftrace's usage text ('USAGE:')",
    "basic.it shows usage with bad flag": "bpftrace's usage text ('USAGE:')",
    "basic.info flag": "bpftrace --info: its build and BPF feature report",
    "builtin.log size too small": "the BPF verifier's log buffer (BPFTRACE_LOG_SIZE=2) "
                                  "overflowing as bpftrace loads its program",
    "call.debugf": "bpf_trace_printk's own lines in the kernel's trace ('bpf_trace_printk: ')",
    "call.debugf_with_arguments": "bpf_trace_printk's own lines in the kernel's trace",
    "call.debugf_with_seq_printf": "bpf_trace_printk's own lines in the kernel's trace",
}


def not_applicable(case):
    if case.ident in NOT_APPLICABLE:
        return NOT_APPLICABLE[case.ident]
    text = " ".join([case.run, case.prog, case.after] + case.requires)
    if "bpftool" in text:
        return "counts the BPF programs or links bpftrace loaded (bpftool)"
    if "--aot" in text:
        return "bpftrace's ahead-of-time compiled BPF programs (--aot)"
    return None


def find_tests_dir():
    """bpftrace's tests/ (runtime, testprogs, testlibs): BT_TESTS_DIR, else
    ../shared/bpftrace-tests beside the clone (of the main worktree too)."""
    env = os.environ.get("BT_TESTS_DIR")
    if env:
        return os.path.abspath(env)
    tops = []
    for arg, up in (("--show-toplevel", False), ("--git-common-dir", True)):
        try:
            out = subprocess.run(["git", "-C", REPO, "rev-parse", "--path-format=absolute", arg],
                                 capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            continue
        tops.append(os.path.dirname(out) if up else out)
    tops.append(REPO)
    for top in tops:
        d = os.path.join(os.path.dirname(top), "shared", "bpftrace-tests", "tests")
        if os.path.isdir(os.path.join(d, "runtime")):
            return d
    sys.exit("bt-runtime: no bpftrace tests: set BT_TESTS_DIR to the bpftrace-tests/tests "
             "directory (expected ../shared/bpftrace-tests/tests beside the clone)")


def kernel_version(release):
    return [int(x) for x in re.findall(r"\d+", release.split("-")[0])[:3]]


class Env:
    """Where and with what a run happens."""

    def __init__(self, args):
        self.tests = find_tests_dir()
        self.runtime = os.path.join(self.tests, "runtime")
        self.build = os.path.join(REPO, "build", "bt-runtime")
        self.ftr = os.path.abspath(args.ftr)
        self.work = os.path.join(self.build, "work")
        # One bin/ per ftr binary: runs of several ftrs (other worktrees'
        # with --ftr) at once must not re-point each other's bpftrace.
        tag = hashlib.sha1(os.path.realpath(self.ftr).encode()).hexdigest()[:12]
        self.bin = os.path.join(self.build, "bin", tag)
        self.lock = os.environ.get("BT_RUNTIME_LOCK", "/run/ftr-live.lock")
        self.grace = args.attach_grace
        self.release = os.uname().release
        self.machine = os.uname().machine
        self.features = ftr_features(self.ftr)

    def prepare(self):
        """build/bt-runtime/work: the directory the cases run in, as
        bpftrace's engine runs them in its tests/: runtime/ (the suites and
        their outputs/, scripts/), testprogs/ and testlibs/ (built).  bin/
        has ftr under the name bpftrace (see README: comm)."""
        os.makedirs(self.work, exist_ok=True)
        os.makedirs(self.bin, exist_ok=True)
        links = {
            os.path.join(self.work, "runtime"): self.runtime,
            os.path.join(self.work, "testprogs"): os.path.join(self.build, "testprogs"),
            os.path.join(self.work, "testlibs"): os.path.join(self.build, "testlibs"),
            os.path.join(self.bin, "bpftrace"): self.ftr,
        }
        for link, target in links.items():
            if os.path.islink(link) and os.readlink(link) == target:
                continue
            if os.path.lexists(link):
                os.unlink(link)
            tmp = "%s.%d" % (link, os.getpid())
            os.symlink(target, tmp)
            os.replace(tmp, link)
        self.bpftrace = os.path.join(self.bin, "bpftrace")


# bpftrace's BPF mechanisms whose only trace in a case is bpftrace's own
# count: kprobe_session attaches a kprobe and a kretprobe of one function
# as one BPF link ("Attached 1 probe", regression.session_retval); ftr
# makes two tracefs events, and counts two.
NEVER_FEATURES = {"kprobe_session"}


def ftr_features(ftr):
    """REQUIRES_FEATURE names (bpftrace --info's) that this ftr has.  ftr has
    no --info: a feature is taken as present (the case runs, and ftr
    computes it or refuses naming what it lacks) except where it is a fact of
    this kernel or build: btf (the kernel's /sys/kernel/btf/vmlinux) and
    dwarf (libdw: the dynamic build, not the static one); and never
    kprobe_session (NEVER_FEATURES)."""
    absent = set(NEVER_FEATURES)
    if not os.path.exists("/sys/kernel/btf/vmlinux"):
        absent.add("btf")
    try:
        out = subprocess.run(["ldd", ftr], capture_output=True, text=True).stdout
    except OSError:
        out = ""
    if "libdw" not in out:
        absent.add("dwarf")
    return absent


TESTPROG_RE = re.compile(r"(?:\./)?(testprogs|testlibs)/([A-Za-z0-9_.+-]+)")
TESTPROG_GLOB_RE = re.compile(r"(?:\./)?(testprogs|testlibs)/([A-Za-z0-9_.+-]*[*?][A-Za-z0-9_.+*?-]*)")


def missing_testprogs(env, case):
    text = " ".join([case.prog, case.run, case.after, case.setup] + case.befores + case.requires)
    miss = []
    for kind, name in TESTPROG_RE.findall(text):
        name = name.rstrip(".")
        if not os.path.exists(os.path.join(env.build, kind, name)):
            miss.append("%s/%s" % (kind, name))
    return sorted(set(miss))


def skip_reason(env, case):
    if not case.arch_ok(env.machine):
        return "ARCH %s" % "|".join(case.arch)
    kv = kernel_version(env.release)
    if case.kernel_min and kernel_version(case.kernel_min) > kv:
        return "MIN_KERNEL %s" % case.kernel_min
    if case.kernel_max and kernel_version(case.kernel_max) < kv:
        return "MAX_KERNEL %s" % case.kernel_max
    if case.skip_if_env_has and os.environ.get(case.skip_if_env_has[0]) == case.skip_if_env_has[1]:
        return "SKIP_IF_ENV_HAS %s=%s" % case.skip_if_env_has
    for f in case.features:
        if f.startswith("!"):
            if f[1:] not in env.features:
                return "REQUIRES_FEATURE %s: present" % f
        elif f in env.features:
            return "REQUIRES_FEATURE %s: absent" % f
    miss = missing_testprogs(env, case)
    if miss:
        return "not built: " + ", ".join(miss)
    for req in case.requires:
        try:
            r = subprocess.run(req, shell=True, cwd=env.work, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=30)
            ok = r.returncode == 0
        except subprocess.TimeoutExpired:
            ok = False
        if not ok:
            return "REQUIRES %s" % req
    return None


def top_level(prog):
    """PROG's text outside braces, strings and comments: its probe heads."""
    out, depth, i, n = [], 0, 0, len(prog)
    while i < n:
        ch = prog[i]
        if ch == '"':
            j = i + 1
            while j < n and prog[j] != '"':
                j += 2 if prog[j] == "\\" else 1
            i = j + 1
            continue
        if prog.startswith("//", i):
            i = prog.find("\n", i)
            i = n if i < 0 else i
            continue
        if prog.startswith("/*", i):
            i = prog.find("*/", i)
            i = n if i < 0 else i + 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
        i += 1
    return "".join(out)


def needs_lock(case):
    """A program whose probes are all begin/end/interval touches no tracefs
    (ftr reads it, makes nothing there): it runs beside others.  Anything
    else (a probe with a provider, RUN, BEFORE...) runs under the live lock."""
    if case.run or case.befores or case.after or case.setup:
        return True
    provs = {t.split(":")[0] for t in re.split(r"[\s,;]+", top_level(case.prog)) if ":" in t}
    return bool(provs - {"i", "interval"})


def kill_group(p, sig=signal.SIGKILL):
    try:
        os.killpg(p.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def wait_group_gone(p, deadline):
    """Waits until no process of P's group is left (P itself reaped), or
    DEADLINE."""
    while time.time() < deadline:
        try:
            os.killpg(p.pid, 0)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.05)


def comm_of(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return None


def descendants(pid):
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for t in os.listdir("/proc/%d/task" % p):
                with open("/proc/%d/task/%s/children" % (p, t)) as f:
                    todo += [int(x) for x in f.read().split()]
        except OSError:
            pass
    return out


def wait_comm(pid, name, deadline):
    """The pid of PID or a descendant whose comm is NAME (as the engine's
    wait for a BEFORE's process), or None by DEADLINE."""
    name = name[:15]
    while time.time() < deadline:
        for p in descendants(pid):
            if comm_of(p) == name:
                return p
        time.sleep(0.05)
    return None


def decode(b):
    return b.decode("utf-8", errors="backslashreplace")


def run_case(env, case, lock_all=False):
    """Runs CASE as bpftrace's engine does, with ftr for bpftrace.
    Returns a result dict (see verdict.classify)."""
    t0 = time.time()
    res = {"case": case.ident, "suite": case.suite, "name": case.name}
    na = not_applicable(case)
    if na:
        res.update(cls="n/a", detail=na, secs=0)
        return res
    why = skip_reason(env, case)
    if why:
        res.update(cls="skipped", detail=why, secs=round(time.time() - t0, 2))
        return res
    if case.new_pidns and not case.befores:
        res.update(cls="skipped", detail="NEW_PIDNS without BEFORE", secs=0)
        return res
    if case.setup:
        r = subprocess.run(case.setup, shell=True, cwd=env.work, capture_output=True)
        if r.returncode != 0:
            res.update(cls="skipped", detail="SETUP failed: %s: %s" % (
                case.setup, decode(r.stdout + r.stderr).strip()[:200]), secs=0)
            return res
    lockf = None
    if lock_all or needs_lock(case):
        lockf = open(env.lock, "a")
        fcntl.flock(lockf, fcntl.LOCK_EX)
        res["lock_wait"] = round(time.time() - t0, 2)
        t0 = time.time()
    try:
        out = execute(env, case)
    finally:
        if lockf:
            lockf.close()
        if case.cleanup:
            subprocess.run(case.cleanup, shell=True, cwd=env.work, capture_output=True)
    res.update(out)
    res.update(verdict.classify(case, out, env.work))
    res["secs"] = round(time.time() - t0, 2)
    return res


STDERR_LINE = re.compile(r"^(?:Attached \d+ probes?|Attaching \d+ probes?\.\.\.)$")


def pump(fds, merged, wait):
    """Reads what is ready on FDS (fd -> its list of chunks) within WAIT
    seconds, in arrival order into MERGED too; drops a closed fd.  Returns
    [(fd, chunk)] read."""
    got = []
    r, _, _ = select.select(list(fds), [], [], wait)
    for fd in r:
        chunk = os.read(fd, 65536)
        if not chunk:
            del fds[fd]
            continue
        fds[fd].append(chunk)
        merged.append(chunk)
        got.append((fd, chunk))
    return got


def execute(env, case):
    befores, after, nsenter = [], None, []
    deadline0 = time.time() + max(case.timeout, ATTACH_TIMEOUT)
    try:
        if case.befores:
            if case.new_pidns:
                b = subprocess.Popen(["unshare", "--fork", "--pid", "--mount-proc", "-r",
                                      "--kill-child", "--"] + case.befores[0].split(),
                                     cwd=env.work, start_new_session=True,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                befores.append(b)
                child = None
                while time.time() < deadline0 and child is None:
                    d = descendants(b.pid)
                    child = d[1] if len(d) > 1 else None
                    time.sleep(0.05)
                if child is None:
                    return {"rc": None, "timed_out": True, "output": "", "stdout": "",
                            "stderr": "", "note": "no new pid namespace"}
                nsenter = ["nsenter", "-p", "-m", "-t", str(child)]
                for cmd in case.befores[1:]:
                    b = subprocess.Popen(nsenter + [os.path.join(env.work, x) if x.startswith(
                        ".") else x for x in cmd.split()], cwd=env.work,
                        start_new_session=True, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)
                    befores.append(b)
                    wait_comm(b.pid, os.path.basename(cmd.split()[0]), deadline0)
            else:
                for cmd in case.befores:
                    befores.append(subprocess.Popen(cmd.split(), cwd=env.work,
                                                    start_new_session=True,
                                                    stdout=subprocess.DEVNULL,
                                                    stderr=subprocess.DEVNULL))
        before_pid = None
        if befores and not case.new_pidns:
            for b, cmd in zip(befores, case.befores):
                name = os.path.basename(cmd.strip().split()[-1])
                p = wait_comm(b.pid, name, deadline0)
                if p is None:
                    return {"rc": None, "timed_out": True, "output": "", "stdout": "",
                            "stderr": "", "note": "BEFORE %s never ran" % cmd}
                if before_pid is None:
                    before_pid = p
        pre = " ".join(shlex.quote(x) for x in nsenter) + " " if nsenter else ""
        if case.run:
            cmd = pre + case.run.replace("{{BPFTRACE}}", env.bpftrace)
        else:
            json_flags = "-q -f json " if case.expects and case.expects[0][0] == "json" else ""
            cmd = pre + "%s %s-e %s" % (env.bpftrace, json_flags, shlex.quote(case.prog))
        if before_pid is not None:
            cmd = cmd.replace("{{BEFORE_PID}}", str(before_pid))
        penv = {"test": case.name, NOTIFY: "1", "__BPFTRACE_NOTIFY_AOT_PORTABILITY_DISABLED": "1",
                "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        for k, v in os.environ.items():
            if k.startswith(("ASAN_", "UBSAN_", "LSAN_", "FTR_")):
                penv[k] = v
        penv.update(case.env)
        p = subprocess.Popen(cmd, shell=True, cwd=env.work, env=penv, start_new_session=True,
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT)
        start = time.time()
        attached_at = None
        deadline = start + ATTACH_TIMEOUT
        merged, outb, errb = [], [], []
        partial = b""
        # One pipe for both, as the engine's stderr=STDOUT: two pipes read
        # as they become ready do not keep the order ftr wrote them in (a
        # line on stderr was seen after stdout's next, which then failed a
        # whole-line EXPECT: 13 to 16 "wrong" from one run to the next).
        fds = {p.stdout.fileno(): outb}
        timed_out = False
        exact = any(m in ("file", "json") for m, _ in case.expects)
        while fds:
            now = time.time()
            if attached_at is None and now - start >= env.grace:
                attached_at = now
            if attached_at is not None and deadline > attached_at + case.timeout:
                deadline = attached_at + case.timeout
                if case.after and after is None:
                    after = subprocess.Popen(pre + case.after, shell=True, cwd=env.work,
                                             start_new_session=True, stdin=subprocess.DEVNULL,
                                             stdout=subprocess.DEVNULL,
                                             stderr=subprocess.DEVNULL)
            if now >= deadline:
                timed_out = True
                break
            wait = min(deadline, start + env.grace if attached_at is None else deadline) - now
            for fd, chunk in pump(fds, merged, max(0.01, wait)):
                if fd == p.stdout.fileno() and attached_at is None:
                    partial += chunk
                    if (NOTIFY + "\n").encode() in partial:
                        attached_at = time.time()
                        if exact:
                            # the engine matches EXPECT_FILE/JSON on what follows
                            merged = [partial.split((NOTIFY + "\n").encode(), 1)[1]]
        if timed_out:
            kill_group(p, signal.SIGTERM)
            # The engine gives bpftrace 1 s; ftr gets up to TERM_GRACE to
            # remove what it made in tracefs (a slow guest needs more).
            end = time.time() + TERM_GRACE
            while (fds or p.poll() is None) and time.time() < end:
                if fds:
                    pump(fds, merged, 0.1)
                else:
                    time.sleep(0.05)
            kill_group(p)
        try:
            rc = p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            kill_group(p)
            rc = p.wait()
        p.stdout.close()
        if timed_out and needs_lock(case):
            # What a SIGKILLed ftr left in tracefs (under the live lock
            # still).  The direct child is the sh wrapper, which SIGTERM
            # ends at once: whether ftr, its child, outlived it is not
            # known here, so reset whenever the case timed out, once its
            # process group is gone (ftr's run lock is free then).
            wait_group_gone(p, time.time() + 5)
            subprocess.run([env.ftr, "reset"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        # The attach line is ftr's, not the program's: the classes need the
        # program's own lines (verdict.consistent_stdout; ftr's messages,
        # and their source line and caret after them, end those there).
        both = decode(b"".join(outb))
        own = "".join(l for l in both.splitlines(True) if not STDERR_LINE.match(l))
        return {"cmd": cmd, "rc": rc, "timed_out": timed_out, "output": decode(b"".join(merged)),
                "stdout": own, "stderr": both}
    finally:
        for b in befores + ([after] if after else []):
            if b.poll() is None:
                kill_group(b)
            try:
                b.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass


# the static ftr has no libdw; the rows' kernels have BTF
GUEST_FEATURES_ABSENT = {"dwarf"} | NEVER_FEATURES
PKILL_SHIM = """#!/bin/sh
# pkill [-SIG|-s SIG] NAME, for the cases' AFTER lines: busybox has killall.
sig=TERM
case $1 in -s) sig=$2; shift 2 ;; -*) sig=${1#-}; shift ;; esac
exec killall -"${sig#SIG}" "$@"
"""
# bc, for the cases that pipe bpftrace into it: GNU bc reports a line it
# cannot read (the attach line bpftrace prints on stdout) and goes on with
# the next; busybox's stops there.  A function before the command (busybox
# sh runs its own applets before any file on PATH).
BC_FUNC = ("bc() { grep -v '^%s$' | busybox bc \"$@\"; }; " % NOTIFY)


def guest_cases(env, cases, static):
    """Splits CASES into ([(case, host result)], [case to run in a guest]):
    what the host can decide (n/a, ARCH, features, test programs not built
    static) is decided here; REQUIRES and the kernel version in the guest."""
    decided, run = [], []
    for c in cases:
        res = {"case": c.ident, "suite": c.suite, "name": c.name, "secs": 0}
        na = not_applicable(c)
        why = None
        if not na:
            if not c.arch_ok("x86_64"):
                why = "ARCH %s" % "|".join(c.arch)
            elif c.skip_if_env_has and os.environ.get(c.skip_if_env_has[0]) == \
                    c.skip_if_env_has[1]:
                why = "SKIP_IF_ENV_HAS %s=%s" % c.skip_if_env_has
            else:
                for f in c.features:
                    if (f[1:] not in GUEST_FEATURES_ABSENT) if f.startswith("!") else \
                            (f in GUEST_FEATURES_ABSENT):
                        why = "REQUIRES_FEATURE %s (static ftr)" % f
                miss = [m for m in missing_testprogs_in(static, c)]
                if not why and miss:
                    why = "not built static: " + ", ".join(miss)
                text = " ".join([c.prog, c.run, c.after, c.setup] + c.befores)
                if not why and re.search(r"\bbash\b", text):
                    why = "bash: the guest has busybox sh only"
                if not why and re.search(r"\bpython3?\b", text):
                    why = "python3: the guest has none"
            if not why and c.new_pidns and not c.befores:
                why = "NEW_PIDNS without BEFORE"
        if na:
            res.update(cls="n/a", detail=na)
        elif why:
            res.update(cls="skipped", detail=why)
        else:
            run.append(c)
            continue
        decided.append((c, res))
    return decided, run


def missing_testprogs_in(root, case):
    text = " ".join([case.prog, case.run, case.after, case.setup] + case.befores + case.requires)
    return sorted({"%s/%s" % (k, n.rstrip(".")) for k, n in TESTPROG_RE.findall(text)
                   if not os.path.exists(os.path.join(root, k, n.rstrip(".")))})


def guest_live_dir(env, cases, static, live, per_part):
    """The live directory a matrix guest runs: tests/live's runner, guest.sh,
    the work directory (runtime/scripts, the static test programs the cases
    name, bpftrace -> /bin/ftr) and t-bt-runtime-K.sh of PER_PART cases each."""
    rt = os.path.join(live, "rt")
    work = os.path.join(rt, "work")
    os.makedirs(os.path.join(work, "runtime"))
    os.makedirs(os.path.join(rt, "bin"))
    for f in ("run.sh", "lib.sh"):
        shutil.copy(os.path.join(REPO, "tests", "live", f), live)
    shutil.copy(os.path.join(HERE, "guest.sh"), rt)
    shutil.copytree(os.path.join(env.runtime, "scripts"), os.path.join(work, "runtime", "scripts"))
    os.symlink("/bin/ftr", os.path.join(rt, "bin", "bpftrace"))
    with open(os.path.join(rt, "bin", "pkill"), "w") as f:
        f.write(PKILL_SHIM)
    os.chmod(os.path.join(rt, "bin", "pkill"), 0o755)
    need = set()
    for c in cases:
        text = " ".join([c.prog, c.run, c.after, c.setup] + c.befores + c.requires)
        need |= {"%s/%s" % (k, n.rstrip(".")) for k, n in TESTPROG_RE.findall(text)}
        # A glob over the programs (usdt:./testprogs/usdt_test*::*) names
        # every file it matches: all of them go, or the guest's probe
        # count is not the case's.
        for k, g in TESTPROG_GLOB_RE.findall(text):
            need |= {os.path.relpath(m, static) for m in glob.glob(os.path.join(static, k, g))
                     if os.path.isfile(m)}
    for n in sorted(need):
        src = os.path.join(static, n)
        dst = os.path.join(work, n)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if os.path.isdir(src):
            shutil.copytree(src, dst)
        else:
            shutil.copy2(src, dst)
    # the uprobe_test programs' separate debug files and a wait10 every
    # BEFORE may name
    ids = guest_ids(cases)
    q = shlex.quote
    for k in range(0, len(cases), per_part):
        part = k // per_part + 1
        lines = ['. "$LIVE_DIR/rt/guest.sh"']
        for i, c in enumerate(cases[k:k + per_part], k):
            if c.run:
                cmd = c.run.replace("{{BPFTRACE}}", "bpftrace")
                if re.search(r"\|\s*bc\b", cmd):
                    cmd = BC_FUNC + cmd
            else:
                jf = "-q -f json " if c.expects and c.expects[0][0] == "json" else ""
                cmd = "bpftrace %s-e %s" % (jf, q(c.prog))
            envs = " ".join("%s=%s" % (a, b) for a, b in c.env.items())
            lines.append(" ".join(q(str(x)) for x in [
                "rt_case", i, c.timeout, c.kernel_min, c.kernel_max, c.setup, c.cleanup,
                c.after, 1 if c.new_pidns else 0, envs, cmd, "\n".join(c.requires)] + c.befores))
        lines.append("rt_end %d" % part)
        with open(os.path.join(live, "t-bt-runtime-%d.sh" % part), "w") as f:
            f.write("\n".join(lines) + "\n")
    return ids


def result_log_files(path):
    """The "file NAME data|gzdata B64" lines of a guest's result log, as
    the matrix would save them: {NAME(.gz): base64 text}."""
    files = collections.defaultdict(list)
    with open(path, errors="replace") as f:
        for line in f:
            w = line.split()
            if len(w) == 4 and w[0] == "file" and w[2] in ("data", "gzdata"):
                files[w[1] + (".gz" if w[2] == "gzdata" else "")].append(w[3])
    return {k: "".join(v) for k, v in files.items()}


def guest_merged(case, out, err):
    """The output the engine would have seen, rebuilt from a guest's stdout
    and stderr, kept apart there: ftr writes its "Attached N probes" on
    stderr just before the attach line on stdout, so the stderr up to that
    line comes first, then stdout, then the rest of stderr (all of it when
    there is no such line: -q, json).  For EXPECT_FILE/JSON only what
    follows the attach line counts, as in execute()."""
    lines = err.splitlines(True)
    cut = next((k + 1 for k, l in enumerate(lines) if STDERR_LINE.match(l.rstrip("\n"))), 0)
    before, after = "".join(lines[:cut]), "".join(lines[cut:])
    if any(m in ("file", "json") for m, _ in case.expects) and (NOTIFY + "\n") in out:
        return out.split(NOTIFY + "\n", 1)[1] + after
    return before + out + after


def guest_results(env, files, ids):
    """Results from a guest's files (rt-ID.res, .out, .err; from
    result_log_files), judged here."""
    out = []

    def read(name, gz):
        b64 = files.get(name + (".gz" if gz else ""))
        if b64 is None:
            return None
        data = base64.b64decode(b64)
        return decode(gzip.decompress(data) if gz else data)

    for i, c in ids.items():
        res = {"case": c.ident, "suite": c.suite, "name": c.name, "secs": 0}
        r = read("rt-%s.res" % i, False)
        if r is None:
            res.update(cls="timeout", detail="the guest did not report it (killed first?)")
        elif r.startswith("skip "):
            res.update(cls="skipped", detail=r[5:].strip())
        else:
            w = r.split()
            o, e = read("rt-%s.out" % i, True) or "", read("rt-%s.err" % i, True) or ""
            run = {"rc": int(w[1]) if w[1].lstrip("-").isdigit() else None,
                   "timed_out": w[2] == "1", "output": guest_merged(c, o, e),
                   "stdout": o, "stderr": e}
            if len(w) > 4 and w[1] == "-":
                run["note"] = " ".join(w[3:])
            if len(w) > 3 and w[3].isdigit():
                res["secs"] = int(w[3])
            res.update(run)
            res.update(verdict.classify(c, run, env.work))
        out.append(res)
    return out


def save_guest_ids(path, decided, ids):
    """Beside a guest's result log: which case each id is, and what the host
    decided, for --guest-log."""
    with open(path + ".cases.json", "w") as f:
        json.dump({"decided": [r for _, r in decided],
                   "ids": {i: [c.ident, c.line] for i, c in ids.items()}}, f)


def load_guest_ids(env, path):
    with open(path + ".cases.json") as f:
        saved = json.load(f)
    byline = {}
    for _, cases in bsuite.read_all(env.runtime):
        for c in cases:
            byline[(c.ident, c.line)] = c
    return saved["decided"], {i: byline[tuple(v)] for i, v in saved["ids"].items()}


def guest_ids(cases):
    """Case ids in a guest: their index in the order sent."""
    return {str(i): c for i, c in enumerate(cases)}


def run_guest(env, args, cases):
    """Runs CASES in the matrix rows ROWS (one guest after the other, under
    the guest lock) and reports each row as it ends: the exit status."""
    static = os.path.join(env.build, "static")
    ftr_static = os.path.join(REPO, "build", "ftr-static")
    if not os.path.exists(ftr_static):
        sys.exit("bt-runtime: no %s (make static)" % ftr_static)
    if not args.no_build:
        subprocess.run([os.path.join(HERE, "build.sh"), env.tests, static, "--static"],
                       check=False)
    out = 0
    for row in args.guest.split(","):
        decided, torun = guest_cases(env, cases, static)
        tmp = tempfile.mkdtemp(prefix="bt-runtime-")
        try:
            live = os.path.join(tmp, "live")
            os.makedirs(live)
            ids = guest_live_dir(env, torun, static, live, args.per_part)
            save_guest_ids(os.path.join(env.build, "guest-%s-result.log" % row), decided, ids)
            timeout = args.guest_timeout or max(900, 6 * len(torun) + 120)
            cmd = ["flock", os.environ.get("BT_RUNTIME_QEMU_LOCK", "/run/ftr-qemu.lock"),
                   os.path.join(REPO, "tests", "matrix", "run.sh"), "--rows", row,
                   "--timeout", str(timeout), "-k"]
            genv = dict(os.environ, FTR_LIVE_DIR=live, TMPDIR=tmp)
            print("bt-runtime: %s: %d cases in the guest (%d decided here), timeout %d s" % (
                row, len(torun), len(decided), timeout), flush=True)
            t0 = time.time()
            log = subprocess.run(cmd, env=genv, capture_output=True, text=True,
                                 errors="backslashreplace")
            with open(os.path.join(env.build, "guest-%s.log" % row), "w") as f:
                f.write(log.stdout + log.stderr)
            saved = os.path.join(env.build, "guest-%s-result.log" % row)
            found = False
            for d in os.listdir(tmp):
                if not d.startswith("ftr-matrix."):
                    continue
                for r in sorted(os.listdir(os.path.join(tmp, d))):
                    log_path = os.path.join(tmp, d, r, "result.log")
                    if r.startswith("row") and os.path.exists(log_path):
                        shutil.copy(log_path, saved)
                        found = True
            if not found:
                print("bt-runtime: %s: no results; see build/bt-runtime/guest-%s.log" % (
                    row, row))
                open(saved, "w").close()
            results = [r for _, r in decided] + guest_results(env, result_log_files(saved), ids)
            print("bt-runtime: %s: %.0f s (the guest's output: %s; --guest-log judges it "
                  "again)" % (row, time.time() - t0, saved))
            out |= report(results, args, row, 0)
        finally:
            if not args.keep:
                shutil.rmtree(tmp, ignore_errors=True)
            else:
                print("bt-runtime: kept %s" % tmp)
    return out


def select_cases(env, args):
    suites = bsuite.read_all(env.runtime)
    names = set(args.suite or [])
    out = []
    for sname, cases in suites:
        for c in cases:
            if names and sname not in names:
                continue
            if args.filter and not re.search(args.filter, c.ident):
                continue
            if args.prog_only and not c.prog_only():
                continue
            if args.free_only and needs_lock(c):
                continue
            out.append(c)
    return out


def table(results):
    by = collections.OrderedDict()
    for r in results:
        by.setdefault(r["suite"], collections.Counter())[r["cls"]] += 1
    total = collections.Counter()
    w = max([len(s) for s in by] + [5])
    lines = ["%-*s %s %6s" % (w, "suite", " ".join("%7s" % c for c in CLASSES), "cases")]
    for s, cnt in by.items():
        total.update(cnt)
        lines.append("%-*s %s %6d" % (w, s, " ".join("%7d" % cnt[c] for c in CLASSES),
                                       sum(cnt.values())))
    lines.append("%-*s %s %6d" % (w, "total", " ".join("%7d" % total[c] for c in CLASSES),
                                   sum(total.values())))
    return lines, total


def show(results, cls, limit):
    sel = [r for r in results if r["cls"] == cls]
    if not sel:
        print("\n(no case is %s)" % cls)
        return
    print("\n%d %s:" % (len(sel), cls))
    if cls in ("refused", "skipped", "n/a"):
        groups = collections.Counter(verdict.message_key(r.get("detail", "")) for r in sel)
        print("  by message:")
        for k, n in groups.most_common():
            print("  %4d  %s" % (n, k))
    for r in sel[:limit]:
        print("  %s: %s" % (r["case"], r.get("detail", "")))
    if len(sel) > limit:
        print("  ... %d more (--limit)" % (len(sel) - limit))


def main():
    ap = argparse.ArgumentParser(
        description="bpftrace's runtime tests (tests/runtime, unchanged) against ftr",
        epilog="Classes: " + ", ".join(CLASSES) + ". See tests/bt-runtime/README.md.")
    ap.add_argument("suite", nargs="*", help="suites to run (default: all)")
    ap.add_argument("--filter", help="a regex on SUITE.NAME")
    ap.add_argument("--prog-only", action="store_true",
                    help="the issue's PROG-only subset (PROG; no BEFORE/AFTER/SETUP/REQUIRES/"
                         "REQUIRES_FEATURE/ENV; EXPECT or EXPECT_REGEX only)")
    ap.add_argument("--free-only", action="store_true",
                    help="only the cases that need no live lock (probes begin/end/interval "
                         "alone): a run while others hold the lock")
    ap.add_argument("--ftr", default=os.path.join(REPO, "build", "ftr"))
    ap.add_argument("-j", "--jobs", type=int, default=2,
                    help="cases at once (those under the live lock still one at a time)")
    ap.add_argument("--attach-grace", type=float, default=1.0,
                    help="seconds after which ftr counts as attached when it prints no %s "
                         "line: AFTER starts and TIMEOUT counts from then (default 1)" % NOTIFY)
    ap.add_argument("--show", action="append", default=[], choices=CLASSES,
                    help="list the cases of a class with their first differing line or "
                         "message (repeatable)")
    ap.add_argument("--limit", type=int, default=1000, help="at most this many cases per --show")
    ap.add_argument("--verbose", "-v", action="store_true", help="one line per case as it ends")
    ap.add_argument("--json", help="write every result (output included) to this file")
    ap.add_argument("--list", action="store_true", help="list the selected cases, run nothing")
    ap.add_argument("--guest", metavar="ROWS",
                    help="run in these matrix rows (e.g. 6.12,6.1) with build/ftr-static, "
                         "one guest after the other under the guest lock; judged here")
    ap.add_argument("--guest-log", nargs=2, metavar=("ROW", "RESULT_LOG"),
                    help="run nothing: judge a guest's saved result log "
                         "(build/bt-runtime/guest-ROW-result.log) for the same selection")
    ap.add_argument("--per-part", type=int, default=40,
                    help="cases per live file in a guest (a guest killed by its timeout "
                         "still reports the files it finished)")
    ap.add_argument("--guest-timeout", type=int, help="seconds a guest may run")
    ap.add_argument("--keep", action="store_true", help="keep the guest's work directory")
    ap.add_argument("--rejudge", metavar="JSON",
                    help="run nothing: classify again the runs a --json file kept")
    ap.add_argument("--no-build", action="store_true",
                    help="do not (re)build testprogs/ and testlibs/ first (build.sh)")
    ap.add_argument("--min-pass", type=int, help="fail below this many passes")
    ap.add_argument("--max-wrong", type=int, help="fail above this many wrong")
    ap.add_argument("--max-crash", type=int, help="fail above this many crashes")
    ap.add_argument("--max-timeout", type=int, help="fail above this many timeouts")
    args = ap.parse_args()
    # A name that is no suite is a filter (SUITE.NAME regex).
    env = Env(args)
    known = set(os.listdir(env.runtime))
    extra = [s for s in args.suite if s not in known]
    if extra:
        args.suite = [s for s in args.suite if s in known]
        args.filter = "|".join(([args.filter] if args.filter else []) + extra)
    cases = select_cases(env, args)
    if args.list:
        for c in cases:
            print(c.ident)
        return 0
    if args.rejudge:
        return rejudge(env, args)
    if args.guest_log:
        # The cases the guest ran: the ids saved beside its log.
        env.prepare()
        row, path = args.guest_log
        decided, ids = load_guest_ids(env, path)
        results = decided + guest_results(env, result_log_files(path), ids)
        return report(results, args, row, 0)
    if args.guest:
        env.prepare()
        return run_guest(env, args, cases)
    if not os.access(env.ftr, os.X_OK):
        sys.exit("bt-runtime: no ftr at %s (make, or --ftr)" % env.ftr)
    env.prepare()
    if not args.no_build:
        subprocess.run([os.path.join(HERE, "build.sh"), env.tests, env.build], check=False)
    t0 = time.time()
    results = [None] * len(cases)
    mutex = threading.Lock()

    def one(i):
        r = run_case(env, cases[i])
        results[i] = r
        if args.verbose:
            with mutex:
                print("%-8s %s (%.1fs)%s" % (r["cls"], r["case"], r["secs"],
                                             ": " + r["detail"][:150] if r.get("detail") and
                                             r["cls"] != "pass" else ""), flush=True)

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        # The cases free of tracefs first: those under the live lock queue
        # behind other users of it.
        order = sorted(range(len(cases)), key=lambda i: needs_lock(cases[i]))
        list(pool.map(one, order))
    return report(results, args, "host", time.time() - t0)


def rejudge(env, args):
    """Classifies again the runs a --json file kept (after a change to
    verdict.py, or to look at them again) and reports them."""
    with open(args.rejudge) as f:
        results = json.load(f)
    args.json = None
    byid = collections.defaultdict(list)
    for _, cases in bsuite.read_all(env.runtime):
        for c in cases:
            byid[c.ident].append(c)
    seen = collections.Counter()
    for r in results:
        cands = byid.get(r["case"], [])
        c = cands[min(seen[r["case"]], len(cands) - 1)] if cands else None
        seen[r["case"]] += 1
        if c is not None and "output" in r:
            r.update(verdict.classify(c, r, env.work))
    if args.filter:
        results = [r for r in results if re.search(args.filter, r["case"])]
    return report(results, args, os.path.basename(args.rejudge), 0)


def report(results, args, where, wall):
    """The tables, --show, the closing line and the ratchet: exit status."""
    if args.json:
        name = args.json if where == "host" else "%s.%s" % (args.json, where)
        with open(name, "w") as f:
            json.dump(results, f, indent=1)
    for cls in args.show:
        show(results, cls, args.limit)
    lines, total = table(results)
    print("\n[%s]" % where)
    print("\n".join(lines))
    bad = total["wrong"] + total["crash"] + total["timeout"] + total["refused"]
    print("bt-runtime %s: %d passed, %d failed (%d refused, %d wrong, %d crash, %d timeout), "
          "%d skipped, %d n/a; %d cases%s" % (
              where, total["pass"], bad, total["refused"], total["wrong"], total["crash"],
              total["timeout"], total["skipped"], total["n/a"], len(results),
              " in %.0f s" % wall if wall else ""))
    rc = 0
    for opt, cls, below in (("min_pass", "pass", True), ("max_wrong", "wrong", False),
                            ("max_crash", "crash", False), ("max_timeout", "timeout", False)):
        lim = getattr(args, opt)
        if lim is None:
            continue
        if (total[cls] < lim) if below else (total[cls] > lim):
            print("bt-runtime %s: %d %s, the ratchet wants %s %d" % (
                where, total[cls], cls, ">=" if below else "<=", lim))
            rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
