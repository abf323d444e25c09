// OnAirPayload: RTP payload formats and the H.264 bitstream.
