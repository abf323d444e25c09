import Foundation
import Hummingbird

/// A server's OpenAPI 3.1 document (`Web/openapi.yaml` in its module's resources), served as
/// written at `GET /api/openapi.yaml` (`application/yaml`, RFC 9512).
public struct APIDocument: Sendable {
    public let yaml: [UInt8]

    /// Reads `Web/openapi.yaml` from `bundle` (the serving module's `Bundle.module`).
    public init(bundle: Bundle) {
        if let url = bundle.url(forResource: "openapi", withExtension: "yaml", subdirectory: "Web"),
           let data = try? Data(contentsOf: url) {
            yaml = Array(data)
        } else {
            yaml = Array("openapi: 3.1.0\ninfo: {title: missing from the build, version: '0'}\npaths: {}\n".utf8)
        }
    }

    public func register<Context: RequestContext>(on router: Router<Context>) {
        let yaml = self.yaml
        router.get("/api/openapi.yaml") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "application/yaml", .cacheControl: "no-cache"],
                     body: .init(byteBuffer: ByteBuffer(bytes: yaml)))
        }
    }
}
