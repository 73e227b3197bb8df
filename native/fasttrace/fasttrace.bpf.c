// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel part of envproof's fast tracer: reports the files the traced process trees open, execute or
 * change directory to, without stopping them. A tree starts at the process that executes a run's gate
 * (a file identified by device and inode, registered by user space); the gate's own exec is not reported,
 * everything from the next exec on is, for that process and every process it creates.
 *
 * Only successful calls are reported, with the path argument as the program passed it: user space
 * resolves relative paths against each process's working directory, as it does for strace's log.
 */
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "events.h"

char LICENSE[] SEC("license") = "GPL";

#define AT_FDCWD -100
#define AT_EMPTY_PATH 0x1000
#define MAX_WALK_STEPS 128 /* names and mount points crossed, from a directory up to the root */
#define TS_COMPAT 0x0002 /* thread_info.status: a 32-bit system call is running */
#define X32_SYSCALL_BIT 0x40000000
/* x86-64 system call numbers */
#define NR_open 2
#define NR_chdir 80
#define NR_fchdir 81
#define NR_openat 257
#define NR_execveat 322
#define NR_openat2 437

/*
 * Set by user space before loading: records are sent without waking the reader until this many bytes
 * wait, so that a program's opens cost no context switch each; the reader also drains at intervals.
 */
const volatile __u64 wake_bytes = 1 << 22;

struct task_state {
	__u32 run;
	__u32 recording; /* 0 between the gate's exec and the next one */
};

struct gate_key {
	__u64 ino;
	__u32 dev;
	__u32 pad;
};

struct record {
	struct ft_header h;
	char data[FT_DIR_MAX + FT_PATH_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 24); /* user space may change it before loading */
} events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1 << 16);
	__type(key, __u32);
	__type(value, struct task_state);
} tracked SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, struct gate_key);
	__type(value, __u32);
} gates SEC(".maps");

/* Per run (registered by user space with its gate). */
struct run_state {
	__u64 lost; /* records that could not be sent (ring buffer full, too many processes) */
	__s64 live; /* processes of the run's tree that have not ended */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct run_state);
} runs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct record);
} pending SEC(".maps"); /* an execveat relative to a descriptor, from the call until the exec succeeds */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct record);
} scratch SEC(".maps");

static __always_inline void count_lost(__u32 run)
{
	struct run_state *s = bpf_map_lookup_elem(&runs, &run);
	if (s)
		__sync_fetch_and_add(&s->lost, 1);
}

/* Adds a process to its run's count. */
static __always_inline void count_started(__u32 run)
{
	struct run_state *s = bpf_map_lookup_elem(&runs, &run);
	if (s)
		__sync_fetch_and_add(&s->live, 1);
}

static __always_inline struct record *new_record(void)
{
	__u32 zero = 0;
	struct record *r = bpf_map_lookup_elem(&scratch, &zero);
	if (r) {
		r->h.flags = 0;
		r->h.dir_len = 0;
		r->h.path_len = 0;
		r->h.aux = 0;
	}
	return r;
}

static __always_inline void submit(struct record *r, __u32 run, __u32 tid, __u8 kind, __u64 wake)
{
	__u64 size = sizeof(r->h) + r->h.dir_len + r->h.path_len + 1;
	if (size > sizeof(*r))
		size = sizeof(*r);
	r->h.size = size;
	r->h.run = run;
	r->h.tid = tid;
	r->h.kind = kind;
	if (bpf_ringbuf_output(&events, r, size, wake))
		count_lost(run);
}

static __always_inline void send(struct record *r, __u32 run, __u32 tid, __u8 kind)
{
	submit(r, run, tid, kind, bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wake_bytes ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP);
}

static __always_inline struct task_state *recording_task(__u32 tid)
{
	struct task_state *t = bpf_map_lookup_elem(&tracked, &tid);
	return t && t->recording ? t : 0;
}

