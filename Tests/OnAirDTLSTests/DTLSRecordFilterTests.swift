@testable import OnAirDTLS
import Testing

@Suite("DTLS record framing filter (RFC 6347 §4.1)")
struct DTLSRecordFilterTests {
    /// A record header plus `length` body bytes of `fill`.
    static func record(type: UInt8 = 22, epoch: UInt16 = 0, length: Int, fill: UInt8 = 0xAA) -> [UInt8] {
        [type, 0xFE, 0xFD, UInt8(epoch >> 8), UInt8(epoch & 0xFF), 0, 0, 0, 0, 0, 7,
         UInt8(length >> 8), UInt8(length & 0xFF)] + [UInt8](repeating: fill, count: length)
    }

    @Test("Well-formed datagrams pass unchanged")
    func wellFormed() {
        let datagram = Self.record(length: 100) + Self.record(type: 20, length: 1) + Self.record(type: 23, epoch: 1, length: 40)
        #expect(DTLSRecordFilter.sanitize(datagram) == datagram)
        let alert = Self.record(type: 21, epoch: 0, length: 2)
        #expect(DTLSRecordFilter.sanitize(alert) == alert)
    }

    @Test("A protected record too short for a GCM nonce and tag is dropped, its neighbours kept")
    func shortProtectedRecord() {
        let good = Self.record(type: 23, epoch: 1, length: 24, fill: 1)
        let short = Self.record(type: 23, epoch: 1, length: 23, fill: 2)
        #expect(DTLSRecordFilter.sanitize(short) == nil)
        #expect(DTLSRecordFilter.sanitize(good + short + good) == good + good)
    }

    @Test("Framing errors end the datagram; empty input yields nothing")
    func framingErrors() {
        let good = Self.record(length: 10)
        #expect(DTLSRecordFilter.sanitize([]) == nil)
        #expect(DTLSRecordFilter.sanitize(Array(good.prefix(12))) == nil)
        #expect(DTLSRecordFilter.sanitize(good + Array(good.prefix(12))) == good)
        #expect(DTLSRecordFilter.sanitize(good + Self.record(type: 24, length: 3) + good) == good)
        var tls = Self.record(length: 3)
        tls[1] = 0x03 // TLS, not DTLS
        #expect(DTLSRecordFilter.sanitize(tls) == nil)
        var overlong = Self.record(length: 10)
        overlong[12] = 11 // claims one byte more than present
        #expect(DTLSRecordFilter.sanitize(overlong) == nil)
        #expect(DTLSRecordFilter.sanitize(good + overlong) == good)
    }
}
