// Umbrella header for libpng 1.6.
#pragma once
#include <png.h>
