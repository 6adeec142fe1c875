#ifndef C_HTTP_PARSER_SHIM_H
#define C_HTTP_PARSER_SHIM_H
#include <http_parser.h>
#endif
