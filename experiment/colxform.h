/*
 * colxform.h - a lossless column transform of a heaptrace file image, run
 * before zstd (collect/compress.c) and undone after it (analysis/zdata.c).
 * zstd finds more to share when each field of the heap events (heapstream.h)
 * sits next to the same field of the other events rather than interleaved.
 *
 * The transformed stream is COLX_MAGIC, one unit per EXP_BLOCK_BYTES piece
 * of the file in file order, and an END unit; a unit is a type byte and
 *
 *   COLX_UNIT_END       varint: the image's bytes; nothing may follow
 *                       (so no strict prefix of a stream is a stream)
 *   COLX_UNIT_VERBATIM  varint n (1..EXP_BLOCK_BYTES), the piece's n bytes
 *   COLX_UNIT_ZERO      nothing: EXP_BLOCK_BYTES zero bytes
 *   COLX_UNIT_COLUMNS   a heaptrace block: its EXP_BLOCK_HEADER_BYTES header
 *                       bytes as they are, varint count (events, time marks
 *                       included), varint length of each column but the
 *                       first, then the columns:
 *                         0 heads           count bytes, one per event
 *                         1 seq escapes     the varint after a head whose
 *                                           seq part is EXP_HEAP_SEQ_ESCAPE
 *                         2 sizes           varints
 *                         3 addrs           varints
 *                         4 realloc olds    varints
 *                         5 stackrefs       varints
 *                         6 stack ids       8 bytes after stackref EXP_STACKREF_ID
 *                         7 time marks      the varint of an EXP_HEAP_TIME head
 *                       The block is the header, the events rebuilt from
 *                       the columns (exactly EXP_BH_USED bytes), then zeros.
 *
 * An event's fields are those of heapstream.h, in its order, read by syntax
 * alone: the head; for op EXP_HEAP_TIME one varint (whatever the head's seq
 * bits); else the escape varint iff (head >> EXP_HEAP_OP_BITS) ==
 * EXP_HEAP_SEQ_ESCAPE, then by op size, addr, realloc old, stackref and,
 * when the stackref's value is EXP_STACKREF_ID, 8 id bytes.  Columns hold
 * each field's bytes as they were, so the image comes back byte for byte
 * whatever the varints' encodings.  A piece is stored as COLUMNS only when
 * it is a whole block with magic EXP_BLOCK_MAGIC, its used bytes split
 * exactly into events (every varint one that varint_get accepts) and every
 * byte after them is zero; an all-zero block is ZERO; anything else (the
 * file header block, a partial last piece, damage) is VERBATIM.  Only the
 * last piece may be shorter than EXP_BLOCK_BYTES, and END must give the
 * sum of the pieces.
 *
 * Library code: returns -errno, prints nothing, no global state; not for
 * signal context.  The decoders never read past the input they are given.
 */
#ifndef EXPERIMENT_COLXFORM_H
#define EXPERIMENT_COLXFORM_H

#include <stddef.h>
#include <stdint.h>

#include "experiment/format.h"

#define COLX_MAGIC "PAHCOLS1" /* 8 bytes, no NUL */
#define COLX_MAGIC_BYTES 8

enum colx_unit_type {
	COLX_UNIT_VERBATIM = 1,
	COLX_UNIT_ZERO = 2,
	COLX_UNIT_COLUMNS = 3,
	COLX_UNIT_END = 4,
};

/* Most bytes one unit takes (COLUMNS of a full block, or VERBATIM of a whole block). */
#define COLX_UNIT_MAX_BYTES (EXP_BLOCK_BYTES + 64u)

/*
 * Forward, streaming: colx_forward_begin, colx_forward_unit for each piece
 * of the file (data, 1..EXP_BLOCK_BYTES bytes; only the last piece may be
 * shorter), then colx_forward_end with the file's size.  Each writes into
 * out, which has room for COLX_UNIT_MAX_BYTES, and returns the bytes it
 * wrote (> 0).  colx_forward_unit's out[0] is the enum colx_unit_type it
 * chose; it returns -EINVAL for a bad `bytes`.
 */
int colx_forward_begin(uint8_t *out);
int colx_forward_unit(const uint8_t *data, size_t bytes, uint8_t *out);
int colx_forward_end(uint64_t image_bytes, uint8_t *out);

/*
 * Undo the piece unit at *pos (before `end`): write the piece into out,
 * which has room for EXP_BLOCK_BYTES, set *out_bytes and advance *pos past
 * the unit.  Returns 0, or -EBADMSG if the unit is truncated, malformed or
 * an END unit.
 */
int colx_inverse_unit(const uint8_t **pos, const uint8_t *end, uint8_t *out, size_t *out_bytes);

/* 1 if data starts with COLX_MAGIC, else 0. */
int colx_is_transformed(const uint8_t *data, size_t bytes);

/*
 * Undo a whole transformed stream (COLX_MAGIC, units, END) in memory:
 * *ret receives the original image (calloc'd, sized from the framing
 * before anything is rebuilt, its zero units never written, so that they
 * cost no memory; free it), *ret_bytes its size.  Returns 0,
 * -EBADMSG for a malformed or truncated stream, -EFBIG if the image would
 * pass max_out bytes (found before allocating), -ENOMEM.
 */
int colx_inverse(const uint8_t *data, size_t bytes, size_t max_out, uint8_t **ret, size_t *ret_bytes);

#endif
