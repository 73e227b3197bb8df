/*
 * The records the fast tracer's kernel part sends to its user-space part, which passes them on
 * unchanged to envproof (src/trace/fast/records.ts decodes them; keep the two in step).
 *
 * Every record is a header followed by `dir_len` bytes of directory components, then `path_len`
 * bytes of path and one NUL. Directory components are the names from a file descriptor's directory
 * up to the task's root, each NUL-terminated, innermost first ("lib\0python3.11\0usr\0" is /usr/lib/python3.11).
 */
#ifndef ENVPROOF_FASTTRACE_EVENTS_H
#define ENVPROOF_FASTTRACE_EVENTS_H

#define FT_PATH_MAX 4096 /* PATH_MAX: the kernel refuses longer path arguments */
#define FT_DIR_MAX 4096
#define FT_NAME_MAX 255

enum ft_kind {
	FT_ARMED = 1,  /* tid exec'd the run's gate: its next exec is the traced program */
	FT_EXEC = 2,   /* tid (formerly aux, when a thread other than the leader exec'd) exec'd path */
	FT_OPEN = 3,   /* tid opened path */
	FT_CHDIR = 4,  /* tid changed directory to path */
	FT_FCHDIR = 5, /* tid changed directory to the directory in the components */
	FT_FORK = 6,   /* tid created aux */
	FT_EXIT = 7,   /* tid ended; aux is its exit code as wait(2) reports it */
	FT_DONE = 8,   /* the run's last process (tid) ended; kept by the user-space part, which ends the run */
	/* Written by the user-space part, not by the kernel: */
	FT_READY = 16, /* the tracer is attached; aux is the page size of the ring buffer */
	FT_GATE = 17,  /* the run's gate is registered (path: the error when it could not be) */
	FT_END = 18,   /* every record of the run has been sent; aux is how many were lost */
};

enum ft_flags {
	FT_AT_DIR = 1,      /* path is relative to the directory in the components, not to the cwd */
	FT_INCOMPLETE = 2,  /* a path or directory could not be read in full: the run's trace is incomplete */
	FT_SHARES_FS = 4,   /* FORK: the child shares the parent's working directory (CLONE_FS) */
};

struct ft_header {
	unsigned int size; /* of the whole record */
	unsigned int run;
	unsigned int tid;
	unsigned int aux;
	unsigned char kind;
	unsigned char flags;
	unsigned short dir_len;
	unsigned short path_len;
	unsigned short reserved;
};

#endif
