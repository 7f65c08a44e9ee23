#ifndef LECTERN_CLIBXML2_SHIM_H
#define LECTERN_CLIBXML2_SHIM_H
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/relaxng.h>
#include <libxml/xmlsave.h>
#include <libxml/HTMLparser.h>
#endif
