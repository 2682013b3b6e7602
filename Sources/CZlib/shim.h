#include <zlib.h>

/* inflateInit2 is a macro, which Swift cannot call: a function in its place. */
static inline int feed_inflate_init(z_stream *stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

/* deflateInit2 likewise (the tests compress with it). */
static inline int feed_deflate_init(z_stream *stream, int level, int window_bits) {
    return deflateInit2(stream, level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
}
