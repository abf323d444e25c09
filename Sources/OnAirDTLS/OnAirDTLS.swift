// OnAirDTLS: DTLS 1.2 over OpenSSL memory BIOs, sans-I/O (RFC 5764 DTLS-SRTP).
