// Umbrella header for libpipewire-0.3 and libspa-0.2, plus thin `cpw_` shims for what Swift cannot import
// (variadic functions, function-like macros, spa_interface_call wrappers). Shims translate only.
#pragma once
#include <pipewire/pipewire.h>
#include <spa/param/video/format-utils.h>
#include <spa/param/audio/format-utils.h>
#include <spa/param/props.h>
#include <spa/buffer/meta.h>
#include <spa/utils/result.h>
#include <spa/debug/types.h>
