// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The kernel's user ABI in numbers: see abi.h.  The syscall tables are one
 * string per architecture, the names in number order separated by one
 * space, a number without a syscall an empty name (two spaces): generated
 * from the kernel's arch/x86/entry/syscalls/syscall_64.tbl (abi common and
 * 64; x32 is not a syscall ABI ftr reads), arch/arm/tools/syscall.tbl (EABI:
 * common and eabi, not oabi) and arm64's include/uapi/asm-generic/unistd.h
 * with arm64's __ARCH_WANT_* (newfstatat, renameat, clone3...), of linux
 * 6.1; 451 (cachestat) to 469 (file_setattr) are the same on all three
 * (scripts/syscall.tbl), uretprobe (335) and uprobe (336) x86-64's own.
 * A binary holds its own architecture's table only (ftr is built for each;
 * the static binary has a size budget).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/abi.h"
#include "ftr.h"

#if defined(__x86_64__)
static const char x86_64_names[] =
	"read write open close stat fstat lstat poll lseek mmap mprotect munmap brk "
	"rt_sigaction rt_sigprocmask rt_sigreturn ioctl pread64 pwrite64 readv writev access "
	"pipe select sched_yield mremap msync mincore madvise shmget shmat shmctl dup dup2 "
	"pause nanosleep getitimer alarm setitimer getpid sendfile socket connect accept "
	"sendto recvfrom sendmsg recvmsg shutdown bind listen getsockname getpeername "
	"socketpair setsockopt getsockopt clone fork vfork execve exit wait4 kill uname "
	"semget semop semctl shmdt msgget msgsnd msgrcv msgctl fcntl flock fsync fdatasync "
	"truncate ftruncate getdents getcwd chdir fchdir rename mkdir rmdir creat link "
	"unlink symlink readlink chmod fchmod chown fchown lchown umask gettimeofday "
	"getrlimit getrusage sysinfo times ptrace getuid syslog getgid setuid setgid geteuid "
	"getegid setpgid getppid getpgrp setsid setreuid setregid getgroups setgroups "
	"setresuid getresuid setresgid getresgid getpgid setfsuid setfsgid getsid capget "
	"capset rt_sigpending rt_sigtimedwait rt_sigqueueinfo rt_sigsuspend sigaltstack "
	"utime mknod uselib personality ustat statfs fstatfs sysfs getpriority setpriority "
	"sched_setparam sched_getparam sched_setscheduler sched_getscheduler "
	"sched_get_priority_max sched_get_priority_min sched_rr_get_interval mlock munlock "
	"mlockall munlockall vhangup modify_ldt pivot_root _sysctl prctl arch_prctl adjtimex "
	"setrlimit chroot sync acct settimeofday mount umount2 swapon swapoff reboot "
	"sethostname setdomainname iopl ioperm create_module init_module delete_module "
	"get_kernel_syms query_module quotactl nfsservctl getpmsg putpmsg afs_syscall "
	"tuxcall security gettid readahead setxattr lsetxattr fsetxattr getxattr lgetxattr "
	"fgetxattr listxattr llistxattr flistxattr removexattr lremovexattr fremovexattr "
	"tkill time futex sched_setaffinity sched_getaffinity set_thread_area io_setup "
	"io_destroy io_getevents io_submit io_cancel get_thread_area lookup_dcookie "
	"epoll_create epoll_ctl_old epoll_wait_old remap_file_pages getdents64 "
	"set_tid_address restart_syscall semtimedop fadvise64 timer_create timer_settime "
	"timer_gettime timer_getoverrun timer_delete clock_settime clock_gettime "
	"clock_getres clock_nanosleep exit_group epoll_wait epoll_ctl tgkill utimes vserver "
	"mbind set_mempolicy get_mempolicy mq_open mq_unlink mq_timedsend mq_timedreceive "
	"mq_notify mq_getsetattr kexec_load waitid add_key request_key keyctl ioprio_set "
	"ioprio_get inotify_init inotify_add_watch inotify_rm_watch migrate_pages openat "
	"mkdirat mknodat fchownat futimesat newfstatat unlinkat renameat linkat symlinkat "
	"readlinkat fchmodat faccessat pselect6 ppoll unshare set_robust_list "
	"get_robust_list splice tee sync_file_range vmsplice move_pages utimensat "
	"epoll_pwait signalfd timerfd_create eventfd fallocate timerfd_settime "
	"timerfd_gettime accept4 signalfd4 eventfd2 epoll_create1 dup3 pipe2 inotify_init1 "
	"preadv pwritev rt_tgsigqueueinfo perf_event_open recvmmsg fanotify_init "
	"fanotify_mark prlimit64 name_to_handle_at open_by_handle_at clock_adjtime syncfs "
	"sendmmsg setns getcpu process_vm_readv process_vm_writev kcmp finit_module "
	"sched_setattr sched_getattr renameat2 seccomp getrandom memfd_create "
	"kexec_file_load bpf execveat userfaultfd membarrier mlock2 copy_file_range preadv2 "
	"pwritev2 pkey_mprotect pkey_alloc pkey_free statx io_pgetevents rseq uretprobe "
	"uprobe                                                                              "
	"          pidfd_send_signal io_uring_setup io_uring_enter io_uring_register "
	"open_tree move_mount fsopen fsconfig fsmount fspick pidfd_open clone3 close_range "
	"openat2 pidfd_getfd faccessat2 process_madvise epoll_pwait2 mount_setattr "
	"quotactl_fd landlock_create_ruleset landlock_add_rule landlock_restrict_self "
	"memfd_secret process_mrelease futex_waitv set_mempolicy_home_node cachestat "
	"fchmodat2 map_shadow_stack futex_wake futex_wait futex_requeue statmount listmount "
	"lsm_get_self_attr lsm_set_self_attr lsm_list_modules mseal setxattrat getxattrat "
	"listxattrat removexattrat open_tree_attr file_getattr file_setattr";

