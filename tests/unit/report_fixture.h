/*
 * report_fixture.h - the synthetic experiment the report-model tests share
 * (tests/unit/test_report_*.c): tests/fixtures/cc_prog.c's symbols, thread
 * 100, 10 ms samples:
 *   main<-slow<-work+10  10    main<-slow<-work+12  3    main<-both<-fast+9  5
 *   main+42               2    main<-slow+9         4    main<-both<-work+10 5
 * so, in ms: exclusive work 180, fast 50, slow 40, main 20, both 0;
 * inclusive main 290, work 180, slow 170, both 100, fast 50; total 290;
 * attributed main->slow 170, main->both 100, slow->work 130, both->fast 50,
 * both->work 50, <Total>->main 290.
 */
#ifndef TESTS_UNIT_REPORT_FIXTURE_H
#define TESTS_UNIT_REPORT_FIXTURE_H

#include "analysis/profile.h"
#include "tests/unit/fixture.h"

#define MS 1000000ull

#define REPORT_FIXTURE_LEAVES(main_leaf, slow_leaf)       \
	"thread 100\n"                                    \
	"sample 100 10 10000000 work+10 slow+9 main+42\n" \
	"sample 100 3 10000000 work+12 slow+9 main+42\n"  \
	"sample 100 5 10000000 fast+9 both+8 main+16\n"   \
	"sample 100 2 10000000 " main_leaf "\n"           \
	"sample 100 4 10000000 " slow_leaf " main+42\n"   \
	"sample 100 5 10000000 work+10 both+8 main+16\n"  \
	"end 100 290000000\n"
#define REPORT_FIXTURE_SCRIPT REPORT_FIXTURE_LEAVES("main+42", "slow+9")

/*
 * Make the experiment of `script` (make_prog_exp) in dir and open it,
 * computed (functions have their ids).  NULL after a message.
 */
static inline struct profile *report_fixture_open(const char *dir, const char *script)
{
	char path[4200], *err = NULL;
	struct profile *p = NULL;
	snprintf(path, sizeof(path), "%s/s.er", dir);
	if (make_prog_exp(dir, "s", script) < 0 || profile_new(&p) < 0 ||
	    profile_add_experiment(p, path, &err) < 0 || profile_compute(p) < 0) {
		fprintf(stderr, "cannot make or read %s: %s\n", path, err ? err : "");
		profile_free(p);
		p = NULL;
	}
	free(err);
	return p;
}

#endif
