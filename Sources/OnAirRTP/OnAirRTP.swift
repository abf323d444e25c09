// OnAirRTP: RTP/RTCP packets (RFC 3550, 4585, 5104, 8285), feedback and payload formats.
