// media-bench: CPU and latency of the broadcaster's media work, without the network.
//
//   (a) Opus encode of 20 ms stereo frames (test tone, stereo sine, white noise) at 64 kbit/s:
//       CPU µs per frame and % of a core at 50 frames/s. Target <= 1.5 % of a core.
//   (b) x264 encode per picture of the rendered test pattern at 1280x720, veryfast +
//       zerolatency, 2.5 Mbit/s, paced at 30 fps: wall and CPU per `encode` call, p50/p99.
//       This is the dominant part of capture-to-first-packet (target p99 <= 40 ms).
//       `--input FILE` adds the same for a file's pictures, and its decode + scale cost.
//   (c) the same-size yuv420p -> yuv420p sws_scale MediaInput runs on every picture of a
//       file already at the encoder's size, against a plain plane memcpy.
//
//   swift build -c release --product media-bench && .build/release/media-bench
//   (tools/bench/run-broadcast.sh builds and runs it together with broadcast_cpu.py)

MediaBench.main()
