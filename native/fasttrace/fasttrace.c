// SPDX-License-Identifier: GPL-2.0
/*
 * envproof-fasttrace: loads the fast tracer's kernel part once and serves traced runs until its input ends.
 *
 * Commands, one per line on stdin:
 *   gate RUN PATH   register PATH (a file just copied there) as run RUN's gate; answered by FT_GATE
 *   kill RUN        kill every process of run RUN (with SIGKILL)
 *   end RUN         kill what is left of run RUN, then forget it; answered by FT_END once every record of
 *                   the run has been written
 * A run whose last process ended is forgotten and answered by FT_END at once, without waiting for `end`
 * (which then does nothing): envproof learns that the run is over as soon as the kernel does.
 * Records (events.h) go to stdout, in the order the kernel produced them, the answers among them.
 *
 * Usage: envproof-fasttrace [--ring-pages N]   (N a power of two; the default ring is 16 MiB)
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "events.h"
#include "fasttrace.skel.h"

struct gate_key {
	unsigned long long ino;
	unsigned int dev;
	unsigned int pad;
};

struct run_state { /* as the kernel part's */
	unsigned long long lost;
	long long live;
};

/* While runs are traced, records are read at least this often (the kernel part wakes the reader only when many wait). */
#define DRAIN_MS 20

static struct fasttrace *skel;
static int active_runs;
static char out[1 << 20];
static size_t out_len;

static void flush_out(void)
{
	size_t done = 0;
	while (done < out_len) {
		ssize_t n = write(STDOUT_FILENO, out + done, out_len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			exit(1); /* envproof is gone */
		done += n;
	}
	out_len = 0;
}

static void put(const void *data, size_t size)
{
	if (out_len + size > sizeof(out)) /* records are far smaller than the buffer */
		flush_out();
	memcpy(out + out_len, data, size);
	out_len += size;
}

/* An answer record: header, the message (possibly empty) and its NUL. */
static void answer(unsigned char kind, unsigned int run, unsigned int aux, const char *message)
{
	struct ft_header h = { 0 };
	size_t len = strlen(message);
	h.size = sizeof(h) + len + 1;
	h.run = run;
	h.aux = aux;
	h.kind = kind;
	h.path_len = len;
	put(&h, sizeof(h));
	put(message, len + 1);
	flush_out();
}

/* Runs whose last process ended, seen in the records being read (more wait for their `end`). */
static unsigned int done_runs[64];
static int done_count;

static int on_record(void *ctx __attribute__((unused)), void *data, size_t size)
{
	const struct ft_header *h = data;
	if (h->kind != FT_DONE)
		put(data, size);
	else if (done_count < (int)(sizeof(done_runs) / sizeof(done_runs[0])))
		done_runs[done_count++] = h->run;
	return 0;
}

static struct gate_key gate_of(const struct stat *st)
{
	/* The kernel's dev_t packs major and minor as 12:20 bits, unlike stat's. */
	struct gate_key key = { .ino = st->st_ino, .dev = (major(st->st_dev) << 20) | minor(st->st_dev) };
	return key;
}

static void register_gate(unsigned int run, const char *path)
{
	struct stat st;
	struct run_state fresh = { 0 };
	char message[512];
	if (stat(path, &st) != 0) {
		snprintf(message, sizeof(message), "cannot stat the gate %s: %s", path, strerror(errno));
		answer(FT_GATE, run, 1, message);
		return;
	}
	struct gate_key key = gate_of(&st);
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.runs), &run, &fresh, BPF_ANY) ||
	    bpf_map_update_elem(bpf_map__fd(skel->maps.gates), &key, &run, BPF_ANY)) {
		snprintf(message, sizeof(message), "cannot register the gate: %s", strerror(errno));
		answer(FT_GATE, run, 1, message);
		return;
	}
	active_runs++;
	answer(FT_GATE, run, 0, "");
}

/* Kills every process of `run` that is still there; returns how many it found. */
static int kill_run(unsigned int run)
{
	int fd = bpf_map__fd(skel->maps.tracked), found = 0;
	unsigned int key, next, value[2];
	void *prev = NULL;
	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, value) == 0 && value[0] == run) {
			kill((pid_t)key, SIGKILL);
			found++;
		}
	}
	return found;
}

/* Kills the run's processes until none is left (a dying tree may still be forking), for at most a second. */
static void kill_all(unsigned int run)
{
	struct timespec pause = { .tv_sec = 0, .tv_nsec = 2000000 };
	for (int round = 0; round < 500 && kill_run(run) > 0; round++)
		nanosleep(&pause, NULL);
}

/*
 * Deletes every map entry of `run`: a gate never executed, processes that outlived the run. Both maps'
 * values start with the run.
 */
