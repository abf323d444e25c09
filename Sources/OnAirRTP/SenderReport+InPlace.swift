extension SenderReport {
    /// Writes this report (without report blocks or a profile extension) and an SDES packet
    /// with its SSRC's CNAME, as one RTCP compound packet (RFC 3550 §6.1: an SR first, SDES
    /// with CNAME in every compound), into `buffer`, without allocating: what a relay sends
    /// each viewer for every sender report it translates. The octets are those of
    /// ``RTCPCompoundBuilder/serialize(_:)`` for the same two packets. Returns the length, or
    /// nil when `buffer` is too small.
    public func writeCompound(cname: String, into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        let nameLength = min(cname.utf8.count, 255)
        let itemsSize = 2 + nameLength
        let chunkSize = 4 + itemsSize + (4 - itemsSize % 4)
        let length = 28 + 4 + chunkSize
        guard buffer.count >= length else { return nil }
        // SR: V=2, no padding, RC=0; PT 200; length 6 (32-bit words minus one).
        buffer[0] = 0x80
        buffer[1] = 200
        buffer.storeBytes(of: UInt16(6).bigEndian, toByteOffset: 2, as: UInt16.self)
        buffer.storeBytes(of: ssrc.bigEndian, toByteOffset: 4, as: UInt32.self)
        buffer.storeBytes(of: ntpTime.rawValue.bigEndian, toByteOffset: 8, as: UInt64.self)
        buffer.storeBytes(of: rtpTimestamp.bigEndian, toByteOffset: 16, as: UInt32.self)
        buffer.storeBytes(of: packetCount.bigEndian, toByteOffset: 20, as: UInt32.self)
        buffer.storeBytes(of: octetCount.bigEndian, toByteOffset: 24, as: UInt32.self)
        // SDES: SC=1; PT 202; one chunk: SSRC, CNAME item, then a null item padding to 32 bits.
        buffer[28] = 0x81
        buffer[29] = 202
        buffer.storeBytes(of: UInt16((4 + chunkSize) / 4 - 1).bigEndian, toByteOffset: 30, as: UInt16.self)
        buffer.storeBytes(of: ssrc.bigEndian, toByteOffset: 32, as: UInt32.self)
        buffer[36] = SDESItem.cname
        buffer[37] = UInt8(nameLength)
        var offset = 38
        for byte in cname.utf8.prefix(nameLength) {
            buffer[offset] = byte
            offset += 1
        }
        while offset < length {
            buffer[offset] = 0
            offset += 1
        }
        return length
    }
}
