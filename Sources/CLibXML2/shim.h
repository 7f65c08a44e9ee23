#ifndef LECTERN_CLIBXML2_SHIM_H
#define LECTERN_CLIBXML2_SHIM_H
// Debian's libxml2 is built with ICU, so libxml/encoding.h includes the system's
// <unicode/ucnv.h>. Foundation on Linux carries its own ICU (_FoundationICU) whose UErrorCode
// has more cases, and clang refuses two different definitions of one enum across modules (a
// build error that depends on compile order). We never touch the ICU members of
// xmlCharEncodingHandler, so the headers are read without ICU.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/relaxng.h>
#include <libxml/xmlsave.h>
#include <libxml/HTMLparser.h>
#endif
