/*
 * er_cp - copy experiments and experiment groups (docs/man/er_cp.1); the
 * work is er_manage/cpmv.c's.
 */
#include "er_manage/cpmv.h"

int main(int argc, char **argv)
{
	return cpmv_main(argc, argv, 0);
}
