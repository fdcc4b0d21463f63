/* vision/sha256.h: SHA-256 digests, internal to vision/.
 *
 * The classifier loader checks a model file against the digest its
 * manifest records, so that a retrained .onnx never runs under an old
 * manifest's head names.  The hash is Nettle's (Debian's nettle-dev, the
 * GnuTLS project's small crypto library): a well-kept implementation
 * rather than one of our own. */
#ifndef TABLECAM_VISION_SHA256_H
#define TABLECAM_VISION_SHA256_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The digest of n bytes as 64 lowercase hex digits and a NUL. */
void vis__sha256_hex(const void *data, size_t n, char out[65]);

#ifdef __cplusplus
}
#endif

#endif
