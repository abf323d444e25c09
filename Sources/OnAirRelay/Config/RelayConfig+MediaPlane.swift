import NIOCore
import OnAirForwarding

extension RelayConfig {
    /// What the media plane takes from this configuration, with the UDP (and ICE-TCP) port
    /// actually bound.
    func mediaPlaneSettings(udpPort: Int, tcpPort: Int? = nil, worker: Int = 0) -> MediaPlaneSettings {
        var settings = MediaPlaneSettings()
        settings.maxSessions = limits.maxSessions
        settings.maxViewersPerRoom = limits.maxViewersPerRoom
        settings.maxMediaLoad = limits.maxMediaLoad
        settings.connectTimeoutSeconds = limits.connectTimeoutSeconds
        settings.consentTimeoutSeconds = media.consentTimeoutSeconds
        settings.viewerConsentTimeoutSeconds = media.viewerConsentTimeoutSeconds
        settings.retransmitCacheSize = media.retransmitCacheSize
        settings.maxPublishBitrate = media.maxPublishBitrate
        settings.candidateAddresses = candidateAddresses
        settings.udpPort = udpPort
        settings.tcpPort = tcpPort
        settings.worker = worker
        return settings
    }
}

extension RelayConfig {
    /// The bounds of the media workers' ICE-TCP connections.
    var tcpMediaLimits: TCPMediaLimits {
        var limits = TCPMediaLimits()
        limits.maximumConnections = media.tcpMaxConnections
        limits.connectTimeout = .milliseconds(Int64(self.limits.connectTimeoutSeconds * 1000))
        return limits
    }
}

extension RelayConfig.Media {
    /// Worker `index`'s ICE-TCP port as configured (0: ephemeral), or nil when ICE-TCP is off.
    func tcpPort(worker index: Int) -> Int? {
        guard iceTCP else { return nil }
        let first = tcpPort ?? udpPort
        return first == 0 ? 0 : first + index
    }

    /// The media workers to start: ``workers``, or one per core this process may use.
    public var workerCount: Int { workers ?? System.coreCount }
}