static void forget(unsigned int run)
{
	int fds[2] = { bpf_map__fd(skel->maps.tracked), bpf_map__fd(skel->maps.gates) };
	unsigned char key[16], next[16], value[8];
	for (int m = 0; m < 2; m++) {
		void *prev = NULL;
		while (bpf_map_get_next_key(fds[m], prev, next) == 0) {
			memcpy(key, next, sizeof(key));
			prev = key;
			if (bpf_map_lookup_elem(fds[m], key, value) == 0 && *(unsigned int *)value == run) {
				bpf_map_delete_elem(fds[m], key);
				prev = NULL; /* deleting invalidates the iteration: start again */
			}
		}
	}
}

/* Forgets a run and answers FT_END with how many of its records were lost, unless it was forgotten already. */
static void finish_run(unsigned int run)
{
	int fd = bpf_map__fd(skel->maps.runs);
	struct run_state state;
	if (bpf_map_lookup_elem(fd, &run, &state) != 0)
		return;
	forget(run);
	bpf_map_delete_elem(fd, &run);
	active_runs--;
	answer(FT_END, run, state.lost > 0xffffffffULL ? 0xffffffffU : (unsigned int)state.lost, "");
}

/* Passes on the records waiting in the ring, then ends the runs whose last process ended. */
static void drain(struct ring_buffer *rb)
{
	ring_buffer__consume(rb);
	for (int i = 0; i < done_count; i++)
		finish_run(done_runs[i]);
	done_count = 0;
}

static void end_run(struct ring_buffer *rb, unsigned int run)
{
	kill_all(run);
	drain(rb);
	finish_run(run);
}

/* Reads and runs the complete command lines available on stdin; false at its end. */
static int read_commands(struct ring_buffer *rb)
{
	static char buf[8192];
	static size_t len;
	ssize_t n = read(STDIN_FILENO, buf + len, sizeof(buf) - 1 - len);
	if (n < 0 && errno == EINTR)
		return 1;
	if (n <= 0)
		return 0;
	len += n;
	char *line = buf, *nl;
	while ((nl = memchr(line, '\n', buf + len - line))) {
		*nl = 0;
		unsigned int run;
		int at = 0;
		if (sscanf(line, "gate %u %n", &run, &at) == 1 && at > 0) {
			flush_out();
			register_gate(run, line + at);
		} else if (sscanf(line, "end %u", &run) == 1) {
			end_run(rb, run);
		} else if (sscanf(line, "kill %u", &run) == 1) {
			kill_run(run);
		}
		line = nl + 1;
	}
	len = buf + len - line;
	memmove(buf, line, len);
	if (len == sizeof(buf) - 1)
		len = 0; /* an overlong line: drop it */
	return 1;
}

static int quiet(enum libbpf_print_level level, const char *format, va_list args)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, format, args) : 0;
}

int main(int argc, char **argv)
{
	unsigned long pages = 4096;
	if (argc == 3 && strcmp(argv[1], "--ring-pages") == 0)
		pages = strtoul(argv[2], NULL, 10);
	else if (argc != 1) {
		fprintf(stderr, "usage: %s [--ring-pages N]\n", argv[0]);
		return 2;
	}
	libbpf_set_print(quiet);
	skel = fasttrace__open();
	if (!skel) {
		fprintf(stderr, "cannot open the tracer: %s\n", strerror(errno));
		return 1;
	}
	long page = sysconf(_SC_PAGESIZE);
	skel->rodata->wake_bytes = pages * page / 4;
	if (bpf_map__set_max_entries(skel->maps.events, pages * page) || fasttrace__load(skel) || fasttrace__attach(skel)) {
		fprintf(stderr, "cannot load the tracer into the kernel: %s\n", strerror(errno));
		return 1;
	}
	struct ring_buffer *rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_record, NULL, NULL);
	int ep = epoll_create1(EPOLL_CLOEXEC);
	struct epoll_event ring_ev = { .events = EPOLLIN, .data.fd = 0 }, in_ev = { .events = EPOLLIN, .data.fd = 1 };
	if (!rb || ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, ring_buffer__epoll_fd(rb), &ring_ev) ||
	    epoll_ctl(ep, EPOLL_CTL_ADD, STDIN_FILENO, &in_ev)) {
		fprintf(stderr, "cannot wait for events: %s\n", strerror(errno));
		return 1;
	}
	answer(FT_READY, 0, page, "");
	for (;;) {
		struct epoll_event ready[2];
		int n = epoll_wait(ep, ready, 2, active_runs > 0 ? DRAIN_MS : -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 1;
		if (n == 0)
			drain(rb);
		for (int i = 0; i < n; i++) {
			if (ready[i].data.fd == 0)
				drain(rb);
			else if (!read_commands(rb)) {
				flush_out();
				return 0;
			}
		}
		flush_out();
	}
}
