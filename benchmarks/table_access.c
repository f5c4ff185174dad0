/* Random against address-sorted updates of a hash table of many GiB: why fastgo.count's
   two-thread sweep adds a round's successors in runs by address (count.pyx, gather).

   A table of GIB GiB in 32-byte slots (3-word counts plus the key) on 2 MiB pages where the
   kernel allows, then three rounds of 4 Mi increments of one word at pseudo-random slots, each
   slot prefetched 16 updates ahead (as the sweep does): once in random order, once with the
   slot indices sorted first. Prints the time per update of each, and of the sort.

   cc -O2 -o /tmp/table_access benchmarks/table_access.c && /tmp/table_access 5 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static uint64_t mix(uint64_t z) {        /* splitmix64's finaliser: a pseudo-random slot */
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static int by_value(const void* a, const void* b) {
    uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
    return x < y ? -1 : x > y;
}

static double update(uint64_t* table, const uint64_t* slot, size_t m) {
    double t0 = now();
    for (size_t i = 0; i < m; i++) {
        if (i + 16 < m) __builtin_prefetch(table + slot[i + 16] * 4, 1, 1);
        table[slot[i] * 4 + 1] += 1;
    }
    return (now() - t0) / m * 1e9;
}

int main(int argc, char** argv) {
    size_t gib = argc > 1 ? (size_t)atoi(argv[1]) : 5, n = (gib << 30) / 32, m = 1 << 22;
    uint64_t* table = NULL;
    uint64_t* slot = malloc(m * sizeof(uint64_t));
    if (gib == 0 || slot == NULL || posix_memalign((void**)&table, 2 << 20, n * 32) != 0) {
        fprintf(stderr, "usage: table_access GIB (a table of GIB GiB must fit in memory)\n");
        return 1;
    }
#ifdef MADV_HUGEPAGE
    madvise(table, n * 32, MADV_HUGEPAGE);
#endif
    memset(table, 0, n * 32);
    for (int round = 0; round < 3; round++) {
        for (size_t i = 0; i < m; i++) slot[i] = mix(i + round * m) % n;
        double random = update(table, slot, m);
        for (size_t i = 0; i < m; i++) slot[i] = mix(i + round * m + 99) % n;
        double t0 = now();
        qsort(slot, m, sizeof(uint64_t), by_value);
        double sort = (now() - t0) / m * 1e9;
        double sorted = update(table, slot, m);
        printf("%zu GiB: random %.1f ns, sorted %.1f ns an update (the sort %.1f ns)\n", gib,
               random, sorted, sort);
    }
    free(slot);
    free(table);
    return 0;
}
