#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot
   call: one typed wrapper per kind of argument. */

static inline CURLcode feed_curl_setopt_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode feed_curl_setopt_offset(CURL *curl, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode feed_curl_setopt_pointer(CURL *curl, CURLoption option, void *value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode feed_curl_setopt_string(CURL *curl, CURLoption option, const char *value) {
    return curl_easy_setopt(curl, option, value);
}

typedef size_t (*feed_curl_write_callback)(char *data, size_t size, size_t count, void *context);
static inline CURLcode feed_curl_setopt_write(CURL *curl, CURLoption option, feed_curl_write_callback value) {
    return curl_easy_setopt(curl, option, value);
}

typedef int (*feed_curl_progress_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);
static inline CURLcode feed_curl_setopt_progress(CURL *curl, CURLoption option, feed_curl_progress_callback value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode feed_curl_getinfo_long(CURL *curl, CURLINFO info, long *value) {
    return curl_easy_getinfo(curl, info, value);
}

static inline CURLcode feed_curl_getinfo_string(CURL *curl, CURLINFO info, char **value) {
    return curl_easy_getinfo(curl, info, value);
}

static inline CURLMcode feed_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

static inline CURLcode feed_curl_getinfo_offset(CURL *curl, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(curl, info, value);
}

typedef curl_socket_t (*feed_curl_opensocket_callback)(void *context, curlsocktype purpose, struct curl_sockaddr *address);
static inline CURLcode feed_curl_setopt_opensocket(CURL *curl, feed_curl_opensocket_callback value) {
    return curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, value);
}

/* glibc's allocator tuned by the process that makes many large responses
   (see Allocator.swift); mallopt is declared in <malloc.h>, which Swift's
   Glibc module does not include. Elsewhere, nothing. */
#if defined(__GLIBC__)
#include <malloc.h>
static inline void feed_malloc_keep_blocks(int largest, int keptFree) {
    mallopt(M_MMAP_THRESHOLD, largest);
    mallopt(M_TRIM_THRESHOLD, keptFree);
    mallopt(M_ARENA_MAX, 1);
}
#else
static inline void feed_malloc_keep_blocks(int largest, int keptFree) { (void)largest; (void)keptFree; }
#endif
