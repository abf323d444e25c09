// FFmpeg 5.1 (Debian 12): demux, decode, scale, resample, V4L2 capture, AAC encode.
// Macros Swift cannot import get one-line wrappers (../../../shared/SWIFT-C-NOTES.md).
#ifndef CLIVE_FFMPEG_SHIM_H
#define CLIVE_FFMPEG_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavdevice/avdevice.h>
#include <libavutil/avutil.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/channel_layout.h>
#include <libavutil/audio_fifo.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>

static inline int clive_AVERROR(int e) { return AVERROR(e); }
static inline int clive_AVERROR_EOF(void) { return AVERROR_EOF; }
static inline int clive_AVERROR_EAGAIN(void) { return AVERROR(EAGAIN); }
static inline int clive_AVERROR_INVALIDDATA(void) { return AVERROR_INVALIDDATA; }
static inline int64_t clive_AV_NOPTS_VALUE(void) { return AV_NOPTS_VALUE; }
static inline AVRational clive_AV_TIME_BASE_Q(void) { return (AVRational){1, AV_TIME_BASE}; }
static inline const char *clive_av_err2str(int e, char *buf, size_t size) { return av_make_error_string(buf, size, e); }
#endif
