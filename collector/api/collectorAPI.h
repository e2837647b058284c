/*
 * collectorAPI.h - the collector API, for programs that mark their own phases
 * in an experiment (Oracle Developer Studio's and gprofng's names and
 * prototypes).  Link with -lcollectorAPI (pkg-config collectorAPI).
 *
 * Every function does nothing when the program runs without `collect`, or in
 * a process collect does not follow: the library looks up the collector's
 * entry points once, when it is loaded, and calls nothing else.
 *
 * collector_sample, collector_pause and collector_resume may be called from
 * any thread and from a signal handler (they never allocate or lock; a point
 * that another thread is writing at that moment in a signal handler is
 * dropped and counted in log.xml).  collector_terminate_expt is not
 * async-signal-safe.
 */
#ifndef COLLECTORAPI_H
#define COLLECTORAPI_H

#ifdef __cplusplus
extern "C" {
#endif

#ifndef COLLECTORAPI_LINENO_DEFINED
#define COLLECTORAPI_LINENO_DEFINED
/* A line table entry of collector_func_load: code offset, source line. */
typedef struct {
	unsigned int offset;
	unsigned int lineno;
} Lineno;
#endif

/*
 * Record a sample point labelled name (cut to 64 bytes): er_print's
 * sample_list shows the label, and sample_select picks the data between two
 * points.
 */
void collector_sample(const char *name);

/* Stop recording event data (clock samples, traced calls); the experiment stays open. */
void collector_pause(void);

/* Record again after collector_pause. */
void collector_resume(void);

/* End the experiment now, as at exit; the program goes on, unprofiled. */
void collector_terminate_expt(void);

/*
 * Describe or forget dynamically generated code.  Accepted for
 * compatibility; this collector records nothing for them.
 */
void collector_func_load(const char *name, const char *alias, const char *sourcename, void *vaddr, int size,
			 int lntsize, Lineno *lntable);
void collector_func_unload(void *vaddr);

#ifdef __cplusplus
}
#endif

#endif
