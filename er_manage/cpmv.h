/*
 * cpmv.h - er_cp and er_mv, one driver: `PROG [-V] EXP1 EXP2` (EXP2 must
 * not exist) and `PROG [-V] EXPERIMENT|GROUP.erg... DIR` (DIR exists and is
 * not an experiment).  Every operand and destination is checked before
 * anything is written.  A group copied or moved into DIR gets a group file
 * of the same name there naming the new locations.  er_mv renames within a
 * filesystem; across filesystems it copies (synced) and removes the source
 * only once the copy is complete.  A copy that fails is removed.
 */
#ifndef ER_MANAGE_CPMV_H
#define ER_MANAGE_CPMV_H

/* The whole program: its exit status (0, 1 refused or failed, 2 usage). */
int cpmv_main(int argc, char **argv, int move);

#endif