#endif

#if defined(__aarch64__)
static const char arm64_names[] =
	"io_setup io_destroy io_submit io_cancel io_getevents setxattr lsetxattr fsetxattr "
	"getxattr lgetxattr fgetxattr listxattr llistxattr flistxattr removexattr "
	"lremovexattr fremovexattr getcwd lookup_dcookie eventfd2 epoll_create1 epoll_ctl "
	"epoll_pwait dup dup3 fcntl inotify_init1 inotify_add_watch inotify_rm_watch ioctl "
	"ioprio_set ioprio_get flock mknodat mkdirat unlinkat symlinkat linkat renameat "
	"umount2 mount pivot_root nfsservctl statfs fstatfs truncate ftruncate fallocate "
	"faccessat chdir fchdir chroot fchmod fchmodat fchownat fchown openat close vhangup "
	"pipe2 quotactl getdents64 lseek read write readv writev pread64 pwrite64 preadv "
	"pwritev sendfile pselect6 ppoll signalfd4 vmsplice splice tee readlinkat newfstatat "
	"fstat sync fsync fdatasync sync_file_range timerfd_create timerfd_settime "
	"timerfd_gettime utimensat acct capget capset personality exit exit_group waitid "
	"set_tid_address unshare futex set_robust_list get_robust_list nanosleep getitimer "
	"setitimer kexec_load init_module delete_module timer_create timer_gettime "
	"timer_getoverrun timer_settime timer_delete clock_settime clock_gettime "
	"clock_getres clock_nanosleep syslog ptrace sched_setparam sched_setscheduler "
	"sched_getscheduler sched_getparam sched_setaffinity sched_getaffinity sched_yield "
	"sched_get_priority_max sched_get_priority_min sched_rr_get_interval restart_syscall "
	"kill tkill tgkill sigaltstack rt_sigsuspend rt_sigaction rt_sigprocmask "
	"rt_sigpending rt_sigtimedwait rt_sigqueueinfo rt_sigreturn setpriority getpriority "
	"reboot setregid setgid setreuid setuid setresuid getresuid setresgid getresgid "
	"setfsuid setfsgid times setpgid getpgid getsid setsid getgroups setgroups uname "
	"sethostname setdomainname getrlimit setrlimit getrusage umask prctl getcpu "
	"gettimeofday settimeofday adjtimex getpid getppid getuid geteuid getgid getegid "
	"gettid sysinfo mq_open mq_unlink mq_timedsend mq_timedreceive mq_notify "
	"mq_getsetattr msgget msgctl msgrcv msgsnd semget semctl semtimedop semop shmget "
	"shmctl shmat shmdt socket socketpair bind listen accept connect getsockname "
	"getpeername sendto recvfrom setsockopt getsockopt shutdown sendmsg recvmsg "
	"readahead brk munmap mremap add_key request_key keyctl clone execve mmap fadvise64 "
	"swapon swapoff mprotect msync mlock munlock mlockall munlockall mincore madvise "
	"remap_file_pages mbind get_mempolicy set_mempolicy migrate_pages move_pages "
	"rt_tgsigqueueinfo perf_event_open accept4 recvmmsg arch_specific_syscall            "
	"    wait4 prlimit64 fanotify_init fanotify_mark name_to_handle_at open_by_handle_at "
	"clock_adjtime syncfs setns sendmmsg process_vm_readv process_vm_writev kcmp "
	"finit_module sched_setattr sched_getattr renameat2 seccomp getrandom memfd_create "
	"bpf execveat userfaultfd membarrier mlock2 copy_file_range preadv2 pwritev2 "
	"pkey_mprotect pkey_alloc pkey_free statx io_pgetevents rseq kexec_file_load         "
	"                                                                                    "
	"                                     pidfd_send_signal io_uring_setup "
	"io_uring_enter io_uring_register open_tree move_mount fsopen fsconfig fsmount "
	"fspick pidfd_open clone3 close_range openat2 pidfd_getfd faccessat2 process_madvise "
	"epoll_pwait2 mount_setattr quotactl_fd landlock_create_ruleset landlock_add_rule "
	"landlock_restrict_self memfd_secret process_mrelease futex_waitv "
	"set_mempolicy_home_node cachestat fchmodat2 map_shadow_stack futex_wake futex_wait "
	"futex_requeue statmount listmount lsm_get_self_attr lsm_set_self_attr "
	"lsm_list_modules mseal setxattrat getxattrat listxattrat removexattrat "
	"open_tree_attr file_getattr file_setattr";
