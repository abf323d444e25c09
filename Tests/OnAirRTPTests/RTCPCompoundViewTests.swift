import OnAirWire
import Testing

@testable import OnAirRTP

/// The relay reads viewers' RTCP in place (``RTCPCompoundView``); ``RTCPPacket/parseCompound``
/// builds values. Both must read the same thing: every compound the value parser accepts is
/// framed alike by the view, with the same fields, and a compound whose framing is bad is
/// refused by both. Checked on realistic compounds and on thousands of mutations of them.
@Suite("RTCP compound packets read in place")
struct RTCPCompoundViewTests {
    static func samples() throws -> [[UInt8]] {
        let blocks = [ReportBlock(ssrc: 7, fractionLost: 30, cumulativeLost: -3, extendedHighestSequenceNumber: 70_000,
                                  jitter: 12, lastSenderReport: 0xABCD_0123, delaySinceLastSenderReport: 6_553),
                      ReportBlock(ssrc: 8, fractionLost: 0, cumulativeLost: 0x12345)]
        var arrivals: [Int64?] = []
        for index in 0..<40 {
            let late: Int64 = index == 20 ? 30_000 : 0
            arrivals.append(index % 7 == 3 ? nil : 1_000_000 + Int64(index) * 4_000 - late)
        }
        let feedback = try TransportWideFeedback(senderSSRC: 1, mediaSSRC: 9, baseSequenceNumber: 65_530, feedbackPacketCount: 4,
                                                 arrivalTimesMicroseconds: arrivals)
        let report = SenderReport(ssrc: 5, ntpTime: NTPTime(rawValue: 0xE87C_1A2B_4C5D_6E7F), rtpTimestamp: 90_000,
                                  packetCount: 10, octetCount: 12_000, reportBlocks: blocks)
        let nack = GenericNACK(senderSSRC: 1, mediaSSRC: 9, lostSequenceNumbers: [100, 101, 103, 130, 65_535, 0])
        let fir = FullIntraRequest(senderSSRC: 1, entries: [FullIntraRequest.Entry(ssrc: 9, sequenceNumber: 3)])
        let first: [RTCPPacket] = [.senderReport(report), .sourceDescription(SourceDescription(ssrc: 5, cname: "abcdefghijklmnop"))]
        let second: [RTCPPacket] = [.receiverReport(ReceiverReport(ssrc: 1, reportBlocks: blocks)),
                                    .remb(REMB(senderSSRC: 1, bitrate: 1_500_000, ssrcs: [9, 10])), .genericNACK(nack)]
        let third: [RTCPPacket] = [.pictureLossIndication(PictureLossIndication(senderSSRC: 1, mediaSSRC: 9)),
                                   .fullIntraRequest(fir), .transportWideFeedback(feedback)]
        let fourth: [RTCPPacket] = [.goodbye(Goodbye(ssrcs: [5])), .receiverReport(ReceiverReport(ssrc: 1, reportBlocks: []))]
        return [first, second, third, fourth].map { RTCPCompoundBuilder.serialize($0) }
    }

    /// What the view reads of `bytes`, in the terms of the values; nil when it refuses the framing.
    static func read(_ bytes: [UInt8]) -> [String]? {
        bytes.withUnsafeBytes { raw -> [String]? in
            guard let compound = try? RTCPCompoundView(raw) else { return nil }
            return compound.map { item -> String in
                switch item.kind {
                case .senderReport:
                    return "SR \(item.senderReport.map { [$0.ssrc, $0.rtpTimestamp, $0.packetCount, $0.octetCount] } as Any) \(item.senderReport?.ntpTime.rawValue as Any) \(item.reportBlocks.map(Array.init) as Any)"
                case .receiverReport: return "RR \(item.reportBlocks.map(Array.init) as Any)"
                case .genericNACK: return "NACK \(item.mediaSSRC as Any) \(item.nackItems.map(Array.init) as Any)"
                case .transportFeedback:
                    guard let view = item.transportFeedback else { return "TWCC nil" }
                    var deltas: [Int16?] = []
                    view.forEachPacket { _, delta in deltas.append(delta) }
                    return "TWCC \(view.baseSequenceNumber) \(view.referenceTime) \(view.feedbackPacketCount) \(deltas)"
                case .pictureLoss: return "PLI \(item.mediaSSRC as Any)"
                case .fullIntraRequest: return "FIR"
                case .remb: return "REMB \(item.rembBitrate as Any)"
                case .other: return "other \(item.packetType)"
                }
            }
        }
    }

