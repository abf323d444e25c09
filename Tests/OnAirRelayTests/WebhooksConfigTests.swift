import Foundation
import OnAirWebhooks
import Testing
@testable import OnAirRelay

/// The `webhooks:` section of relay.yaml and its ONAIR_* environment overrides.
@Suite("Webhooks: config")
struct WebhooksConfigTests: RelayConfigTesting {
    let secret = "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="

    @Test("defaults: a file in the working directory, the Svix schedule, 15 s timeout, 5 s viewer interval")
    func defaults() throws {
        let webhooks = try load(nil).webhooks
        #expect(webhooks.database == "onair-relay.sqlite" && webhooks.subscribers.isEmpty)
        #expect(webhooks.retryScheduleSeconds == [0, 5, 300, 1_800, 7_200, 18_000, 36_000, 36_000])
        #expect(webhooks.retryJitter == 0.2 && webhooks.timeoutSeconds == 15 && webhooks.viewersIntervalSeconds == 5)
    }

    @Test("the section in YAML, every key")
    func yamlSection() throws {
        let webhooks = try load("""
            webhooks:
              database: /tmp/x.sqlite
              retry_schedule_seconds: [0, 1, 2]
              retry_jitter: 0
              timeout_seconds: 3
              viewers_interval_seconds: 10
              retention_days: 2
              shutdown_grace_seconds: 1
              subscribers:
                - url: http://127.0.0.1:9000/hooks/relay
                  secret: \(secret)
                  previous_secret: \(secret)
                  events: [stream.started, stream.ended]
            """).webhooks
        #expect(webhooks.database == "/tmp/x.sqlite" && webhooks.retryScheduleSeconds == [0, 1, 2] && webhooks.retryJitter == 0)
        #expect(webhooks.timeoutSeconds == 3 && webhooks.viewersIntervalSeconds == 10 && webhooks.retentionDays == 2)
        #expect(webhooks.shutdownGraceSeconds == 1)
        #expect(webhooks.subscribers == [.init(url: "http://127.0.0.1:9000/hooks/relay", secret: secret, previousSecret: secret,
                                               events: ["stream.started", "stream.ended"])])
    }

    @Test("environment: ONAIR_DATABASE, ONAIR_WEBHOOK_URL + ONAIR_WEBHOOK_SECRET, ONAIR_WEBHOOK_RETRY_SCHEDULE")
    func environment() throws {
        let webhooks = try load(nil, environment: ["ONAIR_DATABASE": "/var/lib/onair.sqlite", "ONAIR_WEBHOOK_URL": "http://127.0.0.1:1/h",
                                                   "ONAIR_WEBHOOK_SECRET": secret, "ONAIR_WEBHOOK_RETRY_SCHEDULE": "0, 0.5,2"]).webhooks
        #expect(webhooks.database == "/var/lib/onair.sqlite" && webhooks.retryScheduleSeconds == [0, 0.5, 2])
        #expect(webhooks.subscribers == [.init(url: "http://127.0.0.1:1/h", secret: secret)])
        #expect(problem(nil, environment: ["ONAIR_WEBHOOK_URL": "http://x/"])?.contains("go together") == true)
        #expect(problem(nil, environment: ["ONAIR_WEBHOOK_RETRY_SCHEDULE": "0,soon"])?.contains("comma list") == true)
    }

    @Test("mistakes are named: unknown key, bad secret, bad URL, unknown event type, duplicate URL, bad numbers")
    func problems() {
        #expect(problem("webhooks:\n  databse: x\n")?.contains("webhooks.databse") == true)
        #expect(problem("webhooks:\n  subscribers:\n    - url: http://a/\n      secret: nope\n")?.contains("whsec_") == true)
        #expect(problem("webhooks:\n  subscribers:\n    - url: ftp://a/\n      secret: \(secret)\n")?.contains("http://") == true)
        #expect(problem("webhooks:\n  subscribers:\n    - url: http://a/\n      secret: \(secret)\n      events: [stream.exploded]\n")?
            .contains("stream.exploded") == true)
        #expect(problem("webhooks:\n  subscribers:\n    - {url: 'http://a/', secret: '\(secret)'}\n    - {url: 'http://a/', secret: '\(secret)'}\n")?
            .contains("twice") == true)
        #expect(problem("webhooks:\n  retry_schedule_seconds: []\n")?.contains("at least one") == true)
        #expect(problem("webhooks:\n  retry_jitter: 2\n")?.contains("retry_jitter") == true)
        #expect(problem("webhooks:\n  viewers_interval_seconds: 0.5\n")?.contains("viewers_interval_seconds") == true)
    }
}
