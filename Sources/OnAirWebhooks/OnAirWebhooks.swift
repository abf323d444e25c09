// OnAirWebhooks: Standard Webhooks signatures and the stream event envelope.
