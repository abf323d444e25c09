// libx264 (0.164 on Debian 12). pkg-config is left off on purpose: it adds
// -DX264_API_IMPORTS, which SwiftPM rejects. <stdint.h> must precede <x264.h>.
#ifndef CLIVE_X264_SHIM_H
#define CLIVE_X264_SHIM_H
#include <stdint.h>
#include <x264.h>
// x264_encoder_open is a macro naming the versioned symbol (x264_encoder_open_164).
static inline x264_t *clive_x264_encoder_open(x264_param_t *param) { return x264_encoder_open(param); }
#endif
