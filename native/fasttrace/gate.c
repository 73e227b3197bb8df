/*
 * envproof-gate PROGRAM [ARG...]: runs PROGRAM, searching PATH as execvp(3) does. The tracers recognise a
 * run's copy of this file when it is executed and trace that process from its next exec on.
 *
 * No C library (x86-64 system calls only): a copy is made for every traced run, so it must be small, and
 * it must run in any sandbox, whatever C library that has.
 */
#define SYS_write 1
#define SYS_execve 59
#define SYS_exit 60
#define ENOENT 2
#define E2BIG 7
#define ENOEXEC 8
#define EACCES 13
#define ENODEV 19
#define ENOTDIR 20
#define ENAMETOOLONG 36
#define ELOOP 40
#define ESTALE 116
#define ETIMEDOUT 110
#define PATH_MAX 4096

static long syscall3(long nr, long a, long b, long c)
{
	long ret;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return ret;
}

static unsigned long length(const char *s)
{
	unsigned long n = 0;
	while (s[n])
		n++;
	return n;
}

static void say(const char *s)
{
	syscall3(SYS_write, 2, (long)s, (long)length(s));
}

static const char *reason(long err)
{
	switch (err) {
	case ENOENT: return "No such file or directory";
	case EACCES: return "Permission denied";
	case ENOEXEC: return "Exec format error";
	case ENOTDIR: return "Not a directory";
	case E2BIG: return "Argument list too long";
	case ENAMETOOLONG: return "File name too long";
	case ELOOP: return "Too many levels of symbolic links";
	default: return "cannot be executed";
	}
}

static __attribute__((noreturn)) void fail(const char *program, long err)
{
	say("envproof-gate: cannot run ");
	say(program);
	say(": ");
	say(reason(err));
	say("\n");
	syscall3(SYS_exit, err == ENOENT ? 127 : 126, 0, 0);
	__builtin_unreachable();
}

/* Returns only on failure, with the error. A file without a #! line or ELF header runs under /bin/sh. */
static long run(const char *path, char **argv, char **envp)
{
	long err = -syscall3(SYS_execve, (long)path, (long)argv, (long)envp);
	if (err != ENOEXEC)
		return err;
	int argc = 0;
	while (argv[argc])
		argc++;
	char *sh_argv[argc + 2];
	sh_argv[0] = "sh";
	sh_argv[1] = (char *)path;
	for (int i = 1; i <= argc; i++)
		sh_argv[i + 1] = argv[i];
	syscall3(SYS_execve, (long)"/bin/sh", (long)sh_argv, (long)envp);
	return ENOEXEC;
}

static const char *path_variable(char **envp)
{
	for (; *envp; envp++) {
		const char *e = *envp;
		if (e[0] == 'P' && e[1] == 'A' && e[2] == 'T' && e[3] == 'H' && e[4] == '=')
			return e + 5;
	}
	return "/bin:/usr/bin";
}

static void gate(char **argv, char **envp)
{
	const char *program = argv[0];
	for (const char *c = program; *c; c++)
		if (*c == '/')
			fail(program, run(program, argv, envp)); /* a path: no search */
	unsigned long name_len = length(program);
	char candidate[PATH_MAX];
	long err = ENOENT;
	int denied = 0;
	for (const char *dir = path_variable(envp);; dir++) {
		const char *end = dir;
		while (*end && *end != ':')
			end++;
		unsigned long dir_len = end - dir, n = 0;
		if (dir_len + 1 + name_len < PATH_MAX) {
			for (const char *c = dir; c < end; c++)
				candidate[n++] = *c;
			if (dir_len > 0)
				candidate[n++] = '/'; /* an empty entry is the current directory */
			for (unsigned long i = 0; i <= name_len; i++)
				candidate[n++] = program[i];
			err = run(candidate, argv, envp);
			if (err == EACCES)
				denied = 1;
			else if (err != ENOENT && err != ENOTDIR && err != ESTALE && err != ENODEV && err != ETIMEDOUT)
				fail(program, err);
		}
		if (!*end)
			break;
		dir = end;
	}
	fail(program, denied ? EACCES : err);
}

void start(long *stack)
{
	long argc = stack[0];
	char **argv = (char **)(stack + 1);
	if (argc < 2) {
		say("usage: envproof-gate PROGRAM [ARG...]\n");
		syscall3(SYS_exit, 2, 0, 0);
	}
	gate(argv + 1, argv + argc + 1);
}

__asm__(".globl _start\n"
	"_start:\n"
	"	mov %rsp, %rdi\n"
	"	and $-16, %rsp\n"
	"	call start\n"
	"	hlt\n");
