// The versioned C ABI for third-party pwrecord sink plugins. Filled in by the Sinks issue; see docs/plugins.md.
#pragma once
#include <stdint.h>