static __always_inline struct file *fd_file(struct task_struct *task, int fd)
{
	struct fdtable *fdt = BPF_CORE_READ(task, files, fdt);
	struct file **fds = BPF_CORE_READ(fdt, fd);
	struct file *f = 0;
	if (fd < 0 || (unsigned int)fd >= BPF_CORE_READ(fdt, max_fds))
		return 0;
	bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]);
	return f;
}

struct walk {
	struct record *r;
	struct dentry *d, *root_d;
	struct vfsmount *vm, *root_m;
	struct mount *m;
	__u32 off;
	int complete;
};

static struct mount *mount_of(struct vfsmount *vm)
{
	return (struct mount *)((char *)vm - bpf_core_field_offset(struct mount, mnt));
}

/* One step up from w->d: to its parent, or across a mount point; returns 1 when the walk ends. */
static long walk_step(__u64 i, void *ctx)
{
	struct walk *w = ctx;
	struct dentry *d = w->d;
	struct vfsmount *vm = w->vm;
	struct mount *m = w->m;
	if (d == w->root_d && vm == w->root_m) {
		w->complete = 1;
		return 1;
	}
	if (d == BPF_CORE_READ(vm, mnt_root)) {
		struct mount *parent = BPF_CORE_READ(m, mnt_parent);
		if (parent == m) {
			w->complete = 1; /* the top of the task's mount tree */
			return 1;
		}
		w->d = BPF_CORE_READ(m, mnt_mountpoint);
		w->m = parent;
		w->vm = &parent->mnt;
		return 0;
	}
	if (w->off + FT_NAME_MAX + 1 > FT_DIR_MAX - 1)
		return 1; /* no room for another name: the walk stays incomplete */
	long n = bpf_probe_read_kernel_str(&w->r->data[w->off & (FT_DIR_MAX - 1)], FT_NAME_MAX + 1, BPF_CORE_READ(d, d_name.name));
	if (n <= 0)
		return 1;
	w->off += n;
	w->d = BPF_CORE_READ(d, d_parent);
	return 0;
}

/*
 * Writes the directory of descriptor `fd` as components (innermost first) at the start of r->data, as
 * the task sees it: the walk crosses mount points and stops at the task's root. Flags the record
 * incomplete when the walk does not reach the root.
 */
static __always_inline void read_dir(struct record *r, int fd)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct file *f = fd_file(task, fd);
	if (!f) {
		r->h.flags |= FT_INCOMPLETE;
		return;
	}
	struct walk w = {
		.r = r,
		.d = BPF_CORE_READ(f, f_path.dentry),
		.vm = BPF_CORE_READ(f, f_path.mnt),
		.root_d = BPF_CORE_READ(task, fs, root.dentry),
		.root_m = BPF_CORE_READ(task, fs, root.mnt),
	};
	w.m = mount_of(w.vm);
	bpf_loop(MAX_WALK_STEPS, walk_step, &w, 0);
	r->h.dir_len = w.off;
	if (!w.complete)
		r->h.flags |= FT_INCOMPLETE;
}

/* Reads the user's path argument into r->data after the directory components. */
static __always_inline void read_path(struct record *r, const char *path)
{
	long n = bpf_probe_read_user_str(&r->data[r->h.dir_len & (FT_DIR_MAX - 1)], FT_PATH_MAX, path);
	if (n <= 0) {
		r->h.flags |= FT_INCOMPLETE;
		n = 1;
		r->data[r->h.dir_len & (FT_DIR_MAX - 1)] = 0;
	}
	r->h.path_len = n - 1;
}

/* A path argument, with the directory it is relative to when that is a descriptor rather than the cwd. */
static __always_inline void read_path_at(struct record *r, int dfd, const char *path)
{
	char first = 0;
	bpf_probe_read_user(&first, 1, path);
	if (dfd != AT_FDCWD && first != '/') {
		r->h.flags |= FT_AT_DIR;
		read_dir(r, dfd);
	}
	read_path(r, path);
}

