/* SPDX-License-Identifier: GPL-2.0 */
/*
 * proctest - guest side of the rig: reads the per-CPU procfs files and
 * reports in KTAP on stdout (line buffered, the serial console). One file
 * per suite (main.c lists them) on the small library declared here.
 */
#ifndef PROCTEST_H
#define PROCTEST_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TRACEFS "/sys/kernel/tracing/"
#define DEBUGFS "/sys/kernel/debug/"
#define KMEMLEAK DEBUGFS "kmemleak"
#define READ_SIZE (128 * 1024)	/* what cat and most parsers use */
/* seq_file's buffer starts at a page: 4 KiB, 16 KiB on Loongson (mips64el) */
#define PAGE_BYTES ((long long)sysconf(_SC_PAGESIZE))

/* The files under test, and the read sizes every suite tries. */
extern const char *const files[3];
#define NR_FILES 3
extern const size_t read_sizes[8];
#define NR_READ_SIZES 8
extern char readbuf[READ_SIZE];

/* lib.c: KTAP, reading and writing files, commands, CPUs */
void result(int ok, const char *skip, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int finish(void);
void die(const char *what);
long long now_ns(void);
ssize_t read_file(const char *path, size_t rsize, char *buf, size_t cap);
char *slurp_sized(const char *path, size_t rsize, size_t *len);
char *slurp(const char *path, size_t *len);
size_t read_through(const char *path);
void time_reads(const char *path, long long *median, long long *lo,
		long long *hi, int *reads);
void write_file(const char *path, const char *s);
unsigned long read_ulong(const char *path);
int cmp_ll(const void *a, const void *b);
int run_capture(const char *cmd, char **out);
int run_quiet(const char *cmd);
int online_cpus(void);
int set_online(int cpu, int on);
void print_first_difference(const char *what, const char *path,
			    const char *a, const char *b);

/* table.c: the files as tables, and the shape of a text */
struct table_row {
	char label[24];
	long irq;		/* the row's interrupt number, or -1 */
	int ncols;
	unsigned long long *v;
};

struct table {
	int ncpus;
	int *cpu;		/* CPU id of each column */
	int nrows;
	struct table_row *rows;
};

struct table parse_text(const char *text);
struct table parse_table(const char *path);
void free_table(struct table *t);
int table_columns(const struct table *t, const char *path, char *why,
		  size_t whylen);
int check_columns(const char *path, const char *text, char *why, size_t whylen);
int *cpu_list(const char *path, int *n);
char *normalize(const char *in, int padded);
int is_padded(const char *path);

/* trace.c: the allocations of seq_file buffers */
struct allocs {
	long long largest;	/* bytes, largest kvmalloc() */
	int kvmallocs;
	int vmallocs;
	long long lost;		/* events overwritten in the full buffer */
};

void trace_setup(void);
void trace_events(int on);
void trace_pids(const pid_t *pids, unsigned int n);
void trace_on(void);
struct allocs trace_off(void);
struct allocs trace_read(const char *path);
void result_bounded(int patched, const char *f, const struct allocs *a);

/* readers.c: concurrent readers for the churn suites */
#define NR_READERS 4
#define CHURN_SECS 30

struct reader_counts {
	unsigned int passes[2];	/* /proc/interrupts, /proc/softirqs */
	unsigned int bad[2];	/* rows disagreeing with their header */
	unsigned int crossed[2];	/* passes with more than 32 columns */
	unsigned int values[2];	/* passes whose values are out of order or went back */
	unsigned int churn;	/* /proc/interrupts passes with a churn row */
	unsigned int errors;	/* reads that failed (any file) */
};

struct readers {
	pid_t pids[NR_READERS];
	int fds[2];
};

void readers_start(struct readers *r);
struct reader_counts readers_stop(struct readers *r, int patched,
				  const char *what);
void result_churn_columns(int patched, const char *what,
			  const struct reader_counts *c);

/* inject.c: fault injection aimed at one process */
struct fault_counts {
	unsigned int reads;	/* full reads that succeeded */
	unsigned int enomem;	/* open() or read() failed with ENOMEM */
	unsigned int other;	/* failed otherwise */
	unsigned int bad;	/* succeeded, but the text is not whole */
	int other_errno;
	char why[160];		/* the first bad read */
};

void fault_attr(const char *attr, const char *file, const char *val);
void fault_aim(const char *attr, int percent);
void fragment_memory(int on);
void make_it_fail(int on);
void fault_text_alloc(void);
ssize_t fault_read(const char *path, size_t rsize);	/* into its own text */
void fault_check(struct fault_counts *c, const char *path, const char *ref,
		 ssize_t r);
void fault_refs(char **ref);

/*
 * The suites (one file each), run by main.c with the kernel's name as the
 * host booted it ("stock", "patched", "debug"); @patched is 0 for stock.
 */
int suite_measure(int patched, const char *kernel);
int suite_check(int patched, const char *kernel);
int suite_read(int patched, const char *kernel);
int suite_hotplug(int patched, const char *kernel);
int suite_irqchurn(int patched, const char *kernel);
int suite_parsers(int patched, const char *kernel);
int suite_failslab(int patched, const char *kernel);
int suite_kmemleak(int patched, const char *kernel);
int suite_faults(int patched, const char *kernel);
int suite_profile(int patched, const char *kernel);
int suite_busy(int patched, const char *kernel);

/* kunit.c: the series' KUnit results, for check and measure */
void test_kunit(int patched);
void kunit_figures(void);

#endif
