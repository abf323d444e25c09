import Foundation

/// Which subscriber URLs the relay posts to.
enum WebhookURL {
    /// An absolute http(s) URL with a host. Other schemes (file:, ftp:) are refused so that
    /// a subscription cannot make the relay read or talk to anything but an HTTP endpoint.
    static func isAcceptable(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty else { return false }
        return true
    }
}
