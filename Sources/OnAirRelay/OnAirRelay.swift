// OnAirRelay: UDP media, WHIP/WHEP HTTP, stream hub.