#endif

#if defined(__arm__)
static const char arm_names[] =
	"restart_syscall exit fork read write open close  creat link unlink execve chdir  "
	"mknod chmod lchown   lseek getpid mount  setuid getuid  ptrace   pause    access "
	"nice  sync kill rename mkdir rmdir dup pipe times  brk setgid getgid  geteuid "
	"getegid acct umount2  ioctl fcntl  setpgid   umask chroot ustat dup2 getppid "
	"getpgrp setsid sigaction   setreuid setregid sigsuspend sigpending sethostname "
	"setrlimit  getrusage gettimeofday settimeofday getgroups setgroups  symlink  "
	"readlink uselib swapon reboot   munmap truncate ftruncate fchmod fchown getpriority "
	"setpriority  statfs fstatfs   syslog setitimer getitimer stat lstat fstat   vhangup "
	"  wait4 swapoff sysinfo  fsync sigreturn clone setdomainname uname  adjtimex "
	"mprotect sigprocmask  init_module delete_module  quotactl getpgid fchdir bdflush "
	"sysfs personality  setfsuid setfsgid _llseek getdents _newselect flock msync readv "
	"writev getsid fdatasync _sysctl mlock munlock mlockall munlockall sched_setparam "
	"sched_getparam sched_setscheduler sched_getscheduler sched_yield "
	"sched_get_priority_max sched_get_priority_min sched_rr_get_interval nanosleep "
	"mremap setresuid getresuid   poll nfsservctl setresgid getresgid prctl rt_sigreturn "
	"rt_sigaction rt_sigprocmask rt_sigpending rt_sigtimedwait rt_sigqueueinfo "
	"rt_sigsuspend pread64 pwrite64 chown getcwd capget capset sigaltstack sendfile   "
	"vfork ugetrlimit mmap2 truncate64 ftruncate64 stat64 lstat64 fstat64 lchown32 "
	"getuid32 getgid32 geteuid32 getegid32 setreuid32 setregid32 getgroups32 setgroups32 "
	"fchown32 setresuid32 getresuid32 setresgid32 getresgid32 chown32 setuid32 setgid32 "
	"setfsuid32 setfsgid32 getdents64 pivot_root mincore madvise fcntl64   gettid "
	"readahead setxattr lsetxattr fsetxattr getxattr lgetxattr fgetxattr listxattr "
	"llistxattr flistxattr removexattr lremovexattr fremovexattr tkill sendfile64 futex "
	"sched_setaffinity sched_getaffinity io_setup io_destroy io_getevents io_submit "
	"io_cancel exit_group lookup_dcookie epoll_create epoll_ctl epoll_wait "
	"remap_file_pages   set_tid_address timer_create timer_settime timer_gettime "
	"timer_getoverrun timer_delete clock_settime clock_gettime clock_getres "
	"clock_nanosleep statfs64 fstatfs64 tgkill utimes arm_fadvise64_64 pciconfig_iobase "
	"pciconfig_read pciconfig_write mq_open mq_unlink mq_timedsend mq_timedreceive "
	"mq_notify mq_getsetattr waitid socket bind connect listen accept getsockname "
	"getpeername socketpair send sendto recv recvfrom shutdown setsockopt getsockopt "
	"sendmsg recvmsg semop semget semctl msgsnd msgrcv msgget msgctl shmat shmdt shmget "
	"shmctl add_key request_key keyctl semtimedop vserver ioprio_set ioprio_get "
	"inotify_init inotify_add_watch inotify_rm_watch mbind get_mempolicy set_mempolicy "
	"openat mkdirat mknodat fchownat futimesat fstatat64 unlinkat renameat linkat "
	"symlinkat readlinkat fchmodat faccessat pselect6 ppoll unshare set_robust_list "
	"get_robust_list splice arm_sync_file_range tee vmsplice move_pages getcpu "
	"epoll_pwait kexec_load utimensat signalfd timerfd_create eventfd fallocate "
	"timerfd_settime timerfd_gettime signalfd4 eventfd2 epoll_create1 dup3 pipe2 "
	"inotify_init1 preadv pwritev rt_tgsigqueueinfo perf_event_open recvmmsg accept4 "
	"fanotify_init fanotify_mark prlimit64 name_to_handle_at open_by_handle_at "
	"clock_adjtime syncfs sendmmsg setns process_vm_readv process_vm_writev kcmp "
	"finit_module sched_setattr sched_getattr renameat2 seccomp getrandom memfd_create "
	"bpf execveat userfaultfd membarrier mlock2 copy_file_range preadv2 pwritev2 "
	"pkey_mprotect pkey_alloc pkey_free statx rseq io_pgetevents migrate_pages "
	"kexec_file_load  clock_gettime64 clock_settime64 clock_adjtime64 "
	"clock_getres_time64 clock_nanosleep_time64 timer_gettime64 timer_settime64 "
	"timerfd_gettime64 timerfd_settime64 utimensat_time64 pselect6_time64 ppoll_time64  "
	"io_pgetevents_time64 recvmmsg_time64 mq_timedsend_time64 mq_timedreceive_time64 "
	"semtimedop_time64 rt_sigtimedwait_time64 futex_time64 sched_rr_get_interval_time64 "
	"pidfd_send_signal io_uring_setup io_uring_enter io_uring_register open_tree "
	"move_mount fsopen fsconfig fsmount fspick pidfd_open clone3 close_range openat2 "
	"pidfd_getfd faccessat2 process_madvise epoll_pwait2 mount_setattr quotactl_fd "
	"landlock_create_ruleset landlock_add_rule landlock_restrict_self  process_mrelease "
	"futex_waitv set_mempolicy_home_node cachestat fchmodat2 map_shadow_stack futex_wake "
	"futex_wait futex_requeue statmount listmount lsm_get_self_attr lsm_set_self_attr "
	"lsm_list_modules mseal setxattrat getxattrat listxattrat removexattrat "
	"open_tree_attr file_getattr file_setattr";
