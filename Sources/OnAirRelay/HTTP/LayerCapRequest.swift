import OnAirDecoding

/// The body of `PUT /whep/{room}/{session}/layer`: the tallest picture the viewer wants
/// (nil: whatever its link carries).
struct LayerCapRequest: Decodable, Sendable {
    let maxHeight: Int?

    enum CodingKeys: String, CodingKey, CaseIterable { case maxHeight = "max_height" }

    /// Unknown fields are refused (a misspelt key must not read as "automatic").
    init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
        guard container.contains(.maxHeight) else {
            throw DecodingError.keyNotFound(CodingKeys.maxHeight, .init(codingPath: [], debugDescription: "max_height is required"))
        }
        maxHeight = try container.decodeNil(forKey: .maxHeight) ? nil : container.decode(Int.self, forKey: .maxHeight)
    }
}
