// OnAirSTUN: STUN (RFC 8489), ICE-lite (RFC 8445 §2.5) and consent freshness (RFC 7675).
//
// Layout:
// - Messages: STUNMessage (parse/encode), STUNMessageType (method + class, §5), STUNAttribute
//   (raw type/value with typed factories and readers), STUNErrorCode (§14.8).
// - Integrity: MESSAGE-INTEGRITY (HMAC-SHA1, §14.5) and FINGERPRINT (CRC-32, §14.7) are
//   computed by `STUNMessage.encode` and checked on raw bytes by `verifyMessageIntegrity` and
//   `verifyFingerprint`, because they cover bytes exactly as they arrived.
// - ICE: ICELiteAgent answers connectivity checks as an ICE-lite, always-controlled agent;
//   ICEControllingChecker is the full, controlling side used by our broadcaster and tests.
//   Both are sans-I/O: bytes and `now` in, datagrams out.
