// OnAirSDP: SDP (RFC 8866) for the WebRTC subset (RFC 8829/JSEP), offer/answer negotiation.