#endif

static struct {
	const char *arch, *names;
	const char **index;	/* names cut at the spaces, made once */
	int n;
} tables[] = {
#if defined(__x86_64__)
	{ "x86_64", x86_64_names, NULL, 0 },
#elif defined(__aarch64__)
	{ "arm64", arm64_names, NULL, 0 },
#elif defined(__arm__)
	{ "arm", arm_names, NULL, 0 },
#else
	{ "", "", NULL, 0 },
#endif
};

/* The table of arch cut into names, once (a program may call syscall_name
 * at every event). */
static int table_of(const char *arch)
{
	for (size_t i = 0; i < ARRAY_SIZE(tables); i++) {
		const char *p, **index;
		char *copy;
		int n = 1;

		if (!arch || strcmp(arch, tables[i].arch))
			continue;
		if (tables[i].index)
			return (int)i;
		for (p = tables[i].names; *p; p++)
			n += *p == ' ';
		copy = strdup(tables[i].names);
		index = malloc(sizeof(*index) * (size_t)n);
		if (!copy || !index) {
			free(copy);
			free(index);
			return -ENOMEM;
		}
		for (int k = 0; k < n; k++) {
			char *sp = strchr(copy, ' ');

			index[k] = copy;
			if (sp) {
				*sp = 0;
				copy = sp + 1;
			}
		}
		tables[i].index = index;
		tables[i].n = n;
		return (int)i;
	}
	return -ENOENT;
}

