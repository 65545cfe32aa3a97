// Umbrella header for libdbus-1, plus thin `cdbus_` shims for macros Swift cannot import.
#pragma once
#include <dbus/dbus.h>
