// SPDX-License-Identifier: GPL-2.0
/*
 * failslab: reads under failslab, and every allocation of a read failed
 * one at a time (fail-nth).
 */
#include "proctest.h"

/*
 * The child: once the trace follows it (a byte on @go), full reads with
 * random sizes, injected failures on.
 */
static void fault_reader(int go, int out, char **ref)
{
	struct fault_counts c = { 0 };
	unsigned int n;
	char g;

	if (read(go, &g, 1) != 1)
		_exit(1);
	make_it_fail(1);
	for (n = 0; n < 300; n++) {
		size_t rsize = read_sizes[rand() % NR_READ_SIZES];

		if (rsize > sizeof(readbuf))
			rsize = sizeof(readbuf);
		if (rsize < 64)
			rsize = 64;
		fault_check(&c, files[n % NR_FILES], ref[n % NR_FILES],
			    fault_read(files[n % NR_FILES], rsize));
	}
	make_it_fail(0);
	if (write(out, &c, sizeof(c)) != sizeof(c))
		_exit(1);
	_exit(0);
}

#define FAULT_MIN_ENOMEM 10

/*
 * failslab: a child marked make-it-fail reads the three files while a
 * fifth of its slab allocations fail. At least FAULT_MIN_ENOMEM reads must
 * meet a failure; every read gives ENOMEM or the whole text; once
 * injection stops the text is what it was.
 */
static void test_failslab(int patched)
{
	const char *attr = "failslab";
	struct fault_counts c = { 0 };
	unsigned int i, same = 0;
	struct allocs a;
	int fds[2], go[2], status = -1;
	char *ref[NR_FILES];
	size_t len;
	pid_t pid;

	fault_refs(ref);
	fault_text_alloc();
	fault_aim(attr, 20);
	if (pipe(fds) || pipe(go))
		die("pipe");
	trace_setup();
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid)
		fault_reader(go[0], fds[1], ref);
	trace_pids(&pid, 1);
	trace_on();
	if (write(go[1], "g", 1) != 1)
		die("go");
	waitpid(pid, &status, 0);
	fault_attr(attr, "probability", "0");
	a = trace_off();
	trace_setup();	/* this process again */
	result_bounded(patched, "reads under failslab", &a);
	close(go[0]);
	close(go[1]);
	if (read(fds[0], &c, sizeof(c)) != sizeof(c))
		printf("# %s: reader ended with status %#x and no counts\n", attr, status);
	close(fds[0]);
	close(fds[1]);
	if (c.bad)
		printf("# %s: %u reads not whole, first: %s\n", attr, c.bad, c.why);
	result(WIFEXITED(status) && !WEXITSTATUS(status) && !c.other && !c.bad &&
	       c.reads && c.enomem >= FAULT_MIN_ENOMEM, NULL,
	       "%s: %u whole reads, %u not whole, %u ENOMEM (at least %d), %u other errors (last: %s)",
	       attr, c.reads, c.bad, c.enomem, FAULT_MIN_ENOMEM, c.other,
	       c.other ? strerror(c.other_errno) : "none");

	for (i = 0; i < NR_FILES; i++) {
		char *t = slurp(files[i], &len), *shape = normalize(t, is_padded(files[i]));

		if (!strcmp(shape, ref[i]))
			same++;
		else
			print_first_difference(attr, files[i], ref[i], shape);
		free(shape);
		free(t);
		free(ref[i]);
	}
	result(same == NR_FILES, NULL, "%s: text after injection as before", attr);
}

/*
 * Every allocation of an open() and full read, failed one at a time:
 * /proc/thread-self/fail-nth = n fails the n-th slab or page allocation
 * (failslab and fail_page_alloc, GFP_KERNEL included) of this thread, and
 * reads back 0 if it did. For n = 1, 2, ... until a read meets no failure,
 * each read must give ENOMEM or the whole text.
 */
static void test_fail_nth(void)
{
	static const char *const attrs[] = { "failslab", "fail_page_alloc" };
	char *ref[NR_FILES], val[16];
	unsigned int i, a;
	int fd = open("/proc/thread-self/fail-nth", O_RDWR);

	if (fd < 0)
		die("/proc/thread-self/fail-nth");
	fault_refs(ref);
	fault_text_alloc();
	for (a = 0; a < 2; a++) {
		fault_attr(attrs[a], "ignore-gfp-wait", "N");
		fault_attr(attrs[a], "verbose", "0");
	}
	fault_attr("fail_page_alloc", "min-order", "0");
	for (i = 0; i < NR_FILES; i++) {
		struct fault_counts c = { 0 };
		unsigned int n, injected = 0;
		ssize_t r;

		for (n = 1; n < 100000; n++) {
			snprintf(val, sizeof(val), "%u", n);
			if (pwrite(fd, val, strlen(val), 0) < 0)
				die("fail-nth");
			r = fault_read(files[i], READ_SIZE);
			memset(val, 0, sizeof(val));
			if (pread(fd, val, sizeof(val) - 1, 0) < 0 || pwrite(fd, "0", 1, 0) < 0)
				die("fail-nth");
			fault_check(&c, files[i], ref[i], r);
			if (atoi(val))
				break;	/* no n-th allocation: all were failed */
			injected++;
		}
		if (c.bad)
			printf("# fail-nth: %u reads not whole, first: %s\n", c.bad, c.why);
		/* the last read met no failure */
		result(injected > 0 && !c.bad && !c.other && c.reads > 0, NULL,
		       "fail-nth %s: %u allocations failed one at a time: %u ENOMEM, %u read whole anyway, %u not whole, %u other errors",
		       files[i], injected, c.enomem, c.reads - c.bad - !c.bad, c.bad, c.other);
		free(ref[i]);
	}
	close(fd);
}

int suite_failslab(int patched, const char *kernel)
{
	test_failslab(patched);
	test_fail_nth();
	return 0;
}
