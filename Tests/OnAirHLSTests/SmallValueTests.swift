import Testing

@testable import OnAirHLS

@Suite("Resource names, dates and playlist numbers")
struct SmallValueTests {
    let names = HLSResourceNames()

    @Test func namesRoundTrip() {
        #expect(names.part(57) == "part57.m4s")
        #expect(names.segment(9) == "seg9.m4s")
        #expect(names.resource(named: "part57.m4s") == .part(57))
        #expect(names.resource(named: "seg0.m4s") == .segment(0))
        #expect(names.resource(named: "init.mp4") == .initializationSegment)
        #expect(names.resource(named: "media.m3u8") == .mediaPlaylist)
        #expect(names.resource(named: "index.m3u8") == .multivariantPlaylist)
        #expect(HLSResource.part(1).contentType == "video/mp4")
        #expect(HLSResource.mediaPlaylist.contentType == "application/vnd.apple.mpegurl")
    }

    @Test(arguments: ["part.m4s", "part-1.m4s", "part+1.m4s", "part1a.m4s", "part 1.m4s", "seg1.m4s?x", "../seg1.m4s",
                      "seg١.m4s", "part1234567890123456789.m4s", "PART1.m4s", "seg1.mp4", "", "m4s", "part1.m4s.m4s"])
    func foreignNamesAreNotOurs(name: String) {
        #expect(names.resource(named: name) == nil)
    }

    @Test func programDateTimes() {
        #expect(ProgramDateTime.format(unixMilliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(ProgramDateTime.format(unixMilliseconds: 1_700_000_000_000) == "2023-11-14T22:13:20.000Z")
        #expect(ProgramDateTime.format(unixMilliseconds: 951_782_400_123) == "2000-02-29T00:00:00.123Z")
        #expect(ProgramDateTime.format(unixMilliseconds: 4_102_444_799_999) == "2099-12-31T23:59:59.999Z")
        #expect(ProgramDateTime.format(unixMilliseconds: -1) == "1969-12-31T23:59:59.999Z")
    }

    @Test func decimalSeconds() {
        #expect(MediaTime.decimalSeconds(.milliseconds(300), fractionDigits: 5) == "0.30000")
        #expect(MediaTime.decimalSeconds(MediaTime.duration(ticks: 30_000, timescale: 90_000), fractionDigits: 5) == "0.33333")
        #expect(MediaTime.decimalSeconds(.seconds(2), fractionDigits: 5) == "2.00000")
        #expect(MediaTime.decimalSeconds(.milliseconds(333), fractionDigits: 5, trimmed: true) == "0.333")
        #expect(MediaTime.decimalSeconds(.seconds(12), fractionDigits: 1) == "12.0")
        #expect(MediaTime.decimalSeconds(.nanoseconds(999_999_600), fractionDigits: 5) == "1.00000")
        #expect(MediaTime.decimalSeconds(.milliseconds(999), fractionDigits: 3) == "0.999")
    }

    @Test func ticks() {
        #expect(MediaTime.ticks(.milliseconds(333), timescale: 90_000) == 29_970)
        #expect(MediaTime.ticks(.seconds(2), timescale: 48_000) == 96_000)
        #expect(MediaTime.rescale(90_000 * 1000 + 3000, from: 90_000, to: 48_000) == 48_000 * 1000 + 1600)
        #expect(MediaTime.duration(ticks: 3000, timescale: 90_000) == .nanoseconds(33_333_333))
    }

    @Test func playlistRequestsParseOnlyDecimalIntegers() {
        #expect(PlaylistRequest(msn: "12", part: "3", skip: "YES")
                == PlaylistRequest(mediaSequence: 12, part: 3, deltaUpdate: true))
        #expect(PlaylistRequest(msn: nil, part: nil, skip: "v2").deltaUpdate)
        #expect(!PlaylistRequest(msn: nil, part: nil, skip: "yes").deltaUpdate)
        for bad in ["", "-1", "+1", " 1", "1 ", "0x10", "1.0", "١", "1234567890123456789"] {
            #expect(PlaylistRequest(msn: bad, part: nil, skip: nil).malformed != nil, "msn \(bad)")
            #expect(PlaylistRequest(msn: "1", part: bad, skip: nil).malformed != nil, "part \(bad)")
        }
    }
}
