/* sim/rng.c: sim's own randomness.  xoshiro256** seeded through
 * splitmix64 (the generator's authors' recommendation), so that a seed
 * gives the same frames on every machine and libc; no rand(), no clock. */
#include "sim_internal.h"

#include <math.h>

static uint64_t sim__splitmix(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

void sim__rng_seed(sim__rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * UINT64_C(0xD1B54A32D192ED03));
    for (int i = 0; i < 4; i++)
        r->s[i] = sim__splitmix(&x);
}

static uint64_t sim__rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t sim__rng_u64(sim__rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = sim__rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = sim__rotl(s[3], 45);
    return result;
}

double sim__rng_unit(sim__rng *r) { return (double)(sim__rng_u64(r) >> 11) * 0x1.0p-53; }

double sim__rng_range(sim__rng *r, double lo, double hi)
{
    return lo + (hi - lo) * sim__rng_unit(r);
}

int sim__rng_int(sim__rng *r, int n)
{
    if (n <= 1)
        return 0;
    return (int)((sim__rng_u64(r) >> 33) % (uint64_t)n);
}

double sim__rng_gauss(sim__rng *r)
{
    /* Box-Muller; the second value is dropped to keep the state simple. */
    double u = sim__rng_unit(r), v = sim__rng_unit(r);
    if (u < 1e-300)
        u = 1e-300;
    return sqrt(-2.0 * log(u)) * cos(2.0 * SIM__PI * v);
}

uint32_t sim__hash32(uint32_t x)
{
    /* lowbias32 (Chris Wellons): cheap and well mixed, for per-pixel noise. */
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

static double sim__lattice(uint32_t seed, int32_t x, int32_t y)
{
    uint32_t h = sim__hash32(seed ^ sim__hash32((uint32_t)x * 0x9E3779B1U ^
                                                sim__hash32((uint32_t)y + 0x85EBCA77U)));
    return (double)(h >> 8) * (1.0 / 16777216.0);
}

double sim__noise2(uint32_t seed, double x, double y)
{
    double fx = floor(x), fy = floor(y);
    int32_t ix = (int32_t)fx, iy = (int32_t)fy;
    double tx = x - fx, ty = y - fy;
    double a = sim__lattice(seed, ix, iy), b = sim__lattice(seed, ix + 1, iy);
    double c = sim__lattice(seed, ix, iy + 1), d = sim__lattice(seed, ix + 1, iy + 1);
    tx = tx * tx * (3 - 2 * tx);
    ty = ty * ty * (3 - 2 * ty);
    return (a + (b - a) * tx) * (1 - ty) + (c + (d - c) * tx) * ty;
}

double sim__fbm2(uint32_t seed, double x, double y, int octaves)
{
    double sum = 0, w = 0.5, norm = 0;
    for (int i = 0; i < octaves; i++) {
        sum += w * sim__noise2(seed + (uint32_t)i * 1013U, x, y);
        norm += w;
        x *= 2.03;
        y *= 2.03;
        w *= 0.5;
    }
    return sum / norm;
}