int abi_syscall_table(const char *arch)
{
	return table_of(arch) >= 0;
}

const char *abi_syscall_name(const char *arch, int64_t nr)
{
	int t = table_of(arch);

	if (t < 0 || nr < 0 || nr >= tables[t].n || !tables[t].index[nr][0])
		return NULL;
	return tables[t].index[nr];
}

struct konst {
	const char *name;
	int64_t v;
};

/* The same on x86_64, arm64 and arm (the error numbers and the signals
 * are the C library's names, below); the rest from their uapi headers
 * (linux/fcntl.h, dirent's DT_ in include/linux/fs_types.h, linux/socket.h,
 * linux/in.h, linux/stat.h, asm-generic/mman-common.h). */
static const struct konst common[] = {
	{ "EWOULDBLOCK", 11 }, { "EDEADLOCK", 35 }, { "ENOTSUP", 95 },
	{ "SIGIOT", 6 }, { "SIGPOLL", 29 }, { "SIGRTMIN", 32 }, { "SIGRTMAX", 64 },
	{ "O_ACCMODE", 03 }, { "O_RDONLY", 0 }, { "O_WRONLY", 01 }, { "O_RDWR", 02 },
	{ "O_CREAT", 0100 }, { "O_EXCL", 0200 }, { "O_NOCTTY", 0400 }, { "O_TRUNC", 01000 },
	{ "O_APPEND", 02000 }, { "O_NONBLOCK", 04000 }, { "O_NDELAY", 04000 },
	{ "O_DSYNC", 010000 }, { "O_NOATIME", 01000000 }, { "O_CLOEXEC", 02000000 },
	{ "O_SYNC", 04010000 }, { "O_PATH", 010000000 },
	{ "AT_FDCWD", -100 }, { "AT_SYMLINK_NOFOLLOW", 0x100 }, { "AT_REMOVEDIR", 0x200 },
	{ "AT_SYMLINK_FOLLOW", 0x400 }, { "AT_EMPTY_PATH", 0x1000 },
	{ "DT_UNKNOWN", 0 }, { "DT_FIFO", 1 }, { "DT_CHR", 2 }, { "DT_DIR", 4 }, { "DT_BLK", 6 },
	{ "DT_REG", 8 }, { "DT_LNK", 10 }, { "DT_SOCK", 12 }, { "DT_WHT", 14 },
	{ "S_IFMT", 0170000 }, { "S_IFSOCK", 0140000 }, { "S_IFLNK", 0120000 },
	{ "S_IFREG", 0100000 }, { "S_IFBLK", 060000 }, { "S_IFDIR", 040000 },
	{ "S_IFCHR", 020000 }, { "S_IFIFO", 010000 },
	{ "AF_UNSPEC", 0 }, { "AF_UNIX", 1 }, { "AF_LOCAL", 1 }, { "AF_INET", 2 },
	{ "AF_INET6", 10 }, { "AF_NETLINK", 16 }, { "AF_PACKET", 17 }, { "AF_BLUETOOTH", 31 },
	{ "AF_VSOCK", 40 }, { "AF_XDP", 44 },
	{ "SOCK_STREAM", 1 }, { "SOCK_DGRAM", 2 }, { "SOCK_RAW", 3 }, { "SOCK_SEQPACKET", 5 },
	{ "IPPROTO_IP", 0 }, { "IPPROTO_ICMP", 1 }, { "IPPROTO_TCP", 6 }, { "IPPROTO_UDP", 17 },
	{ "IPPROTO_IPV6", 41 }, { "IPPROTO_ICMPV6", 58 },
	{ "PROT_NONE", 0 }, { "PROT_READ", 1 }, { "PROT_WRITE", 2 }, { "PROT_EXEC", 4 },
	{ "MAP_SHARED", 1 }, { "MAP_PRIVATE", 2 }, { "MAP_FIXED", 0x10 },
	{ "MAP_ANONYMOUS", 0x20 },
	/* the kernel's task states (include/linux/sched.h), which tools
	 * compare a task's __state with */
	{ "TASK_RUNNING", 0 }, { "TASK_INTERRUPTIBLE", 1 }, { "TASK_UNINTERRUPTIBLE", 2 },
};