    /// The same, from the parsed values.
    static func describe(_ packets: [RTCPPacket]) -> [String] {
        packets.map { packet -> String in
            switch packet {
            case .senderReport(let sr):
                return "SR \(Optional([sr.ssrc, sr.rtpTimestamp, sr.packetCount, sr.octetCount]) as Any) \(Optional(sr.ntpTime.rawValue) as Any) \(Optional(sr.reportBlocks) as Any)"
            case .receiverReport(let rr): return "RR \(Optional(rr.reportBlocks) as Any)"
            case .genericNACK(let nack): return "NACK \(Optional(nack.mediaSSRC) as Any) \(Optional(nack.items) as Any)"
            case .transportWideFeedback(let twcc):
                return "TWCC \(twcc.baseSequenceNumber) \(twcc.referenceTime) \(twcc.feedbackPacketCount) \(twcc.receiveDeltas)"
            case .pictureLossIndication(let pli): return "PLI \(Optional(pli.mediaSSRC) as Any)"
            case .fullIntraRequest: return "FIR"
            case .remb(let remb): return "REMB \(Optional(remb.bitrate) as Any)"
            case .sourceDescription: return "other 202"
            case .goodbye: return "other 203"
            case .applicationDefined: return "other 204"
            case .extendedReport: return "other 207"
            case .unknown(let type, _): return "other \(type)"
            }
        }
    }

    @Test("the view reads what the value parser reads")
    func samplesAgree() throws {
        for bytes in try Self.samples() {
            let parsed = try RTCPPacket.parseCompound(bytes)
            #expect(Self.read(bytes) == Self.describe(parsed))
        }
    }

    @Test("mutated compounds: accepted by the value parser means framed and read alike by the view; bad framing refused by both")
    func mutationsAgree() throws {
        var random = SystemRandomNumberGenerator()
        var accepted = 0
        var refused = 0
        for sample in try Self.samples() {
            for _ in 0..<3_000 {
                var bytes = sample
                for _ in 0..<Int.random(in: 1...3, using: &random) {
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0: bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                    case 1: bytes[Int.random(in: 0..<bytes.count, using: &random)] ^= 1 << UInt8.random(in: 0..<8, using: &random)
                    case 2: bytes.removeLast(Int.random(in: 0...min(8, bytes.count - 1), using: &random))
                    default: bytes[min(bytes.count - 1, 3)] &+= UInt8.random(in: 1...3, using: &random)
                    }
                }
                let viewed = Self.read(bytes)
                if let parsed = try? RTCPPacket.parseCompound(bytes) {
                    accepted += 1
                    #expect(viewed == Self.describe(parsed), "\(Hex.encode(bytes))")
                } else if viewed == nil {
                    refused += 1
                } else {
                    // A malformed message inside valid framing: the view reads the rest and
                    // gives nothing for that packet's fields.
                    refused += 1
                }
            }
        }
        #expect(accepted > 1_000 && refused > 1_000, "\(accepted) accepted, \(refused) refused")
    }

    @Test("a truncated packet inside valid framing gives no fields, the others still read")
    func malformedInsideValidFraming() throws {
        // RR, then a NACK whose body is 4 bytes (no media SSRC), then a PLI.
        let bytes = hex(RTCPCompoundTests.receiverReport + "81 cd 00 01 00 00 00 01" + "81 ce 00 02 00 00 00 01 12 34 ab cd")
        #expect(throws: WireError.self) { try RTCPPacket.parseCompound(hex("81 cd 00 01 00 00 00 01")) }
        let items = try #require(Self.read(bytes))
        #expect(items == [items[0], "NACK nil nil", "PLI Optional(305441741)"])
        let short = hex("81 cd 00 01 00 00 00 01")
        short.withUnsafeBytes { raw in
            let view = try? RTCPCompoundView(raw)
            #expect(view?.first { _ in true }?.nackItems == nil)
        }
    }
}