/* A successful call of a traced process: its path argument and, for fchdir, only the directory. */
static __always_inline int on_call(long ret, int dfd, const char *path, __u8 kind)
{
	if (ret < 0)
		return 0;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct task_state *t = recording_task(tid);
	if (!t)
		return 0;
	__u32 run = t->run;
	struct record *r = new_record();
	if (!r)
		return 0;
	if (kind == FT_FCHDIR) {
		read_dir(r, dfd);
		r->data[r->h.dir_len & (FT_DIR_MAX - 1)] = 0;
	} else {
		read_path_at(r, dfd, path);
	}
	send(r, run, tid, kind);
	return 0;
}

/* A call of the 32-bit (or x32) system call interface, whose numbers and arguments the switch below does not know. */
static __always_inline int is_foreign_call(long id)
{
	struct task_struct *task = bpf_get_current_task_btf();
	return (task->thread_info.status & TS_COMPAT) || (id & X32_SYSCALL_BIT);
}

/*
 * Calls are read when they return: the kernel has copied the path argument by then (so the page holding
 * it is present), the result says whether the call succeeded, and on x86-64 the argument registers are
 * still those of the call.
 */
SEC("tp_btf/sys_exit")
int BPF_PROG(on_sys_exit, struct pt_regs *regs, long ret)
{
	long id = regs->orig_ax;
	if (id < 0)
		return 0; /* not a system call: a return from a signal handler restores orig_ax = -1 */
	if (is_foreign_call(id)) {
		__u32 tid = (__u32)bpf_get_current_pid_tgid();
		struct task_state *t = recording_task(tid);
		if (t)
			count_lost(t->run);
		return 0;
	}
	int dfd = AT_FDCWD;
	const char *path;
	__u8 kind = FT_OPEN;
	switch (id) {
	case NR_open:
		path = (const char *)regs->di;
		break;
	case NR_openat:
	case NR_openat2:
		dfd = (int)regs->di;
		path = (const char *)regs->si;
		break;
	case NR_chdir:
		path = (const char *)regs->di;
		kind = FT_CHDIR;
		break;
	case NR_fchdir:
		dfd = (int)regs->di;
		path = 0;
		kind = FT_FCHDIR;
		break;
	case NR_execveat: {
		__u32 tid = (__u32)bpf_get_current_pid_tgid();
		bpf_map_delete_elem(&pending, &tid); /* the exec failed: on success it was used up */
		return 0;
	}
	default:
		return 0;
	}
	return on_call(ret, dfd, path, kind);
}

/*
 * The kernel reports an execveat relative to a descriptor as "/dev/fd/N/name", and by the time the exec
 * succeeds the descriptor may be closed: read the directory when the call starts.
 */
SEC("tp_btf/sys_enter")
int BPF_PROG(on_sys_enter, struct pt_regs *regs, long id)
{
	if (id != NR_execveat)
		return 0;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	if (!recording_task(tid) || is_foreign_call(id))
		return 0;
	int dfd = (int)regs->di;
	const char *path = (const char *)regs->si;
	char first = 0;
	bpf_probe_read_user(&first, 1, path);
	if (dfd == AT_FDCWD || first == '/')
		return 0;
	struct record *r = new_record();
	if (!r)
		return 0;
	read_path_at(r, dfd, path);
	bpf_map_update_elem(&pending, &tid, r, BPF_ANY);
	return 0;
}

/*
 * Removes an ended process from its run; after the run's last one, tells user space at once (a forced
 * wake-up) that the run is over: nothing can join it any more, since its gate is used.
 */
static __always_inline void end_task(__u32 tid, __u32 run)
{
	if (bpf_map_delete_elem(&tracked, &tid))
		return;
	struct run_state *s = bpf_map_lookup_elem(&runs, &run);
	if (!s || __sync_fetch_and_add(&s->live, -1) != 1)
		return;
	struct record *r = new_record();
	if (!r)
		return;
	r->data[0] = 0;
	submit(r, run, tid, FT_DONE, BPF_RB_FORCE_WAKEUP);
}

