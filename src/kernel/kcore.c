// SPDX-License-Identifier: GPL-2.0-or-later
/* Kernel memory from /proc/kcore: see kcore.h. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ftr.h"
#include "kernel/kcore.h"

struct kseg {
	uint64_t vaddr, size, off;
};

struct kcore {
	int fd;
	int nseg;
	struct kseg seg[];
};

/* Why the kernel refuses: lockdown first, as it is the usual cause. */
static void refusal(int err, const char *path, char *why, size_t wlen)
{
	char *lock = read_file("/sys/kernel/security/lockdown", NULL);
	const char *mode = lock ? strchr(lock, '[') : NULL;

	if (err == EPERM && mode && !str_has_prefix(mode, "[none]"))
		snprintf(why, wlen, "the kernel is locked down (%.*s): it forbids reading kernel "
			 "memory through %s", (int)strcspn(mode, "\n"), mode, path);
	else if (err == ENOENT)
		snprintf(why, wlen, "%s does not exist (a kernel built without CONFIG_PROC_KCORE)",
			 path);
	else if (err == EPERM && geteuid() == 0 && !mode)
		/* root refused: lockdown, though securityfs may not be there
		 * to say so (a busybox initramfs mounts none) */
		snprintf(why, wlen, "the kernel refuses %s to root: it is locked down "
			 "(lockdown=confidentiality forbids reading kernel memory), or ftr lacks "
			 "CAP_SYS_RAWIO", path);
	else if (err == EACCES || err == EPERM)
		snprintf(why, wlen, "cannot open %s: %s (it needs root and CAP_SYS_RAWIO)", path,
			 strerror(err));
	else
		snprintf(why, wlen, "cannot read %s: %s", path, strerror(err));
	free(lock);
}

int kcore_open(const char *path, struct kcore **out, char *why, size_t wlen)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph = NULL;
	struct kcore *k = NULL;
	int fd, err = -EINVAL;

	path = path ? path : "/proc/kcore";
	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		refusal(errno, path, why, wlen);
		return err;
	}
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_phentsize != sizeof(Elf64_Phdr) || !eh.e_phnum || eh.e_phnum > 4096) {
		snprintf(why, wlen, "%s is not a 64-bit ELF core file", path);
		goto fail;
	}
	ph = calloc(eh.e_phnum, sizeof(*ph));
	k = calloc(1, sizeof(*k) + eh.e_phnum * sizeof(k->seg[0]));
	if (!ph || !k) {
		err = -ENOMEM;
		snprintf(why, wlen, "out of memory");
		goto fail;
	}
	if (pread(fd, ph, eh.e_phnum * sizeof(*ph), (off_t)eh.e_phoff) !=
	    (ssize_t)(eh.e_phnum * sizeof(*ph))) {
		err = -EIO;
		snprintf(why, wlen, "cannot read the program headers of %s", path);
		goto fail;
	}
	for (int i = 0; i < eh.e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_filesz)
			k->seg[k->nseg++] = (struct kseg){ ph[i].p_vaddr, ph[i].p_filesz,
							   ph[i].p_offset };
	free(ph);
	k->fd = fd;
	*out = k;
	return 0;
fail:
	free(ph);
	free(k);
	close(fd);
	return err;
}

int kcore_read(struct kcore *k, uint64_t addr, void *buf, size_t len)
{
	for (int i = 0; k && i < k->nseg; i++) {
		const struct kseg *s = &k->seg[i];

		if (addr < s->vaddr || addr - s->vaddr >= s->size || len > s->size - (addr - s->vaddr))
			continue;
		if (pread(k->fd, buf, len, (off_t)(s->off + addr - s->vaddr)) != (ssize_t)len)
			return -EIO;
		return 0;
	}
	return -EFAULT;
}

void kcore_close(struct kcore *k)
{
	if (!k)
		return;
	close(k->fd);
	free(k);
}
