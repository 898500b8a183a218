#ifndef LUCID_SHA256_H
#define LUCID_SHA256_H

#include <stddef.h>
#include <stdint.h>

/// SHA-256's compression function (FIPS 180-4, 6.2.2) over `count` consecutive 64-byte blocks at
/// `blocks`, updating the eight words of `state`. Padding and the digest's bytes are the caller's.
void lucid_sha256_compress(uint32_t state[8], const uint8_t *blocks, size_t count);

#endif
