// OnAirChat: chat rooms over WebSocket, closed by the relay's stream.ended webhook.
