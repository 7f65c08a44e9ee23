#ifndef LECTERN_CCURL_SHIM_H
#define LECTERN_CCURL_SHIM_H
#include <curl/curl.h>

// curl_easy_setopt and friends are variadic macros, which Swift cannot call; these typed
// wrappers are the only way across.
static inline CURLcode lectern_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode lectern_easy_setopt_ptr(CURL *h, CURLoption o, const void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode lectern_easy_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode lectern_easy_setopt_write(CURL *h, CURLoption o, size_t (*f)(char *, size_t, size_t, void *)) { return curl_easy_setopt(h, o, f); }
static inline CURLcode lectern_easy_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode lectern_easy_getinfo_ptr(CURL *h, CURLINFO i, void **v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode lectern_easy_getinfo_double(CURL *h, CURLINFO i, double *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLMcode lectern_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }
// CURLMsg's result lives in an anonymous union; reading it in C keeps the Swift side plain.
static inline CURLcode lectern_msg_result(const CURLMsg *m) { return m->data.result; }
#endif
