/*
 * common/status.c -- the status codes in words (the error half of the convention
 * documented in common/common.h). No Python twin: the reference backend raises Python
 * exceptions directly; fast/_ffi.py maps a code to its exception class and puts
 * st_message(code) in the exception text.
 */
#include "common/common.h"

const char *st_message(int32_t code)
{
    switch (code) {
    case ST_OK: return "success";
    case ST_EINVAL: return "invalid argument or data value";
    case ST_ENOMEM: return "allocation failed";
    case ST_EDIM: return "wrong input dimension";
    case ST_ESTATE: return "operation invalid in the current state";
    case ST_ERANGE: return "index or class out of range";
    default: return "unknown status";
    }
}
