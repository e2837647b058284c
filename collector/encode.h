/*
 * encode.h - adapters from the experiment/record.h encoders to the block
 * writer's blockw_encode_fn.  SIGNAL_SAFE.
 */
#ifndef COLLECTOR_ENCODE_H
#define COLLECTOR_ENCODE_H

#include <stddef.h>
#include <stdint.h>

size_t encode_clock(uint8_t *buf, size_t room, uint64_t prev_ns, const void *rec);
size_t encode_thread_start(uint8_t *buf, size_t room, uint64_t prev_ns, const void *rec);
size_t encode_thread_end(uint8_t *buf, size_t room, uint64_t prev_ns, const void *rec);
size_t encode_stack(uint8_t *buf, size_t room, uint64_t prev_ns, const void *rec);
size_t encode_stack_slot(uint8_t *buf, size_t room, uint64_t prev_ns, const void *rec);
size_t encode_sample(uint8_t *buf, size_t room, uint64_t prev_ns, const void *rec);
size_t encode_sample_point(uint8_t *buf, size_t room, uint64_t prev_ns, const void *rec);

#endif
