// OnAirSTUN: STUN (RFC 8489), ICE-lite (RFC 8445 §2.5) and consent freshness (RFC 7675).
