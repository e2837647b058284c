/*
 * fuzz_input.h - the input split most targets use: the first byte picks a
 * mode, the rest is copied into an exactly sized buffer so that ASan sees
 * any read past its end.
 */
#ifndef TESTS_FUZZ_FUZZ_INPUT_H
#define TESTS_FUZZ_FUZZ_INPUT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A malloc'd copy of data[1..size) in *n bytes and data[0] in *mode; NULL if size < 1 or no memory. */
static inline uint8_t *fuzz_input(const uint8_t *data, size_t size, uint8_t *mode, size_t *n)
{
	if (size < 1)
		return NULL;
	*mode = data[0];
	*n = size - 1;
	uint8_t *copy = malloc(*n ? *n : 1);
	if (copy)
		memcpy(copy, data + 1, *n);
	return copy;
}

#endif
