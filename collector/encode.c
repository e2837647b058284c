/*
 * encode.c - blockw_encode_fn adapters (see encode.h).
 */
#include "collector/encode.h"

#include "experiment/record.h"

size_t encode_clock(uint8_t *buf, size_t room, uint64_t prev_ns, const void *rec)
{
	return record_encode_clock(buf, room, prev_ns, rec);
}

size_t encode_thread_start(uint8_t *buf, size_t room, uint64_t prev_ns, const void *rec)
{
	(void)prev_ns;
	return record_encode_thread_start(buf, room, rec);
}

size_t encode_thread_end(uint8_t *buf, size_t room, uint64_t prev_ns, const void *rec)
{
	(void)prev_ns;
	return record_encode_thread_end(buf, room, rec);
}

size_t encode_stack(uint8_t *buf, size_t room, uint64_t prev_ns, const void *rec)
{
	(void)prev_ns;
	return record_encode_stack(buf, room, rec);
}

size_t encode_sample(uint8_t *buf, size_t room, uint64_t prev_ns, const void *rec)
{
	(void)prev_ns;
	return record_encode_sample(buf, room, rec);
}

size_t encode_sample_point(uint8_t *buf, size_t room, uint64_t prev_ns, const void *rec)
{
	(void)prev_ns;
	return record_encode_sample_point(buf, room, rec);
}

size_t encode_stack_slot(uint8_t *buf, size_t room, uint64_t prev_ns, const void *rec)
{
	(void)prev_ns;
	return record_encode_stack_slot(buf, room, rec);
}
