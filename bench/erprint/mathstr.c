/*
 * mathstr.c - the small experiment of bench/erprint/run.py: SECONDS (default
 * 1) of libm (sin, cos, sqrt) and libc (snprintf, strtod) work called from
 * two functions of the program, so that a report names functions of three
 * objects, two of them with their DWARF in separate debug files
 * (libc6-dbg).  Prints a checksum and the number of rounds.
 *
 *   mathstr [SECONDS]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double work(double x)
{
	double s = 0;
	for (int i = 0; i < 2000; i++)
		s += sin(x + i) * cos(x - i) + sqrt(x + i);
	return s;
}

static double strwork(char *b, size_t room)
{
	double s = 0;
	for (int i = 0; i < 200; i++) {
		snprintf(b, room, "%d %f", i, i * 1.5);
		s += strtod(b, NULL);
	}
	return s;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 1.0;
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	double s = 0;
	char b[256];
	long n = 0;
	do {
		s += work((double)n++);
		s += strwork(b, sizeof(b));
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) * 1e-9 < seconds);
	printf("%f %ld\n", s, n);
	return 0;
}
