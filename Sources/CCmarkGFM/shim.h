#ifndef LECTERN_CCMARKGFM_SHIM_H
#define LECTERN_CCMARKGFM_SHIM_H
#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>
#endif
