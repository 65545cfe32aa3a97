// Umbrella header for libyuv (Debian's libyuv-dev ships no pkg-config file).
#pragma once
#include <libyuv.h>
