// Umbrella header for libdbus-1, plus thin `cdbus_` shims for macros Swift cannot import.
#pragma once
#include <dbus/dbus.h>

// Type codes: `DBUS_TYPE_*` are cast macros (`((int) 's')`), which Swift's Clang importer skips.
static const int CDBUS_TYPE_INVALID = DBUS_TYPE_INVALID;
static const int CDBUS_TYPE_BYTE = DBUS_TYPE_BYTE;
static const int CDBUS_TYPE_BOOLEAN = DBUS_TYPE_BOOLEAN;
static const int CDBUS_TYPE_INT16 = DBUS_TYPE_INT16;
static const int CDBUS_TYPE_UINT16 = DBUS_TYPE_UINT16;
static const int CDBUS_TYPE_INT32 = DBUS_TYPE_INT32;
static const int CDBUS_TYPE_UINT32 = DBUS_TYPE_UINT32;
static const int CDBUS_TYPE_INT64 = DBUS_TYPE_INT64;
static const int CDBUS_TYPE_UINT64 = DBUS_TYPE_UINT64;
static const int CDBUS_TYPE_DOUBLE = DBUS_TYPE_DOUBLE;
static const int CDBUS_TYPE_STRING = DBUS_TYPE_STRING;
static const int CDBUS_TYPE_OBJECT_PATH = DBUS_TYPE_OBJECT_PATH;
static const int CDBUS_TYPE_SIGNATURE = DBUS_TYPE_SIGNATURE;
static const int CDBUS_TYPE_UNIX_FD = DBUS_TYPE_UNIX_FD;
static const int CDBUS_TYPE_ARRAY = DBUS_TYPE_ARRAY;
static const int CDBUS_TYPE_VARIANT = DBUS_TYPE_VARIANT;
static const int CDBUS_TYPE_STRUCT = DBUS_TYPE_STRUCT;
static const int CDBUS_TYPE_DICT_ENTRY = DBUS_TYPE_DICT_ENTRY;

// Timeouts: `DBUS_TIMEOUT_INFINITE` is a cast macro `((int) 0x7fffffff)`, skipped by the importer.
static const int CDBUS_TIMEOUT_INFINITE = DBUS_TIMEOUT_INFINITE;