/* Where the architectures differ: x86_64 takes asm-generic/fcntl.h's;
 * arm and arm64 their own asm/fcntl.h (O_TMPFILE is __O_TMPFILE | O_DIRECTORY). */
static const struct konst fcntl_generic[] = {
	{ "O_DIRECT", 040000 }, { "O_LARGEFILE", 0100000 }, { "O_DIRECTORY", 0200000 },
	{ "O_NOFOLLOW", 0400000 }, { "O_TMPFILE", 020200000 },
};

static const struct konst fcntl_arm[] = {
	{ "O_DIRECTORY", 040000 }, { "O_NOFOLLOW", 0100000 }, { "O_DIRECT", 0200000 },
	{ "O_LARGEFILE", 0400000 }, { "O_TMPFILE", 020040000 },
};

static int lookup(const struct konst *t, size_t n, const char *name, int64_t *val)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].name, name)) {
			*val = t[i].v;
			return 0;
		}
	return -ENOENT;
}

int abi_constant(const char *arch, const char *name, int64_t *val)
{
	bool arm = arch && (!strcmp(arch, "arm") || !strcmp(arch, "arm64"));

	/* Error numbers and signals: the C library's names of its numbers,
	 * which on these architectures are the kernel's (asm-generic's
	 * errno.h, the i386 signal layout that arm and arm64 share). */
	for (int i = 1; name[0] == 'E' && i < 256; i++) {
		const char *e = strerrorname_np(i);

		if (e && !strcmp(e, name)) {
			*val = i;
			return 0;
		}
	}
	for (int i = 1; !strncmp(name, "SIG", 3) && i < 32; i++) {
		const char *e = sigabbrev_np(i);

		if (e && !strcmp(e, name + 3)) {
			*val = i;
			return 0;
		}
	}

	if (!lookup(common, ARRAY_SIZE(common), name, val))
		return 0;
	if (arm)
		return lookup(fcntl_arm, ARRAY_SIZE(fcntl_arm), name, val);
	if (arch && !strcmp(arch, "x86_64"))
		return lookup(fcntl_generic, ARRAY_SIZE(fcntl_generic), name, val);
	return -ENOENT;
}
