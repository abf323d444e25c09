// OnAirCrypto: OpenSSL EVP primitives and SRTP/SRTCP (RFC 3711, 6188, 7714).