static __always_inline int arm_if_gate(struct task_struct *p, struct linux_binprm *bprm)
{
	struct inode *inode = BPF_CORE_READ(bprm, file, f_inode);
	struct gate_key key = { .ino = BPF_CORE_READ(inode, i_ino), .dev = BPF_CORE_READ(inode, i_sb, s_dev) };
	__u32 *run = bpf_map_lookup_elem(&gates, &key);
	if (!run)
		return 0;
	struct task_state t = { .run = *run, .recording = 0 };
	__u32 tid = BPF_CORE_READ(p, pid);
	bpf_map_delete_elem(&gates, &key);
	if (bpf_map_update_elem(&tracked, &tid, &t, BPF_ANY)) {
		count_lost(t.run);
		return 0;
	}
	count_started(t.run);
	struct record *r = new_record();
	if (r) {
		r->data[0] = 0;
		send(r, t.run, tid, FT_ARMED);
	}
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(on_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm)
{
	__u32 old = old_pid;
	__u32 tid = BPF_CORE_READ(p, pid);
	struct task_state *found = bpf_map_lookup_elem(&tracked, &old);
	if (!found)
		return arm_if_gate(p, bprm);
	struct task_state t = { .run = found->run, .recording = 1 };
	/*
	 * A thread other than the leader exec'd: it takes the leader's id, which ended just before. Adding the
	 * new entry before removing the old keeps the run's count above zero meanwhile.
	 */
	if (bpf_map_update_elem(&tracked, &tid, &t, BPF_ANY))
		count_lost(t.run);
	else if (old != tid)
		count_started(t.run);
	if (old != tid)
		end_task(old, t.run);

	struct record *at = bpf_map_lookup_elem(&pending, &old);
	struct record *r = at ? at : new_record();
	if (!r)
		return 0;
	if (!at) {
		long n = bpf_probe_read_kernel_str(r->data, FT_PATH_MAX, BPF_CORE_READ(bprm, filename));
		if (n <= 0) {
			r->h.flags |= FT_INCOMPLETE;
			n = 1;
			r->data[0] = 0;
		}
		r->h.path_len = n - 1;
	}
	r->h.aux = old;
	send(r, t.run, tid, FT_EXEC);
	if (at)
		bpf_map_delete_elem(&pending, &old);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(on_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptid = BPF_CORE_READ(parent, pid);
	struct task_state *found = bpf_map_lookup_elem(&tracked, &ptid);
	if (!found)
		return 0;
	struct task_state t = *found;
	__u32 ctid = BPF_CORE_READ(child, pid);
	if (bpf_map_update_elem(&tracked, &ctid, &t, BPF_ANY)) {
		count_lost(t.run);
		return 0;
	}
	count_started(t.run);
	if (!t.recording)
		return 0;
	struct record *r = new_record();
	if (!r)
		return 0;
	r->data[0] = 0;
	r->h.aux = ctid;
	if (BPF_CORE_READ(parent, fs) == BPF_CORE_READ(child, fs))
		r->h.flags |= FT_SHARES_FS;
	send(r, t.run, ptid, FT_FORK);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(on_exit, struct task_struct *p)
{
	__u32 tid = BPF_CORE_READ(p, pid);
	struct task_state *found = bpf_map_lookup_elem(&tracked, &tid);
	if (!found)
		return 0;
	struct task_state t = *found;
	bpf_map_delete_elem(&pending, &tid);
	if (t.recording) {
		struct record *r = new_record();
		if (r) {
			r->data[0] = 0;
			r->h.aux = BPF_CORE_READ(p, exit_code);
			send(r, t.run, tid, FT_EXIT);
		}
	}
	end_task(tid, t.run);
	return 0;
}
