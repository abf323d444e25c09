import NIOCore
import OnAirForwarding

extension RelayConfig {
    /// What the media plane takes from this configuration, with the UDP port actually bound.
    func mediaPlaneSettings(udpPort: Int, worker: Int = 0) -> MediaPlaneSettings {
        var settings = MediaPlaneSettings()
        settings.maxSessions = limits.maxSessions
        settings.maxViewersPerRoom = limits.maxViewersPerRoom
        settings.maxMediaLoad = limits.maxMediaLoad
        settings.connectTimeoutSeconds = limits.connectTimeoutSeconds
        settings.consentTimeoutSeconds = media.consentTimeoutSeconds
        settings.retransmitCacheSize = media.retransmitCacheSize
        settings.maxPublishBitrate = media.maxPublishBitrate
        settings.candidateAddresses = candidateAddresses
        settings.udpPort = udpPort
        settings.worker = worker
        return settings
    }
}

extension RelayConfig.Media {
    /// The media workers to start: ``workers``, or one per core this process may use.
    public var workerCount: Int { workers ?? System.coreCount }
}
