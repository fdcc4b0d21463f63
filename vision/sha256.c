/* vision/sha256.c: SHA-256 through Nettle (see sha256.h). */
#include "sha256.h"

#include <nettle/sha2.h>

void vis__sha256_hex(const void *data, size_t n, char out[65])
{
    static const char hex[] = "0123456789abcdef";
    struct sha256_ctx ctx;
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_init(&ctx);
    sha256_update(&ctx, n, data);
    sha256_digest(&ctx, sizeof d, d);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[64] = '\0';
}
